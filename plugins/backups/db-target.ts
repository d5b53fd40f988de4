// The `databases` backup target: a dump per database of a stack's service, made by its own tools in its container and streamed into `restic backup --stdin`, one snapshot per dump tagged with stack, service, strategy and release.
import { problem, Type, type Principal } from '../../sdk/index.ts';
import type { DockerRuntime } from '../docker/types.ts';
import type { StacksApi } from '../stacks/index.ts';
import { execInto, execText } from './db-exec.ts';
import {
  envOf, implemented, mysqlCommand, mysqlCredentials, mysqlDump, mysqlListDatabases, mysqlSystemDatabases, postgresCommand, postgresCredentials,
  postgresDump, postgresGlobals, postgresListDatabases, strategies, suggest, type Credentials, type Strategy,
} from './db-strategies.ts';
import type { BackupTarget, DumpStream, TargetIo } from './targets.ts';

export const databasesKey = 'databases';

/** a hook: a shell command line (run with sh -c in the container) or an argv */
const HookCommand = Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Array(Type.String({ maxLength: 4096 }), { minItems: 1, maxItems: 100 })]);
const defaultHookSeconds = 300;

export const DatabaseEntrySchema = Type.Object({
  stack: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }),
  service: Type.String({ pattern: '^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$' }),
  strategy: Type.Optional(Type.Union(strategies.map((s) => Type.Literal(s)), { description: 'default: what GET /stacks/{name}/backup-plan suggests from the image' })),
  database: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: 'only this database (default: every database of the server)' })),
  hooks: Type.Optional(Type.Object({
    pre: Type.Optional(Type.Array(HookCommand, { maxItems: 10, description: 'run in the container before the dump, in order; one that fails fails the run' })),
    post: Type.Optional(Type.Array(HookCommand, { maxItems: 10, description: 'run in the container after the dump, whatever happened (also when a pre hook or the dump failed)' })),
    timeoutSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600, description: 'each hook is killed after this long (default 300)' })),
  }, { additionalProperties: false })),
  path: Type.Optional(Type.String({ pattern: '^/', maxLength: 4096, description: 'strategy sqlite: the database file in the container' })),
  dump: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { minItems: 1, maxItems: 100, description: 'strategy command: the argv run in the container whose stdout is the dump' })),
  restore: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { minItems: 1, maxItems: 100, description: 'strategy command: the argv run in the container that reads the dump on stdin (a restore in place)' })),
}, { additionalProperties: false });
export type DatabaseEntry = typeof DatabaseEntrySchema.static;

/** snapshot tags of a database dump: what it is, without reading it */
export const dbTag = {
  kind: 'dw-kind:database', stack: 'dw-stack:', service: 'dw-service:', strategy: 'dw-strategy:', release: 'dw-release:',
  image: 'dw-image:', database: 'dw-database:', part: 'dw-part:', run: 'dw-run:',
} as const;

/** the service's container as the dump sees it: its id, image, environment and whether it runs */
export interface ServiceContainer { id: string; name: string; running: boolean; health: string | null; image: string; imageId: string; env: Map<string, string>; labels: Record<string, string> }

export async function serviceContainer(runtime: DockerRuntime, stack: string, service: string): Promise<ServiceContainer | null> {
  const services = (await runtime.status([stack])).get(stack) ?? [];
  const c = services.find((s) => s.service === service)?.containers[0];
  if (!c) return null;
  const info = await runtime.docker.getContainer(c.id).inspect();
  return {
    id: info.Id, name: c.name, running: info.State.Running, health: info.State.Health?.Status ?? null, image: info.Config.Image,
    imageId: info.Image, env: envOf(info.Config.Env), labels: info.Config.Labels ?? {},
  };
}

/** a dump's file name in the snapshot; names are percent-encoded so that any database name is one path segment */
export const dumpName = (stack: string, service: string, part: string) => `/${databasesKey}/${stack}/${service}/${part}`;
export const encodeName = (name: string) => encodeURIComponent(name).replace(/\./g, '%2E');

