// The docker plugin's public API: what a plugin that requires it gets as ctx.deps.docker.
import { pluginRef, type PluginRef } from '../../sdk/index.ts';
import type { DockerRuntime } from './types.ts';

export type { ContainerStatus, DeployIo, DeployResult, DockerRuntime, LoadedCompose, ServiceStatus } from './types.ts';

/** `requires: [dockerPlugin]` types ctx.deps.docker */
export const dockerPlugin: PluginRef<'docker', DockerRuntime> = pluginRef('docker');
