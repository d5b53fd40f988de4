// Database restores in place (target "service", from a snapshot or an uploaded dump): a preflight that refuses before anything is touched, then the dumps streamed from `restic dump` into the service's own restore tool, its dependants stopped meanwhile and the database started first when it was stopped.
import type { Readable } from 'node:stream';
import { problem, type JobRun, type Principal } from '../../sdk/index.ts';
import type { DockerRuntime } from '../docker/types.ts';
import type { StacksApi } from '../stacks/index.ts';
import { execFrom, execText } from './db-exec.ts';
import { mysqlCommand, mysqlName, postgresCommand, postgresRestore, suggest, type Credentials, type Strategy } from './db-strategies.ts';
import { credentialsOf, dbTag, serviceContainer, sqliteRestore, strategyOf, type DatabaseEntry, type ServiceContainer } from './db-target.ts';
import { restic, secretsOf, type Repository, type ResticEnv, type ResticSnapshot } from './restic.ts';
import { snapshotsOf } from './run.ts';
import type { BackupStore } from './store.ts';
import { assertDumpOf, type Uploads } from './db-upload.ts';

export interface DbRestoreDeps extends ResticEnv {
  store: BackupStore;
  runtime: DockerRuntime;
  stacks: StacksApi;
  stopSeconds: number;
  /** how long a database started for a restore (or after it) may take to be ready */
  readyTimeoutMs: number;
  /** deploys a stack (a restore into a new one) and waits for the deploy's end: its error, null when it succeeded */
  deployAndWait(stack: string, actor: JobRun<unknown>['actor']): Promise<string | null>;
  uploads: Uploads;
}

export interface DbRestoreInput { backup: string; snapshot: string; target: string; stack?: string; service?: string; upload?: string }

/** what a database snapshot's tags say */
export interface DumpInfo { snapshot: ResticSnapshot; file: string; stack: string; service: string; strategy: Strategy; part: string; database: string | null; run: string | null; image: string | null; release: string | null }

const tagValue = (tags: readonly string[] | undefined, prefix: string) => tags?.find((t) => t.startsWith(prefix))?.slice(prefix.length) ?? null;

/** the dump a snapshot holds, or null when it is a snapshot of folders */
export function dumpOf(s: ResticSnapshot): DumpInfo | null {
  if (!s.tags?.includes(dbTag.kind)) return null;
  const database = tagValue(s.tags, dbTag.database);
  return {
    snapshot: s, file: s.paths[0] ?? '', stack: tagValue(s.tags, dbTag.stack) ?? '', service: tagValue(s.tags, dbTag.service) ?? '',
    strategy: (tagValue(s.tags, dbTag.strategy) ?? 'command') as Strategy, part: tagValue(s.tags, dbTag.part) ?? 'database',
    database: database === null ? null : decodeURIComponent(database), run: tagValue(s.tags, dbTag.run), image: tagValue(s.tags, dbTag.image), release: tagValue(s.tags, dbTag.release),
  };
}

/**
 * The dumps a restore of `stack/service` takes: the one snapshot named (a database dump of that service), or for
 * `latest` every database of the service's newest run. 404 when there is none.
 */
export function dumpsFor(all: readonly ResticSnapshot[], backup: string, stack: string, service: string, wanted: string): DumpInfo[] {
  const mine = all.map(dumpOf).filter((d): d is DumpInfo => d !== null && d.stack === stack && d.service === service);
  if (wanted !== 'latest') {
    const found = all.filter((s) => s.id.startsWith(wanted.toLowerCase()));
    if (found.length > 1) throw problem(400, `snapshot id "${wanted}" is ambiguous; give more of it`);
    if (!found.length) throw problem(404, `backup "${backup}" has no snapshot "${wanted}"`);
    // a named dump may go into another service (a copy of one database into another server of its kind)
    const dump = dumpOf(found[0]);
    if (!dump) throw problem(422, `snapshot ${found[0].short_id} is not a database dump (it holds folders: restore it with target stack, volume:<name> or folder)`, { code: 'not-a-dump' });
    if (dump.part !== 'database') throw problem(422, `snapshot ${found[0].short_id} holds the server's roles, not a database; restore a database's snapshot (or latest)`, { code: 'not-a-dump' });
    return [dump];
  }
  const latest = mine.filter((d) => d.part === 'database').at(-1);
  if (!latest) throw problem(404, `backup "${backup}" has no database dump of service ${service} of stack ${stack}`);
  return mine.filter((d) => d.part === 'database' && d.run === latest.run);
}

