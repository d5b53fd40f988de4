// Alert rules end to end on the real engine: a CPU-burning container trips a rule with a short `for`, the alert reaches a webhook receiver on loopback with the values, and resolves once the container calms down; rule and silence routes, their refusals and access lists.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startServer, type TestServer } from '../../helpers/harness.ts';
import { act, busybox, cleanupProjects, containerOf, createStack, docker, uniqueName } from '../stacks/helpers.ts';
import { startReceiver, type Receiver } from '../alerts/helpers.ts';

const busy = uniqueName('mrb');
const hidden = uniqueName('mrh');
let s: TestServer;
let rx: Receiver;

before(async () => {
  rx = await startReceiver();
  s = await startServer({
    plugins: {
      docker: { options: { stopTimeoutSeconds: 1, reconcile: false } },
      containers: {}, stacks: {},
      alerts: { options: { retry: { attempts: 20, backoffMs: 100, maxBackoffMs: 200 }, rateLimit: { perWindow: 1000, windowMs: 60_000 } } },
      metrics: { options: { intervalMs: 500 } },
    },
    config: { rateLimit: { perMinute: 100_000 } },
  });
});
after(async () => {
  await cleanupProjects(busy, hidden);
  await s.close();
  await rx.close();
});

const received = (path: string) => rx.on(path).map((r) => JSON.parse(r.body) as { event: string; text: string; title: string; severity: string; alert: { kind: string; resource: string; message: string } | null });

test('a CPU-burning container trips a rule after its `for`; the webhook gets the alert with the values, and its resolution once the container calms down', async () => {
  const channel = (await s.api('POST', '/api/v1/alerts/channels', { body: { name: 'rules', kind: 'webhook', config: { url: `${rx.url}/rules` } } })).body;
  const other = (await s.api('POST', '/api/v1/alerts/channels', { body: { name: 'other', kind: 'webhook', config: { url: `${rx.url}/other` }, events: ['rule'] } })).body;
  assert.ok(channel.id && other.id);
  // a shell loop with no command in it burns a whole core until /tmp/calm exists (on a shared, busy machine it may get far less: the threshold is low)
  await createStack(s, busy, busybox({ app: 'while [ ! -f /tmp/calm ]; do :; done; sleep 3600' }));
  await act(s, 'deploy', busy);
  const created = await s.api('POST', '/api/v1/alerts/rules', { body: { scope: `container:${busy}/*`, metric: 'cpu', op: '>', threshold: 10, for: '2s', recover: 2, severity: 'critical', channels: [channel.id] } });
  assert.equal(created.status, 201, created.text);
  const rule = created.body;
  assert.equal(rule.kind, `rule:${rule.id}`);
  assert.equal(rule.builtIn, false);

  const raised = await eventually(async () => received('/rules').find((m) => m.event === 'raised' && m.alert?.kind === rule.kind), 60_000, 'the raised alert at the webhook', 200).catch(async (err) => {
    console.error('DEBUG', JSON.stringify((await s.api('GET', `/api/v1/metrics/series?scope=stack:${busy}&metric=cpu`)).body), JSON.stringify((await s.api('GET', '/api/v1/alerts')).body), JSON.stringify(rx.received.map((r) => r.path)));
    throw err;
  });
  assert.equal(raised.severity, 'critical');
  assert.equal(raised.alert!.resource, `stack:${busy}`);
  assert.match(raised.alert!.message, new RegExp(`^cpu of container ${busy}-app-1 is \\d+(\\.\\d+)? \\(> 10 for \\d+ s\\)$`));
  assert.ok(Number(/is ([\d.]+)/.exec(raised.alert!.message)![1]) > 10, raised.alert!.message);
  assert.match(raised.text, /values since it began: [\d., ]+; it resolves at or below 2/);
  const [open] = (await s.api('GET', `/api/v1/alerts?kind=${encodeURIComponent(rule.kind)}`)).body;
  assert.equal(open.status, 'open');
  assert.ok(open.details.values.length >= 2 && open.details.values.every((v: number) => v > 10), JSON.stringify(open.details));
  assert.equal(open.details.threshold, 10);

  const c = await containerOf(busy, 'app');
  const exec = await docker.getContainer(c!.Id).exec({ Cmd: ['touch', '/tmp/calm'] });
  const started = await exec.start({ Detach: true }) as unknown as { destroy?: () => void } | undefined;
  started?.destroy?.(); // the engine's answer to a detached start: nothing more comes on it
  const resolved = await eventually(async () => received('/rules').find((m) => m.event === 'resolved' && m.alert?.kind === rule.kind), 60_000, 'the resolution at the webhook', 200);
  assert.match(resolved.title, /^\[resolved\] cpu of container/);
  assert.equal(received('/rules').filter((m) => m.alert?.kind === rule.kind && m.event === 'raised').length, 1, 'deduplicated: raised once');
  assert.equal(received('/other').length, 0, 'a channel the rule does not name hears nothing of it');
  assert.equal((await s.api('GET', `/api/v1/alerts?kind=${encodeURIComponent(rule.kind)}`)).body[0].status, 'resolved');
});

