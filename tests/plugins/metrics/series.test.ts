// Metrics history on a real engine and database: a stack's container sampled and answered as series, access lists (a hidden stack answers as a missing one), bad input, the tiers' rollups and retention, the step chosen from the range.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startServer, type TestServer } from '../../helpers/harness.ts';
import { act, busybox, cleanupProjects, createStack, uniqueName } from '../stacks/helpers.ts';
import type { Collector } from '../../../plugins/metrics/collector.ts';
import type { MetricsStore } from '../../../plugins/metrics/store.ts';
import { containerMetrics, hostMetrics } from '../../../plugins/metrics/series.ts';

const open = uniqueName('mto');
const hidden = uniqueName('mth');
let s: TestServer;
let metrics: { store: MetricsStore; collector: Collector };

before(async () => {
  s = await startServer({
    plugins: {
      docker: { options: { stopTimeoutSeconds: 1, reconcile: false } },
      containers: {}, stacks: {}, alerts: {},
      metrics: { options: { intervalMs: 500 } },
    },
    config: { rateLimit: { perMinute: 100_000 } },
  });
  metrics = s.app.apis.metrics as typeof metrics;
});
after(async () => {
  await cleanupProjects(open, hidden);
  await s.close();
});

const series = (query: string, token = s.admin) => s.api('GET', `/api/v1/metrics/series?${query}`, { token });

test('a running stack\'s container is sampled: its series and its stack\'s answer points of the 10 s tier; the host\'s too', async () => {
  await createStack(s, open, busybox({ app: 'sleep 3600' }));
  await act(s, 'deploy', open);
  const stack = await eventually(async () => {
    const res = await series(`scope=stack:${open}&metric=memory`);
    return res.status === 200 && res.body.points.length >= 2 ? res.body : null;
  }, 30_000, 'two memory points of the stack');
  assert.equal(stack.step, 10);
  assert.equal(stack.unit, 'bytes');
  assert.ok(stack.points.every(([t, v]: [number, number]) => Number.isInteger(t) && v > 0), JSON.stringify(stack.points));
  const [c] = (await s.api('GET', `/api/v1/containers?stack=${open}`)).body;
  const one = await series(`scope=container:${c.id.slice(0, 12)}&metric=cpu`);
  assert.equal(one.status, 200, one.text);
  assert.ok(one.body.points.length >= 1);
  const host = await series('scope=host&metric=cpu-percent');
  assert.equal(host.status, 200, host.text);
  assert.ok(host.body.points.length >= 1 && host.body.points.every(([, v]: number[]) => v >= 0 && v <= 100));
  const disk = await series('scope=host&metric=disk-free');
  assert.ok(disk.body.points[0][1] > 0);
  const prom = await s.api('GET', '/metrics');
  assert.match(prom.text, new RegExp(`dockwright_container_memory_bytes\\{stack="${open}",service="app",container="[^"]+"\\} \\d+`));
});

test('a viewer outside a stack\'s access list gets 404 for its series and its container\'s, exactly as for a stack that does not exist', async () => {
  await createStack(s, hidden, busybox({ app: 'sleep 3600' }));
  const access = await s.api('POST', `/api/v1/stacks/${hidden}/access`, { body: { entries: [{ principal: 'team:core', role: 'viewer' }] } });
  assert.ok(access.status < 300, access.text);
  await act(s, 'deploy', hidden);
  await eventually(async () => (await series(`scope=stack:${hidden}&metric=cpu`)).body.points?.length > 0, 30_000, 'points of the hidden stack');
  const [c] = (await s.api('GET', `/api/v1/containers?stack=${hidden}`)).body;
  // metrics:read is an operator's scope (the kernel's, for /metrics too): an operator outside the list
  const outsider = await s.token('operator', ['metrics:read']);
  const member = await s.token('operator', ['metrics:read'], { teams: ['core'] });
  const denied = await series(`scope=stack:${hidden}&metric=cpu`, outsider);
  const missing = await series('scope=stack:no-such-stack&metric=cpu', outsider);
  assert.equal(denied.status, 404);
  assert.equal(missing.status, 404);
  assert.equal(denied.headers.get('content-type'), missing.headers.get('content-type'));
  assert.match(denied.headers.get('content-type') ?? '', /problem\+json/);
  assert.deepEqual(Object.keys(denied.body).sort(), Object.keys(missing.body).sort());
  assert.equal((await series(`scope=container:${c.id}&metric=cpu`, outsider)).status, 404);
  assert.equal((await series(`scope=container:${'f'.repeat(64)}&metric=cpu`, outsider)).status, 404);
  assert.equal((await series(`scope=stack:${hidden}&metric=cpu`, member)).status, 200, 'a member of the list reads it');
  assert.equal((await series(`scope=stack:${open}&metric=cpu`, outsider)).status, 200, 'a stack without a list is open to them');
  const noScope = await s.token('viewer', ['containers:read']);
  assert.equal((await series('scope=host&metric=cpu', noScope)).status, 403);
});

