// A backup run: targets prepared (dumps written, containers stopped), one restic snapshot with progress in the job output, then retention.
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobRun, Logger } from '../../sdk/index.ts';
import { bytes, isMissingRepository, restic, scrub, secretsOf, type Repository, type ResticEnv, type ResticSnapshot } from './restic.ts';
import type { BackupRow, BackupStore, LastRun, Retention } from './store.ts';
import { backupTag, logicalOf, sourceTagOf, type BackupTarget, type DumpStream, type Prepared } from './targets.ts';

export interface RunDeps extends ResticEnv {
  store: BackupStore;
  targets: ReadonlyMap<string, BackupTarget>;
  /** where targets stage their files during a run */
  stageDir: string;
  progressIntervalMs: number;
  log: Logger;
  emit(event: string, payload: Record<string, unknown>): void;
}

export interface RunInput { backup: string; scheduled: boolean }

interface Summary {
  snapshot_id: string; files_new: number; files_changed: number; files_unmodified: number;
  data_added: number; total_files_processed: number; total_bytes_processed: number; total_duration: number;
}

/** opens the repository, and creates it when there is none yet (only before the first successful use: a repository that vanishes later is an error, not a fresh start) */
export async function ensureRepository(deps: Pick<RunDeps, 'store' | keyof ResticEnv>, row: BackupRow, repo: Repository, job: { log(l: string): void; signal: AbortSignal }): Promise<void> {
  if (row.initialized) return;
  const opts = { signal: job.signal };
  // every restic command derives the key from the password (about half a second): a local folder is looked at, not opened
  if (repo.url.startsWith('/') && !existsSync(join(repo.url, 'config'))) {
    job.log(`initialising the repository at ${row.repositoryDisplay ?? 'the default folder'}`);
    await mkdir(repo.url, { recursive: true, mode: 0o700 });
    await restic(repo, ['init'], deps, opts);
    return deps.store.markInitialized(row.name);
  }
  try {
    await restic(repo, ['cat', 'config'], deps, opts);
    job.log('repository found');
  } catch (err) {
    if (!isMissingRepository(err)) throw err;
    job.log(`initialising the repository at ${row.repositoryDisplay}`);
    await restic(repo, ['init'], deps, opts);
  }
  await deps.store.markInitialized(row.name);
}

export function retentionArgs(r: Retention): string[] {
  const flags: [keyof Retention, string][] = [['last', '--keep-last'], ['hourly', '--keep-hourly'], ['daily', '--keep-daily'], ['weekly', '--keep-weekly'], ['monthly', '--keep-monthly'], ['yearly', '--keep-yearly']];
  return flags.filter(([k]) => r[k] !== undefined).flatMap(([k, flag]) => [flag, String(r[k])]);
}

/** the snapshots of this backup in its repository, oldest first */
export async function snapshotsOf(deps: ResticEnv, repo: Repository, backup: string, signal?: AbortSignal): Promise<ResticSnapshot[]> {
  const { stdout } = await restic(repo, ['snapshots', '--json', '--no-lock', '--tag', backupTag(backup)], deps, { signal });
  const all = (JSON.parse(stdout || '[]') as ResticSnapshot[] | null) ?? [];
  const verified = await deps.verifiedAt?.(backup);
  if (verified?.size) for (const s of all) { const at = verified.get(s.id); if (at) s.verifiedAt = at; }
  return all;
}

/** restic backup status lines as job lines: at most one per interval, and the last from its summary (whose counts are final) */
export function progressLogger(log: (line: string) => void, intervalMs: number) {
  let last = 0;
  let ended = false;
  return (s: { percent_done?: number; total_files?: number; files_done?: number; total_bytes?: number; bytes_done?: number }, end = false) => {
    const now = Date.now();
    const pct = Math.floor((s.percent_done ?? 0) * 100);
    // restic's status at 100% can come before its counts are final: the end (from its summary) says that line
    if (ended || (!end && (pct >= 100 || now - last < intervalMs))) return;
    ended = end;
    last = now;
    log(`progress ${pct}% · ${s.files_done ?? 0}/${s.total_files ?? '?'} files · ${bytes(s.bytes_done ?? 0)}/${bytes(s.total_bytes ?? 0)}`);
  };
}

/** one dump taken: its file in the snapshot, the snapshot, its size */
export interface DumpResult { file: string; snapshot: string; bytes: number; bytesAdded: number }