/** the checks of a restore into the running service, before anything is touched: 403/404 (access), 409 (no service), 422 (wrong strategy, no credentials) */
export async function preflightService(deps: DbRestoreDeps, dumps: readonly Pick<DumpInfo, 'strategy'>[], stack: string, service: string, principal?: Principal): Promise<{ container: ServiceContainer; credentials: Credentials; strategy: Strategy }> {
  if (principal) await deps.stacks.access(stack, principal, 'deploy');
  const container = await serviceContainer(deps.runtime, stack, service);
  if (!container) throw problem(409, `stack ${stack} has no service ${service} (any more): deploy it, then restore; or restore into a new stack`, { code: 'no-service' });
  const strategy = dumps[0].strategy;
  strategyOf({ stack, service, strategy }, container);
  // a server's dump goes only into a server of its kind, which the service's image or environment must show
  const now = suggest(container.image, container.env, true);
  const family = (x: string) => (x === 'mysql' ? 'mariadb' : x);
  const own = strategy === 'sqlite' || strategy === 'command';
  if (!own && family(now.strategy) !== family(strategy)) throw problem(422, `a ${strategy} dump cannot be restored into service ${service} of stack ${stack}: ${now.reason}${now.strategy === 'none' || now.strategy === 'volume' ? '' : ` (its strategy is ${now.strategy})`}`, { code: 'wrong-strategy' });
  const credentials = credentialsOf(strategy, container.env, `service ${service} of stack ${stack}`);
  return { container, credentials, strategy };
}

