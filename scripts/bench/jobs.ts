// Benchmark (not a test): no-op jobs through the durable runner: throughput of a burst, and enqueue → start latency on an idle runner.
// Run with `npm run bench:jobs` after `npm test` has prepared PostgreSQL (it reads .test-env).
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { boot } from '../../kernel/app.ts';
import { createDatabase, root } from '../../tests/helpers/harness.ts';
import type { JobHandle } from '../../sdk/index.ts';
import { median, standalone, type Figure, removeDataDir } from './common.ts';

export async function jobsBench(): Promise<Figure[]> {
  const db = await createDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-bench-'));
  chmodSync(dataDir, 0o755);
  const app = await boot({
    root, env: { NODE_ENV: 'test' },
    config: { host: '127.0.0.1', port: 0, dataDir, databaseUrl: db.url, log: { level: 'silent' }, plugins: { bench: { path: 'scripts/bench/noop-plugin/index.ts' } }, jobs: { concurrency: 4, outputLimit: 65536 } },
  });
  try {
    const noop = (app.apis.bench as { noop: JobHandle<{ i: number }> }).noop;
    const actor = { kind: 'system' as const, name: 'bench' };
    const burst = async (n: number) => {
      const t0 = performance.now();
      const jobs = await Promise.all(Array.from({ length: n }, (_, i) => noop.enqueue({ i }, { actor })));
      await Promise.all(jobs.map((j) => app.jobs.wait(j.id, 120_000)));
      return n / ((performance.now() - t0) / 1000);
    };
    await burst(200); // warm-up
    const rate = await burst(2000);
    // one at a time, so the runner is idle at each enqueue: the time a job waits before it starts
    const waits: number[] = [];
    // and the time from its finish to the answer of a wait begun before it: the wait is woken, not polling
    const answers: number[] = [];
    for (let i = 0; i < 200; i++) {
      const job = await noop.enqueue({ i }, { actor });
      const done = await app.jobs.wait(job.id, 10_000);
      answers.push(Date.now() - Date.parse(done!.finishedAt!));
      waits.push(Date.parse(done!.startedAt!) - Date.parse(done!.createdAt));
    }
    return [
      { figure: 'no-op durable jobs, a burst of 2,000', value: rate, unit: 'jobs/s', target: { atLeast: 1000 }, note: 'concurrency 4' },
      { figure: 'job enqueue → start, p50 (idle runner)', value: median(waits), unit: 'ms', target: { below: 10 }, note: `p90 ${[...waits].sort((a, b) => a - b)[179]} ms over 200 jobs` },
      { figure: 'job finish → its wait answers, p50', value: median(answers), unit: 'ms', target: { below: 100 }, note: `p90 ${[...answers].sort((a, b) => a - b)[179]} ms over 200 jobs` },
    ];
  } finally {
    await app.close();
    await db.drop();
    await removeDataDir(dataDir);
  }
}

await standalone(import.meta.url, jobsBench);
