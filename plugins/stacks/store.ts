// The stacks table: rows in and out, variables sealed at rest, and the snapshot each revision keeps.
import type { Db, SecretsApi, Snapshot } from '../../sdk/index.ts';
import type { AccessEntry } from './access.ts';

export interface StackRow {
  name: string;
  revision: number;
  compose: string;
  env: Record<string, string>;
  template: string | null;
  settings: Record<string, unknown>;
  services: string[];
  autoupdate: boolean;
  access: AccessEntry[];
  desired: 'none' | 'running' | 'stopped';
  deployedRevision: number | null;
  deployedAt: string | null;
  lastDeployJob: string | null;
  lastJob: string | null;
  createdAt: string;
  updatedAt: string;
}

/** a stack as lists and status views need it: without the compose text, the variables (nothing to decrypt) and the template settings */
export type StackSummary = Omit<StackRow, 'compose' | 'env' | 'settings'>;

/** one call of the stack's deploy webhook, as its answer shows it */
export interface WebhookCall { at: string; address: string; jobId: string | null; outcome: string }

/** a stack's summary with its latest deploy-webhook calls, newest first: what the stack's own answer shows */
export type StackDetail = StackSummary & { recentWebhookCalls: WebhookCall[] };

/** what a revision restores: the content that revisions count */
export interface StackContent {
  compose: string;
  env: Record<string, string>;
  template: string | null;
  settings: Record<string, unknown>;
  services: string[];
}

// services as JSON: JSON.parse reads a page of them at a fraction of the text[] parser's cost
const summaryColumns = `name, revision, template, array_to_json(services) AS services, autoupdate, access, desired,
  deployed_revision AS "deployedRevision", deployed_at AS "deployedAt", last_deploy_job AS "lastDeployJob", last_job AS "lastJob",
  created_at AS "createdAt", updated_at AS "updatedAt"`;
const select = `SELECT ${summaryColumns}, settings, compose, env_sealed FROM stacks`;
const selectSummary = `SELECT ${summaryColumns} FROM stacks`;
// the webhook calls come along as JSON, their times written as the rest of the API writes times (ISO, milliseconds, Z)
const selectDetail = `SELECT ${summaryColumns}, (
    SELECT coalesce(json_agg(json_build_object('at', to_char(c.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'address', c.address, 'jobId', c.job_id, 'outcome', c.outcome) ORDER BY c.id DESC), '[]')
      FROM (SELECT id, at, address, job_id, outcome FROM stack_webhook_calls WHERE stack = $1 ORDER BY id DESC LIMIT 10) c
  ) AS "recentWebhookCalls" FROM stacks WHERE name = $1`;

export function createStore(db: Db, secrets: SecretsApi) {
  const open = (row: StackRow & { env_sealed: string }): StackRow => {
    const { env_sealed, ...rest } = row;
    return { ...rest, env: JSON.parse(secrets.open(env_sealed)) };
  };

  return {
    async get(name: string, conn: Db = db): Promise<StackRow | null> {
      const { rows } = await conn.query<StackRow & { env_sealed: string }>(`${select} WHERE name = $1`, [name]);
      return rows[0] ? open(rows[0]) : null;
    },

    /** the summary and the latest ten webhook calls, in one round trip */
    async detail(name: string): Promise<StackDetail | null> {
      const { rows } = await db.query<StackDetail>(selectDetail, [name]);
      return rows[0] ?? null;
    },

    async page(after: string | undefined, limit: number): Promise<StackSummary[]> {
      // two texts, not `$1 IS NULL OR name > $1`: that form keeps the planner from walking the name index
      const { rows } = after === undefined
        ? await db.query<StackSummary>(`${selectSummary} ORDER BY name LIMIT $1`, [limit])
        : await db.query<StackSummary>(`${selectSummary} WHERE name > $1 ORDER BY name LIMIT $2`, [after, limit]);
      return rows;
    },

    /** name and access list of the named stacks (for access decisions on many at once) */
    async accessOf(names: readonly string[]): Promise<Map<string, AccessEntry[]>> {
      const { rows } = await db.query<{ name: string; access: AccessEntry[] }>('SELECT name, access FROM stacks WHERE name = ANY($1)', [names]);
      return new Map(rows.map((r) => [r.name, r.access]));
    },

    async all(): Promise<StackSummary[]> {
      const { rows } = await db.query<StackSummary>(`${selectSummary} ORDER BY name`);
      return rows;
    },

    /** writes the content of a new revision (inside the revision's transaction) and returns its snapshot. */
    async writeContent(tx: Db, name: string, revision: number, content: StackContent): Promise<Snapshot> {
      const sealed = secrets.seal(JSON.stringify(content.env));
      await tx.query(
        `INSERT INTO stacks (name, revision, compose, env_sealed, template, settings, services) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (name) DO UPDATE SET revision = $2, compose = $3, env_sealed = $4, template = $5, settings = $6, services = $7, updated_at = now()`,
        [name, revision, content.compose, sealed, content.template, JSON.stringify(content.settings), content.services]);
      return { compose: content.compose, envSealed: sealed, template: content.template, settings: content.settings, services: content.services };
    },

    contentOf(snapshot: Snapshot): StackContent {
      return {
        compose: snapshot.compose as string,
        env: JSON.parse(secrets.open(snapshot.envSealed as string)),
        template: (snapshot.template as string | null) ?? null,
        settings: (snapshot.settings as Record<string, unknown>) ?? {},
        services: (snapshot.services as string[]) ?? [],
      };
    },

    async set(name: string, fields: Partial<Record<'autoupdate' | 'desired' | 'last_deploy_job' | 'last_job' | 'deployed_revision' | 'services', unknown>> & { access?: AccessEntry[] }): Promise<void> {
      const entries = Object.entries(fields).map(([k, v]) => [k, k === 'access' ? JSON.stringify(v) : v] as const);
      const sets = entries.map(([k], i) => `${k} = $${i + 2}`);
      if ('deployed_revision' in fields) sets.push('deployed_at = now()');
      await db.query(`UPDATE stacks SET ${sets.join(', ')} WHERE name = $1`, [name, ...entries.map(([, v]) => v)]);
    },

    /** the entries naming a removed user or team are marked removed (they grant nothing; the list stays as closed as it was) */
    async forget(tx: Db, principal: string): Promise<void> {
      await tx.query(
        `UPDATE stacks SET access = (
           SELECT jsonb_agg(CASE WHEN a.e->>'principal' = $1 THEN a.e || '{"removed": true}' ELSE a.e END ORDER BY a.n)
             FROM jsonb_array_elements(access) WITH ORDINALITY AS a(e, n))
          WHERE access @> jsonb_build_array(jsonb_build_object('principal', $1::text))`, [principal]);
    },

    async remove(tx: Db, name: string): Promise<void> {
      await tx.query('DELETE FROM stacks WHERE name = $1', [name]);
    },

    async recordWebhookCall(name: string, call: Omit<WebhookCall, 'at'>): Promise<void> {
      await db.query(
        `WITH added AS (INSERT INTO stack_webhook_calls (stack, address, job_id, outcome) VALUES ($1, $2, $3, $4))
         DELETE FROM stack_webhook_calls WHERE stack = $1 AND id NOT IN (SELECT id FROM stack_webhook_calls WHERE stack = $1 ORDER BY id DESC LIMIT 199)`,
        [name, call.address, call.jobId, call.outcome]);
    },
  };
}
export type StackStore = ReturnType<typeof createStore>;
