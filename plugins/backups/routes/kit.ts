// What the backup route groups share: the deps, the schemas of a backup and its snapshots, the view, and finding a backup the caller may see.
import { Nullable, problem, Type, type Actor, type Job, type Principal } from '../../../sdk/index.ts';
import type { RestoreDeps } from '../restore.ts';
import type { Repository } from '../restic.ts';
import type { ReadDeps } from '../snapshots.ts';
import { nextSlot } from '../schedule.ts';
import type { BackupRow, BackupStore } from '../store.ts';
import type { BackupTarget } from '../targets.ts';
import type { DbRestoreDeps } from '../db-restore.ts';
import type { Downloads } from '../db-download.ts';

export const BackupName = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: 'lowercase letters, digits and -' });
export const Params = Type.Object({ name: BackupName });
export const SnapshotRef = Type.String({ pattern: '^(latest|[0-9a-f]{4,64})$', description: '"latest" or a snapshot id (or a unique prefix of one)' });

export const resourceOf = (name: string) => `backup:${name}`;

export interface RouteDeps {
  store: BackupStore;
  targets: ReadonlyMap<string, BackupTarget>;
  restore: RestoreDeps;
  read: ReadDeps;
  repositoryRoots: readonly string[];
  startRun(name: string, actor: Actor): Promise<Job & { attached: boolean }>;
  startRestore(input: { backup: string; snapshot: string; paths: string[]; target: string; overwrite: boolean; stack?: string; service?: string }, actor: Actor): Promise<Job>;
  /** whether a restore of this backup is queued or running */
  restoreOpen(name: string): Promise<boolean>;
  dbRestore: DbRestoreDeps;
  downloads: Downloads;
  /** makes the stack `into` from the source stack's current compose file (412 when it exists, as a create would) */
  createStackFrom(source: string, into: string, principal: Principal): Promise<void>;
  /** an entry of the activity log (reads that hand out data: downloads) */
  audit(entry: { actor: Actor; action: string; resource: string; result: string; detail?: Record<string, unknown> }): Promise<void>;
  /** which of these backups the caller may see (`read`) or run and restore (`act`): the access lists of the stacks they hold */
  visible(principal: Principal, names: readonly string[], need: 'read' | 'act'): Promise<(name: string) => boolean>;
}

const Num = Nullable(Type.Number());
export const SnapshotSchema = Type.Object({
  id: Type.String(), shortId: Type.String(), time: Type.String(), hostname: Type.String(), sources: Type.Array(Type.String()),
  kind: Type.Union([Type.Literal('files'), Type.Literal('database')], { description: 'files: folders (volumes, the sites); database: one dump of a service' }),
  stack: Nullable(Type.String()), service: Nullable(Type.String()), strategy: Nullable(Type.String()),
  database: Nullable(Type.String({ description: 'the database dumped; null for the roles (globals) of a postgres server' })),
  file: Nullable(Type.String({ description: "the dump's path in the snapshot" })),
  release: Nullable(Type.String({ description: "the stack's revision when the dump was made" })),
  verifiedAt: Nullable(Type.String({ description: 'when a test restore last proved the dump (null until verified)' })),
});
const Kept = Type.Optional(Type.Integer());
export const BackupViewSchema = Type.Object({
  name: Type.String(),
  targets: Type.Record(Type.String(), Type.Unknown()),
  repository: Type.Object({ default: Type.Boolean(), url: Nullable(Type.String()), env: Type.Array(Type.String()), sshKey: Type.Boolean({ description: 'whether an ssh key is kept for the sftp repository (never the key)' }), initialized: Type.Boolean() }),
  schedule: Nullable(Type.String()),
  nextRun: Nullable(Type.String()),
  retention: Nullable(Type.Object({ last: Kept, hourly: Kept, daily: Kept, weekly: Kept, monthly: Kept, yearly: Kept })),
  consistency: Type.Union([Type.Literal('live'), Type.Literal('stop')]),
  lastRun: Nullable(Type.Object({
    jobId: Type.String(), status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]), at: Type.String(), finishedAt: Type.String(),
    snapshot: Nullable(Type.String()), files: Num, bytesAdded: Num, totalBytes: Num, durationMs: Type.Number(), error: Nullable(Type.String()), scheduled: Type.Boolean(),
  })),
  snapshots: Num,
  missed: Nullable(Type.Object({ slot: Type.String() })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export function backupView(row: BackupRow) {
  let nextRun: string | null = null;
  if (row.schedule) nextRun = nextSlot(row.schedule, new Date())?.toISOString() ?? null;
  return {
    name: row.name,
    targets: row.targets,
    repository: { default: row.repositorySealed === null, url: row.repositoryDisplay, env: row.repositoryEnvNames, sshKey: row.repositorySshKeySealed !== null, initialized: row.initialized },
    schedule: row.schedule,
    nextRun,
    retention: row.retention,
    consistency: row.consistency,
    lastRun: row.lastRun,
    snapshots: row.snapshotCount,
    missed: row.missedSlot ? { slot: row.missedSlot } : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** the helpers every group uses to find the backup a request names */
export interface BackupRouteKit {
  /** the backup, when the caller may see it (404 otherwise, as for one that does not exist), and act on it when asked (403) */
  rowOf(name: string, principal: Principal, need?: 'read' | 'act'): Promise<BackupRow>;
  repoOf(row: BackupRow): Repository;
}

export function backupRouteKit(deps: RouteDeps): BackupRouteKit {
  const { store } = deps;
  const rowOf = async (name: string, principal: Principal, need: 'read' | 'act' = 'read') => {
    const row = await store.get(name);
    if (!row || !(await deps.visible(principal, [name], 'read'))(name)) throw problem(404, `no backup "${name}"`);
    if (need === 'act' && !(await deps.visible(principal, [name], 'act'))(name)) throw problem(403, `your role on the stacks of backup "${name}" does not allow acting on it`, { code: 'stack-role' });
    return row;
  };
  const repoOf = (row: BackupRow): Repository => store.repositoryOf(row);
  return { rowOf, repoOf };
}

/** a repository that cannot be read is the backend's failure (502), not ours; problems pass through */
export async function readRepo<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if ((err as { status?: number }).status) throw err;
    throw problem(502, (err as Error).message, { code: 'repository-unreadable' });
  }
}
