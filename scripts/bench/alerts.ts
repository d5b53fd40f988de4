// Benchmark (not a test): event → delivered at a webhook receiver, p50/p99; a burst of 1,000 events to one channel, delivered or digested, none lost.
// Run with `npm run bench:alerts` after `npm test` has prepared PostgreSQL (it reads .test-env). Traffic goes to 127.0.0.1 only.
import { startServer, type TestServer } from '../../tests/helpers/harness.ts';
import { startReceiver } from '../../tests/plugins/alerts/helpers.ts';
import { loadTestEnv } from './common.ts';

loadTestEnv();
const samples = Number(process.env.BENCH_SAMPLES ?? 200);
const burst = Number(process.env.BENCH_BURST ?? 1000);
const rx = await startReceiver();
const arrived = new Map<string, number>();
const digested: string[] = [];
const seen = () => {
  for (const r of rx.received.splice(0)) {
    const body = JSON.parse(r.body);
    if (body.event === 'digest') digested.push(...body.held.map((h: { title: string }) => h.title));
    else arrived.set(body.alert.resource, performance.now());
  }
};
const until = async (check: () => boolean, timeoutMs: number, what: string) => {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
    seen();
  }
};
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function server(rateLimit: { perWindow: number; windowMs: number }): Promise<TestServer> {
  const s = await startServer({ plugins: { alerts: { options: { rateLimit, retry: { attempts: 3, backoffMs: 50, maxBackoffMs: 200 } } } } });
  const res = await s.api('POST', '/api/v1/alerts/channels', { body: { name: 'bench', kind: 'webhook', config: { url: `${rx.url}/bench` } } });
  if (res.status !== 201) throw new Error(res.text);
  return s;
}

const emit = (s: TestServer, backup: string) => s.app.services.events.emit('backup.failed', { backup, jobId: '00000000-0000-0000-0000-000000000000' });

let s = await server({ perWindow: 1_000_000, windowMs: 60_000 });
try {
  const latencies: number[] = [];
  for (let i = 0; i < 20 + samples; i++) {
    const resource = `backup:lat-${i}`;
    const t0 = performance.now();
    emit(s, `lat-${i}`);
    await until(() => arrived.has(resource), 10_000, resource);
    if (i >= 20) latencies.push(arrived.get(resource)! - t0);
  }
  latencies.sort((a, b) => a - b);
  console.log(`event → delivered (${samples} sequential events, after 20 warm-up): p50 ${pct(latencies, 50).toFixed(1)} ms, p99 ${pct(latencies, 99).toFixed(1)} ms (target p50 < 50 ms)`);

  arrived.clear();
  let t0 = performance.now();
  for (let i = 0; i < burst; i++) emit(s, `burst-${i}`);
  await until(() => arrived.size === burst, 120_000, 'the burst');
  console.log(`burst of ${burst} events, no rate limit: all ${arrived.size} delivered in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  await s.close();

  s = await server({ perWindow: 100, windowMs: 2000 });
  arrived.clear();
  t0 = performance.now();
  for (let i = 0; i < burst; i++) emit(s, `limited-${i}`);
  await until(() => arrived.size + digested.length >= burst, 120_000, 'the limited burst');
  const lost = burst - arrived.size - digested.length;
  console.log(`burst of ${burst} events, rate limit 100 per 2 s: ${arrived.size} delivered, ${digested.length} in ${digested.length ? 'one digest' : 'no digest'}, ${lost} lost, in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
} finally {
  await s.close();
  await rx.close();
}
