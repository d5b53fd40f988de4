// The outbound policy through the git routes: refused hosts answer 422 before any connection, and git connects only to the checked address.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { eventually, type TestServer } from '../../helpers/harness.ts';
import { act, busybox, cleanupProjects, createStack, startGitServer, uniqueName } from './helpers.ts';

/** a TCP listener that records who connected and the first bytes they sent, and answers nothing */
class Listener {
  private constructor(readonly server: Server, readonly port: number, readonly seen: Buffer[]) {}
  static async open(host: string, port = 0): Promise<Listener> {
    const seen: Buffer[] = [];
    const server = createServer((socket: Socket) => {
      const at = seen.push(Buffer.alloc(0)) - 1;
      socket.on('data', (chunk) => {
        seen[at] = Buffer.concat([seen[at], chunk]);
        socket.destroy();
      });
      socket.on('error', () => undefined);
      setTimeout(() => socket.destroy(), 2000).unref();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return new Listener(server, (server.address() as { port: number }).port, seen);
  }
  close() {
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** three listeners on one port: 127.0.0.2 (allowed below), 127.0.0.1 (where the system resolver sends localhost), ::1 */
async function listenerTrio(): Promise<{ port: number; two: Listener; one: Listener; six: Listener }> {
  for (let attempt = 0; ; attempt++) {
    const two = await Listener.open('127.0.0.2');
    try {
      const one = await Listener.open('127.0.0.1', two.port);
      const six = await Listener.open('::1', two.port).catch(async (err) => { await one.close(); throw err; });
      return { port: two.port, two, one, six };
    } catch (err) {
      await two.close();
      if (attempt > 20) throw err;
    }
  }
}

/** the names this test's resolver knows, and every name it was asked for: no DNS query leaves the machine */
const names = new Map<string, string | string[]>();
const asked: string[] = [];
const resolveName = async (name: string) => {
  asked.push(name);
  const found = names.get(name);
  if (!found) throw Object.assign(new Error(`no such name ${name}`), { code: 'ENOTFOUND' });
  return [found].flat().map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

let strict: TestServer;
let pinning: TestServer;
let trio: Awaited<ReturnType<typeof listenerTrio>>;
const refused = uniqueName('obref');
const pinnedHttps = uniqueName('obhttps');
const pinnedSsh = uniqueName('obssh');

before(async () => {
  trio = await listenerTrio();
  // nothing but global unicast, and only these names looked up
  strict = await startGitServer([], { pollIntervalMs: 3_600_000 }, { outbound: { allow: [], allowHostnames: ['localhost', 'internal.test', 'metadata.test'] } }, { resolveName });
  // 127.0.0.2 and ::1 allowed; the system resolver would send localhost to 127.0.0.1, where nothing may arrive
  pinning = await startGitServer([], { pollIntervalMs: 3_600_000 }, { outbound: { allow: ['127.0.0.2', '127.0.0.4', '::1'], allowHostnames: ['localhost'] } }, { resolveName });
  await createStack(strict, refused, busybox());
  await createStack(pinning, pinnedHttps, busybox());
  await createStack(pinning, pinnedSsh, busybox());
});
after(async () => {
  await cleanupProjects(refused, pinnedHttps, pinnedSsh);
  await Promise.all([strict?.close(), pinning?.close(), trio?.one.close(), trio?.two.close(), trio?.six.close()]);
});

const connections = () => trio.one.seen.length + trio.two.seen.length + trio.six.seen.length;

test('git sources on loopback, private, link-local, metadata and other non-global addresses, in every spelling, are refused with 422 before any connection', async () => {
  names.set('localhost', '127.0.0.1').set('internal.test', '10.1.2.3').set('metadata.test', '169.254.169.254');
  asked.length = 0;
  const p = trio.port;
  const cases: [string, RegExp][] = [
    [`https://127.0.0.1:${p}/r.git`, /it is a loopback address \(127\.0\.0\.0\/8\)/],
    [`https://[::1]:${p}/r.git`, /it is the loopback address/],
    [`ssh://127.0.0.1:${p}/r.git`, /loopback/],
    [`ssh://git@[::1]:${p}/r.git`, /loopback/],
    ['git@127.0.0.1:owner/r.git', /loopback/],
    [`https://localhost:${p}/r.git`, /it resolves to 127\.0\.0\.1, a loopback address/],
    [`https://0x7f.1:${p}/r.git`, /127\.0\.0\.1.*loopback/],
    [`https://2130706433:${p}/r.git`, /loopback/],
    [`https://0177.0.0.1:${p}/r.git`, /loopback/],
    [`ssh://0x7f.1:${p}/r.git`, /it is 127\.0\.0\.1, a loopback address/],
    ['git@0x7f.1:owner/r.git', /127\.0\.0\.1, a loopback address/],
    ['git@127.1:owner/r.git', /127\.0\.0\.1, a loopback address/],
    [`https://[::ffff:127.0.0.1]:${p}/r.git`, /IPv4-mapped form of 127\.0\.0\.1, a loopback address/],
    ['git@[::ffff:7f00:1]:owner/r.git', /IPv4-mapped form of 127\.0\.0\.1/],
    ['https://[::127.0.0.1]/r.git', /IPv4-compatible/],
    ['https://[64:ff9b::7f00:1]/r.git', /NAT64 form of 127\.0\.0\.1/],
    ['https://[64:ff9b:1::a00:1]/r.git', /local-use NAT64/],
    ['https://[2002:7f00:1::1]/r.git', /6to4/],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/r.git', /Teredo/],
    ['https://10.0.0.1/r.git', /private address \(10\.0\.0\.0\/8\)/],
    ['https://172.16.5.4/r.git', /private address \(172\.16\.0\.0\/12\)/],
    ['https://192.168.1.1/r.git', /private address \(192\.168\.0\.0\/16\)/],
    ['https://169.254.169.254/latest/meta-data', /the cloud metadata address/],
    ['https://[fd00:ec2::254]/r.git', /the cloud metadata address/],
    ['https://169.254.1.1/r.git', /link-local/],
    ['https://[fe80::1]/r.git', /link-local/],
    ['https://[fd12:3456::1]/r.git', /unique-local/],
    ['https://100.64.0.1/r.git', /carrier-grade NAT/],
    ['https://198.18.0.1/r.git', /benchmarking/],
    ['https://192.0.2.1/r.git', /documentation/],
    ['https://[2001:db8::1]/r.git', /documentation/],
    ['https://0.0.0.0/r.git', /"this network"/],
    ['https://224.0.0.1/r.git', /multicast/],
    ['https://[ff02::1]/r.git', /multicast/],
    ['https://255.255.255.255/r.git', /broadcast/],
    ['https://240.0.0.1/r.git', /reserved/],
    ['https://internal.test/r.git', /it resolves to 10\.1\.2\.3, a private address/],
    ['ssh://git@metadata.test/r.git', /it resolves to 169\.254\.169\.254, the cloud metadata address/],
    ['https://elsewhere.test/r.git', /host names are not looked up on this install/],
  ];
  for (const [url, reason] of cases) {
    for (const check of [true, false]) {
      const res = await strict.api('PUT', `/api/v1/stacks/${refused}/source`, { body: { url, check } });
      assert.equal(res.status, 422, `${url}: ${res.status} ${res.text}`);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      assert.equal(res.body.type, 'https://dockwright.dev/problems/outbound-refused');
      assert.match(res.body.detail, reason, url);
      assert.match(res.body.detail, /outbound\.allow/, 'says how an admin allows it');
      assert.equal(res.body.errors[0].path, '/body/url');
    }
  }
  assert.equal((await strict.api('GET', `/api/v1/stacks/${refused}/source`)).status, 404, 'nothing was saved');
  assert.equal(connections(), 0, 'no connection was attempted');
  assert.deepEqual([...new Set(asked)].sort(), ['internal.test', 'localhost', 'metadata.test'], 'only names allowed to be looked up were looked up');
});

test('plain http:// and git:// URLs are refused with 400 saying what is wrong', async () => {
  const http = await strict.api('PUT', `/api/v1/stacks/${refused}/source`, { body: { url: 'http://127.0.0.1/owner/repo.git' } });
  assert.equal(http.status, 400, http.text);
  assert.match(http.body.detail, /plain http:\/\/ is not allowed.*use https:\/\/ or ssh:\/\//);
  assert.equal(http.body.errors[0].path, '/body/url');
  const daemon = await strict.api('PUT', `/api/v1/stacks/${refused}/source`, { body: { url: 'git://127.0.0.1/owner/repo.git' } });
  assert.equal(daemon.status, 400, daemon.text);
  assert.match(daemon.body.detail, /git:\/\/ protocol is not allowed.*use https:\/\/ or ssh:\/\//);
  assert.equal(connections(), 0);
});

test('https: git connects to the address the policy checked (also IPv6), with the host name for TLS; a name that turns to a refused address is refused at the next fetch', async () => {
  names.set('localhost', '127.0.0.2');
  const before = { one: trio.one.seen.length, two: trio.two.seen.length, six: trio.six.seen.length };
  const set = await pinning.api('PUT', `/api/v1/stacks/${pinnedHttps}/source`, { body: { url: `https://localhost:${trio.port}/owner/repo.git` } });
  assert.equal(set.status, 200, set.text);
  assert.equal(set.body.check.ok, false, 'the listener speaks no TLS');
  await eventually(async () => trio.two.seen.length > before.two && trio.two.seen.at(-1)!.length > 0, 10_000, 'a connection to 127.0.0.2');
  const hello = trio.two.seen.at(-1)!;
  assert.equal(hello[0], 0x16, 'a TLS handshake');
  assert.ok(hello.includes(Buffer.from('localhost')), 'the server name sent is the host name, not the address');
  assert.equal(trio.one.seen.length, before.one, 'nothing went where the system resolver would have sent it');

  // the same name, now answering an address the policy refuses: the next fetch is refused before it connects
  names.set('localhost', '127.0.0.1');
  const checked = await pinning.api('POST', `/api/v1/stacks/${pinnedHttps}/source/check`);
  assert.equal(checked.status, 422, checked.text);
  assert.match(checked.body.detail, /localhost.*resolves to 127\.0\.0\.1, a loopback address/);
  const deploy = await act(pinning, 'deploy', pinnedHttps, 'failed');
  assert.match(deploy.error ?? '', /resolves to 127\.0\.0\.1, a loopback address/);
  const source = (await pinning.api('GET', `/api/v1/stacks/${pinnedHttps}/source`)).body;
  assert.match(source.lastError, /refused/);
  assert.equal(trio.one.seen.length, before.one, 'still nothing on 127.0.0.1');

  names.set('localhost', '::1');
  const six = await pinning.api('POST', `/api/v1/stacks/${pinnedHttps}/source/check`);
  assert.equal(six.status, 502, six.text);
  await eventually(async () => trio.six.seen.length > before.six, 10_000, 'a connection to ::1');
  assert.equal(trio.one.seen.length, before.one);

  // every checked address is pinned: nothing listens on 127.0.0.4, so curl goes on to the next one
  names.set('localhost', ['127.0.0.4', '127.0.0.2']);
  const seenOnTwo = trio.two.seen.length;
  assert.equal((await pinning.api('POST', `/api/v1/stacks/${pinnedHttps}/source/check`)).status, 502);
  await eventually(async () => trio.two.seen.length > seenOnTwo, 10_000, 'a connection to the second address');
  assert.equal(trio.one.seen.length, before.one);
});

test('ssh: git connects to the checked address (HostName), never to what ssh would resolve itself', async () => {
  names.set('localhost', '127.0.0.2');
  const before = { one: trio.one.seen.length, two: trio.two.seen.length };
  const set = await pinning.api('PUT', `/api/v1/stacks/${pinnedSsh}/source`, { body: { url: `ssh://git@localhost:${trio.port}/owner/repo.git` } });
  assert.equal(set.status, 200, set.text);
  assert.equal(set.body.check.ok, false, 'the listener speaks no ssh');
  await eventually(async () => trio.two.seen.length > before.two && trio.two.seen.at(-1)!.length > 0, 10_000, 'an ssh connection to 127.0.0.2');
  assert.match(trio.two.seen.at(-1)!.toString('latin1'), /^SSH-2\.0-/);
  assert.equal(trio.one.seen.length, before.one);

  names.set('localhost', '127.0.0.1');
  const checked = await pinning.api('POST', `/api/v1/stacks/${pinnedSsh}/source/check`);
  assert.equal(checked.status, 422, checked.text);
  assert.match(checked.body.detail, /resolves to 127\.0\.0\.1/);
  assert.equal(trio.one.seen.length, before.one);
});
