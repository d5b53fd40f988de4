// Which installation the CLI acts on: the one the service's config and environment name, found before anything is created; a new one only with --init.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { Config } from './config.ts';
import { embeddedPaths } from './db/embedded.ts';

/** where the installation lives, as a person reads it: the data dir of the embedded database, or DATABASE_URL without its password */
export function installationPlace(config: Config): string {
  if (!config.databaseUrl) return `data dir ${config.dataDir} (embedded PostgreSQL)`;
  try {
    const url = new URL(config.databaseUrl);
    url.password = '';
    return `database ${url.toString()} (data dir ${config.dataDir})`;
  } catch {
    return `database given by DATABASE_URL (data dir ${config.dataDir})`;
  }
}

/** true when the installation the config names already exists: an embedded cluster in the data dir, or the kernel's tables in DATABASE_URL */
export async function installationExists(config: Config): Promise<boolean> {
  if (!config.databaseUrl) return existsSync(join(embeddedPaths(config.dataDir).cluster, 'PG_VERSION'));
  const client = new pg.Client({ connectionString: config.databaseUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rows: [row] } = await client.query<{ found: string | null }>("SELECT to_regclass('installation')::text AS found");
    return row.found !== null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** the refusal of a CLI run that would create an installation nobody asked for */
export function noInstallationMessage(config: Config): string {
  return `no Dockwright installation at ${installationPlace(config)}.\n`
    + 'The CLI reads the same config files (config/default.json, config/$NODE_ENV.json, config/local.json, $DOCKWRIGHT_CONFIG) and environment '
    + '(DATA_DIR, DATABASE_URL, ...) as `npm start`: run it with the service\'s, e.g. DATA_DIR=/var/lib/dockwright npm run cli -- token list.\n'
    + 'To create a new installation here on purpose, add --init.';
}
