// The production service as a benchmark sees it: `node dist/kernel/main.js serve` in a child, its start-to-first-answer, and memory read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { onlyPlugins, root } from '../../tests/helpers/harness.ts';

/** config/default.json's plugins switched off */
/** every default plugin switched off: the kernel alone */
export const noPlugins = onlyPlugins({});

export interface Service {
  url: string;
  pid: number;
  /** milliseconds from spawn to the first HTTP answer */
  startMs: number;
  token(): string;
  /** resident set of the service process, MB */
  rssMb(): number;
  /** proportional set of the embedded database's processes together (server, its children, the watchdog), MB; null without one */
  databasePssMb(): number | null;
  /** proportional set of the service's other child processes (the edge's Caddy), MB, with what they are */
  otherChildrenPss(): { mb: number; what: string[] };
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.once('error', reject);
  });
}

function field(file: string, name: string): number {
  const line = readFileSync(file, 'utf8').split('\n').find((l) => l.startsWith(name + ':'));
  return line ? Number(line.split(/\s+/)[1]) : 0;
}

function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      map.set(Number(entry), Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ')[1]));
    } catch { /* gone */ }
  }
  return map;
}

/** every process below pid */
function descendants(pid: number, ppid = parents()): number[] {
  const out: number[] = [];
  const walk = (p: number) => { for (const [child, parent] of ppid) if (parent === p) { out.push(child); walk(child); } };
  walk(pid);
  return out;
}

const commandOf = (pid: number) => { try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean); } catch { return []; } };
const pssMb = (pids: number[]) => pids.reduce((sum, p) => { try { return sum + field(`/proc/${p}/smaps_rollup`, 'Pss'); } catch { return sum; } }, 0) / 1024;

/** the service's children split: the embedded database's watchdog (kernel/db/embedded.ts names it dockwright-db) with everything below it, and the rest */
function childTrees(pid: number): { database: number[]; others: number[] } {
  const ppid = parents();
  const children = [...ppid].filter(([, parent]) => parent === pid).map(([child]) => child);
  const database: number[] = [], others: number[] = [];
  for (const child of children) (commandOf(child).includes('dockwright-db') ? database : others).push(child, ...descendants(child, ppid));
  return { database, others };
}

/** the node options of `npm start` (package.json), so that what is measured is what users run */
export function nodeArgs(): string[] {
  const start = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start as string;
  return start.split(/\s+/).filter((a) => a.startsWith('--'));
}

/** BENCH_NODE_ARGS: more node flags for the service, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile what a bench drives */
const extraNodeArgs = () => (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

/** starts the built service with this config (merged over config/default.json) and waits for its first answer */
export async function startService(opts: { dataDir: string; config?: Record<string, unknown>; env?: Record<string, string> }): Promise<Service> {
  const port = await freePort();
  const configFile = join(opts.dataDir, 'bench-config.json');
  writeFileSync(configFile, JSON.stringify({ host: '127.0.0.1', port, log: { level: 'warn' }, ...opts.config }));
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs(), ...extraNodeArgs(), join(process.env.BENCH_DIST ?? join(root, 'dist'), 'kernel/main.js'), 'serve'], {
    cwd: root, stdio: ['ignore', process.env.BENCH_STDOUT ? 'inherit' : 'ignore', 'inherit'],
    env: { PATH: process.env.PATH, DATA_DIR: opts.dataDir, DOCKWRIGHT_CONFIG: configFile, ...opts.env },
  });
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => { exited = true; resolve(); }));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (exited) throw new Error('the service exited before it answered');
    try {
      await fetch(`${url}/api/v1/me`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const startMs = performance.now() - started;
  return {
    url, pid: child.pid!, startMs,
    token: () => readFileSync(join(opts.dataDir, 'initial-admin-token'), 'utf8').trim(),
    rssMb: () => field(`/proc/${child.pid}/status`, 'VmRSS') / 1024,
    databasePssMb() {
      const { database } = childTrees(child.pid!);
      return database.length ? pssMb(database) : null;
    },
    otherChildrenPss() {
      const { others } = childTrees(child.pid!);
      return { mb: pssMb(others), what: [...new Set(others.map((p) => commandOf(p)[0]?.split('/').pop() ?? '?'))] };
    },
    async stop() {
      if (!exited) child.kill('SIGTERM');
      await exit;
    },
  };
}
