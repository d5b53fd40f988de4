// Live settings through GET/PATCH /settings: a loopback alert channel allowed with no restart, sources and their refusals, revisions, validation, secrets, audit, other instances, and the connection test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { eventually, startServer, type TestServer } from '../helpers/harness.ts';
import { startReceiver } from '../plugins/alerts/helpers.ts';

const patch = (s: TestServer, body: unknown, revision?: number, token?: string) =>
  s.api('PATCH', '/api/v1/settings', { body, ...(token ? { token } : {}), headers: revision === undefined ? {} : { 'if-match': `"${revision}"` } });

test('a loopback alert channel refused by the outbound policy is allowed through the Settings API, with no restart', async () => {
  const rx = await startReceiver();
  const s = await startServer({ plugins: { alerts: {} }, config: { outbound: { allow: [], allowHostnames: false } } });
  try {
    const channel = { name: 'local-ntfy', kind: 'webhook', config: { url: `${rx.url}/hook` } };
    const refused = await s.api('POST', '/api/v1/alerts/channels', { body: channel });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.type, 'https://dockwright.dev/problems/outbound-refused');
    assert.equal(rx.received.length, 0, 'refused before any connection');

    const before = await s.api('GET', '/api/v1/settings');
    assert.equal(before.status, 200);
    assert.deepEqual(before.body.settings['outbound.allow'], []);
    assert.equal(before.body.sources['outbound.allow'], 'default');
    const changed = await patch(s, { 'outbound.allow': ['127.0.0.1'] }, before.body.revision);
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.revision, before.body.revision + 1);
    assert.deepEqual(changed.body.settings['outbound.allow'], ['127.0.0.1']);
    assert.equal(changed.body.sources['outbound.allow'], 'portal');

    const created = await s.api('POST', '/api/v1/alerts/channels', { body: channel });
    assert.equal(created.status, 201, created.text);
    const tested = await s.api('POST', '/api/v1/alerts/test', { body: { channelId: created.body.id } });
    assert.equal(tested.body.results[0].delivered, true, tested.text);
    assert.equal(rx.on('/hook').length, 1, 'the receiver got the test alert');

    // back to the base: refused again at once
    const reset = await patch(s, { 'outbound.allow': null }, changed.body.revision);
    assert.equal(reset.status, 200, reset.text);
    assert.equal(reset.body.sources['outbound.allow'], 'default');
    const again = await s.api('POST', '/api/v1/alerts/test', { body: { channelId: created.body.id } });
    assert.equal(again.body.results[0].delivered, false);
    assert.match(again.body.results[0].error, /refused/);
    assert.equal(rx.on('/hook').length, 1, 'no second delivery');
  } finally {
    await s.close();
    await rx.close();
  }
});

