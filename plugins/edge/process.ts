// The edge's Caddy process: started detached so that it outlives Dockwright, adopted by the next start, watched and restarted with backoff while Dockwright runs, stopped only on purpose.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../sdk/index.ts';
import { adminCall, type AdminEndpoint } from './admin.ts';

export interface ProcessOptions {
  binary: string;
  /** Caddy's home: its boot file, pid file, config dir (with the autosaved configuration) and storage */
  dir: string;
  endpoint: AdminEndpoint;
  restartDelayMs: number;
  restartMaxDelayMs: number;
  /** a run this long resets the backoff */
  stableAfterMs: number;
  startTimeoutMs: number;
  /** how often the Caddy is looked at (an adopted one is no child of ours: nothing tells us when it dies) */
  watchIntervalMs: number;
  log: Logger;
  /** brings the running Caddy's configuration to the stored one; runs after every start and adoption once the admin API answers */
  onReady(): Promise<void>;
}

export type ProcessState = 'starting' | 'running' | 'down' | 'unavailable' | 'stopped';

/** the files of a Caddy home: the same for the service, the CLI and a systemd unit */
export function caddyFiles(dir: string) {
  return {
    /** holds only the admin endpoint: routes and keys arrive through /load (and Caddy's autosave brings the last ones back) */
    boot: join(dir, 'boot.json'),
    pid: join(dir, 'caddy.pid'),
    /** present while the edge is stopped on purpose: nothing starts it again until `edge start` */
    stopped: join(dir, 'stopped'),
    /** Caddy's output until its configuration sends its log to logs/caddy.log */
    output: join(dir, 'caddy.out'),
    autosave: join(dir, 'config', 'caddy', 'autosave.json'),
  };
}

/** the command line and environment that run the Caddy of this home (the systemd unit of docs/guide/install.md writes the same) */
export function caddyCommand(binary: string, dir: string): { args: string[]; env: Record<string, string> } {
  const f = caddyFiles(dir);
  return {
    args: ['run', '--config', f.boot, '--resume', '--pidfile', f.pid],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data') },
  };
}

/** writes the boot file: the admin endpoint only (`--resume` prefers the autosaved configuration when there is one) */
export function writeBoot(dir: string, endpoint: AdminEndpoint): void {
  writeFileSync(caddyFiles(dir).boot, JSON.stringify({ admin: { listen: endpoint.listen, config: { persist: false } } }), { mode: 0o600 });
}

/** whether `pid` is a live (not zombie) `caddy run` of this home */
function isCaddyOf(pid: number, boot: string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === 'Z' || state === 'X') return false;
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return args.includes('run') && args.includes(boot);
  } catch {
    return false;
  }
}

/** the pid of the Caddy of this home that runs now, whoever started it: its pid file first, else a look through /proc */
export function findCaddy(dir: string): number | null {
  const f = caddyFiles(dir);
  try {
    const pid = Number(readFileSync(f.pid, 'utf8').trim());
    if (pid > 0 && isCaddyOf(pid, f.boot)) return pid;
  } catch {
    // no pid file (yet)
  }
  for (const entry of readdirSync('/proc')) {
    if (/^\d+$/.test(entry) && Number(entry) !== process.pid && isCaddyOf(Number(entry), f.boot)) return Number(entry);
  }
  return null;
}

/** the binary a running process executes, and whether it was replaced on disk since it started (a package upgrade) */
function runningBinary(pid: number): { path: string; replaced: boolean } | null {
  try {
    const exe = readlinkSync(`/proc/${pid}/exe`);
    return { path: exe.replace(/ \(deleted\)$/, ''), replaced: exe.endsWith(' (deleted)') };
  } catch {
    return null;
  }
}

/** when a process started, from /proc (its age in clock ticks since boot) */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    return new Date(Date.now() - (uptime - ticks / 100) * 1000).toISOString();
  } catch {
    return null;
  }
}

const gone = (pid: number, boot: string, timeoutMs: number) => new Promise<boolean>((resolve) => {
  const until = Date.now() + timeoutMs;
  const look = () => {
    if (!isCaddyOf(pid, boot)) return resolve(true);
    if (Date.now() > until) return resolve(false);
    setTimeout(look, 20);
  };
  look();
});