/** the strategy an entry uses: its own, or the one the image suggests; 422 when the image names another database or none */
export function strategyOf(entry: DatabaseEntry, container: ServiceContainer | null): Strategy {
  const suggested = container ? suggest(container.image, container.env, true) : null;
  const where = `service ${entry.service} of stack ${entry.stack}`;
  if (entry.strategy) {
    const dbStrategy = suggested && (strategies as readonly string[]).includes(suggested.strategy) ? suggested.strategy as Strategy : null;
    const compatible = (a: Strategy, b: Strategy) => a === b || (['mysql', 'mariadb'].includes(a) && ['mysql', 'mariadb'].includes(b));
    if (dbStrategy && !['sqlite', 'command'].includes(entry.strategy) && !compatible(entry.strategy, dbStrategy)) {
      throw problem(422, `strategy ${entry.strategy} does not fit ${where}: ${suggested!.reason}, so its strategy is ${dbStrategy}`, { code: 'wrong-strategy' });
    }
    if (!implemented.includes(entry.strategy)) throw problem(422, `strategy ${entry.strategy} is not available in this version (available: ${implemented.join(', ')})`, { code: 'strategy-unavailable' });
    return entry.strategy;
  }
  if (!container) throw problem(409, `${where} has no container: deploy the stack first, or name the strategy`, { code: 'no-service' });
  if (!suggested || !(strategies as readonly string[]).includes(suggested.strategy)) {
    throw problem(422, `no database strategy is suggested for ${where} (${suggested?.reason ?? 'unknown'}); name one, or back up its volumes with target stacks`, { code: 'wrong-strategy' });
  }
  if (!implemented.includes(suggested.strategy as Strategy)) throw problem(422, `strategy ${suggested.strategy} (suggested for ${where}) is not available in this version`, { code: 'strategy-unavailable' });
  return suggested.strategy as Strategy;
}

export const PlanEntrySchema = Type.Object({
  service: Type.String(),
  strategy: Type.String({ description: 'postgres, mysql, mariadb, mongo, sqlite, command; volume (its volumes as files, target stacks) or none' }),
  database: Type.Optional(Type.String({ description: 'the database its environment names' })),
  reason: Type.String({ description: 'why this strategy: the image or the variable that says so' }),
});

/** GET /stacks/{name}/backup-plan: one suggestion per service that has a container, by service name */
export async function backupPlan(runtime: DockerRuntime, stack: string): Promise<typeof PlanEntrySchema.static[]> {
  const services = (await runtime.status([stack])).get(stack) ?? [];
  const plan = await Promise.all(services.filter((s) => s.containers.length).map(async (s) => {
    const info = await runtime.docker.getContainer(s.containers[0].id).inspect();
    const hasVolumes = (info.Mounts ?? []).some((m) => m.Type === 'volume');
    return { service: s.service, ...suggest(info.Config.Image, envOf(info.Config.Env), hasVolumes) };
  }));
  return plan.sort((a, b) => (a.service < b.service ? -1 : a.service > b.service ? 1 : 0));
}

export function databasesTarget(deps: { runtime: DockerRuntime; stacks: StacksApi }): BackupTarget {
  const { runtime, stacks } = deps;
  return {
    key: databasesKey,
    description: 'dumps of databases in stack services, made in their containers and streamed into the repository',
    schema: Type.Array(DatabaseEntrySchema, { maxItems: 50 }),
    empty: (value) => !(value as DatabaseEntry[]).length,
    resources: (value) => [...new Set((value as DatabaseEntry[]).map((e) => `stack:${e.stack}`))],
    async check(value, principal: Principal) {
      const entries = value as DatabaseEntry[];
      const seen = new Set<string>();
      for (const [i, entry] of entries.entries()) {
        const key = `${entry.stack}/${entry.service}/${entry.database ?? ''}`;
        if (seen.has(key)) throw problem(400, `targets.databases[${i}] names ${entry.stack}/${entry.service} twice`, { errors: [{ path: `/body/targets/databases/${i}`, message: 'duplicate' }] });
        seen.add(key);
        // a dump holds all of a service's data: as much as acting on the stack
        await stacks.access(entry.stack, principal, 'deploy');
        const container = await serviceContainer(runtime, entry.stack, entry.service);
        if (entry.strategy || container) strategyOf(entry, container);
        fileOrCommand(entry, i);
        if (container) credentialsOf(strategyOf(entry, container), container.env, `service ${entry.service} of stack ${entry.stack}`);
      }
    },
    async prepare(value, io: TargetIo) {
      // post hooks run like finally: after the dumps, and also when a pre hook or anything before the dumps failed
      const posts: (() => Promise<void>)[] = [];
      const release = async () => {
        const failures: string[] = [];
        for (const post of posts.reverse()) await post().catch((err: Error) => { failures.push(err.message); });
        if (failures.length) throw new Error(failures.join('; '));
      };
      try {
        const streams: DumpStream[] = [];
        for (const entry of value as DatabaseEntry[]) {
          if (entry.hooks?.post?.length) posts.push(() => runHooks(runtime, entry, 'post', io));
          if (entry.hooks?.pre?.length) await runHooks(runtime, entry, 'pre', io);
          streams.push(...await streamsOf(deps, entry, io));
        }
        return { sources: [], streams, release };
      } catch (err) {
        await release().catch((e: Error) => io.log(e.message));
        throw err;
      }
    },
  };
}

