// `npm run bench`: every benchmark in one run, on the production build, each figure of issue 8's table beside its target.
// Adding a benchmark is one line in `benches` (a function answering Figure[]). It reads .test-env: run `npm test` once first.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { root } from '../../tests/helpers/harness.ts';
import { loadTestEnv, met, table, type Bench, type Figure } from './common.ts';
import { footprintBench } from './footprint.ts';
import { kernelBench } from './kernel.ts';
import { jobsBench } from './jobs.ts';
import { stacksBench } from './stacks.ts';
import { portalBench } from './portal.ts';

const benches: [string, Bench][] = [
  ['start and memory', footprintBench],
  ['request path', kernelBench],
  ['job runner', jobsBench],
  ['stacks list and read', stacksBench],
  ['portal', portalBench],
];

loadTestEnv();
execFileSync(process.execPath, ['--import', 'tsx', join(root, 'scripts/build.ts')], { cwd: root, stdio: 'inherit' });
const figures: Figure[] = [];
for (const [name, bench] of benches) {
  process.stdout.write(`\n${name}…\n`);
  try {
    const got = await bench();
    process.stdout.write(`${table(got)}\n`);
    figures.push(...got);
  } catch (err) {
    process.stdout.write(`${name} failed: ${(err as Error).stack}\n`);
    process.exitCode = 1;
  }
}
process.stdout.write(`\nall figures (${figures.filter(met).length} of ${figures.length} targets met; machine load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})\n${table(figures)}\n`);