/**
 * Stops the Caddy of this home on purpose, from the service or the CLI: first the mark that keeps it stopped (so that a
 * running service does not take its end for a crash), then SIGTERM, SIGKILL after `timeoutMs`. Its pid, or null when none ran.
 */
export async function stopCaddy(dir: string, timeoutMs = 5000): Promise<number | null> {
  const f = caddyFiles(dir);
  mkdirSync(dir, { recursive: true });
  writeFileSync(f.stopped, `${new Date().toISOString()}\n`);
  const pid = findCaddy(dir);
  if (pid === null) return null;
  process.kill(pid, 'SIGTERM');
  if (!(await gone(pid, f.boot, timeoutMs))) {
    process.kill(pid, 'SIGKILL');
    await gone(pid, f.boot, 2000);
  }
  rmSync(f.pid, { force: true });
  return pid;
}

/** clears the mark of an edge stopped on purpose: a running service starts (or adopts) Caddy at its next look */
export function clearStopped(dir: string): boolean {
  const f = caddyFiles(dir);
  const was = existsSync(f.stopped);
  rmSync(f.stopped, { force: true });
  return was;
}

/**
 * Runs Caddy detached: in a session of its own, so that neither a signal to the service's process group (Ctrl-C) nor the
 * service's end reaches it; its output goes to a file, as a pipe would break (and kill it with SIGPIPE) when the service ends.
 */
function launch(binary: string, dir: string): ChildProcess {
  const { args, env } = caddyCommand(binary, dir);
  const out = openSync(caddyFiles(dir).output, 'w', 0o600);
  try {
    const child = spawn(binary, args, { env, detached: true, stdio: ['ignore', out, out] });
    child.unref();
    return child;
  } finally {
    closeSync(out);
  }
}

