// The git plugin's tables: a stack's source (git or uploaded archive) and the push deliveries it received.
import type { Db } from '../../sdk/index.ts';

export interface UploadInfo { id: string; format: string; sha256: string; bytes: number; files: number; at: string }

export interface SourceRow {
  stack: string;
  kind: 'git' | 'upload';
  url: string | null;
  branch: string | null;
  composePath: string | null;
  credentialsSealed: string | null;
  /** deploy-key: the key made for the stack (POST …/source/deploy-key), sealed here as an ssh-key */
  credentialsKind: 'token' | 'ssh-key' | 'deploy-key' | null;
  autodeploy: boolean;
  pinnedCommit: string | null;
  remoteHead: string | null;
  remoteSubject: string | null;
  lastCheckedAt: string | null;
  lastError: string | null;
  deployedCommit: string | null;
  deployedAt: string | null;
  lastTriggeredCommit: string | null;
  upload: UploadInfo | null;
  updatedAt: string;
}

export interface Delivery {
  id: number;
  deliveryId: string | null;
  provider: string;
  event: string;
  ref: string | null;
  afterCommit: string | null;
  address: string;
  outcome: string;
  reason: string | null;
  jobId: string | null;
  receivedAt: string;
}

const columns = {
  url: 'url', branch: 'branch', composePath: 'compose_path', credentialsSealed: 'credentials_sealed', credentialsKind: 'credentials_kind',
  autodeploy: 'autodeploy', pinnedCommit: 'pinned_commit', remoteHead: 'remote_head', remoteSubject: 'remote_subject',
  lastCheckedAt: 'last_checked_at', lastError: 'last_error', deployedCommit: 'deployed_commit', deployedAt: 'deployed_at',
  lastTriggeredCommit: 'last_triggered_commit', upload: 'upload', kind: 'kind',
} as const satisfies Partial<Record<keyof SourceRow, string>>;
export type SourceChange = Partial<Pick<SourceRow, keyof typeof columns>>;

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null));

function rowOf(r: Record<string, unknown>): SourceRow {
  return {
    stack: r.stack as string, kind: r.kind as SourceRow['kind'], url: r.url as string | null, branch: r.branch as string | null,
    composePath: r.compose_path as string | null, credentialsSealed: r.credentials_sealed as string | null,
    credentialsKind: r.credentials_kind as SourceRow['credentialsKind'], autodeploy: r.autodeploy as boolean,
    pinnedCommit: r.pinned_commit as string | null, remoteHead: r.remote_head as string | null, remoteSubject: r.remote_subject as string | null,
    lastCheckedAt: iso(r.last_checked_at), lastError: r.last_error as string | null, deployedCommit: r.deployed_commit as string | null,
    deployedAt: iso(r.deployed_at), lastTriggeredCommit: r.last_triggered_commit as string | null,
    upload: r.upload as UploadInfo | null, updatedAt: iso(r.updated_at)!,
  };
}

function deliveryOf(r: Record<string, unknown>): Delivery {
  return {
    id: Number(r.id), deliveryId: r.delivery_id as string | null, provider: r.provider as string, event: r.event as string,
    ref: r.ref as string | null, afterCommit: r.after_commit as string | null, address: r.address as string, outcome: r.outcome as string,
    reason: r.reason as string | null, jobId: r.job_id as string | null, receivedAt: iso(r.received_at)!,
  };
}

export interface SourceStore {
  get(stack: string): Promise<SourceRow | null>;
  all(): Promise<SourceRow[]>;
  /** creates or replaces the source of a stack; fields not given are reset (`conn`: inside a transaction, the stack's creation) */
  put(stack: string, row: SourceChange & Pick<SourceRow, 'kind'>, conn?: Db): Promise<SourceRow>;
  set(stack: string, change: SourceChange): Promise<void>;
  remove(stack: string): Promise<boolean>;
  /** records a delivery unless its id was seen before for this stack: then the earlier one, and `fresh` false */
  claimDelivery(stack: string, d: Omit<Delivery, 'id' | 'receivedAt' | 'outcome' | 'reason' | 'jobId'>): Promise<{ fresh: boolean; delivery: Delivery }>;
  finishDelivery(id: number, outcome: string, reason: string | null, jobId: string | null): Promise<void>;
  /** forgets a claimed delivery whose handling failed, so the sender's redelivery is handled afresh */
  releaseDelivery(id: number): Promise<void>;
  deliveries(stack: string, limit: number): Promise<Delivery[]>;
}

