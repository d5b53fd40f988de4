// What the benchmarks share: the test machine's environment (.test-env), one load run with autocannon, figures printed beside their targets, and data dirs removed with the Caddy that outlives their service.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { root } from '../../tests/helpers/harness.ts';
import { findCaddy, stopCaddy } from '../../plugins/edge/process.ts';

/** reads .test-env (written by scripts/test-env.sh) into process.env */
export function loadTestEnv(): void {
  for (const line of readFileSync(join(root, '.test-env'), 'utf8').split('\n')) {
    const m = /^export (\w+)=(.*)$/.exec(line);
    if (m) process.env[m[1]] ??= m[2];
  }
}

export async function load(url: string, headers: Record<string, string>, seconds = 10, connections = 32) {
  const result = await autocannon({ url, connections, duration: seconds, headers });
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

/** one measured figure: `value` in `unit`, met when it is on the right side of `target` */
export interface Figure {
  figure: string;
  value: number;
  unit: string;
  target: { below: number } | { atLeast: number };
  /** what it was measured beside (a peer or a bare baseline), for ratios */
  note?: string;
}

export type Bench = () => Promise<Figure[]>;

export const met = (f: Figure) => ('below' in f.target ? f.value < f.target.below : f.value >= f.target.atLeast);

export function table(figures: readonly Figure[]): string {
  const fmt = (n: number) => (Number.isInteger(n) || n >= 100 ? n.toFixed(0) : n.toFixed(2));
  const rows = figures.map((f) => [
    f.figure,
    `${fmt(f.value)} ${f.unit}`,
    'below' in f.target ? `< ${fmt(f.target.below)} ${f.unit}` : `≥ ${fmt(f.target.atLeast)} ${f.unit}`,
    met(f) ? 'met' : 'MISSED',
    f.note ?? '',
  ]);
  const head = ['figure', 'measured', 'target', '', 'beside'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** runs a bench when its file is the command (`tsx scripts/bench/x.ts`), not when the runner imports it */
export async function standalone(moduleUrl: string, bench: Bench): Promise<void> {
  if (process.argv[1] !== fileURLToPath(moduleUrl)) return;
  loadTestEnv();
  const figures = await bench();
  process.stdout.write(`\n${table(figures)}\n`);
}

export const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Removes a service's data dir after its run, stopping first the edge's Caddy, which outlives the service by design.
 * A Caddy the service was (re)starting as it stopped may appear a moment after a first look, and one whose folder is
 * gone is still found by its boot file's path in /proc: the look is repeated until none has been seen for half a second.
 */
export async function removeDataDir(dir: string): Promise<void> {
  const home = join(dir, 'plugins', 'edge', 'caddy');
  if (existsSync(dir)) {
    for (let quiet = 0; quiet < 5;) {
      const found = findCaddy(home);
      if (found === null) { quiet++; await new Promise((r) => setTimeout(r, 100)); continue; }
      quiet = 0;
      if (existsSync(home)) await stopCaddy(home).catch(() => undefined);
      else try { process.kill(found, 'SIGKILL'); } catch { /* gone */ }
    }
  }
  rmSync(dir, { recursive: true, force: true });
}
