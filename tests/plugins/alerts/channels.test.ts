// Alert channels against real receivers on loopback: each provider's exact request, email over STARTTLS, signatures, secrets never answered, test alerts, dedup/resolve, rate limit with digest, visibility, and the outbound policy's refusals before any connection.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { eventually, startServer, type TestServer } from '../../helpers/harness.ts';
import { startReceiver, watchConnections, type Receiver } from './helpers.ts';

let s: TestServer;
let rx: Receiver;
const tmp = mkdtempSync(join(tmpdir(), 'dw-alerts-'));

const alertsOptions = { retry: { attempts: 3, backoffMs: 20, maxBackoffMs: 100 }, rateLimit: { perWindow: 1000, windowMs: 60_000 }, failingAfter: 1 };

before(async () => {
  rx = await startReceiver();
  s = await startServer({ plugins: { alerts: { options: alertsOptions } }, config: { rateLimit: { perMinute: 100_000 } } });
});
after(async () => {
  await s.close();
  await rx.close();
  rmSync(tmp, { recursive: true, force: true });
});

const emit = (server: TestServer, name: string, payload: Record<string, unknown>) => server.app.services.events.emit(name, payload);
async function addChannel(server: TestServer, body: Record<string, unknown>) {
  const res = await server.api('POST', '/api/v1/alerts/channels', { body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}
const removeAll = async (server: TestServer) => {
  for (const ch of (await server.api('GET', '/api/v1/alerts/channels')).body) await server.api('DELETE', `/api/v1/alerts/channels/${ch.id}`);
};

test('each provider gets its documented request; the webhook is signed with the secret shown once; secrets are never answered', async () => {
  const webhook = await addChannel(s, { name: 'hook', kind: 'webhook', config: { url: `${rx.url}/hook` } });
  assert.match(webhook.secret, /^[A-Za-z0-9_-]{40,}$/);
  await addChannel(s, { name: 'slack', kind: 'slack', config: { url: `${rx.url}/slack/T0/B0/slack-token-123` } });
  await addChannel(s, { name: 'discord', kind: 'discord', config: { url: `${rx.url}/discord/api/webhooks/1/discord-token-456` } });
  await addChannel(s, { name: 'tg', kind: 'telegram', config: { botToken: '12345:telegram-token-789', chatId: '-100200', baseUrl: `${rx.url}/tg` } });
  await addChannel(s, { name: 'ntfy', kind: 'ntfy', config: { topic: 'ops', baseUrl: `${rx.url}/ntfy`, token: 'ntfy-token-abc' } });
  await addChannel(s, { name: 'gotify', kind: 'gotify', config: { baseUrl: `${rx.url}/gotify`, appToken: 'gotify-token-def' }, minSeverity: 'critical' });

  const listed = await s.api('GET', '/api/v1/alerts/channels');
  assert.equal(listed.status, 200);
  assert.equal(listed.body.length, 6);
  for (const secret of [webhook.secret, 'slack-token-123', 'discord-token-456', 'telegram-token-789', 'ntfy-token-abc', 'gotify-token-def']) {
    assert.ok(!listed.text.includes(secret), `the list never shows ${secret}`);
  }
  assert.equal(listed.body.find((c: any) => c.kind === 'slack').config.urlHost, `127.0.0.1:${rx.port}`);

  emit(s, 'backup.failed', { backup: 'nightly', jobId: '00000000-0000-0000-0000-000000000001' });
  await eventually(async () => rx.received.length >= 6, 10_000, 'six deliveries');

  const [hook] = rx.on('/hook');
  const expected = createHmac('sha256', webhook.secret).update(hook.body).digest('hex');
  assert.equal(hook.headers['x-dockwright-signature'], `sha256=${expected}`);
  assert.equal(hook.headers['content-type'], 'application/json');
  const payload = JSON.parse(hook.body);
  assert.equal(payload.event, 'raised');
  assert.equal(payload.alert.kind, 'backup-failed');
  assert.equal(payload.alert.resource, 'backup:nightly');
  assert.equal(payload.deliveryId, hook.headers['x-dockwright-delivery']);

  const [slack] = rx.on('/slack/T0/B0/slack-token-123');
  assert.equal(slack.method, 'POST');
  assert.match(JSON.parse(slack.body).text, /backup nightly failed/);
  const [discord] = rx.on('/discord/api/webhooks/1/discord-token-456');
  assert.match(JSON.parse(discord.body).content, /backup nightly failed/);
  const [tg] = rx.on('/tg/bot12345:telegram-token-789/sendMessage');
  assert.equal(JSON.parse(tg.body).chat_id, '-100200');
  assert.match(JSON.parse(tg.body).text, /backup nightly failed/);
  const [ntfy] = rx.on('/ntfy/ops');
  assert.equal(ntfy.headers.authorization, 'Bearer ntfy-token-abc');
  assert.equal(ntfy.headers.priority, '5');
  assert.match(String(ntfy.headers.title), /backup nightly failed/);
  assert.match(ntfy.body, /backup nightly failed/);
  const [gotify] = rx.on('/gotify/message');
  assert.equal(gotify.headers['x-gotify-key'], 'gotify-token-def');
  const g = JSON.parse(gotify.body);
  assert.equal(g.priority, 8);
  assert.match(g.message, /backup nightly failed/);

  // the job output of a delivery never holds a channel's secret
  const jobs = await s.api('GET', '/api/v1/jobs?type=alerts.deliver');
  for (const secret of ['slack-token-123', 'telegram-token-789', 'gotify-token-def']) assert.ok(!jobs.text.includes(secret));

  // a warning does not reach the critical-only Gotify channel; repeats do not notify again; the resolution does
  rx.received.length = 0;
  emit(s, 'backup.missed', { backup: 'nightly', slot: '2026-01-01T00:00:00Z' });
  await eventually(async () => rx.received.length >= 5, 10_000, 'five deliveries of a warning');
  emit(s, 'backup.missed', { backup: 'nightly', slot: '2026-01-01T00:00:00Z' });
  emit(s, 'backup.succeeded', { backup: 'nightly', jobId: '00000000-0000-0000-0000-000000000002' });
  await eventually(async () => rx.on('/gotify/message').length === 1 && rx.on('/hook').length === 3, 10_000, 'resolutions');
  const resolved = rx.on('/hook').slice(1).map((r) => JSON.parse(r.body));
  assert.deepEqual(resolved.map((p) => p.event).sort(), ['resolved', 'resolved']);
  const alerts = await s.api('GET', '/api/v1/alerts?resource=backup:nightly');
  assert.equal(alerts.status, 200);
  const missed = alerts.body.find((a: any) => a.kind === 'backup-missed');
  assert.equal(missed.count, 2);
  assert.ok(missed.resolvedAt);
  await removeAll(s);
});

test('email goes through a real SMTP server with STARTTLS and authentication; the password is never answered', async () => {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(tmp, 'key.pem'), '-out', join(tmp, 'cert.pem'), '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const cert = readFileSync(join(tmp, 'cert.pem'), 'utf8');
  const mails: { from: string; to: string[]; data: string; secure: boolean; user?: string }[] = [];
  const smtp = new SMTPServer({
    secure: false, key: readFileSync(join(tmp, 'key.pem')), cert, logger: false,
    onAuth(auth, _session, done) {
      if (auth.username === 'alerts' && auth.password === 'smtp-pass-xyz') done(null, { user: 'alerts' });
      else done(new Error('bad credentials'));
    },
    onData(stream, session, done) {
      let data = '';
      stream.on('data', (c) => { data += c; });
      stream.on('end', () => {
        mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), data, secure: session.secure, user: session.user as string });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
  const port = (smtp.server.address() as import('node:net').AddressInfo).port;
  try {
    const ch = await addChannel(s, {
      name: 'mail', kind: 'email',
      config: { host: '127.0.0.1', port, username: 'alerts', password: 'smtp-pass-xyz', from: 'dockwright@example.com', to: ['ops@example.com'], caCertificate: cert },
    });
    assert.ok(!JSON.stringify(ch).includes('smtp-pass-xyz'));
    const tested = await s.api('POST', '/api/v1/alerts/test', { body: { channelId: ch.id } });
    assert.equal(tested.status, 200, tested.text);
    assert.deepEqual(tested.body, { results: [{ channelId: ch.id, delivered: true }] });
    assert.equal(mails.length, 1);
    assert.equal(mails[0].secure, true, 'STARTTLS was used');
    assert.equal(mails[0].user, 'alerts');
    assert.deepEqual(mails[0].to, ['ops@example.com']);
    assert.match(mails[0].data, /Subject: \[test\] Dockwright test alert/);

    emit(s, 'engine.unreachable', { error: 'connect ENOENT /var/run/docker.sock' });
    await eventually(async () => mails.length === 2, 10_000, 'the alert by mail');
    assert.match(mails[1].data, /Docker engine cannot be reached/);
    const listed = await s.api('GET', '/api/v1/alerts/channels');
    assert.ok(!listed.text.includes('smtp-pass-xyz'));
  } finally {
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    await removeAll(s);
  }
});

test('test alerts answer each channel\'s outcome: delivered, the receiver\'s refusal, a redirect not followed', async () => {
  rx.answer('/refuses', 403);
  rx.answer('/tg-echo/bot999:echo-token-secret/sendMessage', 404);
  rx.answer('/moves', 302, { location: 'http://169.254.169.254/latest/meta-data/' });
  const ok = await addChannel(s, { name: 'ok', kind: 'webhook', config: { url: `${rx.url}/fine` } });
  const refused = await addChannel(s, { name: 'refuses', kind: 'slack', config: { url: `${rx.url}/refuses` } });
  const moved = await addChannel(s, { name: 'moves', kind: 'discord', config: { url: `${rx.url}/moves` } });
  const echo = await addChannel(s, { name: 'echo', kind: 'telegram', config: { botToken: '999:echo-token-secret', chatId: '1', baseUrl: `${rx.url}/tg-echo` } });
  const watch = watchConnections();
  let res;
  try {
    res = await s.api('POST', '/api/v1/alerts/test', { body: {} });
  } finally {
    watch.restore();
  }
  assert.equal(res.status, 200);
  const byId = new Map(res.body.results.map((r: any) => [r.channelId, r]));
  assert.deepEqual(byId.get(ok.id), { channelId: ok.id, delivered: true });
  assert.equal((byId.get(refused.id) as any).delivered, false);
  assert.match((byId.get(refused.id) as any).error, /403/);
  assert.equal((byId.get(moved.id) as any).delivered, false);
  assert.match((byId.get(moved.id) as any).error, /302.*redirects are not followed/);
  assert.ok(!watch.hosts.includes('169.254.169.254'), `no connection to the redirect target: ${watch.hosts.join(', ')}`);
  assert.equal((byId.get(echo.id) as any).delivered, false);
  assert.ok(!res.text.includes('echo-token-secret'), 'a secret never appears in an outcome');
  assert.equal(rx.on('/fine').length, 1);
  assert.equal(ok.lastDelivery, null, 'a new channel was never tried');
  const listed = await s.api('GET', '/api/v1/alerts/channels');
  const last = new Map(listed.body.map((c: any) => [c.id, c.lastDelivery]));
  assert.equal((last.get(ok.id) as any).delivered, true);
  assert.equal((last.get(ok.id) as any).error, undefined);
  assert.ok(Math.abs(Date.parse((last.get(ok.id) as any).at) - Date.now()) < 60_000);
  assert.equal((last.get(refused.id) as any).delivered, false);
  assert.match((last.get(refused.id) as any).error, /403/);
  assert.match((last.get(moved.id) as any).error, /redirects are not followed/);
  assert.ok(!listed.text.includes('echo-token-secret'), 'a secret never appears in the last delivery');

  const unknown = await s.api('POST', '/api/v1/alerts/test', { body: { channelId: '00000000-0000-4000-8000-000000000000' } });
  assert.equal(unknown.status, 404);
  assert.match(unknown.headers.get('content-type') ?? '', /problem\+json/);
  await removeAll(s);
});

test('bad channel input is a 400 problem and nothing is saved; unknown ids are 404; scopes are enforced', async () => {
  const cases: Record<string, unknown>[] = [
    { name: 'x', kind: 'pager', config: {} },
    { name: 'x', kind: 'webhook', config: {} },
    { name: 'x', kind: 'webhook', config: { url: 'ftp://127.0.0.1/x' } },
    { name: 'x', kind: 'webhook', config: { url: 'not a url' } },
    { name: 'x', kind: 'webhook', config: { url: `${rx.url}/x`, secret: 'mine' } },
    { name: 'x', kind: 'telegram', config: { botToken: 'nope', chatId: '1' } },
    { name: 'x', kind: 'email', config: { host: '127.0.0.1', from: 'a@b.c', to: [] } },
    { name: 'x', kind: 'slack', config: { url: `${rx.url}/x` }, events: ['no-such-kind'] },
    { name: '', kind: 'slack', config: { url: `${rx.url}/x` } },
    { name: 'x', kind: 'slack', config: { url: `${rx.url}/x` }, minSeverity: 'fatal' },
  ];
  for (const body of cases) {
    const res = await s.api('POST', '/api/v1/alerts/channels', { body });
    assert.equal(res.status, 400, `${JSON.stringify(body)} → ${res.status} ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
  }
  assert.deepEqual((await s.api('GET', '/api/v1/alerts/channels')).body, []);
  assert.equal((await s.api('DELETE', '/api/v1/alerts/channels/00000000-0000-4000-8000-000000000000')).status, 404);
  assert.equal((await s.api('POST', '/api/v1/alerts/999999/acknowledge')).status, 404);
  const viewer = await s.token('viewer', ['alerts:read']);
  assert.equal((await s.api('GET', '/api/v1/alerts', { token: viewer })).status, 200);
  assert.equal((await s.api('POST', '/api/v1/alerts/channels', { token: viewer, body: { name: 'x', kind: 'slack', config: { url: `${rx.url}/x` } } })).status, 403);
  assert.equal((await s.api('POST', '/api/v1/alerts/test', { token: viewer, body: {} })).status, 403);
});

test('acknowledge marks an open alert; concurrent raises of one key make one alert; filters and the overview', async () => {
  await Promise.all(Array.from({ length: 10 }, () => emit(s, 'certificate.expiring', { certificate: 'www', notAfter: '2027-01-01T00:00:00Z' })));
  const open = await eventually(async () => {
    const res = await s.api('GET', '/api/v1/alerts?status=open&kind=certificate-expiring');
    return res.body.length === 1 && res.body[0].count === 10 ? res.body[0] : null;
  }, 10_000, 'one alert counted ten times');
  const acked = await s.api('POST', `/api/v1/alerts/${open.id}/acknowledge`);
  assert.equal(acked.status, 200);
  assert.ok(acked.body.acknowledgedAt);
  assert.equal(acked.body.acknowledgedBy.kind, 'user');
  assert.equal(open.status, 'open');
  assert.equal(acked.body.status, 'acknowledged');
  assert.equal((await s.api('GET', '/api/v1/alerts?acknowledged=false&kind=certificate-expiring')).body.length, 0);
  const byStatus = async (status: string) => (await s.api('GET', `/api/v1/alerts?status=${status}&kind=certificate-expiring`)).body.map((a: any) => [a.id, a.status]);
  assert.deepEqual(await byStatus('open'), [], 'an acknowledged alert is no longer open');
  assert.deepEqual(await byStatus('acknowledged'), [[open.id, 'acknowledged']]);
  assert.deepEqual(await byStatus('unresolved'), [[open.id, 'acknowledged']]);
  const overview = await s.api('GET', '/api/v1/overview');
  assert.equal(overview.status, 200);
  emit(s, 'certificate.valid', { certificate: 'www' });
  await eventually(async () => (await s.api('GET', '/api/v1/alerts?status=resolved&kind=certificate-expiring')).body.length === 1, 10_000, 'resolved');
  assert.deepEqual(await byStatus('resolved'), [[open.id, 'resolved']]);
  assert.deepEqual(await byStatus('unresolved'), []);
  assert.equal((await s.api('GET', '/api/v1/alerts?severity=bogus')).status, 400);
});

test('a channel over its rate limit gets the rest as one digest at the end of the window; a failing channel is an attention item', async () => {
  const limited = await startServer({
    plugins: { alerts: { options: { ...alertsOptions, retry: { attempts: 2, backoffMs: 10, maxBackoffMs: 10 }, rateLimit: { perWindow: 3, windowMs: 500 } } } },
    config: { rateLimit: { perMinute: 100_000 } },
  });
  try {
    await addChannel(limited, { name: 'limited', kind: 'webhook', config: { url: `${rx.url}/limited` } });
    for (let i = 0; i < 10; i++) emit(limited, 'site.sync.failed', { site: `site-${i}`, jobId: '00000000-0000-0000-0000-000000000003', error: 'git fetch failed' });
    await eventually(async () => rx.on('/limited').some((r) => JSON.parse(r.body).event === 'digest'), 10_000, 'the digest');
    const bodies = rx.on('/limited').map((r) => JSON.parse(r.body));
    assert.equal(bodies.filter((b) => b.event === 'raised').length, 3);
    const digest = bodies.find((b) => b.event === 'digest');
    assert.equal(digest.held.length, 7, 'every held message is in the digest');

    rx.answer('/broken', 500);
    await addChannel(limited, { name: 'broken', kind: 'slack', config: { url: `${rx.url}/broken` }, events: ['engine-unreachable'] });
    emit(limited, 'engine.unreachable', {});
    const item = await eventually(async () => {
      const o = await limited.api('GET', '/api/v1/overview');
      return (o.body.attention ?? []).find((a: any) => a.kind === 'alert-channel-failing');
    }, 10_000, 'the attention item');
    assert.match(item.message, /broken.*500/);
    assert.equal(rx.on('/broken').length, 2, 'tried twice (attempts: 2)');
  } finally {
    await limited.close();
  }
});

test('refused at save when not allow-listed: private, loopback, metadata, mapped, CGNAT addresses and a name resolving to loopback — no connection made', async () => {
  const resolved: string[] = [];
  const strict = await startServer({
    plugins: { alerts: {} }, config: { outbound: { allow: [], allowHostnames: ['loop.test'] } },
    resolveName: async (name) => { resolved.push(name); return [{ address: '127.0.0.1', family: 4 }]; },
  });
  const watch = watchConnections();
  try {
    const urls = ['http://127.0.0.1:1/x', 'http://10.0.0.1/x', 'http://169.254.169.254/latest', 'http://[::1]/x', 'http://[::ffff:127.0.0.1]/x', 'http://100.64.0.1/x', 'http://loop.test/x', 'http://unlisted.test/x'];
    for (const url of urls) {
      const res = await call(strict, { name: 'x', kind: 'webhook', config: { url } });
      assert.equal(res.status, 422, `${url}: ${res.text}`);
      assert.equal(res.body.type, 'https://dockwright.dev/problems/outbound-refused', url);
    }
    assert.equal((await call(strict, { name: 'x', kind: 'email', config: { host: '10.0.0.1', from: 'a@b.c', to: ['d@e.f'] } })).status, 422);
    assert.equal((await call(strict, { name: 'x', kind: 'telegram', config: { botToken: '1:a', chatId: '1', baseUrl: 'http://169.254.169.254' } })).status, 422);
    assert.deepEqual(resolved, ['loop.test'], 'only the allowed name was looked up');
    assert.deepEqual((await strict.api('GET', '/api/v1/alerts/channels')).body, []);
    const others = watch.hosts.filter((h) => !h.startsWith('127.0.0.1') && h !== 'localhost' && !h.startsWith('/'));
    assert.deepEqual(others, [], 'no connection was attempted');
  } finally {
    watch.restore();
    await strict.close();
  }

  async function call(server: TestServer, body: Record<string, unknown>) {
    return server.api('POST', '/api/v1/alerts/channels', { body });
  }
});

for (const [later, what] of [['10.0.0.1', 'a private address'], ['169.254.169.254', 'the cloud metadata address']] as const) {
  test(`refused again at send: a name that answered loopback at save and ${what} later is never connected to`, async () => {
    let answer = '127.0.0.1';
    const rebinding = await startServer({
      plugins: { alerts: { options: { ...alertsOptions, retry: { attempts: 2, backoffMs: 10, maxBackoffMs: 10 } } } },
      config: { outbound: { allow: ['127.0.0.0/8'], allowHostnames: ['rebind.test'] }, rateLimit: { perMinute: 100_000 } },
      resolveName: async () => [{ address: answer, family: 4 }],
    });
    const watch = watchConnections();
    const path = `/rebind-${later}`;
    try {
      const ch = await addChannel(rebinding, { name: 'rebind', kind: 'webhook', config: { url: `http://rebind.test:${rx.port}${path}` } });
      answer = later;
      const tested = await rebinding.api('POST', '/api/v1/alerts/test', { body: { channelId: ch.id } });
      assert.equal(tested.body.results[0].delivered, false);
      assert.match(tested.body.results[0].error, new RegExp(`refused.*${later.replaceAll('.', '\\.')}`));
      emit(rebinding, 'engine.unreachable', {});
      const [failed] = await eventually(async () => {
        const list = (await rebinding.api('GET', '/api/v1/alerts/channels')).body;
        return list[0].failing ? list : null;
      }, 10_000, 'the failed delivery');
      assert.equal(failed.lastDelivery.delivered, false);
      assert.match(failed.lastDelivery.error, new RegExp(`refused.*${later.replaceAll('.', '\\.')}`));
      assert.equal(rx.on(path).length, 0);
      assert.ok(!watch.hosts.includes(later), `never dialled: ${watch.hosts.join(', ')}`);
    } finally {
      watch.restore();
      await rebinding.close();
    }
  });
}

test('a restart in the middle of a delivery that keeps failing: the next start gives it a new job and it is delivered once', async () => {
  // short leases: the stopped instance's running delivery is taken over within a second, not after the default leases
  const jobs = { leaseMs: 2000, renewMs: 200 };
  const first = await startServer({
    plugins: { alerts: { options: { ...alertsOptions, retry: { attempts: 100, backoffMs: 50, maxBackoffMs: 50 } } } },
    config: { rateLimit: { perMinute: 100_000 }, jobs },
  });
  const flaky = await startReceiver();
  const reuse = { databaseUrl: first.databaseUrl, dataDir: first.dataDir };
  let second: TestServer | undefined;
  try {
    await addChannel(first, { name: 'flaky', kind: 'webhook', config: { url: `${flaky.url}/flaky` } });
    await flaky.down();
    emit(first, 'engine.unreachable', {});
    await eventually(async () => {
      const running = (await first.api('GET', '/api/v1/jobs?type=alerts.deliver&status=running')).body as any[];
      return running.some((j) => /attempt 2 failed/.test(j.output));
    }, 10_000, 'a delivery retrying');
    // shut down while the delivery job runs: it ends with the process, its delivery stays pending
    await first.app.jobs.stop(0);
    await first.stop();
    await flaky.up();
    second = await startServer({ plugins: { alerts: { options: alertsOptions } }, config: { rateLimit: { perMinute: 100_000 }, jobs }, reuse });
    await eventually(async () => flaky.on('/flaky').length === 1, 20_000, 'delivered after the restart');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(flaky.on('/flaky').length, 1, 'once');
    assert.equal(JSON.parse(flaky.on('/flaky')[0].body).alert.kind, 'engine-unreachable');
  } finally {
    await second?.stop();
    await first.close();
    await flaky.close();
  }
});
