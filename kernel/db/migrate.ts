// Schema migrations: node-pg-migrate over each owner's folder of .sql files, one migrations table per owner, in boot order.
import { fileURLToPath } from 'node:url';
import { existsSync, readdirSync } from 'node:fs';
import { basename, extname } from 'node:path';
import type pg from 'pg';
import type { Database } from './index.ts';
import type { Db, Logger } from '../../sdk/index.ts';

export interface MigrationSet {
  owner: string;
  dir: string;
  /** every table, view and sequence the set creates must be named with this prefix (third-party plugins: `<name>_`) */
  prefix?: string;
}

/** the relations of the public schema, to see what a set created */
async function relations(client: pg.PoolClient): Promise<Set<string>> {
  const { rows } = await client.query<{ name: string }>(`SELECT relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')`);
  return new Set(rows.map((r) => r.name));
}

export function migrationDir(dir: string | URL): string {
  return dir instanceof URL ? fileURLToPath(dir) : dir;
}

const tableOf = (set: MigrationSet) => `pgmigrations_${set.owner.replace(/-/g, '_')}`;

/**
 * true when a set has a file its migrations table does not list (or no table yet). A table that lists a migration this
 * version has no file for was written by a newer Dockwright: that is an error, as this version would run on a schema
 * it does not know.
 */
async function pending(client: pg.PoolClient, set: MigrationSet): Promise<boolean> {
  const { files, names } = await readSet((sql, params) => client.query<{ names: string[] | null }>(sql, params), set);
  const applied = new Set(names ?? []);
  const known = new Set(files);
  const unknown = [...applied].filter((name) => !known.has(name)).sort();
  if (unknown.length) throw new NewerDatabaseError(set.owner, tableOf(set), unknown);
  return names === null || files.some((f) => !applied.has(f));
}

/** a set's migration files, and the names its table lists (null: no table yet) */
type NamesQuery = (sql: string, params: string[]) => Promise<{ rows: { names: string[] | null }[] }>;
async function readSet(query: NamesQuery, set: MigrationSet): Promise<{ files: string[]; names: string[] | null }> {
  const files = readdirSync(set.dir).filter((f) => /\.(sql|js|cjs|mjs|ts)$/.test(f)).map((f) => basename(f, extname(f)));
  const { rows } = await query(
    `SELECT CASE WHEN to_regclass($1) IS NULL THEN NULL ELSE (SELECT coalesce(array_agg(name), '{}') FROM ${tableOf(set)}) END AS names`, [`public.${tableOf(set)}`]).catch(() => ({ rows: [{ names: null }] }));
  return { files, names: rows[0]?.names ?? null };
}

/** how far a set is applied: its files, how many of them the database has, the newest applied */
export async function migrationState(db: Db, set: MigrationSet): Promise<{ files: number; applied: number; latest: string | null }> {
  const { files, names } = await readSet((sql, params) => db.query<{ names: string[] | null }>(sql, params), set);
  const applied = files.filter((f) => names?.includes(f)).sort();
  return { files: files.length, applied: applied.length, latest: applied.at(-1) ?? null };
}

/** the database was migrated by a newer version than this one: it stops instead of starting */
export class NewerDatabaseError extends Error {
  constructor(readonly owner: string, readonly table: string, readonly unknown: readonly string[]) {
    super(`the database was migrated by a newer version of Dockwright: ${owner === 'kernel' ? 'the kernel' : `the plugin "${owner}"`} has applied ` +
      `${unknown.length === 1 ? 'migration' : 'migrations'} ${unknown.join(', ')} (table ${table}), which this version does not know. ` +
      'Run the newer version again, or restore a database backup made by this version; this version does not start on it');
    this.name = 'NewerDatabaseError';
  }
}

/**
 * Applies every pending migration of every set, in order, on one connection. node-pg-migrate is loaded only when a
 * set has something to apply: a warm start does not pay for it.
 */
export async function migrate(db: Database, sets: readonly MigrationSet[], log: Logger): Promise<void> {
  const client = await db.pool.connect();
  try {
    // every set is read first: a database a newer version migrated is refused before anything is applied to it
    const todo: MigrationSet[] = [];
    for (const set of sets) {
      if (!existsSync(set.dir)) throw new Error(`migrations of ${set.owner}: folder ${set.dir} does not exist`);
      if (await pending(client, set)) todo.push(set);
    }
    for (const set of todo) {
      const before = set.prefix ? await relations(client) : undefined;
      const { runner } = await import('node-pg-migrate');
      const applied = await runner({
        dbClient: client,
        dir: set.dir,
        migrationsTable: tableOf(set),
        direction: 'up',
        count: Infinity,
        checkOrder: true,
        singleTransaction: true,
        log: () => undefined,
      });
      if (applied.length) log.info({ owner: set.owner, migrations: applied.map((m) => m.name) }, 'migrations applied');
      if (before) {
        const outside = [...(await relations(client))].filter((name) => !before.has(name) && !name.startsWith(set.prefix!) && !name.startsWith(tableOf(set)));
        if (outside.length) throw new Error(`plugin "${set.owner}": its migrations created ${outside.join(', ')} outside its table prefix "${set.prefix}"; name its tables ${set.prefix}…`);
      }
    }
  } finally {
    client.release();
  }
}
