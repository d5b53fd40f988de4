// The database handle: a pg pool (on DATABASE_URL or the embedded server), statements prepared per connection, transactions, LISTEN that heals itself, connections that come and go, and a clean shutdown.
import pg from 'pg';
import type { Db, HeldLock, Logger, QueryResult } from '../../sdk/index.ts';
import { startEmbedded, type Embedded } from './embedded.ts';

export { isDatabaseUnavailable } from './errors.ts';

// timestamps leave the database as ISO strings, bigints as numbers (counts and sequence values here stay far below 2^53).
const parseTimestamp = (v: string) => new Date(v.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')).toISOString();
const inUtc = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?\+00$/;
/** a UTC timestamp (what a UTC session sends) is rewritten as text, the same ISO string as parseTimestamp's, 20× cheaper: a page of rows holds hundreds */
function toIso(v: string): string {
  if (!inUtc.test(v)) return parseTimestamp(v);
  const fraction = v.length > 22 ? v.slice(20, v.length - 3) : '';
  return `${v.slice(0, 10)}T${v.slice(11, 19)}.${(fraction + '000').slice(0, 3)}Z`;
}
// the same timestamps come back page after page (a stack's created_at): their answers are kept, a bounded few
const recentTimestamps = new Map<string, string>();
export function isoTimestamp(v: string): string {
  let iso = recentTimestamps.get(v);
  if (iso === undefined) {
    iso = toIso(v);
    if (recentTimestamps.size >= 4096) recentTimestamps.clear();
    recentTimestamps.set(v, iso);
  }
  return iso;
}
pg.types.setTypeParser(1184, isoTimestamp);
pg.types.setTypeParser(20, (v) => Number(v));

export interface ListenHandlers {
  notify(payload: string | undefined): void;
  /** the subscription is down: notifications may be missed until up() */
  down(err?: Error): void;
  /** subscribed (again); whatever was announced meanwhile is unknown */
  up(): void;
}

/** one connection held apart from the pool's queue (the job runner's claims and finishes must not wait behind a burst of requests) */
export interface Session extends Db {
  release(broken?: boolean): void;
}

export interface Database extends Db {
  pool: pg.Pool;
  /** where it is reached (the embedded database's socket, or DATABASE_URL) */
  url: string;
  /** a connection of the pool for one user until release() */
  session(): Promise<Session>;
  embedded: boolean;
  /**
   * LISTENs on a channel over a dedicated connection. When that connection drops, handlers.down runs and it reconnects
   * with backoff and subscribes again, then handlers.up runs. Resolves after the first subscription (or its failure,
   * which is retried the same way); returns the unlisten function.
   */
  /** a session advisory lock on a dedicated connection, or null while another session holds it;  */
  tryLock(name: string): Promise<HeldLock | null>;
  listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  url?: string;
  dataDir: string;
  poolSize?: number;
  /** the embedded database attaches to one a running service owns (the CLI) */
  attach?: boolean;
  /** LISTEN reconnect backoff (and the embedded server's restarts): first delay, doubled up to the max */
  reconnectMs?: { min: number; max: number };
  /** how long a new connection may take before the query that asked for it fails (a database that does not answer) */
  connectTimeoutMs?: number;
  /** told when the embedded server ended by itself and is started again */
  log?: Pick<Logger, 'error' | 'warn' | 'info'>;
  /** the embedded server ended by itself and could not be started again: the service cannot go on */
  onFatal?: (err: Error) => void;
}

/**
 * A statement with parameters is prepared once per connection, under a name kept per distinct text: PostgreSQL then
 * parses and plans it once per connection rather than on every call, which halves its work for a one-row read. The
 * names are bounded (past `max` texts, new ones run unnamed), so text built at run time cannot grow the server's memory.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private next = 0;

  constructor(private readonly max = 500) {}

  nameOf(sql: string): string | undefined {
    let name = this.names.get(sql);
    if (name === undefined && this.names.size < this.max) this.names.set(sql, name = `dw${this.next++}`);
    return name;
  }

  /** the prepared statement no longer fits its tables (a migration changed what `SELECT *` gives): the text is prepared afresh */
  forget(sql: string): void {
    this.names.delete(sql);
  }
}

/** what PostgreSQL says when a table changed under a prepared statement: it must be prepared again */
const replanned = (err: unknown) => (err as { code?: string }).code === '0A000' && /cached plan must not change result type/.test((err as Error).message);

function wrap(client: pg.Pool | pg.PoolClient, inTx: boolean, statements: StatementNames, own = false): Db {
  const run = (sql: string, params?: readonly unknown[]) => {
    const name = params?.length ? statements.nameOf(sql) : undefined;
    return name ? client.query({ name, text: sql, values: params as unknown[] }) : client.query(sql, params as unknown[]);
  };
  const db: Db = {
    async query<T>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
      let answer;
      try {
        answer = await run(sql, params);
      } catch (err) {
        if (!replanned(err)) throw err;
        statements.forget(sql);
        // inside a transaction the error has ended it: the caller's transaction fails (and may be retried) as a whole
        if (inTx) throw err;
        answer = await run(sql, params);
      }
      // several statements in one string (no parameters, one round trip) answer once each: the last one is the answer
      const res = Array.isArray(answer) ? answer[answer.length - 1] as pg.QueryResult : answer;
      return { rows: res.rows as T[], rowCount: res.rowCount ?? 0 };
    },
    async tx<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      if (inTx) return fn(db);
      const conn = own ? client as pg.PoolClient : await (client as pg.Pool).connect();
      try {
        await conn.query('BEGIN');
        const out = await fn(wrap(conn, true, statements));
        await conn.query('COMMIT');
        return out;
      } catch (err) {
        await conn.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        if (!own) conn.release();
      }
    },
  };
  return db;
}