test('revisions, refusals and bad input: 428, 412, 409 naming the source, 422 naming the path, nothing written', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dw-settings-'));
  const file = join(dir, 'install.json');
  writeFileSync(file, JSON.stringify({ jobs: { concurrency: 2 } }));
  const s = await startServer({ env: { DOCKWRIGHT_CONFIG: file } });
  try {
    const { body: view } = await s.api('GET', '/api/v1/settings');
    assert.equal(view.revision, 0);
    assert.equal(view.sources['jobs.concurrency'], 'file');
    assert.equal(view.sources['outbound.allow'], 'file', 'config/test.json sets it');
    assert.equal(view.settings['images.keepReleases'], 3);
    assert.equal(view.sources['images.keepReleases'], 'default');
    assert.equal(view.about['outbound.allow'].group, 'Outbound connections');

    const missing = await patch(s, { 'images.keepReleases': 5 });
    assert.equal(missing.status, 428);
    const locked = await patch(s, { 'jobs.concurrency': 8, 'images.keepReleases': 5 }, 0);
    assert.equal(locked.status, 409, locked.text);
    assert.match(locked.body.detail, /jobs\.concurrency is set by the config file/);
    assert.equal(locked.body.paths['jobs.concurrency'], 'file');

    for (const [body, path] of [
      [{ 'images.keepReleases': 0 }, 'images.keepReleases'],
      [{ 'images.keepReleases': 'many' }, 'images.keepReleases'],
      [{ 'log.level': 'debug' }, 'log.level'],
      [{ 'images.keepReleases': 4, 'sessions.ttlMs': -1 }, 'sessions.ttlMs'],
      [{ 'plugins.probe.options.greeting': '' }, 'plugins.probe.options.greeting'],
      [{ 'plugins.nothere.options.x': 1 }, 'plugins.nothere.options.x'],
    ] as const) {
      const res = await patch(s, body, 0);
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      assert.ok(res.body.errors.some((e: { path: string }) => e.path.startsWith(path)), `${JSON.stringify(body)} names ${path}: ${res.text}`);
    }
    const after = (await s.api('GET', '/api/v1/settings')).body;
    assert.equal(after.revision, 0, 'nothing was written');
    assert.equal(after.settings['images.keepReleases'], 3);
    assert.equal(after.settings['sessions.ttlMs'], view.settings['sessions.ttlMs']);

    const ok = await patch(s, { 'images.keepReleases': 5 }, 0);
    assert.equal(ok.status, 200, ok.text);
    const stale = await patch(s, { 'images.keepReleases': 6 }, 0);
    assert.equal(stale.status, 412);
    assert.equal((await s.api('GET', '/api/v1/settings')).body.settings['images.keepReleases'], 5);

    // admins only: an operator's every-scope token and a viewer cannot read them
    for (const role of ['operator', 'viewer'] as const) {
      const token = await s.token(role, ['*']);
      assert.equal((await s.api('GET', '/api/v1/settings', { token })).status, 403);
      assert.equal((await patch(s, { 'images.keepReleases': 2 }, 1, token)).status, 403);
      assert.equal((await s.api('POST', '/api/v1/settings/outbound/test', { token, body: { host: '127.0.0.1', port: 9 } })).status, 403);
    }
  } finally {
    await s.close();
  }
});

test('secrets are stored sealed, shown as set, never logged; each write is in the activity log with its paths; a restart-only setting waits in restartNeeded', async () => {
  const s = await startServer();
  try {
    const secret = 'sekrit-value-123';
    const res = await patch(s, { 'plugins.probe.options.apiKey': secret, 'plugins.probe.options.greeting': 'bonjour', 'sessions.failedSignInsPerMinute': 9 }, 0);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.settings['plugins.probe.options.apiKey'], { secret: true, set: true });
    assert.ok(!res.text.includes(secret));
    assert.deepEqual(res.body.restartNeeded, ['sessions.failedSignInsPerMinute']);
    const live = (await s.api('GET', '/api/v1/probe/live')).body;
    assert.equal(live.greeting, 'bonjour', 'the plugin reads the new value');
    assert.equal(live.atStart, 'hello', 'ctx.options keeps the value at start');
    assert.equal(live.apiKeySet, true);
    assert.ok(live.heard.some((h: { changed: string[] }) => h.changed.includes('plugins.probe.options.greeting')));

    const activity = await s.api('GET', '/api/v1/activity?resource=settings');
    const items = Array.isArray(activity.body) ? activity.body : activity.body.items;
    const entry = items.find((e: { action: string }) => e.action === 'kernel.settings.write');
    assert.deepEqual(entry.detail.paths, ['plugins.probe.options.apiKey', 'plugins.probe.options.greeting', 'sessions.failedSignInsPerMinute']);
    assert.ok(!activity.text.includes(secret));
    const db = new pg.Client({ connectionString: s.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query(`SELECT value::text AS v FROM settings UNION ALL SELECT snapshot::text FROM revisions WHERE kind = 'settings' UNION ALL SELECT detail::text FROM activity`);
      assert.ok(rows.length >= 3);
      assert.ok(rows.every((r) => !String(r.v).includes(secret)), 'the secret is nowhere in the database in clear');
    } finally {
      await db.end();
    }
    const { databaseUrl, dataDir } = s;
    await s.stop();
    const restarted = await startServer({ reuse: { databaseUrl, dataDir } });
    try {
      const view = (await restarted.api('GET', '/api/v1/settings')).body;
      assert.deepEqual(view.restartNeeded, [], 'applied by the restart');
      assert.equal(view.settings['sessions.failedSignInsPerMinute'], 9);
      assert.equal((await restarted.api('GET', '/api/v1/probe/live')).body.atStart, 'bonjour', 'a restart starts with the stored value');
    } finally {
      await restarted.close();
    }
  } finally {
    await s.close();
  }
});