/** a dump streamed into `restic backup --stdin`: no file on disk, restic's input is the container's stdout with backpressure */
async function streamDump(deps: RunDeps, repo: Repository, backup: string, stream: DumpStream, job: JobRun<RunInput>): Promise<DumpResult> {
  job.log(`dump: ${stream.what} → ${stream.filename}`);
  let summary: Summary | undefined;
  const tags = [backupTag(backup), ...stream.tags].flatMap((t) => ['--tag', t]);
  await restic(repo, ['backup', '--json', '--stdin', '--stdin-filename', stream.filename.slice(1), ...tags], deps, {
    signal: job.signal,
    stdin: (input) => stream.produce(input),
    onLine(line) {
      try {
        const msg = JSON.parse(line) as { message_type?: string };
        if (msg.message_type === 'summary') summary = msg as unknown as Summary;
      } catch { /* restic's non-JSON lines */ }
    },
  });
  if (!summary) throw new Error('restic finished without a summary');
  job.log(`dump: ${stream.what}: snapshot ${summary.snapshot_id}, ${bytes(summary.total_bytes_processed)} (${bytes(summary.data_added)} added)`);
  return { file: stream.filename, snapshot: summary.snapshot_id, bytes: summary.total_bytes_processed, bytesAdded: summary.data_added };
}