/** the running containers of the stack that depend on `service`, directly or through others (compose's depends_on label) */
async function dependantsOf(runtime: DockerRuntime, stack: string, service: string): Promise<{ id: string; name: string; service: string }[]> {
  const containers = await runtime.containers({ project: stack });
  const dependsOn = (labels: Record<string, string> | undefined) => (labels?.['com.docker.compose.depends_on'] ?? '').split(',').map((d) => d.split(':')[0]).filter(Boolean);
  const serviceOf = (labels: Record<string, string> | undefined) => labels?.['com.docker.compose.service'] ?? '';
  const out = new Set<string>([service]);
  for (let grew = true; grew;) {
    grew = false;
    for (const c of containers) {
      const s = serviceOf(c.Labels);
      if (!out.has(s) && dependsOn(c.Labels).some((d) => out.has(d))) { out.add(s); grew = true; }
    }
  }
  return containers.filter((c) => c.State === 'running' && serviceOf(c.Labels) !== service && out.has(serviceOf(c.Labels)))
    .map((c) => ({ id: c.Id, name: (c.Names?.[0] ?? c.Id).replace(/^\//, ''), service: serviceOf(c.Labels) }));
}

/** waits for the database to answer: healthy when it has a health check, else its own readiness probe in the container */
async function awaitReady(deps: DbRestoreDeps, container: ServiceContainer, strategy: Strategy, credentials: Credentials, log: (l: string) => void, signal: AbortSignal): Promise<void> {
  const probe = strategy === 'postgres' ? postgresCommand(credentials, credentials.database || 'postgres', ['pg_isready', '-q']) : mysqlCommand(credentials, 'admin', ['ping']);
  const deadline = Date.now() + deps.readyTimeoutMs;
  for (;;) {
    signal.throwIfAborted();
    const info = await deps.runtime.docker.getContainer(container.id).inspect();
    if (!info.State.Running && !info.State.Restarting) throw new Error(`${container.name} stopped (exit ${info.State.ExitCode}) while it was awaited`);
    const health = info.State.Health?.Status;
    if (health === 'healthy') return log(`${container.name} is healthy`);
    if (!health && info.State.Running) {
      const ok = await execText(deps.runtime.docker, { container: container.id, ...probe }, 'the readiness probe', signal).then(() => true, () => false);
      if (ok) return log(`${container.name} accepts connections`);
    }
    if (Date.now() > deadline) throw new Error(`${container.name} was not ready within ${Math.round(deps.readyTimeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** makes the database when the dump's is gone (dropped): pg_restore --clean replaces objects inside an existing one */
async function ensureDatabase(deps: DbRestoreDeps, container: ServiceContainer, strategy: Strategy, c: Credentials, database: string, log: (l: string) => void, signal: AbortSignal) {
  if (strategy !== 'postgres') {
    await execText(deps.runtime.docker, { container: container.id, ...mysqlCommand(c, 'client', [`--execute=CREATE DATABASE IF NOT EXISTS ${mysqlName(database)}`]) }, `creating ${database}`, signal);
    return;
  }
  const exec = (argv: string[]) => ({ container: container.id, ...postgresCommand(c, 'postgres', argv) });
  const names = (await execText(deps.runtime.docker, exec(['psql', '-X', '-w', '-A', '-t', '-c', 'SELECT datname FROM pg_database']), 'listing the databases', signal)).split('\n').map((l) => l.trim());
  if (names.includes(database)) return;
  await execText(deps.runtime.docker, exec(['createdb', '-w', '--', database]), `createdb ${database}`, signal);
  log(`database ${database} did not exist: created`);
}

export async function runServiceRestore(deps: DbRestoreDeps, job: JobRun<DbRestoreInput>): Promise<unknown> {
  const { backup, service } = job.input as Required<DbRestoreInput>;
  // into a new stack (made from the source's compose file by the request): deployed first, then its service restored
  const intoNew = job.input.target.startsWith('stack:') ? job.input.target.slice('stack:'.length) : null;
  const stack = intoNew ?? job.input.stack!;
  const row = await deps.store.get(backup);
  if (!row) throw new Error(`backup ${backup} no longer exists`);
  const repo: Repository = deps.store.repositoryOf(row);
  for (const secret of secretsOf(repo)) job.redact(secret);
  const upload = job.input.upload ? await deps.uploads.find(backup, job.input.upload, job.actor) : null;
  if (job.input.upload && !upload) throw new Error('the upload is gone (expired or removed): upload the dump again');
  const all = upload ? [] : await snapshotsOf(deps, repo, backup, job.signal);
  if (intoNew) {
    job.log(`deploying the new stack ${intoNew}`);
    const failed = await deps.deployAndWait(intoNew, job.actor);
    if (failed) throw new Error(`the deploy of the new stack ${intoNew} failed: ${failed}`);
  }
  const { container, credentials, strategy, dumps } = upload
    ? await uploadSource(deps, upload, stack, service)
    : await snapshotSources(deps, repo, dumpsFor(all, backup, job.input.stack!, service, job.input.snapshot), stack, service);
  if (credentials.password) job.redact(credentials.password);
  job.log(`restoring ${dumps.map((d) => d.database).join(', ')} (${dumps.map((d) => d.from).join(', ')}) into service ${service} of stack ${stack}, in place`);

  if (!container.running) {
    job.log(`${container.name} is stopped: starting it first`);
    await deps.runtime.docker.getContainer(container.id).start();
  }
  if (strategy !== 'sqlite' && strategy !== 'command') await awaitReady(deps, container, strategy, credentials, job.log, job.signal);
  const entry = ((row.targets.databases ?? []) as DatabaseEntry[]).find((e) => e.stack === job.input.stack && e.service === service);
  if (strategy === 'command' && !entry?.restore) throw new Error(`the backup's entry of service ${service} of stack ${job.input.stack} names no restore command: a command dump is restored by it`);
  const dependants = await dependantsOf(deps.runtime, stack, service);
  const stopped: typeof dependants = [];
  const restored: { database: string; snapshot?: string; upload?: string }[] = [];
  try {
    for (const d of dependants) {
      await deps.runtime.docker.getContainer(d.id).stop({ t: deps.stopSeconds }).catch((err) => { if (deps.runtime.errorOf(err).status !== 304) throw err; });
      stopped.push(d);
      job.log(`stopped ${d.name} (it depends on ${service})`);
    }
    // a new server gets the source's roles first (those it has already, its own user, stay: errors are ignored)
    const globals = intoNew && strategy === 'postgres' && dumps[0].snapshot ? all.map(dumpOf).find((d) => d?.part === 'globals' && d.run === dumps[0].snapshot!.run && d.service === service) : undefined;
    if (globals) {
      job.log(`phase: roles from snapshot ${globals.snapshot.short_id}`);
      const spec = { container: container.id, ...postgresCommand(credentials, 'postgres', ['psql', '-X', '-q', '-w', '-v', 'ON_ERROR_STOP=0', '-d', 'postgres']) };
      await restic(repo, ['dump', globals.snapshot.id, globals.file], deps, { signal: job.signal, stdout: (output) => execFrom(deps.runtime.docker, spec, output, 'the roles', job.signal).then(() => undefined) });
    }
    for (const dump of dumps) {
      const database = dump.database;
      const tool = strategy === 'postgres' ? 'pg_restore' : strategy === 'sqlite' ? 'sqlite3 .restore' : strategy === 'command' ? 'the restore command' : `${strategy} client`;
      job.log(`phase: ${tool} of ${database} from ${dump.from} (streamed)`);
      if (strategy !== 'sqlite' && strategy !== 'command') await ensureDatabase(deps, container, strategy, credentials, database, job.log, job.signal);
      const spec = { container: container.id, ...restoreCommand(strategy, credentials, database, entry) };
      await dump.feed((output) => execFrom(deps.runtime.docker, spec, output, `${tool} of ${database}`, job.signal).then(() => undefined), job.signal);
      restored.push({ database, ...(dump.snapshot ? { snapshot: dump.snapshot.snapshot.id } : { upload: job.input.upload }) });
      job.log(`restored ${database}`);
    }
  } finally {
    const failures: string[] = [];
    for (const d of stopped) {
      try {
        await deps.runtime.docker.getContainer(d.id).start();
        job.log(`started ${d.name} again`);
      } catch (err) {
        if (deps.runtime.errorOf(err).status !== 304) failures.push(`${d.name}: ${deps.runtime.errorOf(err).reason}`);
      }
    }
    if (failures.length) job.log(`some dependants could not be started again: ${failures.join('; ')}`);
  }
  if (upload) await deps.uploads.remove(job.input.upload!);
  return { target: job.input.target, stack, service, restored, dependants: stopped.map((d) => d.name) };
}

/** argv and environment of the command in the container that reads a dump on stdin */
function restoreCommand(strategy: Strategy, credentials: Credentials, database: string, entry: DatabaseEntry | undefined): { cmd: string[]; env: Record<string, string> } {
  if (strategy === 'postgres') return postgresCommand(credentials, database, [...postgresRestore, '-d', database]);
  if (strategy === 'sqlite') return { cmd: [...sqliteRestore, database], env: {} };
  if (strategy === 'command') return { cmd: entry!.restore!, env: {} };
  return mysqlCommand(credentials, 'client', [`--database=${database}`]);
}

/** one dump a restore feeds into the service's restore tool: from a snapshot (restic dump) or an uploaded file */
interface Source { database: string; from: string; snapshot: DumpInfo | null; feed(into: (dump: Readable) => Promise<void>, signal: AbortSignal): Promise<unknown> }
type Prepared = Awaited<ReturnType<typeof preflightService>> & { dumps: Source[] };

async function snapshotSources(deps: DbRestoreDeps, repo: Repository, dumps: DumpInfo[], stack: string, service: string): Promise<Prepared> {
  const checked = await preflightService(deps, dumps, stack, service);
  return {
    ...checked,
    dumps: dumps.map((d) => ({
      database: d.database!, from: `snapshot ${d.snapshot.short_id}`, snapshot: d,
      feed: (into, s) => restic(repo, ['dump', d.snapshot.id, d.file], deps, { signal: s, stdout: into }),
    })),
  };
}

/** the strategy an upload is restored with: the service's own (suggested from its image and environment) */
export async function uploadStrategy(deps: DbRestoreDeps, stack: string, service: string): Promise<Strategy> {
  const container = await serviceContainer(deps.runtime, stack, service);
  if (!container) throw problem(409, `stack ${stack} has no service ${service} (any more): deploy it, then restore; or restore into a new stack`, { code: 'no-service' });
  const now = suggest(container.image, container.env, true);
  if (now.strategy === 'none' || now.strategy === 'volume') throw problem(422, `service ${service} of stack ${stack} is no database an upload can be restored into: ${now.reason}`, { code: 'wrong-strategy' });
  return now.strategy;
}

/** the checks of a restore from an upload (preflight, the dump's kind, a database to restore into) and its source */
export async function uploadSource(deps: DbRestoreDeps, upload: { file: string; bytes: number }, stack: string, service: string): Promise<Prepared> {
  const strategy = await uploadStrategy(deps, stack, service);
  const checked = await preflightService(deps, [{ strategy }], stack, service);
  await assertDumpOf(upload, strategy);
  const database = checked.credentials.database;
  if (!database) throw problem(422, `service ${service} of stack ${stack} names no database (MARIADB_DATABASE or MYSQL_DATABASE) for the upload to go into`, { code: 'missing-credentials' });
  return {
    ...checked,
    dumps: [{
      database, from: `an upload of ${upload.bytes} bytes`, snapshot: null,
      feed: (into) => into(deps.uploads.stream(upload)),
    }],
  };
}