/** kills a hook after its time where the image has `timeout` (coreutils, busybox); the stream is closed after it in any case */
const withTimeout = 'secs=$1; shift; if command -v timeout >/dev/null 2>&1; then exec timeout -s KILL "$secs" "$@"; fi; exec "$@"';

/** an entry's pre or post hooks, one after the other in its service's container, their output in the job log */
async function runHooks(runtime: DockerRuntime, entry: DatabaseEntry, kind: 'pre' | 'post', io: TargetIo): Promise<void> {
  const where = `service ${entry.service} of stack ${entry.stack}`;
  const seconds = entry.hooks?.timeoutSeconds ?? defaultHookSeconds;
  const container = await serviceContainer(runtime, entry.stack, entry.service);
  if (!container?.running) throw new Error(`${kind} hooks of ${where}: it is not running`);
  for (const [i, command] of (entry.hooks?.[kind] ?? []).entries()) {
    const what = `${kind} hook ${i + 1} of ${where}`;
    const argv = typeof command === 'string' ? ['sh', '-c', command] : command;
    const started = Date.now();
    io.log(`${what}: running ${argv[0]}`);
    const signal = AbortSignal.any([io.signal, AbortSignal.timeout((seconds + 5) * 1000)]);
    let output: string;
    try {
      output = await execText(runtime.docker, { container: container.id, cmd: ['sh', '-c', withTimeout, 'sh', String(seconds), ...argv], env: {} }, what, signal);
    } catch (err) {
      const timedOut = Date.now() - started >= seconds * 1000 || (err as Error).name === 'TimeoutError';
      throw new Error(timedOut ? `${what} did not finish within ${seconds} s` : (err as Error).message);
    }
    for (const line of output.split('\n').filter(Boolean).slice(0, 50)) io.log(`${what}| ${line}`);
  }
}

/** 400 unless sqlite names its path and command its dump; the fields of one strategy are not given to another */
function fileOrCommand(entry: DatabaseEntry, i: number): void {
  const need = (field: string, message: string) => problem(400, `targets.databases[${i}]: ${message}`, { errors: [{ path: `/body/targets/databases/${i}/${field}`, message }] });
  if (entry.strategy === 'sqlite' && !entry.path) throw need('path', 'strategy sqlite names the database file (path)');
  if (entry.strategy === 'command' && !entry.dump) throw need('dump', 'strategy command names its dump command (dump)');
  if (entry.path && entry.strategy !== 'sqlite') throw need('path', 'path is for strategy sqlite');
  if ((entry.dump || entry.restore) && entry.strategy !== 'command') throw need(entry.dump ? 'dump' : 'restore', 'dump and restore are for strategy command');
}

/** sqlite's online backup (`.backup`) into a temporary file in the container, then its bytes on stdout; the path an argument, never shell text */
export const sqliteDump = ['sh', '-c', 't=$(mktemp) || exit 1; sqlite3 "$1" ".backup \'$t\'" && cat "$t"; rc=$?; rm -f "$t"; exit $rc', 'sh'];
/** a restore in place: the dump from stdin into a temporary file, checked, then `.restore` into the database file */
export const sqliteRestore = ['sh', '-c', 't=$(mktemp) || exit 1; cat > "$t" && [ "$(sqlite3 "$t" "PRAGMA integrity_check")" = ok ] && sqlite3 "$1" ".restore \'$t\'"; rc=$?; rm -f "$t"; exit $rc', 'sh'];

/** the credentials a strategy logs in with, from the service's environment (422 missing-credentials); sqlite and command need none */
export function credentialsOf(strategy: Strategy, env: Map<string, string>, where: string): Credentials {
  if (strategy === 'sqlite' || strategy === 'command') return { user: '', password: null, passwordFile: null, database: '' };
  return strategy === 'postgres' ? postgresCredentials(env, where) : mysqlCredentials(env, where);
}