export async function runBackup(deps: RunDeps, job: JobRun<RunInput>): Promise<unknown> {
  const name = job.input.backup;
  const row = await deps.store.get(name);
  if (!row) throw new Error(`backup ${name} no longer exists`);
  const repo = deps.store.repositoryOf(row);
  for (const secret of secretsOf(repo)) job.redact(secret);
  const startedAt = new Date();
  const ropts = { signal: job.signal };
  const stageRoot = join(deps.stageDir, name);
  const finish = async (status: LastRun['status'], fields: Partial<LastRun>, count: number | null) => {
    const finishedAt = new Date();
    await deps.store.finishRun(name, {
      jobId: job.id, status, at: startedAt.toISOString(), finishedAt: finishedAt.toISOString(), snapshot: null, files: null, bytesAdded: null,
      totalBytes: null, durationMs: finishedAt.getTime() - startedAt.getTime(), error: null, scheduled: job.input.scheduled, ...fields,
    }, count).catch((err) => deps.log.error({ err, backup: name }, 'could not record the run'));
  };

  try {
    await ensureRepository(deps, row, repo, job);
    await rm(stageRoot, { recursive: true, force: true });
    const prepared: { key: string; p: Prepared }[] = [];
    let summary: Summary | undefined;
    let incomplete = false;
    const dumps: DumpResult[] = [];
    try {
      for (const [key, value] of Object.entries(row.targets)) {
        const target = deps.targets.get(key);
        if (!target) throw new Error(`no backup target "${key}" is registered (is the plugin that provides it enabled?)`);
        if (target.empty?.(value)) continue;
        const stageDir = join(stageRoot, key);
        await mkdir(stageDir, { recursive: true, mode: 0o700 });
        prepared.push({ key, p: await target.prepare(value, { log: job.log, redact: job.redact, signal: job.signal, backup: name, consistency: row.consistency, stageDir, runId: job.id }) });
      }
      const sources = prepared.flatMap(({ key, p }) => p.sources.map((s) => ({ logical: logicalOf(key, s), path: s.path })));
      const streams = prepared.flatMap(({ p }) => p.streams ?? []);
      if (!sources.length && !streams.length) throw new Error('nothing to back up: the targets hold no data (yet)');
      for (const stream of streams) dumps.push(await streamDump(deps, repo, name, stream, job));
      if (!sources.length) {
        const last = dumps.at(-1)!;
        summary = { snapshot_id: last.snapshot, files_new: dumps.length, files_changed: 0, files_unmodified: 0, data_added: dumps.reduce((n, d) => n + d.bytesAdded, 0), total_files_processed: dumps.length, total_bytes_processed: dumps.reduce((n, d) => n + d.bytes, 0), total_duration: 0 };
      } else {
        job.log(`snapshot of ${sources.map((s) => s.logical).join(', ')}`);
        const progress = progressLogger(job.log, deps.progressIntervalMs);
        const tags = [backupTag(name), ...sources.map((s) => sourceTagOf(s.logical, s.path))].flatMap((t) => ['--tag', t]);
        const { code, stderr } = await restic(repo, ['backup', '--json', ...tags, '--', ...sources.map((s) => s.path)], deps, {
          ...ropts,
          onLine(line) {
            let msg: { message_type?: string } & Record<string, unknown>;
            try { msg = JSON.parse(line); } catch { return; }
            if (msg.message_type === 'status') progress(msg as Parameters<typeof progress>[0]);
            else if (msg.message_type === 'summary') {
              summary = msg as unknown as Summary;
              // restic's last status may come before it is done (or none comes, for a small run): the end says it all
              progress({ percent_done: 1, files_done: summary.total_files_processed, total_files: summary.total_files_processed, bytes_done: summary.total_bytes_processed, total_bytes: summary.total_bytes_processed }, true);
            }
          },
        }, [0, 3]);
        if (code === 3) {
          incomplete = true;
          for (const l of stderr.split('\n').filter((x) => x.includes('"message_type":"error"')).slice(0, 20)) {
            const e = JSON.parse(l) as { item?: string; error?: { Op?: string; Err?: unknown } | string };
            job.log(`warning: could not read ${e.item ?? 'an item'}`);
          }
          job.log('the snapshot is incomplete: some files could not be read');
        }
      }
    } finally {
      for (const { key, p } of prepared.reverse()) {
        if (!p.release) continue;
        try {
          await p.release();
        } catch (err) {
          job.log(`${key}: ${(err as Error).message}`);
          throw err;
        }
      }
      await rm(stageRoot, { recursive: true, force: true });
    }
    if (!summary) throw new Error('restic finished without a summary');
    job.log(`snapshot ${summary.snapshot_id}: ${summary.total_files_processed} files (${summary.files_new} new, ${summary.files_changed} changed), ${bytes(summary.total_bytes_processed)} read, ${bytes(summary.data_added)} added`);

    let kept: ResticSnapshot[] | null = null;
    let removed = 0;
    if (row.retention && retentionArgs(row.retention).length) {
      job.log(`retention: forget --prune ${retentionArgs(row.retention).join(' ')}`);
      // dumps are snapshots of their own: each file is a group of its own (its path names stack, service and database)
      const groupBy = row.targets.databases !== undefined ? 'paths' : '';
      const { stdout } = await restic(repo, ['forget', '--json', '--prune', '--group-by', groupBy, '--tag', backupTag(name), ...retentionArgs(row.retention)], deps, ropts);
      const groups = (JSON.parse(stdout.split('\n').find((l) => l.startsWith('[')) ?? '[]') ?? []) as { keep?: ResticSnapshot[]; remove?: ResticSnapshot[] | null }[];
      kept = groups.flatMap((g) => g.keep ?? []);
      removed = groups.reduce((n, g) => n + (g.remove?.length ?? 0), 0);
      job.log(`retention: ${kept.length} snapshots kept, ${removed} removed`);
    } else if (row.snapshotCount === null) {
      kept = await snapshotsOf(deps, repo, name, job.signal);
    }
    const count = kept?.length ?? row.snapshotCount! + 1;
    // restic 0.14's summary names the snapshot by its short id; the full one comes with a listing when there is one anyway
    const full = kept?.find((s) => s.id.startsWith(summary!.snapshot_id))?.id ?? summary.snapshot_id;
    const durationMs = Date.now() - startedAt.getTime();
    const result = {
      snapshot: full, shortId: full.slice(0, 8), files: summary.total_files_processed, filesNew: summary.files_new, filesChanged: summary.files_changed,
      bytesAdded: summary.data_added, totalBytes: summary.total_bytes_processed, durationMs, incomplete, snapshots: count, removedSnapshots: removed,
      ...(dumps.length ? { dumps } : {}),
    };
    await finish('succeeded', { snapshot: full, files: result.files, bytesAdded: result.bytesAdded, totalBytes: result.totalBytes, durationMs }, count);
    deps.emit('backup.succeeded', { backup: name, jobId: job.id, snapshot: full, scheduled: job.input.scheduled });
    return result;
  } catch (err) {
    await finish('failed', { error: scrub((err as Error).message, secretsOf(repo)) }, null);
    // no error text in the event: listeners read the job, whose error is redacted
    deps.emit('backup.failed', { backup: name, jobId: job.id, scheduled: job.input.scheduled });
    throw err;
  }
}
