// The backup target extension point: what a definition's `targets` entries mean, and how their folders are named in a snapshot.
import type { Actor, Principal, TSchema } from '../../sdk/index.ts';

export interface TargetIo {
  log(line: string): void;
  redact(secret: string): void;
  signal: AbortSignal;
  /** the backup being run */
  backup: string;
  /** `stop`: stop what writes to the data while the snapshot is taken */
  consistency: 'live' | 'stop';
  /** an empty folder of this target for files it produces (a dump); removed after the run */
  stageDir: string;
  /** the run's id (its job's): snapshots of one run carry it */
  runId: string;
}

/**
 * A dump streamed into a snapshot of its own (`restic backup --stdin`): `produce` writes it into `into` and resolves
 * when it is complete; when it rejects, restic is stopped before its input ends and no snapshot is written.
 */
export interface DumpStream {
  /** its path in the snapshot (/databases/<stack>/<service>/<file>) */
  filename: string;
  tags: string[];
  /** for the job log */
  what: string;
  produce(into: import('node:stream').Writable): Promise<void>;
}

/** one folder to snapshot: `name` is where it appears below the target's folder in the snapshot ('' for the folder itself) */
export interface Source { name: string; path: string }

export interface Prepared {
  sources: Source[];
  /** dumps taken as snapshots of their own, after the folders' snapshot */
  streams?: DumpStream[];
  /** runs after the snapshot whatever happened (start stopped containers again); a failure fails the run */
  release?(): Promise<void>;
}

/**
 * A kind of thing a backup can hold. Plugins contribute targets (the extension point `backupTargets`); a definition selects them by key in
 * its `targets` object, and every file of a target lives below `/<key>/` in the snapshot.
 */
export interface BackupTarget {
  /** ^[a-z][a-z0-9-]*$ */
  key: string;
  description: string;
  /** the value of `targets.<key>` in a definition */
  schema: TSchema;
  /** true when the value selects nothing (false, []) */
  empty?(value: unknown): boolean;
  /** the resources (`stack:<name>`) a value holds: a backup is visible to whom may see every one of them (kernel visibility rules) */
  resources?(value: unknown): string[];
  /** may this caller define a backup of it? Throws a problem (403, 404, 422) when not. */
  check(value: unknown, principal: Principal): Promise<void>;
  prepare(value: unknown, io: TargetIo): Promise<Prepared>;
  /** putting this target's folders of a snapshot back where they came from: a restore with `target` set to `restore.target` */
  restore?: RestoreInto;
}

/**
 * A restore back into a target's own resources (the sites plugin's `site`), beside the folder and new-volume restores
 * every target has. It takes whole folders of the target (/<key>/<name>), as the snapshot holds them.
 */
export interface RestoreInto {
  /** the value of a restore's `target` that means this ("site") */
  target: string;
  description: string;
  /**
   * Refuses (403, 404, 409 with code would-overwrite, 422) before anything is touched. `names`: the folders chosen, below
   * /<key>/; `principal` is absent when the job plans again before it starts.
   */
  check(names: string[], opts: { overwrite: boolean; principal?: Principal }): Promise<void>;
  /** each chosen folder, restored from the repository into `path` (a staging folder removed afterwards), put back */
  apply(restored: { name: string; path: string }[], io: { log(line: string): void; actor: Actor; signal: AbortSignal }): Promise<void>;
}

/** a source's folder in the snapshot's own naming: /<key>/<name> */
export const logicalOf = (key: string, source: Source): string => `/${key}${source.name ? `/${source.name}` : ''}`;

/** snapshots carry where each folder came from, so they can be read (and restored) without this database */
const sourceTag = 'dw-source:';
export const backupTag = (backup: string): string => `dw-backup:${backup}`;
export function sourceTagOf(logical: string, path: string): string {
  if (path.includes(',') || logical.includes(',')) throw new Error(`the path "${path}" holds a comma, which restic tags cannot carry`);
  return `${sourceTag}${logical}=${path}`;
}

/** a snapshot's folders: its logical name (/stacks/app/app_data) → the host path restic read it from */
export interface Mapped { logical: string; path: string }
export function sourcesOf(tags: readonly string[] | undefined): Mapped[] {
  return (tags ?? []).filter((t) => t.startsWith(sourceTag)).map((t) => {
    const body = t.slice(sourceTag.length);
    const eq = body.indexOf('=');
    return { logical: body.slice(0, eq), path: body.slice(eq + 1) };
  }).filter((m) => m.logical.startsWith('/') && m.path.startsWith('/'));
}