/** `edge start` from the CLI: Caddy from its autosaved configuration, then the stop mark cleared (a running service adopts it). Its pid. */
export async function startCaddy(binary: string, dir: string, endpoint: AdminEndpoint, timeoutMs = 10_000): Promise<{ pid: number; already: boolean }> {
  const running = findCaddy(dir);
  if (running !== null) {
    clearStopped(dir);
    return { pid: running, already: true };
  }
  for (const d of ['config', 'data']) mkdirSync(join(dir, d), { recursive: true });
  writeBoot(dir, endpoint);
  if (endpoint.socketPath) rmSync(endpoint.socketPath, { force: true });
  const child = launch(binary, dir);
  const pid = await new Promise<number>((resolve, reject) => {
    child.once('spawn', () => resolve(child.pid!));
    child.once('error', (err) => reject(new Error(`caddy could not be started: ${err.message}`)));
  });
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await adminCall(endpoint, 'GET', '/config/', undefined, 1000).catch(() => null);
    if (res?.status === 200) break;
    if (!isCaddyOf(pid, caddyFiles(dir).boot) || Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`caddy did not answer on its admin API within ${timeoutMs} ms; its output is in ${caddyFiles(dir).output}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  clearStopped(dir);
  return { pid, already: false };
}

const stoppedOnPurpose = 'the edge was stopped on purpose (`npm run cli -- edge stop`); `npm run cli -- edge start` starts it again';

/** the file the configured binary resolves to (through PATH for a bare name), null when there is none */
function configuredBinary(binary: string): string | null {
  const candidates = binary.includes('/') ? [binary] : (process.env.PATH ?? '/usr/bin:/bin').split(':').map((d) => join(d, binary));
  for (const c of candidates) {
    try {
      if (statSync(c).isFile()) return realpathSync(c);
    } catch {
      // not there
    }
  }
  return null;
}

/** what the Caddy running as `pid` cannot take through its admin API: a different binary than the one configured, or one upgraded on disk */
function restartNeededOf(pid: number, binary: string): string | null {
  const running = runningBinary(pid);
  if (!running) return null;
  const how = 'restart the edge to apply it (`npm run cli -- edge restart`: a second or so without the edge)';
  if (running.replaced) return `the Caddy binary ${running.path} was replaced on disk (an upgrade) since this Caddy started: ${how}`;
  const configured = configuredBinary(binary);
  if (configured && configured !== running.path) return `Caddy runs ${running.path} but plugins.edge.options.caddy is ${configured}: ${how}`;
  return null;
}

/** the last line Caddy wrote to its output file (its message when it is a JSON log line), as `: <line>`, or '' */
function lastLineOf(output: string): string {
  let lines: string[] = [];
  try { lines = readFileSync(output, 'utf8').split('\n').filter(Boolean); } catch { /* no output */ }
  const last = lines.map((l) => { try { const j = JSON.parse(l) as { msg?: string; error?: string }; return j.error ?? j.msg ?? l; } catch { return l; } }).pop();
  return last ? `: ${last}` : '';
}

/** One Caddy of this home brought up: adopted when one runs, else launched, then made ready; the restarts are CaddyProcess' */
abstract class CaddyStarts {
  state: ProcessState = 'stopped';
  reason: string | null = null;
  restarts = 0;
  pid: number | null = null;
  /** when the running Caddy started */
  startedAt: string | null = null;
  /** when this service adopted a Caddy that was already running (null: it started it) */
  adoptedAt: string | null = null;
  protected began = 0;
  protected attaching = false;
  protected released = true;
  protected readonly files: ReturnType<typeof caddyFiles>;

  constructor(protected readonly o: ProcessOptions) {
    this.files = caddyFiles(o.dir);
  }

  /** it ended: down, and started again after a backoff */
  protected abstract died(reason: string): void;
  /** tries again after `delay` */
  protected abstract retry(delay: number): void;

  protected markStopped(): void {
    this.pid = null;
    this.state = 'stopped';
    this.reason = stoppedOnPurpose;
  }

  protected async attach(): Promise<void> {
    if (this.attaching || this.released) return;
    this.attaching = true;
    try {
      const pid = findCaddy(this.o.dir);
      if (pid !== null) {
        await this.adopt(pid);
        return;
      }
      if (existsSync(this.files.stopped)) {
        this.markStopped();
        return;
      }
      await this.spawnCaddy();
    } finally {
      this.attaching = false;
    }
  }

  /** a Caddy of this home that runs already (left by the previous start, or started by systemd): taken over once it answers */
  private async adopt(pid: number): Promise<void> {
    this.pid = pid;
    this.state = 'starting';
    this.began = Date.now();
    if (!(await this.answers(pid))) {
      if (this.released || this.pid !== pid) return;
      this.o.log.warn({ pid }, 'the running Caddy of the edge does not answer on its admin socket: replacing it');
      process.kill(pid, 'SIGKILL');
      await gone(pid, this.files.boot, 2000);
      this.died(`caddy (pid ${pid}) did not answer on its admin API within ${this.o.startTimeoutMs} ms`);
      return;
    }
    this.startedAt = startTimeOf(pid);
    this.adoptedAt = new Date().toISOString();
    this.o.log.info({ pid }, 'adopted the running Caddy of the edge');
    await this.ready(pid);
  }

  private async spawnCaddy(): Promise<void> {
    const o = this.o;
    this.state = 'starting';
    writeBoot(o.dir, o.endpoint);
    // nothing of this home runs (findCaddy said so): a socket file left behind is stale
    if (o.endpoint.socketPath) rmSync(o.endpoint.socketPath, { force: true });
    const child = launch(o.binary, o.dir);
    const started = await new Promise<boolean>((resolve) => {
      child.once('spawn', () => resolve(true));
      child.once('error', (err: NodeJS.ErrnoException) => {
        this.state = 'unavailable';
        this.pid = null;
        this.reason = err.code === 'ENOENT'
          ? `the caddy binary "${o.binary}" was not found: install Debian's caddy (apt-get install caddy) or set plugins.edge.options.caddy; no hostname is served until then`
          : `caddy could not be started: ${err.message}`;
        o.log.warn({ reason: this.reason }, 'the edge is not running');
        this.retry(o.restartMaxDelayMs);
        resolve(false);
      });
    });
    if (!started || child.pid === undefined) return;
    const pid = child.pid;
    this.pid = pid;
    this.began = Date.now();
    this.adoptedAt = null;
    // while this service lives, it hears of the exit at once; after a restart, the watch notices
    child.once('exit', (code, signal) => {
      if (this.pid === pid && !this.released) this.died(`caddy exited (${signal ?? `code ${code}`})${lastLineOf(this.files.output)}`);
    });
    if (!(await this.answers(pid))) {
      if (this.released || this.pid !== pid) return;
      this.reason = `caddy's admin API did not answer within ${o.startTimeoutMs} ms`;
      child.kill('SIGKILL');
      return;
    }
    this.startedAt = new Date().toISOString();
    await this.ready(pid);
  }

  private async ready(pid: number): Promise<void> {
    try {
      await this.o.onReady();
    } catch (err) {
      this.o.log.warn({ err }, 'the edge runs but its configuration was not applied');
    }
    if (this.pid === pid && !this.released && this.state === 'starting') {
      this.state = 'running';
      this.reason = null;
    }
  }

  /** polls the admin API until it answers, the process is gone, or the start timeout passes */
  private async answers(pid: number): Promise<boolean> {
    const until = Date.now() + this.o.startTimeoutMs;
    while (Date.now() < until && this.pid === pid && !this.released) {
      const res = await adminCall(this.o.endpoint, 'GET', '/config/', undefined, 1000).catch(() => null);
      if (res?.status === 200) return true;
      if (!isCaddyOf(pid, this.files.boot)) return false;
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  }
}

