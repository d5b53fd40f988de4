// Schema migrations: node-pg-migrate over each owner's folder of .sql files, one migrations table per owner, in boot order.
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { runner } from 'node-pg-migrate';
import type { Database } from './index.ts';
import type { Logger } from '../../sdk/index.ts';

export interface MigrationSet { owner: string; dir: string }

export function migrationDir(dir: string | URL): string {
  return dir instanceof URL ? fileURLToPath(dir) : dir;
}

/** Applies every pending migration of every set, in order, on one connection (the embedded database has one). */
export async function migrate(db: Database, sets: readonly MigrationSet[], log: Logger): Promise<void> {
  const client = await db.pool.connect();
  try {
    for (const set of sets) {
      if (!existsSync(set.dir)) throw new Error(`migrations of ${set.owner}: folder ${set.dir} does not exist`);
      const applied = await runner({
        dbClient: client,
        dir: set.dir,
        migrationsTable: `pgmigrations_${set.owner.replace(/-/g, '_')}`,
        direction: 'up',
        count: Infinity,
        checkOrder: true,
        singleTransaction: true,
        log: () => undefined,
      });
      if (applied.length) log.info({ owner: set.owner, migrations: applied.map((m) => m.name) }, 'migrations applied');
    }
  } finally {
    client.release();
  }
}
