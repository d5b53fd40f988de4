// Downloads of database dumps (restore target "download"): one-time paths under /api/v1/backups/{name}/downloads/{id} for the actor who asked, the dump streamed from `restic dump`.
import { createHash, randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Actor, Db, JobRun } from '../../sdk/index.ts';
import { dumpsFor } from './db-restore.ts';
import { restic, secretsOf, type Repository, type ResticEnv } from './restic.ts';
import { snapshotsOf } from './run.ts';
import type { BackupStore } from './store.ts';

/** how long a download path stays valid */
const downloadTtlMs = 3_600_000;
const hashOf = (id: string) => createHash('sha256').update(id).digest('hex');
const actorKey = (actor: Actor) => `${actor.kind}:${actor.name ?? ''}`;

export function createDownloads(db: Db) {
  return {
    /** a one-time path per dump for this actor */
    async issue(backup: string, dumps: { snapshot: string; file: string }[], actor: Actor) {
      const expiresAt = new Date(Date.now() + downloadTtlMs);
      const out: { id: string; snapshot: string; file: string; expiresAt: string }[] = [];
      for (const d of dumps) {
        const id = randomBytes(24).toString('base64url');
        await db.query('INSERT INTO backup_downloads (id_hash, backup, snapshot, file, actor, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
          [hashOf(id), backup, d.snapshot, d.file, actorKey(actor), expiresAt]);
        out.push({ id, snapshot: d.snapshot, file: d.file, expiresAt: expiresAt.toISOString() });
      }
      await db.query('DELETE FROM backup_downloads WHERE expires_at < now()');
      return out;
    },
    /** the download behind an id, used up by this call; null when unknown, used, expired, another backup's or another actor's */
    async take(backup: string, id: string, actor: Actor): Promise<{ snapshot: string; file: string } | null> {
      const { rows } = await db.query<{ snapshot: string; file: string }>(
        'DELETE FROM backup_downloads WHERE id_hash = $1 AND backup = $2 AND actor = $3 AND expires_at > now() RETURNING snapshot, file',
        [hashOf(id), backup, actorKey(actor)]);
      return rows[0] ?? null;
    },
  };
}
export type Downloads = ReturnType<typeof createDownloads>;

export interface DownloadDeps extends ResticEnv { store: BackupStore; downloads: Downloads }

/** the job of a restore with target "download": the dumps chosen, a one-time path for each */
export async function runDownload(deps: DownloadDeps, job: JobRun<{ backup: string; snapshot: string; stack?: string; service?: string }>): Promise<unknown> {
  const { backup, stack, service } = job.input as Required<typeof job.input>;
  const row = await deps.store.get(backup);
  if (!row) throw new Error(`backup ${backup} no longer exists`);
  const repo = deps.store.repositoryOf(row);
  for (const secret of secretsOf(repo)) job.redact(secret);
  const dumps = dumpsFor(await snapshotsOf(deps, repo, backup, job.signal), backup, stack, service, job.input.snapshot);
  const issued = await deps.downloads.issue(backup, dumps.map((d) => ({ snapshot: d.snapshot.id, file: d.file })), job.actor);
  job.log(`${issued.length} download path(s), each usable once by ${job.actor.name ?? job.actor.kind} until ${issued[0]?.expiresAt}`);
  return {
    target: 'download', stack, service,
    downloads: issued.map((d, i) => ({ database: dumps[i].database, snapshot: d.snapshot, file: d.file, path: `/api/v1/backups/${backup}/downloads/${d.id}`, expiresAt: d.expiresAt })),
  };
}

/** the dump as a stream: restic dump's stdout, restic ended when the reader goes away */
export function dumpStream(deps: ResticEnv, repo: Repository, snapshot: string, file: string): PassThrough {
  const out = new PassThrough();
  void restic(repo, ['dump', snapshot, file], deps, { stdout: (stdout) => pipeline(stdout, out) }).catch((err: Error) => out.destroy(err));
  return out;
}