/** The Caddy of the edge while this service runs: watched, restarted with backoff when it dies, left running or stopped at the end */
export class CaddyProcess extends CaddyStarts {
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private watcher: NodeJS.Timeout | null = null;

  /** adopts the Caddy of this home when one runs, else starts one (unless it was stopped on purpose); then watches it */
  start(): void {
    this.released = false;
    this.watcher = setInterval(() => this.watch(), this.o.watchIntervalMs);
    this.watcher.unref();
    void this.attach();
  }

  /** what the running Caddy cannot take through its admin API: a different binary than the one configured, or one upgraded on disk */
  restartNeeded(): string | null {
    if (this.pid === null || this.state !== 'running') return null;
    return restartNeededOf(this.pid, this.o.binary);
  }

  private watch(): void {
    if (this.released || this.attaching) return;
    if (this.state === 'running' && this.pid !== null && !isCaddyOf(this.pid, this.files.boot)) {
      if (existsSync(this.files.stopped)) {
        this.markStopped();
        this.o.log.warn('the edge was stopped on purpose: no hostname is served until `edge start`');
      } else {
        this.died(`caddy (pid ${this.pid}) exited${lastLineOf(this.files.output)}`);
      }
    } else if (this.state === 'stopped' && (!existsSync(this.files.stopped) || findCaddy(this.o.dir) !== null)) {
      void this.attach();
    }
  }

  protected died(reason: string): void {
    if (this.state === 'down' || this.released) return;
    this.pid = null;
    this.state = 'down';
    this.reason = reason;
    this.failures = Date.now() - this.began >= this.o.stableAfterMs ? 1 : this.failures + 1;
    this.o.log.warn({ reason }, 'the edge went down; restarting it');
    this.retry(Math.min(this.o.restartMaxDelayMs, this.o.restartDelayMs * 2 ** (this.failures - 1)));
  }

  protected retry(delay: number): void {
    if (this.released) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.released) return;
      this.restarts += 1;
      void this.attach();
    }, delay);
    this.retryTimer.unref();
  }

  private quiet(): void {
    this.released = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.watcher) clearInterval(this.watcher);
    this.retryTimer = this.watcher = null;
  }

  /** the service stops: Caddy keeps serving, for the next start to adopt */
  release(): void {
    this.quiet();
    if (this.pid !== null) this.o.log.info({ pid: this.pid }, 'leaving the edge running for the next start to adopt');
  }

  /** stopped on purpose (the edge handed to another instance, or `edge stop`) */
  async stop(opts: { keepStopped?: boolean } = {}): Promise<void> {
    this.quiet();
    await stopCaddy(this.o.dir);
    if (!opts.keepStopped) clearStopped(this.o.dir);
    this.pid = null;
    this.state = 'stopped';
  }
}
