// Revisions: optimistic concurrency by a one-statement compare-and-swap on revision_heads, and the snapshot history.
import type { Actor, Db, RevisionInfo, RevisionsApi, Snapshot } from '../../sdk/index.ts';
import { problem } from '../../sdk/index.ts';

const infoColumns = `revision, author, message, created_at AS "createdAt"`;

function stale(kind: string, key: string, current: number) {
  return problem(412, `${kind} "${key}" is at revision ${current}; read it again and retry`, {
    code: 'stale-revision', extra: { currentRevision: current },
  });
}

export function createRevisions(db: Db): RevisionsApi {
  async function current(kind: string, key: string, conn: Db = db): Promise<number | null> {
    const { rows } = await conn.query<{ revision: number }>('SELECT revision FROM revision_heads WHERE kind = $1 AND key = $2', [kind, key]);
    return rows[0]?.revision ?? null;
  }

  /** the CAS: creating inserts only when absent, updating bumps only when the base is current; the row lock makes concurrent writers queue and re-check. */
  async function swap(tx: Db, kind: string, key: string, expected: number): Promise<number> {
    const { rows } = expected === 0
      ? await tx.query<{ revision: number }>(
        'INSERT INTO revision_heads (kind, key, revision) VALUES ($1, $2, 1) ON CONFLICT DO NOTHING RETURNING revision', [kind, key])
      : await tx.query<{ revision: number }>(
        'UPDATE revision_heads SET revision = revision + 1 WHERE kind = $1 AND key = $2 AND revision = $3 RETURNING revision', [kind, key, expected]);
    if (rows[0]) return rows[0].revision;
    const now = await current(kind, key, tx);
    if (now === null) throw problem(404, `${kind} "${key}" does not exist`);
    if (expected === 0) throw problem(409, `${kind} "${key}" already exists (revision ${now})`, { code: 'exists', extra: { currentRevision: now } });
    throw stale(kind, key, now);
  }

  return {
    current,

    async write({ kind, key, expected, actor, message, apply }: { kind: string; key: string; expected: number; actor: Actor; message?: string; apply(tx: Db, revision: number): Promise<Snapshot> }) {
      return db.tx(async (tx) => {
        const revision = await swap(tx, kind, key, expected);
        const snapshot = await apply(tx, revision);
        await tx.query('INSERT INTO revisions (kind, key, revision, snapshot, author, message) VALUES ($1, $2, $3, $4, $5, $6)',
          [kind, key, revision, JSON.stringify(snapshot), JSON.stringify(actor), message ?? null]);
        return revision;
      });
    },

    async remove({ kind, key, expected, apply }) {
      await db.tx(async (tx) => {
        const { rowCount } = await tx.query('DELETE FROM revision_heads WHERE kind = $1 AND key = $2 AND revision = $3', [kind, key, expected]);
        if (!rowCount) {
          const now = await current(kind, key, tx);
          if (now === null) throw problem(404, `${kind} "${key}" does not exist`);
          throw stale(kind, key, now);
        }
        await tx.query('DELETE FROM revisions WHERE kind = $1 AND key = $2', [kind, key]);
        await apply(tx);
      });
    },

    async list(kind, key, page) {
      const { rows } = await db.query<RevisionInfo>(
        `SELECT ${infoColumns} FROM revisions WHERE kind = $1 AND key = $2 AND ($3::int IS NULL OR revision < $3)
          ORDER BY revision DESC LIMIT $4`, [kind, key, page.before ?? null, page.limit]);
      return rows;
    },

    async get(kind, key, revision) {
      const { rows } = await db.query<RevisionInfo & { snapshot: Snapshot }>(
        `SELECT ${infoColumns}, snapshot FROM revisions WHERE kind = $1 AND key = $2 AND revision = $3`, [kind, key, revision]);
      return rows[0] ?? null;
    },
  };
}
