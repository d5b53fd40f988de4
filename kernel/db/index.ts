// The database handle: a pg pool (or one connection to the embedded PGlite), transactions, and a clean shutdown.
import pg from 'pg';
import type { Db, QueryResult } from '../../sdk/index.ts';
import { startEmbedded, type Embedded } from './embedded.ts';

// timestamps leave the database as ISO strings, bigints as numbers (counts and sequence values here stay far below 2^53).
pg.types.setTypeParser(1184, (v) => new Date(v.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')).toISOString());
pg.types.setTypeParser(20, (v) => Number(v));

export interface Database extends Db {
  pool: pg.Pool;
  embedded: boolean;
  close(): Promise<void>;
}

function wrap(client: pg.Pool | pg.PoolClient, inTx: boolean): Db {
  const db: Db = {
    async query<T>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
      const res = await client.query(sql, params as unknown[]);
      return { rows: res.rows as T[], rowCount: res.rowCount ?? 0 };
    },
    async tx<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      if (inTx) return fn(db);
      const conn = await (client as pg.Pool).connect();
      try {
        await conn.query('BEGIN');
        const out = await fn(wrap(conn, true));
        await conn.query('COMMIT');
        return out;
      } catch (err) {
        await conn.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        conn.release();
      }
    },
  };
  return db;
}

/** Connects to DATABASE_URL, or starts the embedded PGlite in dataDir when there is none. */
export async function openDatabase(opts: { url?: string; dataDir: string; poolSize?: number }): Promise<Database> {
  let embedded: Embedded | undefined;
  let url = opts.url;
  if (!url) {
    embedded = await startEmbedded(opts.dataDir);
    url = embedded.url;
  }
  // PGlite serves one session: a single connection keeps transactions from interleaving.
  const pool = new pg.Pool({ connectionString: url, max: embedded ? 1 : (opts.poolSize ?? 10), idleTimeoutMillis: 30_000 });
  pool.on('error', () => undefined); // an idle client lost (server restart) is replaced on next use
  await pool.query('SELECT 1');
  return Object.assign(wrap(pool, false), {
    pool,
    embedded: Boolean(embedded),
    async close() {
      await pool.end();
      await embedded?.stop();
    },
  });
}