test('built-in rules are listed with builtIn: true; they may be disabled, not deleted; an added rule is read, replaced and deleted', async () => {
  const list = (await s.api('GET', '/api/v1/alerts/rules')).body as any[];
  const builtIn = list.filter((r) => r.builtIn).map((r) => r.id).sort();
  assert.deepEqual(builtIn, ['cpu-high', 'disk-full-forecast', 'disk-high', 'memory-high', 'oom-kill', 'restarts', 'unhealthy']);
  const disk = list.find((r) => r.id === 'disk-high');
  assert.deepEqual([disk.metric, disk.op, disk.threshold, disk.for], ['disk-used-percent', '>', 85, '5m']);
  const refused = await s.api('DELETE', '/api/v1/alerts/rules/disk-high');
  assert.equal(refused.status, 409);
  assert.match(refused.body.type, /\/built-in-rule$/);
  const { id: _id, kind: _k, builtIn: _b, description: _d, createdAt: _c, updatedAt: _u, ...spec } = disk;
  const off = await s.api('PUT', '/api/v1/alerts/rules/disk-high', { body: { ...spec, enabled: false } });
  assert.equal(off.status, 200, off.text);
  assert.equal(off.body.enabled, false);
  assert.equal(off.body.builtIn, true);

  const made = (await s.api('POST', '/api/v1/alerts/rules', { body: { scope: 'host', metric: 'load', op: '>', threshold: 50, for: '5m', severity: 'info' } })).body;
  assert.equal((await s.api('GET', `/api/v1/alerts/rules/${made.id}`)).body.metric, 'load');
  const put = await s.api('PUT', `/api/v1/alerts/rules/${made.id}`, { body: { scope: 'host', metric: 'load', op: '>', threshold: 80, for: '1m', severity: 'warning', cooldown: '10m' } });
  assert.equal(put.body.threshold, 80);
  assert.equal(put.body.cooldown, '10m');
  assert.equal((await s.api('DELETE', `/api/v1/alerts/rules/${made.id}`)).status, 204);
  assert.equal((await s.api('GET', `/api/v1/alerts/rules/${made.id}`)).status, 404);
  assert.equal((await s.api('DELETE', `/api/v1/alerts/rules/${made.id}`)).status, 404);
  assert.equal((await s.api('PUT', '/api/v1/alerts/rules/no-such-rule', { body: { scope: 'host', metric: 'load', op: '>', threshold: 1, for: '1m', severity: 'info' } })).status, 404);
});

