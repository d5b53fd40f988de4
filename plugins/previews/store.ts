// The previews plugin's tables: each stack's preview settings and its previews, variables sealed.
import type { Db, SecretsApi } from '../../sdk/index.ts';

export interface Settings {
  enabled: boolean;
  /** a template with {key}, {stack} and {service}; null: previews are not routed by the edge */
  hostname: string | null;
  maxActive: number;
  idleDays: number;
  fromForks: boolean;
  variables: Record<string, string>;
}
export const defaultSettings: Settings = Object.freeze({ enabled: false, hostname: null, maxActive: 5, idleDays: 7, fromForks: false, variables: {} });

export type PreviewStatus = 'queued' | 'deploying' | 'running' | 'failed' | 'removing';
export interface PreviewRow {
  stack: string;
  key: string;
  pullRequest: number | null;
  ref: string | null;
  fallbackBranch: string | null;
  commit: string | null;
  deployedCommit: string | null;
  variables: Record<string, string>;
  status: PreviewStatus;
  hostnames: string[];
  createdAt: string;
  updatedAt: string;
  deployedAt: string | null;
  lastJob: string | null;
}

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null));

export function createStore(db: Db, secrets: SecretsApi) {
  const open = (sealed: unknown): Record<string, string> => (typeof sealed === 'string' ? JSON.parse(secrets.open(sealed)) as Record<string, string> : {});
  const seal = (values: Record<string, string>) => (Object.keys(values).length ? secrets.seal(JSON.stringify(values)) : null);
  const rowOf = (r: Record<string, unknown>): PreviewRow => ({
    stack: r.stack as string, key: r.key as string, pullRequest: r.pull_request as number | null, ref: r.ref as string | null, fallbackBranch: r.fallback_branch as string | null,
    commit: r.commit as string | null, deployedCommit: r.deployed_commit as string | null, variables: open(r.variables_sealed),
    status: r.status as PreviewStatus, hostnames: r.hostnames as string[], createdAt: iso(r.created_at)!, updatedAt: iso(r.updated_at)!,
    deployedAt: iso(r.deployed_at), lastJob: r.last_job as string | null,
  });

  return {
    async settings(stack: string): Promise<Settings> {
      const { rows } = await db.query<Record<string, unknown>>('SELECT * FROM preview_settings WHERE stack = $1', [stack]);
      const r = rows[0];
      if (!r) return { ...defaultSettings, variables: {} };
      return {
        enabled: r.enabled as boolean, hostname: r.hostname as string | null, maxActive: r.max_active as number, idleDays: r.idle_days as number,
        fromForks: r.from_forks as boolean, variables: open(r.variables_sealed),
      };
    },
    async putSettings(stack: string, s: Settings): Promise<void> {
      await db.query(
        `INSERT INTO preview_settings (stack, enabled, hostname, max_active, idle_days, from_forks, variables_sealed) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (stack) DO UPDATE SET enabled = $2, hostname = $3, max_active = $4, idle_days = $5, from_forks = $6, variables_sealed = $7, updated_at = now()`,
        [stack, s.enabled, s.hostname, s.maxActive, s.idleDays, s.fromForks, seal(s.variables)]);
    },
    async get(stack: string, key: string): Promise<PreviewRow | null> {
      const { rows } = await db.query<Record<string, unknown>>('SELECT * FROM previews WHERE stack = $1 AND key = $2', [stack, key]);
      return rows[0] ? rowOf(rows[0]) : null;
    },
    async list(stack: string): Promise<PreviewRow[]> {
      const { rows } = await db.query<Record<string, unknown>>('SELECT * FROM previews WHERE stack = $1 ORDER BY created_at, key', [stack]);
      return rows.map(rowOf);
    },
    async all(): Promise<PreviewRow[]> {
      return (await db.query<Record<string, unknown>>('SELECT * FROM previews ORDER BY stack, key')).rows.map(rowOf);
    },
    /** the stack of each of these compose projects that is a preview (`<stack>-<key>`) */
    async parentsOf(projects: readonly string[]): Promise<Map<string, string>> {
      const { rows } = await db.query<{ project: string; stack: string }>("SELECT stack || '-' || key AS project, stack FROM previews WHERE stack || '-' || key = ANY($1)", [projects]);
      return new Map(rows.map((r) => [r.project, r.stack]));
    },
    async counts(): Promise<Map<string, number>> {
      const { rows } = await db.query<{ stack: string; n: number }>('SELECT stack, count(*)::int AS n FROM previews GROUP BY stack');
      return new Map(rows.map((r) => [r.stack, r.n]));
    },
    /**
     * Creates the preview, or takes the update of an existing one, unless the stack has `maxActive` others: one
     * transaction under a lock on the stack's settings, so that two creations at once cannot both take the last place.
     */
    async upsert(stack: string, key: string, change: { pullRequest: number | null; ref: string | null; fallbackBranch: string | null; commit: string | null; variables: Record<string, string> | undefined }, maxActive: number): Promise<'created' | 'updated' | 'limit' | 'removing'> {
      return db.tx(async (tx) => {
        await tx.query('INSERT INTO preview_settings (stack) VALUES ($1) ON CONFLICT (stack) DO NOTHING', [stack]);
        await tx.query('SELECT 1 FROM preview_settings WHERE stack = $1 FOR UPDATE', [stack]);
        const existing = await tx.query<{ status: PreviewStatus }>('SELECT status FROM previews WHERE stack = $1 AND key = $2 FOR UPDATE', [stack, key]);
        if (existing.rows[0]?.status === 'removing') return 'removing';
        if (existing.rowCount) {
          await tx.query(
            `UPDATE previews SET pull_request = COALESCE($3, pull_request), ref = $4, commit = $5, variables_sealed = CASE WHEN $7 THEN $6 ELSE variables_sealed END, fallback_branch = $8,
               status = 'queued', updated_at = now() WHERE stack = $1 AND key = $2`,
            [stack, key, change.pullRequest, change.ref, change.commit, change.variables ? seal(change.variables) : null, change.variables !== undefined, change.fallbackBranch]);
          return 'updated';
        }
        const { rows } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM previews WHERE stack = $1', [stack]);
        if (rows[0].n >= maxActive) return 'limit';
        await tx.query('INSERT INTO previews (stack, key, pull_request, ref, fallback_branch, commit, variables_sealed) VALUES ($1, $2, $3, $4, $5, $6, $7)',
          [stack, key, change.pullRequest, change.ref, change.fallbackBranch, change.commit, seal(change.variables ?? {})]);
        return 'created';
      });
    },
    async set(stack: string, key: string, change: Partial<{ status: PreviewStatus; lastJob: string; hostnames: string[]; deployedCommit: string | null; deployed: boolean }>): Promise<void> {
      const sets: string[] = [];
      const values: unknown[] = [stack, key];
      const add = (column: string, value: unknown) => { values.push(value); sets.push(`${column} = $${values.length}`); };
      if (change.status) add('status', change.status);
      if (change.lastJob) add('last_job', change.lastJob);
      if (change.hostnames) add('hostnames', change.hostnames);
      if (change.deployedCommit !== undefined) add('deployed_commit', change.deployedCommit);
      if (change.deployed) sets.push('deployed_at = now()');
      // a preview being removed stays so: a deploy that ends meanwhile does not mark it running or failed
      const guard = change.status && change.status !== 'removing' ? " AND status <> 'removing'" : '';
      if (sets.length) await db.query(`UPDATE previews SET ${sets.join(', ')} WHERE stack = $1 AND key = $2${guard}`, values);
    },
    async remove(stack: string, key: string): Promise<void> {
      await db.query('DELETE FROM previews WHERE stack = $1 AND key = $2', [stack, key]);
    },
    async dropSettings(stack: string): Promise<void> {
      await db.query('DELETE FROM preview_settings WHERE stack = $1 AND NOT EXISTS (SELECT 1 FROM previews WHERE stack = $1)', [stack]);
    },
    /** previews not asked to be created or updated for `idleDays` of their stack */
    async idle(): Promise<PreviewRow[]> {
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT p.* FROM previews p LEFT JOIN preview_settings s USING (stack)
         WHERE p.status <> 'removing' AND p.updated_at < now() - make_interval(days => COALESCE(s.idle_days, 7))`);
      return rows.map(rowOf);
    },
  };
}
export type PreviewStore = ReturnType<typeof createStore>;
