// The backups table: definitions with their repository secrets sealed at rest, the last run, and the schedule's bookkeeping.
import type { Db, SecretsApi } from '../../sdk/index.ts';
import type { Repository } from './restic.ts';

export interface Retention { last?: number; hourly?: number; daily?: number; weekly?: number; monthly?: number; yearly?: number }

export interface LastRun {
  jobId: string;
  status: 'succeeded' | 'failed';
  at: string;
  finishedAt: string;
  snapshot: string | null;
  files: number | null;
  bytesAdded: number | null;
  totalBytes: number | null;
  durationMs: number;
  error: string | null;
  scheduled: boolean;
}

export interface BackupRow {
  name: string;
  targets: Record<string, unknown>;
  repositorySealed: string | null;
  repositoryEnvSealed: string | null;
  repositorySshKeySealed: string | null;
  passwordSealed: string;
  repositoryDisplay: string | null;
  repositoryEnvNames: string[];
  initialized: boolean;
  schedule: string | null;
  retention: Retention | null;
  consistency: 'live' | 'stop';
  scheduleSlot: string | null;
  missedSlot: string | null;
  lastRun: LastRun | null;
  snapshotCount: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface Definition {
  targets: Record<string, unknown>;
  repository: { url: string; env: Record<string, string>; sshKey: string | null } | null;
  password: string;
  schedule: string | null;
  retention: Retention | null;
  consistency: 'live' | 'stop';
}

const select = `SELECT name, targets, repository_sealed AS "repositorySealed", repository_env_sealed AS "repositoryEnvSealed",
  repository_ssh_key_sealed AS "repositorySshKeySealed", password_sealed AS "passwordSealed", repository_display AS "repositoryDisplay", repository_env_names AS "repositoryEnvNames",
  initialized, schedule, retention, consistency, schedule_slot AS "scheduleSlot", missed_slot AS "missedSlot",
  last_run AS "lastRun", snapshot_count AS "snapshotCount", created_at AS "createdAt", updated_at AS "updatedAt" FROM backups`;

/** a URL for answers: a password in it masked */
export function displayUrl(url: string): string {
  return url.replace(/^([a-z0-9]+:(?:https?:\/\/)?[^/@:]*:)[^/@]+@/i, '$1***@');
}

export function createStore(db: Db, secrets: SecretsApi, defaultRepository: (name: string) => string) {
  return {
    async get(name: string): Promise<BackupRow | null> {
      return (await db.query<BackupRow>(`${select} WHERE name = $1`, [name])).rows[0] ?? null;
    },
    async page(after: string | undefined, limit: number): Promise<BackupRow[]> {
      return (await db.query<BackupRow>(`${select} WHERE ($1::text IS NULL OR name > $1) ORDER BY name LIMIT $2`, [after ?? null, limit])).rows;
    },
    async all(): Promise<BackupRow[]> {
      return (await db.query<BackupRow>(`${select} ORDER BY name`)).rows;
    },
    /** creates or replaces; a new repository (or password) is initialised again on first use. Returns whether it was created. */
    async put(name: string, d: Definition, now: Date): Promise<boolean> {
      const repo = d.repository;
      const { rows } = await db.query<{ created: boolean }>(
        `INSERT INTO backups (name, targets, repository_sealed, repository_env_sealed, password_sealed, repository_display, repository_env_names,
                              schedule, retention, consistency, schedule_slot, repository_ssh_key_sealed)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         ON CONFLICT (name) DO UPDATE SET targets = $2, repository_sealed = $3, repository_env_sealed = $4, password_sealed = $5,
           repository_ssh_key_sealed = $12,
           repository_display = $6, repository_env_names = $7, schedule = $8, retention = $9, consistency = $10,
           initialized = backups.initialized AND backups.repository_display IS NOT DISTINCT FROM $6,
           schedule_slot = CASE WHEN backups.schedule IS NOT DISTINCT FROM $8 THEN backups.schedule_slot ELSE $11 END,
           missed_slot = CASE WHEN backups.schedule IS NOT DISTINCT FROM $8 THEN backups.missed_slot END,
           updated_at = now()
         RETURNING (xmax = 0) AS created`,
        [name, JSON.stringify(d.targets), repo ? secrets.seal(repo.url) : null, repo ? secrets.seal(JSON.stringify(repo.env)) : null,
          secrets.seal(d.password), repo ? displayUrl(repo.url) : null, repo ? Object.keys(repo.env).sort() : [],
          d.schedule, d.retention ? JSON.stringify(d.retention) : null, d.consistency, now, repo?.sshKey ? secrets.seal(repo.sshKey) : null]);
      return rows[0].created;
    },
    async remove(name: string): Promise<boolean> {
      return (await db.query('DELETE FROM backups WHERE name = $1', [name])).rowCount > 0;
    },
    /** what restic opens: the secrets unsealed */
    repositoryOf(row: BackupRow): Repository {
      return {
        url: row.repositorySealed ? secrets.open(row.repositorySealed) : defaultRepository(row.name),
        env: row.repositoryEnvSealed ? JSON.parse(secrets.open(row.repositoryEnvSealed)) : {},
        password: secrets.open(row.passwordSealed),
        sshKey: row.repositorySshKeySealed ? secrets.open(row.repositorySshKeySealed) : null,
      };
    },
    /** the password as stored, to keep it when a definition is replaced without one */
    passwordOf: (row: BackupRow): string => secrets.open(row.passwordSealed),
    async markInitialized(name: string): Promise<void> {
      await db.query('UPDATE backups SET initialized = true WHERE name = $1', [name]);
    },
    async finishRun(name: string, run: LastRun, snapshotCount: number | null): Promise<void> {
      await db.query(
        `UPDATE backups SET last_run = $2, snapshot_count = COALESCE($3, snapshot_count),
           missed_slot = CASE WHEN $4 THEN NULL ELSE missed_slot END WHERE name = $1`,
        [name, JSON.stringify(run), snapshotCount, run.status === 'succeeded']);
    },
    async setSnapshotCount(name: string, count: number): Promise<void> {
      await db.query('UPDATE backups SET snapshot_count = $2 WHERE name = $1', [name, count]);
    },
    /** moves the schedule bookkeeping from `from` to `slot` (compare-and-swap at the millisecond precision rows are read with: one instance handles a slot); true when it moved */
    async takeSlot(name: string, from: string | null, slot: Date, missed: Date | null): Promise<boolean> {
      const { rowCount } = await db.query(
        `UPDATE backups SET schedule_slot = $3, missed_slot = COALESCE($4, missed_slot)
          WHERE name = $1 AND date_trunc('milliseconds', schedule_slot) IS NOT DISTINCT FROM $2::timestamptz`,
        [name, from, slot, missed]);
      return rowCount > 0;
    },
  };
}
export type BackupStore = ReturnType<typeof createStore>;
