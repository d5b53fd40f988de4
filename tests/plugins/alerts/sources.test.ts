// Alert sources beyond deploys: the kernel's job.failed (secrets redacted), the engine unreachable, low disk space; visibility of alerts follows the stacks' access lists.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, probePath, startServer, type TestServer } from '../../helpers/harness.ts';

let s: TestServer;

before(async () => {
  s = await startServer({
    plugins: {
      probe: { path: probePath },
      docker: { options: { socketPath: '/nonexistent/dockwright/docker.sock', reconnectDelayMs: 50, reconcile: false } },
      containers: {}, stacks: {},
      alerts: { options: { disk: { intervalMs: 1000, minFreePercent: 100, paths: ['/nonexistent/path'] } } },
    },
    config: { rateLimit: { perMinute: 100_000 } },
  });
});
after(() => s.close());

test('a failed job raises job-failed with its redacted error; a repeat counts on it', async () => {
  for (let i = 0; i < 2; i++) {
    const res = await s.api('POST', '/api/v1/probe/jobs', { body: { ms: 0, fail: true, secret: 'hush-123', key: 'one' } });
    assert.equal(res.status, 202);
  }
  const alert = await eventually(async () => {
    const [a] = (await s.api('GET', '/api/v1/alerts?kind=job-failed')).body;
    return a?.count === 2 ? a : null;
  }, 10_000, 'job-failed counted twice');
  assert.equal(alert.subject, 'probe.sleep');
  assert.equal(alert.resource, 'probe:one');
  assert.match(alert.message, /failed on purpose/);
  assert.ok(!JSON.stringify(alert).includes('hush-123'), 'the secret is redacted');
});

test('an engine that cannot be reached is a critical alert; low disk space on DATA_DIR is a warning', async () => {
  const engine = await eventually(async () => (await s.api('GET', '/api/v1/alerts?kind=engine-unreachable')).body[0], 10_000, 'engine-unreachable');
  assert.equal(engine.severity, 'critical');
  assert.equal(engine.resource, 'engine');
  const disk = await eventually(async () => (await s.api('GET', '/api/v1/alerts?kind=disk-low')).body[0], 10_000, 'disk-low');
  assert.equal(disk.resource, 'disk:DATA_DIR');
  assert.match(disk.message, /% \(.* GiB\) is free on DATA_DIR/);
});

test('a caller sees only alerts of resources it may see: a stack outside its access list is hidden, and cannot be acknowledged', async () => {
  const events = s.app.services.events;
  // a stack only admins and team "core" may see (the stacks plugin's access list), and one everyone sees
  const open = await s.api('PUT', '/api/v1/stacks/open1/compose', { body: { content: 'services:\n  app:\n    image: dockwright-test/busybox:1\n' }, headers: { 'if-none-match': '*' } });
  assert.equal(open.status, 200, open.text);
  const secret = await s.api('PUT', '/api/v1/stacks/hidden1/compose', { body: { content: 'services:\n  app:\n    image: dockwright-test/busybox:1\n' }, headers: { 'if-none-match': '*' } });
  assert.equal(secret.status, 200, secret.text);
  const access = await s.api('POST', '/api/v1/stacks/hidden1/access', { body: { entries: [{ principal: 'team:core', role: 'viewer' }] } });
  assert.ok(access.status < 300, access.text);
  events.emit('stack.deploy.failed', { stack: 'hidden1', revision: 1, jobId: '00000000-0000-0000-0000-000000000009' });
  events.emit('stack.deploy.failed', { stack: 'open1', revision: 1, jobId: '00000000-0000-0000-0000-000000000009' });
  await eventually(async () => (await s.api('GET', '/api/v1/alerts?kind=deploy-failed')).body.length === 2, 10_000, 'two alerts');
  const outsider = await s.token('operator', ['alerts:read', 'alerts:write']);
  const seen = (await s.api('GET', '/api/v1/alerts?kind=deploy-failed', { token: outsider })).body.map((a: any) => a.resource);
  assert.deepEqual(seen, ['stack:open1']);
  const hidden = (await s.api('GET', '/api/v1/alerts?kind=deploy-failed')).body.find((a: any) => a.resource === 'stack:hidden1');
  assert.equal((await s.api('POST', `/api/v1/alerts/${hidden.id}/acknowledge`, { token: outsider })).status, 404);
  const member = await s.token('operator', ['alerts:read'], { teams: ['core'] });
  assert.equal((await s.api('GET', '/api/v1/alerts?kind=deploy-failed', { token: member })).body.length, 2);
});
