// The edge plugin's public API: what a plugin that requires it gets as ctx.deps.edge.
import { pluginRef, type PluginRef } from '../../sdk/index.ts';
import type { EdgeApi } from './types.ts';

export type { EdgeApi } from './types.ts';

/** `requires: [edgePlugin]` types ctx.deps.edge */
export const edgePlugin: PluginRef<'edge', EdgeApi> = pluginRef('edge');
