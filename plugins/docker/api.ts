// The docker plugin's public API: what a plugin that requires it gets as ctx.deps.docker.
import { extensionPoint, pluginRef, type PluginRef } from '../../sdk/index.ts';
import type { AccessGuard, DockerRuntime, EdgeRouting, GitContextFetcher, ImageUser, RegistryAuthProvider } from './types.ts';

export { uncarriedBuildOption } from './compose/build-options.ts';
export { isRemoteContext } from './compose/git-context.ts';
export { policyHost, registryHost } from './registry-names.ts';
export { RegistryAuthRefused, RegistryUnreachable, transportFailure, verifyLogin } from './registry-auth.ts';
export { dockerNetworkNames, edgeNetworkLabel, edgeNetworkName, servingRole } from './labels.ts';
export type { AccessGuard, ImageUser, ImageUse, ComposeProject, GitContext, GitContextFetcher, ImageIssue, ContainerStatus, DeployIo, DeployResult, DockerRuntime, EdgeRouting, InstallationVolume, LoadedCompose, NormalizedService, PreviewOf, RegistryAuthProvider, ServiceStatus } from './types.ts';
export { previewLabels } from './preview.ts';

/** which compose projects a caller may see or act on (the stacks plugin's access lists); the first one decides */
export const accessGuards = extensionPoint<AccessGuard>('docker', 'access-guard');
/** credentials for pulling from a registry (the registries plugin); the first one answers */
export const registryAuths = extensionPoint<RegistryAuthProvider>('docker', 'registry-auth');

/** who fetches build contexts given as git URLs (the git plugin); the first one fetches */
export const gitContexts = extensionPoint<GitContextFetcher>('docker', 'git-context');

/** the edge's view of the services it routes: they are replaced start-first, switched over when ready (the edge plugin); the first one answers */
export const edgeRoutings = extensionPoint<EdgeRouting>('docker', 'edge-routing');

/** who uses which images besides containers (the releases plugin: its releases; the sites plugin: its build images): what the images list shows and pruning keeps */
export const imageUsers = extensionPoint<ImageUser>('docker', 'image-users');

/** `requires: [dockerPlugin]` types ctx.deps.docker */
export const dockerPlugin: PluginRef<'docker', DockerRuntime> = pluginRef('docker');