test('a change reaches another instance serving the same database (LISTEN/NOTIFY), and the connection test checks the policy before connecting', async () => {
  let connections = 0;
  const listener = net.createServer((socket) => { connections++; socket.destroy(); });
  await new Promise<void>((done) => listener.listen(0, '127.0.0.1', () => done()));
  const port = (listener.address() as AddressInfo).port;
  const a = await startServer({ config: { outbound: { allow: [], allowHostnames: false } } });
  const b = await startServer({ reuse: { databaseUrl: a.databaseUrl, dataDir: a.dataDir }, config: { outbound: { allow: [], allowHostnames: false } } });
  try {
    const probe = { host: '127.0.0.1', port };
    const refused = await b.api('POST', '/api/v1/settings/outbound/test', { body: probe });
    assert.equal(refused.status, 200, refused.text);
    assert.equal(refused.body.allowed, false);
    assert.equal(refused.body.connected, false);
    assert.match(refused.body.reason, /loopback/);
    assert.equal(connections, 0, 'no connection before the policy allowed it');
    // unsaved values are tested as given; a bad one is named
    const unsaved = await b.api('POST', '/api/v1/settings/outbound/test', { body: { ...probe, allow: ['127.0.0.0/8'] } });
    assert.equal(unsaved.body.allowed, true);
    assert.equal(unsaved.body.connected, true, unsaved.text);
    await eventually(async () => connections === 1, 2000, 'the connection');
    const badPolicy = await patch(a, { 'outbound.allow': ['10.0.0.0/99'] }, 0);
    assert.equal(badPolicy.status, 422, badPolicy.text);
    assert.equal(badPolicy.body.errors[0].path, 'outbound.allow');
    assert.equal((await patch(a, { 'outbound.allowHostnames': ['not a name!'] }, 0)).status, 422);

    const started = Date.now();
    assert.equal((await patch(a, { 'outbound.allow': ['127.0.0.1'], 'jobs.concurrency': 2 }, 0)).status, 200);
    const seen = await eventually(async () => {
      const res = await b.api('POST', '/api/v1/settings/outbound/test', { body: probe });
      return res.body.allowed ? res.body : null;
    }, 5000, 'the other instance applying the change');
    assert.ok(Date.now() - started < 2000, `applied on the other instance within 2 s (${Date.now() - started} ms)`);
    assert.equal(seen.connected, true);
    assert.equal(seen.address, '127.0.0.1');
    assert.equal((b.app.jobs as unknown as { concurrency: number }).concurrency, 2, 'jobs.concurrency applied there too');
    assert.equal((await b.api('GET', '/api/v1/settings')).body.revision, 1);

    await new Promise<void>((done) => listener.close(() => done()));
    const closed = await b.api('POST', '/api/v1/settings/outbound/test', { body: probe });
    assert.equal(closed.body.allowed, true);
    assert.equal(closed.body.connected, false);
    assert.match(closed.body.reason, /ECONNREFUSED/);
    const bad = await b.api('POST', '/api/v1/settings/outbound/test', { body: { host: '127.0.0.1', port: 70000 } });
    assert.equal(bad.status, 400);
  } finally {
    listener.close();
    await b.stop();
    await a.close();
  }
});

test('the sign-in policy applies to the next sign-in: sessions.requireTotp and sessions.ttlMs', async () => {
  const s = await startServer();
  try {
    await s.app.tokens.addUser('rhea', 'operator');
    await s.app.sessions.setPassword('rhea', 'a long portal password');
    const signIn = () => s.api('POST', '/api/v1/session', { token: '', body: { username: 'rhea', password: 'a long portal password' } });
    const first = await signIn();
    assert.equal(first.status, 201, first.text);
    const changed = await patch(s, { 'sessions.requireTotp': true, 'sessions.ttlMs': 120_000 }, 0);
    assert.equal(changed.status, 200, changed.text);
    const asked = await signIn();
    assert.equal(asked.status, 401, asked.text);
    assert.equal(asked.body.type, 'https://dockwright.dev/problems/totp-enrolment-required');
    assert.equal((await patch(s, { 'sessions.requireTotp': false }, changed.body.revision)).status, 200);
    const after = await signIn();
    assert.equal(after.status, 201, after.text);
    const lasts = Date.parse(after.body.expiresAt) - Date.now();
    assert.ok(lasts > 100_000 && lasts <= 120_000, `a session of the new lifetime (${lasts} ms)`);
  } finally {
    await s.close();
  }
});
