// Benchmark (not a test): two instances on one database — jobs per second across both, and the takeover time after a kill -9.
// Run with `npm run bench:scale` after `npm test` has prepared PostgreSQL (it reads .test-env).
import { call, startChild, startServer } from '../../tests/helpers/harness.ts';
import { standalone, type Figure } from './common.ts';

export async function scaleBench(): Promise<Figure[]> {
  const s = await startServer({ plugins: {} });
  const probe = (instance: string) => ({ probe: { path: 'tests/fixtures/probe-plugin/index.ts', options: { instance } } });
  const start = (name: string, jobs: Record<string, unknown> = {}) => startChild({
    databaseUrl: s.databaseUrl, dataDir: `${s.dataDir}-${name}`, plugins: probe(name), rateLimit: { perMinute: 1_000_000 },
    jobs: { concurrency: 4, leaseMs: 30_000, renewMs: 1000, pollMs: 1000, ...jobs },
  });
  const [a, b] = [await start('a'), await start('b')];
  try {
    const token = await s.token('admin', ['*']);
    const post = (url: string, body: unknown) => call(url, 'POST', '/api/v1/probe/jobs', { token, body });
    const count = 1000;
    const began = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < count; i += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, (_, j) => post((i + j) % 2 ? a.url : b.url, { ms: 0 })));
      ids.push(...batch.map((r) => r.body.id as string));
    }
    for (const [i, id] of ids.entries()) await call(i % 2 ? b.url : a.url, 'GET', `/api/v1/jobs/${id}/wait?timeout=60`, { token });
    const jobsPerSecond = count / ((Date.now() - began) / 1000);

    const long = (await post(a.url, { ms: 600_000 })).body;
    while ((await call(a.url, 'GET', `/api/v1/jobs/${long.id}`, { token })).body.status !== 'running') await new Promise((r) => setTimeout(r, 20));
    const killed = Date.now();
    await a.kill('SIGKILL');
    const taken = (await call(b.url, 'GET', `/api/v1/jobs/${long.id}/wait?timeout=60`, { token })).body;
    const takeoverMs = taken.status === 'failed' ? Date.now() - killed : Infinity;

    return [
      { figure: 'no-op jobs enqueued on two instances, run once each', value: Math.round(jobsPerSecond), unit: 'jobs/s', target: { atLeast: 200 }, note: `${count} jobs, HTTP enqueue and wait included` },
      { figure: 'kill -9 → the other instance marks the job interrupted', value: takeoverMs, unit: 'ms', target: { below: 5000 }, note: 'renew 1 s, lease 30 s: the closed connection and two missed renewals tell' },
    ];
  } finally {
    await a.kill('SIGKILL');
    await b.kill('SIGTERM');
    await s.close();
  }
}

await standalone(import.meta.url, scaleBench);