/** the dumps of one service: for postgres its roles (pg_dumpall --globals-only) then each database (pg_dump -Fc); for mysql and mariadb each database */
async function streamsOf(deps: { runtime: DockerRuntime; stacks: StacksApi }, entry: DatabaseEntry, io: TargetIo): Promise<DumpStream[]> {
  const { runtime } = deps;
  const where = `service ${entry.service} of stack ${entry.stack}`;
  const container = await serviceContainer(runtime, entry.stack, entry.service);
  if (!container) throw new Error(`${where} has no container: deploy the stack first`);
  const strategy = strategyOf(entry, container);
  if (!container.running) throw new Error(`${where} is not running: a ${strategy} dump is made by the running server`);
  const creds = credentialsOf(strategy, container.env, where);
  if (creds.password) io.redact(creds.password);
  const release = String((await deps.stacks.state(entry.stack))?.revision ?? 'none');
  const postgres = strategy === 'postgres';
  const exec = (database: string, argv: string[]) => ({ container: container.id, ...postgresCommand(creds, database, argv) });
  const tags = (part: string, database?: string) => [
    dbTag.kind, `${dbTag.stack}${entry.stack}`, `${dbTag.service}${entry.service}`, `${dbTag.strategy}${strategy}`, `${dbTag.release}${release}`,
    `${dbTag.image}${container.imageId}`, `${dbTag.part}${part}`, `${dbTag.run}${io.runId}`, ...(database ? [`${dbTag.database}${encodeName(database)}`] : []),
  ];
  if (strategy === 'sqlite' || strategy === 'command') {
    const database = strategy === 'sqlite' ? entry.path! : entry.database ?? 'dump';
    const argv = strategy === 'sqlite' ? [...sqliteDump, entry.path!] : entry.dump!;
    io.log(`${where}: ${strategy === 'sqlite' ? `sqlite .backup of ${database}` : `the dump command ${argv[0]}`}, streamed from its container ${container.name}`);
    return [{
      filename: dumpName(entry.stack, entry.service, `${encodeName(database)}.${strategy === 'sqlite' ? 'sqlite' : 'dump'}`), tags: tags('database', database), what: `${where}: ${database}`,
      produce: (into) => execInto(runtime.docker, { container: container.id, cmd: argv, env: {} }, into, `the ${strategy} dump in ${where}`, io.signal),
    }];
  }
  let databases = entry.database ? [entry.database] : [];
  if (!databases.length) {
    const spec = postgres ? exec(creds.database, postgresListDatabases) : { container: container.id, ...mysqlCommand(creds, 'client', mysqlListDatabases) };
    const listed = await execText(runtime.docker, spec, `listing the databases of ${where}`, io.signal);
    databases = listed.split('\n').map((l) => l.trim()).filter((d) => d && !d.startsWith('-') && (postgres || !mysqlSystemDatabases.has(d)));
  }
  io.log(`${where}: ${strategy} dump of ${databases.join(', ') || 'no database'}${postgres ? ' (and its roles)' : ''}, streamed from its container ${container.name}`);
  const globals: DumpStream = {
    filename: dumpName(entry.stack, entry.service, 'globals.sql'), tags: tags('globals'), what: `${where}: roles`,
    produce: (into) => execInto(runtime.docker, exec(creds.database, postgresGlobals), into, `pg_dumpall --globals-only in ${where}`, io.signal),
  };
  if (!postgres) {
    return databases.map((database): DumpStream => ({
      filename: dumpName(entry.stack, entry.service, `${encodeName(database)}.sql`), tags: tags('database', database), what: `${where}: database ${database}`,
      produce: (into) => execInto(runtime.docker, { container: container.id, ...mysqlCommand(creds, 'dump', [...mysqlDump, database]) }, into, `the dump of ${database} in ${where}`, io.signal),
    }));
  }
  return [globals, ...databases.map((database): DumpStream => ({
    filename: dumpName(entry.stack, entry.service, `${encodeName(database)}.pgdump`), tags: tags('database', database), what: `${where}: database ${database}`,
    produce: (into) => execInto(runtime.docker, exec(database, postgresDump), into, `pg_dump of ${database} in ${where}`, io.signal),
  }))];
}