test('bad input is a 400 problem: an unknown scope or metric, a metric of the host asked of a stack, a date that is none, from after to', async () => {
  for (const q of ['scope=galaxy&metric=cpu', 'scope=host&metric=bogus', `scope=stack:${open}&metric=load`, 'scope=host&metric=cpu&from=yesterday',
    'scope=host&metric=cpu&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'scope=host', 'metric=cpu', 'scope=container:xyz&metric=cpu',
    'scope=host&metric=cpu&from=-271821-04-20T00:00:00Z', 'scope=host&metric=cpu&to=%2B275760-09-13T00:00:00Z', 'scope=host&metric=cpu&from=1969-12-31T23:59:59Z']) {
    const res = await series(q);
    assert.equal(res.status, 400, `${q}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /problem\+json/, q);
  }
});

test('rollups average the 10 s rows into 1 min and 15 min (restarts summed), retention cuts each tier, and the tier and step follow the range (500 to 1,000 points where a tier allows)', async () => {
  const { store, collector } = metrics;
  const id = `${'e'.repeat(60)}${Date.now().toString(16).slice(-4)}`;
  const now = new Date(Math.floor(Date.now() / 900_000) * 900_000 + 30_000);
  const cpu = containerMetrics.indexOf('cpu');
  const restarts = containerMetrics.indexOf('restarts');
  const host = hostMetrics.map(() => null);
  // six samples in each of the last three minutes: cpu 10, 20, … 60 (avg 35), one restart in each sample
  for (let minute = 3; minute >= 1; minute--) {
    for (let k = 0; k < 6; k++) {
      const values = containerMetrics.map((_, i) => (i === cpu ? (k + 1) * 10 : i === restarts ? 1 : 0));
      const at = new Date(Math.floor(now.getTime() / 60_000) * 60_000 - minute * 60_000 + k * 10_000);
      await store.write({ at, host, containers: [{ id, name: 'seeded', stack: open, service: 'seed', values }] });
    }
  }
  // a row older than each tier keeps
  await s.app.db.query(`INSERT INTO metric_points_10s (source, t, v) SELECT id, $2, '{1}' FROM metric_sources WHERE scope = $1`, [`container:${id}`, new Date(now.getTime() - 25 * 3600_000)]);
  await s.app.db.query(`INSERT INTO metric_points_1m (source, t, v) SELECT id, $2, '{1}' FROM metric_sources WHERE scope = $1`, [`container:${id}`, new Date(now.getTime() - 8 * 86_400_000)]);
  await s.app.db.query(`INSERT INTO metric_points_15m (source, t, v) SELECT id, $2, '{1}' FROM metric_sources WHERE scope = $1`, [`container:${id}`, new Date(now.getTime() - 91 * 86_400_000)]);
  await collector.maintain(now);
  await collector.maintain(now); // again: the same rows, not twice the counts
  const rows = async (table: string) => (await s.app.db.query<{ t: Date; v: number[] }>(
    `SELECT t, v FROM ${table} p JOIN metric_sources s ON s.id = p.source WHERE s.scope = $1 ORDER BY t`, [`container:${id}`])).rows;
  const minutes = await rows('metric_points_1m');
  assert.equal(minutes.length, 3, JSON.stringify(minutes));
  for (const m of minutes) {
    assert.equal(m.v[cpu], 35);
    assert.equal(m.v[restarts], 6, 'counts are summed');
  }
  const quarter = await rows('metric_points_15m');
  assert.equal(quarter.length, 1);
  assert.equal(quarter[0].v[restarts], 18);
  assert.equal((await rows('metric_points_10s')).length, 18, 'the row older than 24 h is gone');
  assert.ok((await rows('metric_points_15m')).every((r) => new Date(r.t).getTime() > now.getTime() - 90 * 86_400_000));

  const seven = await series(`scope=container:${id}&metric=cpu&from=${new Date(Date.now() - 7 * 86_400_000).toISOString()}&to=${new Date().toISOString()}`);
  assert.equal(seven.status, 200, seven.text);
  assert.equal(seven.body.step, 900, '7 days: the 15 min tier (672 points), not 10,080 rows of 1 min');
  const day = await series(`scope=container:${id}&metric=cpu&from=${new Date(Date.now() - 86_400_000).toISOString()}&to=${new Date().toISOString()}`);
  assert.equal(day.body.step, 120, '24 hours: the 1 min tier in steps of 2 min (720 points)');
  const hour = await series(`scope=container:${id}&metric=cpu&from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date().toISOString()}`);
  assert.equal(hour.body.step, 10, 'an hour: the 10 s tier');
  const old = await series(`scope=container:${id}&metric=cpu&from=${new Date(Date.now() - 30 * 86_400_000).toISOString()}&to=${new Date(Date.now() - 29 * 86_400_000).toISOString()}`);
  assert.equal(old.body.step, 900, 'a day a month ago: only the 15 min tier holds it');
  const ninety = await series(`scope=container:${id}&metric=restarts&from=${new Date(Date.now() - 90 * 86_400_000).toISOString()}&to=${new Date().toISOString()}`);
  assert.equal(ninety.body.step, 8100, '90 days of the 15 min tier in steps of 2 h 15 min');
  assert.equal(ninety.body.points.length, 1);
  assert.equal(ninety.body.points[0][1], 18);
});