/** Connects to DATABASE_URL, or starts the embedded PostgreSQL in dataDir when there is none. */
/** a lock held by a session of its own, until released or until that connection is lost; null while another session holds it */
async function tryLock(url: string, name: string, lockSessions: Set<pg.Client>): Promise<HeldLock | null> {
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
  lockSessions.add(client);
  let releasing = false;
  // the lock lives as long as its session: a lost connection is a lost lock
  const lost = new Promise<void>((resolve) => { client.once('end', () => { if (!releasing) resolve(); }); client.once('error', () => resolve()); });
  return {
    lost,
    async release() {
      releasing = true;
      lockSessions.delete(client);
      await client.end().catch(() => undefined);
    },
  };
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  let embedded: Embedded | undefined;
  let url = opts.url;
  if (!url) {
    embedded = await startEmbedded(opts.dataDir, { attach: opts.attach });
    url = embedded.url;
  }
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10, idleTimeoutMillis: 30_000, connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000 });
  pool.on('error', () => undefined); // an idle client lost (server restart) is replaced on next use
  // a checked-out client whose backend ends between two queries (a transaction's, a session's) emits 'error' with no
  // listener of the pool's: noted here, its next query fails, and the pool drops it when it is released
  pool.on('connect', (client) => client.on('error', () => undefined));
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => undefined);
    await embedded?.stop();
    throw err;
  }
  const backoff = opts.reconnectMs ?? { min: 100, max: 5000 };
  let closing = false;
  if (embedded) superviseEmbedded(embedded);

  /** an embedded server that ends by itself is started again (with backoff); one that cannot be is fatal */
  function superviseEmbedded(server: Embedded): void {
    void server.ended.then(async () => {
      if (closing) return;
      opts.log?.error({ log: `${opts.dataDir}/postgres.log` }, 'the embedded database server ended unexpectedly: starting it again');
      let delay = backoff.min;
      for (let attempt = 1; ; attempt++) {
        if (closing) return;
        try {
          embedded = await startEmbedded(opts.dataDir, { staleWaitMs: 2000 });
          if (closing) { await embedded.stop(); return; }
          opts.log?.info({ attempt }, 'the embedded database server runs again');
          superviseEmbedded(embedded);
          return;
        } catch (err) {
          // after a crash its old backends may hold the shared memory a moment longer: a few tries, then give up
          if (attempt >= 6) {
            opts.onFatal?.(new Error(`the embedded database server ended and could not be started again: ${(err as Error).message}`));
            return;
          }
          opts.log?.warn({ attempt, err: (err as Error).message }, 'the embedded database server did not start again; retrying');
          await new Promise((r) => setTimeout(r, delay));
          delay = Math.min(delay * 2, backoff.max);
        }
      }
    });
  }
  const subscriptions = new Set<() => Promise<void>>();
  const lockSessions = new Set<pg.Client>();

  async function listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
    let client: pg.Client | undefined;
    let closed = false;
    let delay = backoff.min;
    let timer: NodeJS.Timeout | undefined;
    let first!: () => void;
    const subscribed = new Promise<void>((resolve) => { first = resolve; });

    const connect = async () => {
      timer = undefined;
      if (closed) return;
      const c = new pg.Client({ connectionString: url });
      let lost = false;
      const onLost = (err?: Error) => {
        if (lost || closed) return;
        lost = true;
        if (client === c) client = undefined;
        c.end().catch(() => undefined);
        handlers.down(err);
        retry();
      };
      c.on('error', onLost);
      c.on('end', () => onLost());
      c.on('notification', (msg) => { if (msg.channel === channel) handlers.notify(msg.payload); });
      try {
        await c.connect();
        await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      } catch (err) {
        onLost(err as Error);
        first();
        return;
      }
      if (closed || lost) { await c.end().catch(() => undefined); return; }
      client = c;
      delay = backoff.min;
      handlers.up();
      first();
    };
    const retry = () => {
      if (closed || timer) return;
      timer = setTimeout(() => void connect(), delay);
      timer.unref();
      delay = Math.min(delay * 2, backoff.max);
    };

    const unlisten = async () => {
      closed = true;
      clearTimeout(timer);
      subscriptions.delete(unlisten);
      await client?.end().catch(() => undefined);
    };
    subscriptions.add(unlisten);
    await connect();
    await subscribed;
    return unlisten;
  }

  const statements = new StatementNames();
  return Object.assign(wrap(pool, false, statements), {
    pool,
    url,
    embedded: Boolean(embedded),
    listen,
    async session() {
      const conn = await pool.connect();
      return Object.assign(wrap(conn, false, statements, true), { release: (broken?: boolean) => conn.release(broken) });
    },
    tryLock: (name: string) => tryLock(url, name, lockSessions),
    async close() {
      closing = true;
      await Promise.all([...subscriptions].map((u) => u()));
      await Promise.all([...lockSessions].map((c) => c.end().catch(() => undefined)));
      await pool.end();
      await embedded?.stop();
    },
  });
}