test('bad rules and silences are 400 problems and nothing is written; a viewer may read, not write', async () => {
  const before = (await s.api('GET', '/api/v1/alerts/rules')).body.length;
  const base = { scope: 'host', metric: 'cpu', op: '>', threshold: 90, for: '1m', severity: 'warning' };
  for (const body of [
    { ...base, metric: 'restarts' }, { ...base, scope: 'container:*', metric: 'load' }, { ...base, recover: 95 }, { ...base, op: '<', recover: 80 },
    { ...base, for: '10 minutes' }, { ...base, for: '200h' }, { ...base, op: '>=' }, { ...base, threshold: 'high' }, { ...base, scope: 'galaxy' },
    { ...base, severity: 'urgent' }, { ...base, channels: ['not-a-uuid'] }, { ...base, extra: 1 }, { metric: 'cpu' },
  ]) {
    const res = await s.api('POST', '/api/v1/alerts/rules', { body });
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
  }
  assert.equal((await s.api('GET', '/api/v1/alerts/rules')).body.length, before);
  for (const body of [{ scope: 'host', until: new Date(Date.now() - 1000).toISOString(), reason: 'past' }, { scope: 'moon', until: new Date(Date.now() + 60_000).toISOString(), reason: 'x' },
    { scope: 'host', until: 'tomorrow', reason: 'x' }, { scope: 'host', until: new Date(Date.now() + 60_000).toISOString(), reason: '' }]) {
    assert.equal((await s.api('POST', '/api/v1/alerts/silences', { body })).status, 400, JSON.stringify(body));
  }
  assert.deepEqual((await s.api('GET', '/api/v1/alerts/silences')).body, []);
  const viewer = await s.token('viewer', ['alerts:read']);
  assert.equal((await s.api('GET', '/api/v1/alerts/rules', { token: viewer })).status, 200);
  assert.equal((await s.api('POST', '/api/v1/alerts/rules', { token: viewer, body: base })).status, 403);
});

test('a silence is listed until it ends or is deleted; rules and silences of a stack hidden by its access list answer 404 as a missing one', async () => {
  const until = new Date(Date.now() + 3_600_000).toISOString();
  const made = await s.api('POST', '/api/v1/alerts/silences', { body: { scope: 'rule:cpu-high', until, reason: 'maintenance' } });
  assert.equal(made.status, 201, made.text);
  assert.equal(made.body.until, until);
  assert.deepEqual((await s.api('GET', '/api/v1/alerts/silences')).body.map((x: any) => x.id), [made.body.id]);
  assert.equal((await s.api('DELETE', `/api/v1/alerts/silences/${made.body.id}`)).status, 204);
  assert.equal((await s.api('DELETE', `/api/v1/alerts/silences/${made.body.id}`)).status, 404);
  assert.deepEqual((await s.api('GET', '/api/v1/alerts/silences')).body, []);

  await createStack(s, hidden, busybox());
  await s.api('POST', `/api/v1/stacks/${hidden}/access`, { body: { entries: [{ principal: 'team:core', role: 'operator' }] } });
  const rule = (await s.api('POST', '/api/v1/alerts/rules', { body: { scope: `stack:${hidden}`, metric: 'memory', op: '>', threshold: 1e9, for: '1m', severity: 'info' } })).body;
  const outsider = await s.token('operator', ['alerts:read', 'alerts:write']);
  assert.ok(!(await s.api('GET', '/api/v1/alerts/rules', { token: outsider })).body.some((r: any) => r.id === rule.id));
  assert.equal((await s.api('GET', `/api/v1/alerts/rules/${rule.id}`, { token: outsider })).status, 404);
  assert.equal((await s.api('DELETE', `/api/v1/alerts/rules/${rule.id}`, { token: outsider })).status, 404);
  const body = { scope: `stack:${hidden}`, metric: 'cpu', op: '>', threshold: 1, for: '1m', severity: 'info' };
  assert.equal((await s.api('POST', '/api/v1/alerts/rules', { token: outsider, body })).status, 404);
  assert.equal((await s.api('POST', '/api/v1/alerts/silences', { token: outsider, body: { scope: `stack:${hidden}`, until, reason: 'x' } })).status, 404);
  const quiet = (await s.api('POST', '/api/v1/alerts/silences', { body: { scope: `stack:${hidden}`, until, reason: 'hidden work' } })).body;
  assert.ok(!(await s.api('GET', '/api/v1/alerts/silences', { token: outsider })).text.includes(hidden), 'a hidden stack\'s silence is not listed to an outsider');
  assert.equal((await s.api('DELETE', `/api/v1/alerts/silences/${quiet.id}`, { token: outsider })).status, 404);
  assert.equal((await s.api('GET', '/api/v1/alerts/silences')).body.length, 1, 'it is still there');
});
