// The database handle: a pg pool (or one connection to the embedded PGlite), transactions, and a clean shutdown.
import pg from 'pg';
import type { Db, HeldLock, QueryResult } from '../../sdk/index.ts';
import { startEmbedded, type Embedded } from './embedded.ts';

// timestamps leave the database as ISO strings, bigints as numbers (counts and sequence values here stay far below 2^53).
pg.types.setTypeParser(1184, (v) => new Date(v.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')).toISOString());
pg.types.setTypeParser(20, (v) => Number(v));

export interface Database extends Db {
  pool: pg.Pool;
  /** where it is reached (the embedded database's socket, or DATABASE_URL) */
  url: string;
  embedded: boolean;
  /**
   * LISTENs on a channel over a dedicated connection. onLost runs if that connection fails (notifications may then be
   * missed). Returns the unlisten function. The embedded database has a single session and no other writers: null.
   */
  listen(channel: string, onNotify: () => void, onLost: () => void): Promise<(() => Promise<void>) | null>;
  /** a session advisory lock on a dedicated connection, or null while another session holds it; the embedded database has one instance: always granted. */
  tryLock(name: string): Promise<HeldLock | null>;
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
  const listeners = new Set<pg.Client>();
  return Object.assign(wrap(pool, false), {
    pool,
    url,
    embedded: Boolean(embedded),
    async listen(channel: string, onNotify: () => void, onLost: () => void) {
      if (embedded) return null;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      listeners.add(client);
      let closing = false;
      const lost = () => { if (!closing) onLost(); };
      client.on('notification', (msg) => { if (msg.channel === channel) onNotify(); });
      client.on('error', lost);
      client.on('end', lost);
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      return async () => {
        closing = true;
        listeners.delete(client);
        await client.end().catch(() => undefined);
      };
    },
    async tryLock(name: string): Promise<HeldLock | null> {
      if (embedded) return { lost: new Promise<void>(() => undefined), release: async () => undefined };
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => undefined);
      await client.connect();
      const { rows } = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS held', [name]).catch(async (err) => {
        await client.end().catch(() => undefined);
        throw err;
      });
      if (!rows[0].held) {
        await client.end().catch(() => undefined);
        return null;
      }
      listeners.add(client);
      let releasing = false;
      // the lock lives as long as its session: a lost connection is a lost lock
      const lost = new Promise<void>((resolve) => { client.once('end', () => { if (!releasing) resolve(); }); client.once('error', () => resolve()); });
      return {
        lost,
        async release() {
          releasing = true;
          listeners.delete(client);
          await client.end().catch(() => undefined);
        },
      };
    },
    async close() {
      await Promise.all([...listeners].map((c) => c.end().catch(() => undefined)));
      await pool.end();
      await embedded?.stop();
    },
  });
}
