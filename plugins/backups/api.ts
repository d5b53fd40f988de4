// The backups plugin's public API: what a plugin that requires it gets as ctx.deps.backups.
import { extensionPoint, pluginRef, type PluginRef } from '../../sdk/index.ts';
import type { BackupTarget } from './targets.ts';

export type { BackupTarget, Prepared, Source, TargetIo } from './targets.ts';

/** what other plugins may do with backups: nothing yet (a new kind of thing to back up comes through the extension point backupTargets) */
export type BackupsApi = Record<string, never>;

/** a new kind of thing to back up, selected by `targets.<key>` in a definition (the sites plugin adds `sites`) */
export const backupTargets = extensionPoint<BackupTarget>('backups', 'targets', { resource: 'backup target' });

/** `requires: [backupsPlugin]` types ctx.deps.backups */
export const backupsPlugin: PluginRef<'backups', BackupsApi> = pluginRef('backups');
