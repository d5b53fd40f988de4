// X-Forwarded-* are honoured only from trustedProxies: the caller address (activity, webhook calls) and the webhook URLs handed out follow that rule.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ClientResolver } from '../../kernel/http/client.ts';
import { call, startServer, type TestServer } from '../helpers/harness.ts';

const forged = { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' };
const compose = 'services:\n  app:\n    image: dockwright-test/busybox:1\n';

function start(config: Record<string, unknown>): Promise<TestServer> {
  return startServer({
    config,
    plugins: {
      // no engine: the webhook's deploy job fails at once, which is all these tests need
      docker: { options: { socketPath: '/nonexistent/dockwright/docker.sock', reconcile: false } },
      stacks: {},
    },
  });
}

let plain: TestServer;
let proxied: TestServer;
let elsewhere: TestServer;
before(async () => {
  [plain, proxied, elsewhere] = await Promise.all([start({}), start({ trustedProxies: ['127.0.0.0/8', '::1'] }), start({ trustedProxies: ['10.0.0.0/8'] })]);
});
after(async () => { await Promise.all([plain, proxied, elsewhere].map((s) => s?.close())); });

/** creates a stack, enables its deploy webhook with these headers and calls it once: the URL handed out and the address recorded */
async function roundTrip(s: TestServer, name: string, headers: Record<string, string>) {
  assert.equal((await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: compose }, headers: { 'if-none-match': '*' } })).status, 200);
  const hook = await s.api('POST', `/api/v1/stacks/${name}/webhooks/deploy`, { headers });
  assert.equal(hook.status, 200, hook.text);
  const called = await call(s.url, 'POST', `/api/stacks/${name}/deploy?async=1`, { token: hook.body.token, headers });
  assert.equal(called.status, 202, called.text);
  const activity = await s.api('GET', `/api/v1/activity?resource=stack:${name}&actor=webhook`);
  const stack = await s.api('GET', `/api/v1/stacks/${name}`);
  return { url: hook.body.url as string, address: activity.body[0]?.actor.address as string, recent: stack.body.webhooks.deploy.recent[0]?.address as string };
}

test('by default no forwarding header is believed', async () => {
  const seen = await roundTrip(plain, 'fwd-plain', forged);
  assert.equal(seen.url, `${plain.url}/api/stacks/fwd-plain/deploy`, 'the Host of the request, over plain http');
  assert.equal(seen.address, '127.0.0.1');
  assert.equal(seen.recent, '127.0.0.1');
});

test('from a trusted proxy: the forwarded client, scheme and host', async () => {
  const seen = await roundTrip(proxied, 'fwd-proxied', forged);
  assert.equal(seen.url, 'https://evil.example/api/stacks/fwd-proxied/deploy');
  assert.equal(seen.address, '203.0.113.7');
  assert.equal(seen.recent, '203.0.113.7');
});

test('a peer that is not among the trusted proxies is not believed', async () => {
  const seen = await roundTrip(elsewhere, 'fwd-elsewhere', forged);
  assert.equal(seen.url, `${elsewhere.url}/api/stacks/fwd-elsewhere/deploy`);
  assert.equal(seen.address, '127.0.0.1');
});

test('publicUrl wins over every header', async () => {
  const s = await start({ trustedProxies: ['127.0.0.1'], publicUrl: 'https://deploy.example.org/' });
  try {
    const seen = await roundTrip(s, 'fwd-public', forged);
    assert.equal(seen.url, 'https://deploy.example.org/api/stacks/fwd-public/deploy');
    assert.equal(seen.address, '203.0.113.7');
  } finally {
    await s.close();
  }
});

test('the chain of X-Forwarded-For: the nearest hop that is not a trusted proxy; unreadable hops end the trust', () => {
  const resolver = new ClientResolver(['10.0.0.0/8', '2001:db8::/32'], null);
  const req = (peer: string, xff?: string | string[], extra: Record<string, string> = {}) =>
    ({ socket: { remoteAddress: peer }, headers: { ...(xff ? { 'x-forwarded-for': xff } : {}), ...extra } }) as never;
  assert.equal(resolver.address(req('10.1.2.3', '198.51.100.1, 10.9.9.9')), '198.51.100.1');
  assert.equal(resolver.address(req('::ffff:10.1.2.3', ['198.51.100.1', '198.51.100.2'])), '198.51.100.2', 'repeated headers are one list; the nearest hop wins');
  assert.equal(resolver.address(req('2001:db8::1', '[2001:db8::9]:443, 198.51.100.3')), '198.51.100.3');
  assert.equal(resolver.address(req('10.1.2.3', 'unknown, 198.51.100.4')), '198.51.100.4');
  assert.equal(resolver.address(req('10.1.2.3', 'garbage')), '10.1.2.3', 'a hop that is not an address is not believed');
  assert.equal(resolver.address(req('10.1.2.3', '10.0.0.1')), '10.1.2.3', 'only proxies: the peer');
  assert.equal(resolver.address(req('192.0.2.1', '198.51.100.1')), '192.0.2.1', 'an untrusted peer is the client');
  assert.equal(resolver.baseUrl(req('10.1.2.3', undefined, { host: 'a.test', 'x-forwarded-proto': 'HTTPS', 'x-forwarded-host': 'b.test:8443' })), 'https://b.test:8443');
  assert.equal(resolver.baseUrl(req('10.1.2.3', undefined, { host: 'a.test', 'x-forwarded-host': 'bad host/x' })), 'http://a.test', 'an unreadable forwarded host falls back to Host');
  assert.equal(resolver.baseUrl(req('192.0.2.1', undefined, { host: 'a.test', 'x-forwarded-proto': 'https' })), 'http://a.test');
  assert.throws(() => new ClientResolver(['10.0.0.0/33'], null), /trustedProxies: "10\.0\.0\.0\/33"/);
  assert.throws(() => new ClientResolver(['proxy.local'], null), /not an IP address or CIDR/);
});
