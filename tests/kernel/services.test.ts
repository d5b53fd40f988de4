// Kernel services seen through HTTP: the activity log, the overview, single-action webhook tokens, secrets at rest, the scheduler.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, startServer, eventually, type TestServer } from '../helpers/harness.ts';
import { createSecrets, loadSecretKey } from '../../kernel/services/secrets.ts';

let s: TestServer;
before(async () => { s = await startServer(); });
after(async () => { await s.close(); });

test('every write is in the activity log with actor, action, resource and result', async () => {
  const token = await s.token('operator', ['probe:write', 'probe:read', 'activity:read']);
  await call(s.url, 'PUT', '/api/v1/probe/items/audited', { token, body: { value: 'a', revision: 0 } });
  await call(s.url, 'PUT', '/api/v1/probe/items/audited', { token, body: { value: 'b', revision: 0 } });
  const res = await call(s.url, 'GET', '/api/v1/activity?resource=/probe/items/audited', { token });
  assert.equal(res.status, 200);
  const [failed, ok] = res.body;
  assert.equal(ok.action, 'probe.put /probe/items/:name');
  assert.equal(ok.result, 'ok');
  assert.equal(ok.actor.kind, 'user');
  assert.match(ok.actor.name, /^operator-/);
  assert.ok(ok.actor.tokenId);
  assert.equal(failed.result, 'failed');
  assert.equal(failed.detail.status, 409);
  const byActor = await call(s.url, 'GET', '/api/v1/activity?actor=user&action=probe.*&limit=1', { token });
  assert.equal(byActor.body.length, 1);
  assert.match(byActor.headers.get('link') ?? '', /rel="next"/);
  const viewerNoScope = await s.token('viewer', ['probe:read']);
  assert.equal((await call(s.url, 'GET', '/api/v1/activity', { token: viewerNoScope })).status, 403);
});

test('the overview shows each plugin part only to tokens holding its scope', async () => {
  const all = await s.api('GET', '/api/v1/overview');
  assert.equal(all.status, 200);
  assert.ok('probe' in all.body.summary);
  assert.ok('jobs' in all.body.summary);
  assert.deepEqual(all.body.attention.map((a: any) => [a.source, a.kind]), [['probe', 'probe']]);
  const narrow = await s.token('viewer', ['jobs:read']);
  const some = await call(s.url, 'GET', '/api/v1/overview', { token: narrow });
  assert.deepEqual(Object.keys(some.body.summary), ['jobs']);
  assert.deepEqual(some.body.attention, []);
});

test('webhook tokens: shown once, one action on one resource, rotate kills the old one at once, revoke disables', async () => {
  const first = (await s.api('POST', '/api/v1/probe/alpha/hook-token')).body.token;
  assert.match(first, /^dwh_[A-Za-z0-9_-]{43}$/);
  const hook = (name: string, token?: string) => call(s.url, 'POST', `/api/probe/${name}/hook`, { token });
  const ok = await hook('alpha', first);
  assert.equal(ok.status, 200);
  assert.equal(ok.body.actor.kind, 'webhook');
  assert.ok(ok.body.actor.address);
  assert.equal((await hook('beta', first)).status, 401, 'a token for alpha does nothing for beta');
  assert.equal((await hook('alpha')).status, 401);
  assert.equal((await call(s.url, 'GET', '/api/v1/me', { token: first })).status, 401, 'a webhook token is not an API token');
  const cooldown = await hook('alpha', first);
  assert.equal(cooldown.status, 429);
  assert.ok(Number(cooldown.headers.get('retry-after')) > 25);

  const second = (await s.api('POST', '/api/v1/probe/alpha/hook-token')).body.token;
  assert.notEqual(second, first);
  assert.equal((await hook('alpha', first)).status, 401, 'the old token fails at once');
  assert.equal((await hook('alpha', second)).status, 429, 'the new token works (still inside the window)');
  await s.api('DELETE', '/api/v1/probe/alpha/hook-token');
  assert.equal((await hook('alpha', second)).status, 401);
  const stored = await s.app.db.query(`SELECT * FROM action_tokens`);
  assert.doesNotMatch(JSON.stringify(stored.rows), new RegExp(second));
});

test('concurrent webhook calls: exactly one is accepted inside the window', async () => {
  const token = (await s.api('POST', '/api/v1/probe/gamma/hook-token')).body.token;
  const answers = await Promise.all(Array.from({ length: 10 }, () => call(s.url, 'POST', '/api/probe/gamma/hook', { token })));
  assert.deepEqual(answers.map((a) => a.status).sort(), [200, ...Array(9).fill(429)]);
});

test('secrets are sealed with AES-256-GCM; tampering is detected; the generated key file is 0600', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dw-secret-'));
  const key = loadSecretKey(undefined, dir);
  assert.equal(statSync(join(dir, 'secret.key')).mode & 0o777, 0o600);
  assert.deepEqual(loadSecretKey(undefined, dir), key, 'the key is kept');
  const secrets = createSecrets(key);
  const sealed = secrets.seal('p@ssw0rd');
  assert.doesNotMatch(sealed + readFileSync(join(dir, 'secret.key'), 'utf8'), /p@ssw0rd/);
  assert.notEqual(secrets.seal('p@ssw0rd'), sealed, 'a fresh IV every time');
  assert.equal(secrets.open(sealed), 'p@ssw0rd');
  const parts = sealed.split(':');
  parts[3] = Buffer.from('tampered').toString('base64url');
  assert.throws(() => secrets.open(parts.join(':')));
  assert.throws(() => createSecrets(loadSecretKey('another key', dir)).open(sealed));
});

test('a scheduled task runs once per slot across two instances on one database', async () => {
  const options = (instance: string) => ({ probe: { path: 'tests/fixtures/probe-plugin/index.ts', options: { tickMs: 1000, instance } } });
  const a = await startServer({ plugins: options('a') });
  const b = await startServer({ plugins: options('b'), reuse: { databaseUrl: a.databaseUrl, dataDir: a.dataDir } });
  try {
    const ticks = await eventually(async () => {
      const { rows } = await a.app.db.query<{ slot: string; n: number }>(`SELECT date_trunc('second', at) AS slot, count(*)::int AS n FROM probe_ticks GROUP BY 1`);
      return rows.length >= 3 ? rows : null;
    }, 10_000, 'three ticks');
    const { rows } = await a.app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM schedule_runs WHERE name = 'probe.tick'`);
    const total = (await a.app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM probe_ticks')).rows[0].n;
    assert.equal(total, rows[0].n, 'one tick per recorded slot, though two instances are running');
    assert.ok(ticks.length >= 3);
  } finally {
    await b.stop();
    await a.close();
  }
});
