// Database strategies of the `databases` backup target: which one a service's image and environment suggest (and why), the credentials read from its environment, and the dump and restore commands run in its container.
import { problem } from '../../sdk/index.ts';

export const strategies = ['postgres', 'mysql', 'mariadb', 'mongo', 'sqlite', 'command'] as const;
export type Strategy = typeof strategies[number];
/** the strategies this version can dump and restore */
export const implemented: readonly Strategy[] = ['postgres', 'mysql', 'mariadb', 'sqlite', 'command'];

export interface Suggestion { strategy: Strategy | 'volume' | 'none'; database?: string; reason: string }

/** a container's environment as the engine lists it (NAME=value) */
export type EnvList = readonly string[] | null | undefined;
export function envOf(list: EnvList): Map<string, string> {
  const env = new Map<string, string>();
  for (const entry of list ?? []) {
    const eq = entry.indexOf('=');
    if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

/** the image's repository name without registry, tag or digest ("library/postgres" → "postgres") */
function repositoryOf(image: string): string {
  const noDigest = image.split('@')[0];
  const lastSlash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  const name = colon > lastSlash ? noDigest.slice(0, colon) : noDigest;
  return name.slice(name.lastIndexOf('/') + 1).toLowerCase();
}

const byImage: [RegExp, Strategy][] = [
  [/^(postgres|postgis|timescaledb(-ha)?|pgvector|supabase-postgres|postgresql)$/, 'postgres'],
  [/^mariadb$/, 'mariadb'],
  [/^(mysql|mysql-server|percona(-server)?)$/, 'mysql'],
  [/^mongo(db)?(-community-server)?$/, 'mongo'],
];
const byEnv: [RegExp, Strategy][] = [
  [/^POSTGRES_(PASSWORD|USER|DB)(_FILE)?$/, 'postgres'],
  [/^MARIADB_(ROOT_PASSWORD|PASSWORD|USER|DATABASE)(_FILE)?$/, 'mariadb'],
  [/^MYSQL_(ROOT_PASSWORD|PASSWORD|USER|DATABASE)(_FILE)?$/, 'mysql'],
  [/^MONGO_INITDB_ROOT_(USERNAME|PASSWORD)(_FILE)?$/, 'mongo'],
];

/** the database a strategy dumps by default, from the environment */
function defaultDatabase(strategy: Strategy, env: Map<string, string>): string | undefined {
  if (strategy === 'postgres') return env.get('POSTGRES_DB') || env.get('POSTGRES_USER') || 'postgres';
  if (strategy === 'mariadb' || strategy === 'mysql') return env.get('MARIADB_DATABASE') || env.get('MYSQL_DATABASE') || undefined;
  return undefined;
}

/** the strategy a service's image and environment suggest, and why; `volume` when it mounts volumes and is no database we know */
export function suggest(image: string, env: Map<string, string>, hasVolumes: boolean): Suggestion {
  const repo = repositoryOf(image);
  for (const [pattern, strategy] of byImage) {
    if (pattern.test(repo)) {
      const database = defaultDatabase(strategy, env);
      return { strategy, ...(database ? { database } : {}), reason: `the image ${image} is ${strategy === 'postgres' ? 'PostgreSQL' : strategy === 'mongo' ? 'MongoDB' : strategy === 'mariadb' ? 'MariaDB' : 'MySQL'}` };
    }
  }
  for (const [pattern, strategy] of byEnv) {
    const name = [...env.keys()].sort().find((k) => pattern.test(k));
    if (name) {
      const database = defaultDatabase(strategy, env);
      return { strategy, ...(database ? { database } : {}), reason: `its environment sets ${name}` };
    }
  }
  if (hasVolumes) return { strategy: 'volume', reason: 'no database recognised in its image or environment: its volumes are backed up as files (target stacks)' };
  return { strategy: 'none', reason: 'no database recognised and no volume: nothing of it to back up' };
}

/**
 * What a command in the container logs in with: a user and database by environment variable, and the password either
 * as a value (passed in the exec's environment) or as the path of a file in the container (read there by the command).
 */
export interface Credentials { user: string; password: string | null; passwordFile: string | null; database: string }

/** PostgreSQL's credentials from the official image's variables; 422 missing-credentials when there is no password and trust is not set */
export function postgresCredentials(env: Map<string, string>, where: string): Credentials {
  const user = env.get('POSTGRES_USER') || 'postgres';
  const password = env.get('POSTGRES_PASSWORD') || null;
  const passwordFile = password ? null : env.get('POSTGRES_PASSWORD_FILE') || null;
  if (!password && !passwordFile && env.get('POSTGRES_HOST_AUTH_METHOD') !== 'trust') {
    throw problem(422, `${where} sets neither POSTGRES_PASSWORD nor POSTGRES_PASSWORD_FILE: the postgres strategy has no credentials to log in with`, { code: 'missing-credentials' });
  }
  return { user, password, passwordFile, database: env.get('POSTGRES_DB') || user };
}

/** a password file is read inside the container, by the shell, into the variable the tool reads: neither is an argument */
const withPasswordFile = (variable: string) => `if [ -n "$DW_PASSWORD_FILE" ]; then ${variable}="$(cat "$DW_PASSWORD_FILE")" || exit 1; export ${variable}; fi; unset DW_PASSWORD_FILE; exec "$@"`;

/** argv and environment of a PostgreSQL client command in the container; the password only in the environment */
export function postgresCommand(c: Credentials, database: string, argv: string[]): { cmd: string[]; env: Record<string, string> } {
  const env: Record<string, string> = { PGUSER: c.user, PGDATABASE: database, PGCONNECT_TIMEOUT: '20' };
  if (c.password) env.PGPASSWORD = c.password;
  if (c.passwordFile) env.DW_PASSWORD_FILE = c.passwordFile;
  return { cmd: ['sh', '-c', withPasswordFile('PGPASSWORD'), 'sh', ...argv], env };
}

/** the list of databases a PostgreSQL dump takes when none is named: every one that takes connections, templates aside */
export const postgresListDatabases = ['psql', '-X', '-w', '-A', '-t', '-c', 'SELECT datname FROM pg_database WHERE datallowconn AND NOT datistemplate ORDER BY datname'];
export const postgresDump = ['pg_dump', '-w', '--format=custom'];
export const postgresGlobals = ['pg_dumpall', '-w', '--globals-only'];
/** a restore in place: the dump's objects dropped and made again in one transaction (a failure changes nothing) */
export const postgresRestore = ['pg_restore', '-w', '--clean', '--if-exists', '--single-transaction', '--exit-on-error'];

/** MySQL's and MariaDB's credentials from the official images' variables: root when its password is set, else the image's user */
export function mysqlCredentials(env: Map<string, string>, where: string): Credentials {
  const pick = (name: string) => env.get(`MARIADB_${name}`) || env.get(`MYSQL_${name}`) || null;
  const rootPassword = pick('ROOT_PASSWORD');
  const rootFile = rootPassword ? null : pick('ROOT_PASSWORD_FILE');
  const database = pick('DATABASE') ?? '';
  if (rootPassword || rootFile) return { user: 'root', password: rootPassword, passwordFile: rootFile, database };
  const user = pick('USER');
  const password = pick('PASSWORD');
  const passwordFile = password ? null : pick('PASSWORD_FILE');
  if (!user || (!password && !passwordFile)) {
    throw problem(422, `${where} sets neither MARIADB_ROOT_PASSWORD/MYSQL_ROOT_PASSWORD nor a user with its password (*_USER and *_PASSWORD, or their *_FILE forms): the dump has no credentials to log in with`, { code: 'missing-credentials' });
  }
  return { user, password, passwordFile, database };
}

/** a MySQL/MariaDB client tool by its MariaDB name, falling back to the MySQL name (MariaDB 11 images have only the first, MySQL's only the second) */
const mysqlTool = `tool=$1; shift; if [ -n "$DW_PASSWORD_FILE" ]; then MYSQL_PWD="$(cat "$DW_PASSWORD_FILE")" || exit 1; export MYSQL_PWD; fi; unset DW_PASSWORD_FILE
case $tool in dump) set -- mariadb-dump mysqldump "$@" ;; client) set -- mariadb mysql "$@" ;; admin) set -- mariadb-admin mysqladmin "$@" ;; esac
if command -v "$1" >/dev/null 2>&1; then first=$1; shift 2; exec "$first" "$@"; fi; shift; exec "$@"`;

/** argv and environment of a MySQL/MariaDB client tool (dump, client, admin) in the container; the password only in MYSQL_PWD */
export function mysqlCommand(c: Credentials, tool: 'dump' | 'client' | 'admin', argv: string[]): { cmd: string[]; env: Record<string, string> } {
  const env: Record<string, string> = {};
  if (c.password) env.MYSQL_PWD = c.password;
  if (c.passwordFile) env.DW_PASSWORD_FILE = c.passwordFile;
  return { cmd: ['sh', '-c', mysqlTool, 'sh', tool, `--user=${c.user}`, ...argv], env };
}
export const mysqlSystemDatabases = new Set(['information_schema', 'performance_schema', 'mysql', 'sys']);
export const mysqlListDatabases = ['--batch', '--skip-column-names', '--execute=SHOW DATABASES'];
/** one database, consistent without locking InnoDB tables, with its routines, events and triggers */
export const mysqlDump = ['--single-transaction', '--routines', '--events', '--triggers', '--hex-blob'];
/** an identifier quoted for MySQL */
export const mysqlName = (name: string) => `\`${name.replace(/`/g, '``')}\``;
