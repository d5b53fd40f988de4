// The registries plugin's table: one login per normalised registry host, its password sealed.
import type { Actor, Db } from '../../sdk/index.ts';

export interface LoginRow {
  host: string;
  username: string;
  passwordSealed: string;
  addedAt: string;
  addedBy: Actor;
  lastUsedAt: string | null;
}

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null));
const rowOf = (r: Record<string, unknown>): LoginRow => ({
  host: r.host as string, username: r.username as string, passwordSealed: r.password_sealed as string,
  addedAt: iso(r.added_at)!, addedBy: r.added_by as Actor, lastUsedAt: iso(r.last_used_at),
});

export function createStore(db: Db) {
  return {
    /** hosts in order, after the cursor host */
    async page(after: string | undefined, limit: number): Promise<LoginRow[]> {
      const { rows } = await db.query('SELECT * FROM registry_logins WHERE $1::text IS NULL OR host > $1 ORDER BY host LIMIT $2', [after ?? null, limit]);
      return rows.map(rowOf);
    },
    async get(host: string): Promise<LoginRow | null> {
      const { rows } = await db.query('SELECT * FROM registry_logins WHERE host = $1', [host]);
      return rows[0] ? rowOf(rows[0]) : null;
    },
    /** saves the login of a host, replacing an earlier one (a new login: added now, never used); tells which of the two it was */
    async put(login: { host: string; username: string; passwordSealed: string; addedBy: Actor }): Promise<{ row: LoginRow; created: boolean }> {
      const { rows } = await db.query(
        `INSERT INTO registry_logins (host, username, password_sealed, added_by) VALUES ($1, $2, $3, $4)
         ON CONFLICT (host) DO UPDATE SET username = EXCLUDED.username, password_sealed = EXCLUDED.password_sealed,
           added_at = now(), added_by = EXCLUDED.added_by, last_used_at = NULL
         RETURNING *, (xmax = 0) AS created`,
        [login.host, login.username, login.passwordSealed, JSON.stringify(login.addedBy)]);
      return { row: rowOf(rows[0]), created: rows[0].created as boolean };
    },
    async remove(host: string): Promise<boolean> {
      return (await db.query('DELETE FROM registry_logins WHERE host = $1', [host])).rowCount > 0;
    },
    async markUsed(host: string): Promise<void> {
      await db.query('UPDATE registry_logins SET last_used_at = now() WHERE host = $1', [host]);
    },
  };
}
export type LoginStore = ReturnType<typeof createStore>;
