// Benchmark (not a test): authenticated GET /api/v1/me against a bare node:http hello-world, and no-op jobs per second through the runner.
// Run with `npm run bench:kernel` after `npm test` has prepared PostgreSQL (it reads .test-env).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { boot } from '../../kernel/app.ts';
import { createDatabase, root, startChild } from '../../tests/helpers/harness.ts';
import type { JobHandle } from '../../sdk/index.ts';
import { load, loadTestEnv } from './common.ts';

loadTestEnv();

async function bareHello(): Promise<{ url: string; close(): void }> {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, ['-e', `require('http').createServer((q,s)=>{s.setHeader('content-type','application/json');s.end('{"hello":"world"}')}).listen(0,'127.0.0.1',function(){console.log(this.address().port)})`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((r) => child.stdout!.once('data', (d) => r(String(d).trim())));
  return { url: `http://127.0.0.1:${port}/`, close: () => child.kill() };
}

const db = await createDatabase();
try {
  // requests: both servers in their own process, the load generator in this one
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-bench-'));
  const kernel = await startChild({ databaseUrl: db.url, dataDir, plugins: {}, rateLimit: { perMinute: 100_000_000 } });
  const token = readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
  const hello = await bareHello();
  await load(hello.url, {}, 2); // warm-up
  await load(kernel.url + '/api/v1/me', { authorization: `Bearer ${token}` }, 2);
  const bare = await load(hello.url, {});
  const me = await load(kernel.url + '/api/v1/me', { authorization: `Bearer ${token}` });
  hello.close();
  await kernel.kill('SIGTERM');

  // jobs: enqueue N no-op jobs and time until the last one is done
  const app = await boot({
    root, env: { NODE_ENV: 'test' },
    config: { host: '127.0.0.1', port: 0, dataDir, databaseUrl: db.url, log: { level: 'silent' }, plugins: { bench: { path: 'scripts/bench/noop-plugin/index.ts' } }, jobs: { concurrency: 4, outputLimit: 65536 } },
  });
  const noop = (app.apis.bench as { noop: JobHandle<{ i: number }> }).noop;
  const n = 2000;
  const t0 = performance.now();
  const jobs = await Promise.all(Array.from({ length: n }, (_, i) => noop.enqueue({ i }, { actor: { kind: 'system', name: 'bench' } })));
  const enqueued = performance.now();
  await Promise.all(jobs.map((j) => app.jobs.wait(j.id, 120_000)));
  const t1 = performance.now();
  await app.close();

  console.log('\nauthenticated GET /api/v1/me vs bare node:http (32 connections, 10 s each)');
  console.table({ 'node:http hello': bare, 'GET /api/v1/me': me });
  console.log(`kernel/bare ratio: ${(me.rps / bare.rps).toFixed(2)}`);
  console.log(`\nno-op jobs: ${n} enqueued in ${(enqueued - t0).toFixed(0)} ms, all done in ${(t1 - t0).toFixed(0)} ms → ${Math.round(n / ((t1 - t0) / 1000))} jobs/s (concurrency 4)`);
} finally {
  await db.drop();
}
