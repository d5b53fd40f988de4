// The Caddy child process: started with nothing but its admin socket, watched, and restarted with backoff when it dies.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../sdk/index.ts';
import { adminCall, type AdminEndpoint } from './admin.ts';

export interface ProcessOptions {
  binary: string;
  /** Caddy's home: its boot file, autosave-free config dir and storage */
  dir: string;
  endpoint: AdminEndpoint;
  restartDelayMs: number;
  restartMaxDelayMs: number;
  /** a run this long resets the backoff */
  stableAfterMs: number;
  startTimeoutMs: number;
  log: Logger;
  /** pushes the configuration; runs after every (re)start once the admin API answers */
  onReady(): Promise<void>;
}

export type ProcessState = 'starting' | 'running' | 'down' | 'unavailable' | 'stopped';

export class CaddyProcess {
  state: ProcessState = 'stopped';
  reason: string | null = null;
  restarts = 0;
  startedAt: string | null = null;
  private child: ChildProcess | null = null;
  private failures = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;
  private tail: string[] = [];

  constructor(private readonly o: ProcessOptions) {}

  get pid(): number | null { return this.child?.pid ?? null; }

  start(): void {
    this.stopping = false;
    this.spawnCaddy();
  }

  private spawnCaddy(): void {
    const o = this.o;
    this.state = 'starting';
    this.tail = [];
    const boot = join(o.dir, 'boot.json');
    // the boot file holds only the admin endpoint: routes and keys arrive through /load, never through a file
    writeFileSync(boot, JSON.stringify({ admin: { listen: o.endpoint.listen, config: { persist: false } } }), { mode: 0o600 });
    if (o.endpoint.socketPath) rmSync(o.endpoint.socketPath, { force: true });
    killOrphan(join(o.dir, 'caddy.pid'), boot);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: o.dir, XDG_CONFIG_HOME: join(o.dir, 'config'), XDG_DATA_HOME: join(o.dir, 'data') };
    const child = spawn(o.binary, ['run', '--config', boot], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    if (child.pid) writeFileSync(join(o.dir, 'caddy.pid'), String(child.pid));
    const began = Date.now();
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => { this.tail = [...this.tail, ...chunk.split('\n').filter(Boolean)].slice(-5); });
    child.once('error', (err: NodeJS.ErrnoException) => {
      this.child = null;
      this.state = 'unavailable';
      this.reason = err.code === 'ENOENT'
        ? `the caddy binary "${o.binary}" was not found: install Debian's caddy (apt-get install caddy) or set plugins.edge.options.caddy; no hostname is served until then`
        : `caddy could not be started: ${err.message}`;
      o.log.warn({ reason: this.reason }, 'the edge is not running');
      this.retry(o.restartMaxDelayMs);
    });
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = null;
      if (this.stopping) { this.state = 'stopped'; return; }
      if (this.state === 'unavailable') return;
      const lastLine = this.tail.map((l) => { try { return (JSON.parse(l) as { msg?: string; error?: string }).error ?? (JSON.parse(l) as { msg?: string }).msg ?? l; } catch { return l; } }).pop();
      this.state = 'down';
      this.reason = `caddy exited (${signal ?? `code ${code}`})${lastLine ? `: ${lastLine}` : ''}`;
      this.failures = Date.now() - began >= o.stableAfterMs ? 1 : this.failures + 1;
      o.log.warn({ reason: this.reason }, 'the edge went down; restarting it');
      this.retry(Math.min(o.restartMaxDelayMs, o.restartDelayMs * 2 ** (this.failures - 1)));
    });
    void this.whenUp(child, began);
  }

  private async whenUp(child: ChildProcess, began: number): Promise<void> {
    const o = this.o;
    while (this.child === child && Date.now() - began < o.startTimeoutMs) {
      const res = await adminCall(o.endpoint, 'GET', '/config/', undefined, 1000).catch(() => null);
      if (this.child !== child) return;
      if (res?.status === 200) {
        this.startedAt = new Date().toISOString();
        try {
          await o.onReady();
        } catch (err) {
          o.log.warn({ err }, 'the edge started but its configuration was not applied');
        }
        if (this.child === child) {
          this.state = 'running';
          this.reason = null;
        }
        return;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    if (this.child === child) {
      this.reason = `caddy's admin API did not answer within ${o.startTimeoutMs} ms`;
      child.kill('SIGKILL');
    }
  }

  private retry(delay: number): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.stopping) return;
      this.restarts += 1;
      this.spawnCaddy();
    }, delay);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    const child = this.child;
    if (!child) { this.state = 'stopped'; return; }
    await new Promise<void>((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => { clearTimeout(kill); resolve(); });
      child.kill('SIGTERM');
    });
    this.state = 'stopped';
  }
}

/** a Caddy that outlived a Dockwright killed hard still holds the ports: it goes first (only if it really is ours) */
function killOrphan(pidFile: string, boot: string): void {
  try {
    const pid = Number(readFileSync(pidFile, 'utf8'));
    if (pid > 0 && readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(boot)) process.kill(pid, 'SIGKILL');
  } catch {
    // no pid file, or that process is gone
  }
}