export function createStore(db: Db, keepDeliveries: number): SourceStore {
  async function get(stack: string) {
    const { rows } = await db.query('SELECT * FROM stack_sources WHERE stack = $1', [stack]);
    return rows[0] ? rowOf(rows[0]) : null;
  }
  const valuesOf = (change: SourceChange) => Object.entries(change).map(([k, v]) => [columns[k as keyof typeof columns], k === 'upload' && v ? JSON.stringify(v) : v] as const);

  return {
    get,
    async all() {
      return (await db.query('SELECT * FROM stack_sources ORDER BY stack')).rows.map(rowOf);
    },
    async put(stack, row, conn = db) {
      const fields = valuesOf(row);
      const names = fields.map(([c]) => c);
      const assign = Object.values(columns).filter((c) => c !== 'autodeploy').map((c) => `${c} = ${names.includes(c) ? `EXCLUDED.${c}` : 'NULL'}`);
      if (names.includes('autodeploy')) assign.push('autodeploy = EXCLUDED.autodeploy');
      const { rows } = await conn.query(
        `INSERT INTO stack_sources (stack, ${names.join(', ')}) VALUES ($1, ${names.map((_, i) => `$${i + 2}`).join(', ')})
         ON CONFLICT (stack) DO UPDATE SET ${assign.join(', ')}, updated_at = now() RETURNING *`,
        [stack, ...fields.map(([, v]) => v)]);
      return rowOf(rows[0]);
    },
    async set(stack, change) {
      const fields = valuesOf(change);
      if (!fields.length) return;
      await db.query(`UPDATE stack_sources SET ${fields.map(([c], i) => `${c} = $${i + 2}`).join(', ')}, updated_at = now() WHERE stack = $1`,
        [stack, ...fields.map(([, v]) => v)]);
    },
    async remove(stack) {
      return (await db.query('DELETE FROM stack_sources WHERE stack = $1', [stack])).rowCount > 0;
    },
    async claimDelivery(stack, d) {
      const { rows } = await db.query(
        `INSERT INTO push_deliveries (stack, delivery_id, provider, event, ref, after_commit, address, outcome)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'received') ON CONFLICT (stack, delivery_id) DO NOTHING RETURNING *`,
        [stack, d.deliveryId, d.provider, d.event, d.ref, d.afterCommit, d.address]);
      if (rows[0]) {
        // the newest deliveries are what anyone looks at; older ones go
        await db.query(
          `DELETE FROM push_deliveries WHERE stack = $1 AND id <= (SELECT id FROM push_deliveries WHERE stack = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
          [stack, keepDeliveries]);
        return { fresh: true, delivery: deliveryOf(rows[0]) };
      }
      const earlier = await db.query('SELECT * FROM push_deliveries WHERE stack = $1 AND delivery_id = $2', [stack, d.deliveryId]);
      return { fresh: false, delivery: deliveryOf(earlier.rows[0]) };
    },
    async finishDelivery(id, outcome, reason, jobId) {
      await db.query('UPDATE push_deliveries SET outcome = $2, reason = $3, job_id = $4 WHERE id = $1', [id, outcome, reason, jobId]);
    },
    async releaseDelivery(id) {
      await db.query(`DELETE FROM push_deliveries WHERE id = $1 AND outcome = 'received'`, [id]);
    },
    async deliveries(stack, limit) {
      return (await db.query('SELECT * FROM push_deliveries WHERE stack = $1 ORDER BY id DESC LIMIT $2', [stack, limit])).rows.map(deliveryOf);
    },
  };
}
