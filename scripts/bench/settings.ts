// Benchmark (not a test): a settings change until it is applied, on the instance that took the PATCH and on another instance serving the same database (LISTEN/NOTIFY).
// Run with `npm run bench:settings` after `npm test` has prepared PostgreSQL (it reads .test-env). No traffic leaves the process but to PostgreSQL.
import { startServer } from '../../tests/helpers/harness.ts';
import { loadTestEnv } from './common.ts';

loadTestEnv();
const samples = Number(process.env.BENCH_SAMPLES ?? 100);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const allowed = async (outbound: { resolve(host: string): Promise<unknown> }) => outbound.resolve('127.0.0.1').then(() => true, () => false);

const a = await startServer({ config: { outbound: { allow: [], allowHostnames: false } } });
const b = await startServer({ reuse: { databaseUrl: a.databaseUrl, dataDir: a.dataDir }, config: { outbound: { allow: [], allowHostnames: false } } });
try {
  const here: number[] = [];
  const there: number[] = [];
  let revision = 0;
  for (let i = 0; i < 10 + samples; i++) {
    const open = i % 2 === 0;
    const t0 = performance.now();
    const res = await a.api('PATCH', '/api/v1/settings', { body: { 'outbound.allow': open ? ['127.0.0.1'] : [] }, headers: { 'if-match': `"${revision}"` } });
    if (res.status !== 200) throw new Error(res.text);
    revision = res.body.revision;
    if (await allowed(a.app.services.outbound) !== open) throw new Error('the instance that took the change did not apply it before answering');
    const t1 = performance.now();
    while (await allowed(b.app.services.outbound) !== open) {
      if (performance.now() - t0 > 10_000) throw new Error('the other instance did not apply the change within 10 s');
      await new Promise((r) => setImmediate(r));
    }
    const t2 = performance.now();
    if (i >= 10) { here.push(t1 - t0); there.push(t2 - t0); }
  }
  here.sort((x, y) => x - y);
  there.sort((x, y) => x - y);
  console.log(`settings change → applied (outbound.allow, ${samples} changes after 10 warm-up; target < 1 s):`);
  console.log(`  on the instance that took the PATCH (answer included): p50 ${pct(here, 50).toFixed(1)} ms, p99 ${pct(here, 99).toFixed(1)} ms`);
  console.log(`  on another instance on the same database:             p50 ${pct(there, 50).toFixed(1)} ms, p99 ${pct(there, 99).toFixed(1)} ms, max ${there[there.length - 1].toFixed(1)} ms`);
} finally {
  await b.stop();
  await a.close();
}
