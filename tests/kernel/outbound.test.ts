// The outbound-address policy alone: the address classifier, outbound.allow and allowHostnames, and connections pinned to the checked address.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fetch as undiciFetch } from 'undici';
import { createOutbound, ipLiteral, nonGlobal, type NameResolver } from '../../kernel/services/outbound.ts';
import { OutboundRefused, Problem } from '../../sdk/index.ts';

/** a resolver answering from a table, recording every name it was asked: no DNS query ever leaves the machine */
function table(entries: Record<string, string[]>): NameResolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (name: string) => {
    asked.push(name);
    const found = entries[name.toLowerCase().replace(/\.$/, '')];
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
}

const refusedReason = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof OutboundRefused, `refused with OutboundRefused, not ${(err as Error).message}`);
    assert.equal(err.status, 422);
    assert.equal(err.code, 'outbound-refused');
    return err.message;
  }
  assert.fail('not refused');
};

// [host as written, the kind named in the refusal]
const refused: [string, RegExp][] = [
  ['127.0.0.1', /loopback/], ['127.255.255.254', /loopback/], ['0x7f.1', /127\.0\.0\.1, a loopback/], ['0x7f000001', /loopback/],
  ['2130706433', /loopback/], ['0177.0.0.1', /loopback/], ['127.1', /loopback/], ['127.0.0.1.', /loopback/],
  ['::1', /the loopback address/], ['[::1]', /the loopback address/], ['0:0:0:0:0:0:0:1', /the loopback address/],
  ['10.0.0.1', /private/], ['172.16.0.1', /private/], ['172.31.255.255', /private/], ['192.168.0.1', /private/],
  ['169.254.0.1', /link-local/], ['fe80::1', /link-local/], ['fe80::1%eth0', /link-local/], ['[fe80::abcd]', /link-local/],
  ['fc00::1', /unique-local/], ['fd12:3456:789a::1', /unique-local/], ['fec0::1', /site-local/],
  ['169.254.169.254', /cloud metadata/], ['fd00:ec2::254', /cloud metadata/],
  ['224.0.0.1', /multicast/], ['239.255.255.250', /multicast/], ['ff02::1', /multicast/], ['ff0e::1', /multicast/],
  ['100.64.0.1', /carrier-grade NAT/], ['100.127.255.254', /carrier-grade NAT/],
  ['198.18.0.1', /benchmarking/], ['198.19.255.254', /benchmarking/], ['2001:2::1', /IETF protocol assignment/],
  ['192.0.2.1', /documentation/], ['198.51.100.7', /documentation/], ['203.0.113.9', /documentation/],
  ['2001:db8::1', /documentation/], ['3fff::1', /documentation/],
  ['0.0.0.0', /"this network"/], ['0.1.2.3', /"this network"/], ['0', /"this network"/], ['::', /unspecified/],
  ['255.255.255.255', /broadcast/], ['240.0.0.1', /reserved/], ['192.0.0.8', /IETF protocol assignment/], ['192.88.99.1', /6to4 relay/],
  ['::ffff:127.0.0.1', /IPv4-mapped form of 127\.0\.0\.1, a loopback/], ['[::ffff:7f00:1]', /IPv4-mapped form of 127\.0\.0\.1/],
  ['::ffff:10.0.0.1', /IPv4-mapped form of 10\.0\.0\.1, a private/], ['::ffff:169.254.169.254', /IPv4-mapped form of 169\.254\.169\.254, the cloud metadata/],
  ['0:0:0:0:0:ffff:c0a8:1', /IPv4-mapped form of 192\.168\.0\.1/],
  ['::127.0.0.1', /IPv4-compatible/], ['::8.8.8.8', /IPv4-compatible/], ['::ffff:0:7f00:1', /IPv4-translated/],
  ['64:ff9b::127.0.0.1', /NAT64 form of 127\.0\.0\.1, a loopback/], ['64:ff9b::a9fe:a9fe', /NAT64 form of 169\.254\.169\.254/],
  ['64:ff9b:1::a00:1', /local-use NAT64/],
  ['2002:7f00:1::1', /6to4/], ['2002:808:808::1', /6to4/],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/], ['2001::1', /Teredo/],
  ['100::1', /discard-only/], ['5f00::1', /outside the global unicast range/], ['4000::1', /outside the global unicast range/],
];
const global: [string, string][] = [
  ['8.8.8.8', '8.8.8.8'], ['1.1.1.1', '1.1.1.1'], ['100.63.255.255', '100.63.255.255'], ['172.32.0.1', '172.32.0.1'],
  ['2606:4700:4700::1111', '2606:4700:4700::1111'], ['[2a00:1450:4001:80b::200e]', '2a00:1450:4001:80b::200e'],
  ['64:ff9b::8.8.8.8', '64:ff9b::808:808'], ['::ffff:8.8.8.8', '::ffff:808:808'], ['0x8080808', '8.8.8.8'],
];

test('the classifier refuses every address that is not global unicast, in every spelling a resolver reads', async () => {
  const policy = createOutbound({ allow: [], allowHostnames: true }, table({}));
  for (const [host, kind] of refused) {
    const message = await refusedReason(policy.resolve(host));
    assert.match(message, kind, host);
    assert.match(message, /outbound\.allow/, 'says how to allow it');
  }
  for (const [host, address] of global) assert.deepEqual((await policy.resolve(host)).map((a) => a.address), [address], host);
  assert.equal(nonGlobal({ address: '8.8.8.8', family: 4 }), null);
  assert.deepEqual(ipLiteral('0x7f.1'), { address: '127.0.0.1', family: 4 });
  assert.deepEqual(ipLiteral('[::1.2.3.4]'), { address: '::102:304', family: 6 }, 'not read as IPv4-mapped');
  assert.equal(ipLiteral('git.example.com'), null);
  assert.equal(ipLiteral('08.1.1.1'), null, 'not an inet_aton form: a name');
});

test('outbound.allow lets listed networks, addresses and names through; nothing else', async () => {
  const resolver = table({ 'git.internal': ['10.0.0.5'], 'a.corp.example': ['192.168.7.7'], 'corp.example': ['192.168.7.8'], 'other.internal': ['10.0.0.6'] });
  const policy = createOutbound({ allow: ['127.0.0.0/8', 'fd00::5', '192.168.10.0/24', 'fe80::/10', 'git.internal', '*.corp.example'], allowHostnames: true }, resolver);
  for (const host of ['127.0.0.1', '127.9.9.9', '0x7f.1', '::ffff:127.0.0.1', 'fd00::5', '192.168.10.200', 'fe80::99', 'git.internal', 'GIT.internal.', 'a.corp.example']) {
    assert.ok((await policy.resolve(host)).length, host);
  }
  for (const host of ['::1', '10.0.0.1', 'fd00::6', '192.168.11.1', '64:ff9b::7f00:1', 'corp.example', 'other.internal', '169.254.169.254']) {
    await refusedReason(policy.resolve(host));
  }
  assert.deepEqual(await policy.resolve('git.internal'), [{ address: '10.0.0.5', family: 4 }]);
  assert.throws(() => createOutbound({ allow: ['10.0.0.0/33'], allowHostnames: true }), /outbound\.allow: "10\.0\.0\.0\/33" is not a CIDR/);
  assert.throws(() => createOutbound({ allow: ['not a host'], allowHostnames: true }), /neither a host name/);
  assert.throws(() => createOutbound({ allow: ['example.com/8'], allowHostnames: true }), /not a CIDR/);
  assert.throws(() => createOutbound({ allow: [], allowHostnames: ['bad host'] }), /outbound\.allowHostnames/);
});

test('a name is refused when any of its addresses is; one that does not resolve is a 502, and check() lets it pass', async () => {
  const resolver = table({ mixed: ['8.8.8.8', '127.0.0.1'], v6: ['2606:4700:4700::1111', 'fd00::1'], good: ['8.8.4.4', '2606:4700:4700::1001'] });
  const policy = createOutbound({ allow: [], allowHostnames: true }, resolver);
  assert.match(await refusedReason(policy.resolve('mixed')), /mixed are refused: it resolves to 127\.0\.0\.1, a loopback address/);
  assert.match(await refusedReason(policy.resolve('v6')), /fd00::1, a unique-local address/);
  assert.deepEqual((await policy.resolve('good')).map((a) => a.address), ['8.8.4.4', '2606:4700:4700::1001']);
  await assert.rejects(policy.resolve('nowhere.example'), (err: Problem) => err instanceof Problem && !(err instanceof OutboundRefused) && err.status === 502 && /ENOTFOUND/.test(err.message));
  await policy.check('nowhere.example');
  await policy.check('good');
  await refusedReason(policy.check('mixed'));
  await refusedReason(policy.check('10.0.0.1'));
  await refusedReason(policy.resolve('bad_name!'));
  assert.match(await refusedReason(policy.check('registry.example.com:5000')), /without its port/);
  assert.match(await refusedReason(policy.check('[2606:4700::1]:443')), /without its port/);
});

test('allowHostnames: false refuses names before any lookup, except names in outbound.allow; a list opens only its names', async () => {
  const resolver = table({ 'git.example.com': ['8.8.8.8'], 'registry.internal': ['10.0.0.7'], 'api.example.org': ['1.1.1.1'] });
  const closed = createOutbound({ allow: ['127.0.0.0/8', 'registry.internal'], allowHostnames: false }, resolver);
  assert.match(await refusedReason(closed.resolve('git.example.com')), /host names are not looked up on this install/);
  await refusedReason(closed.resolve('localhost'));
  assert.deepEqual(await closed.resolve('registry.internal'), [{ address: '10.0.0.7', family: 4 }]);
  assert.deepEqual(await closed.resolve('127.0.0.1'), [{ address: '127.0.0.1', family: 4 }], 'addresses need no lookup');
  assert.deepEqual(resolver.asked, ['registry.internal'], 'only the allowed name was looked up');

  resolver.asked.length = 0;
  const listed = createOutbound({ allow: [], allowHostnames: ['git.example.com', '*.example.org'] }, resolver);
  assert.equal((await listed.resolve('git.example.com'))[0].address, '8.8.8.8');
  assert.equal((await listed.resolve('api.example.org'))[0].address, '1.1.1.1');
  await refusedReason(listed.resolve('example.org'));
  await refusedReason(listed.resolve('registry.internal'));
  assert.deepEqual(resolver.asked, ['git.example.com', 'api.example.org']);
});

// ---------------------------------------------------------------- connections through the helpers, on loopback only

/** an http(s) server on one loopback address that answers where it is, and counts connections */
interface Spot { server: http.Server; host: string; port: number; connections: number }
async function spot(host: string, port: number, tls?: { key: string; cert: string }): Promise<Spot> {
  const handler: http.RequestListener = (req, res) => res.end(`at ${host}`);
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  const s: Spot = { server, host, port, connections: 0 };
  server.on('connection', () => { s.connections++; });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  s.port = (server.address() as AddressInfo).port;
  return s;
}
const closeSpot = (s: Spot | undefined) => s && new Promise<void>((resolve) => { s.server.closeAllConnections(); s.server.close(() => resolve()); });

let dir: string;
let tls: { key: string; cert: string };
let pinnedTo: Spot; // 127.0.0.2: where the policy sends "localhost"
let elsewhere: Spot; // 127.0.0.1, same port: where the system resolver would send it, and refused
let securePinned: Spot;
let secureElsewhere: Spot;

async function pair(secure: boolean): Promise<[Spot, Spot]> {
  for (let attempt = 0; ; attempt++) {
    const two = await spot('127.0.0.2', 0, secure ? tls : undefined);
    try {
      return [two, await spot('127.0.0.1', two.port, secure ? tls : undefined)];
    } catch (err) {
      await closeSpot(two);
      if (attempt > 20) throw err;
    }
  }
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-outbound-'));
  await promisify(execFile)('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')]);
  tls = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  [pinnedTo, elsewhere] = await pair(false);
  [securePinned, secureElsewhere] = await pair(true);
});
after(async () => {
  await Promise.all([pinnedTo, elsewhere, securePinned, secureElsewhere].map(closeSpot));
  rmSync(dir, { recursive: true, force: true });
});

const policy = () => createOutbound({ allow: ['127.0.0.2'], allowHostnames: ['localhost'] }, table({ localhost: ['127.0.0.2'] }));
const get = (url: string, options: https.RequestOptions) => new Promise<string>((resolve, reject) => {
  (url.startsWith('https:') ? https : http).get(url, options, (res) => {
    let body = '';
    res.on('data', (c) => { body += c; }).on('end', () => resolve(body)).on('error', reject);
  }).on('error', reject);
});

test('httpAgent and httpsAgent connect to the checked address (TLS verifies the host name) and refuse literals the policy refuses', async () => {
  const p = policy();
  const before = elsewhere.connections + secureElsewhere.connections;
  assert.equal(await get(`http://localhost:${pinnedTo.port}/`, { agent: p.httpAgent() }), 'at 127.0.0.2');
  assert.equal(await get(`https://localhost:${securePinned.port}/`, { agent: p.httpsAgent({ ca: tls.cert }) }), 'at 127.0.0.2');
  await assert.rejects(get(`https://localhost:${securePinned.port}/`, { agent: p.httpsAgent() }), /self[- ]signed/, 'TLS still verifies');
  assert.match(await refusedReason(get(`http://127.0.0.1:${elsewhere.port}/`, { agent: p.httpAgent() })), /loopback/);
  assert.match(await refusedReason(get(`https://[::1]:${securePinned.port}/`, { agent: p.httpsAgent({ ca: tls.cert }) })), /loopback/);
  assert.equal(elsewhere.connections + secureElsewhere.connections, before, 'nothing reached a refused address');
});

test('the undici dispatcher (with undici fetch and Node fetch) and lookup connect only to checked addresses', async () => {
  const p = policy();
  const before = elsewhere.connections + secureElsewhere.connections;
  const dispatcher = p.dispatcher({ connect: { ca: tls.cert } });
  assert.equal(await (await undiciFetch(`http://localhost:${pinnedTo.port}/`, { dispatcher })).text(), 'at 127.0.0.2');
  assert.equal(await (await undiciFetch(`https://localhost:${securePinned.port}/`, { dispatcher })).text(), 'at 127.0.0.2');
  const nodeFetch = fetch as (url: string, init: { dispatcher: unknown }) => Promise<Response>;
  assert.equal(await (await nodeFetch(`http://localhost:${pinnedTo.port}/`, { dispatcher })).text(), 'at 127.0.0.2');
  for (const url of [`http://127.0.0.1:${elsewhere.port}/`, `https://0x7f.1:${secureElsewhere.port}/`]) {
    await assert.rejects(undiciFetch(url, { dispatcher }), (err: Error) => (err.cause as Error) instanceof OutboundRefused, url);
  }
  await dispatcher.close();

  const socket = connect({ host: 'localhost', port: pinnedTo.port, lookup: p.lookup });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  assert.equal(socket.remoteAddress, '127.0.0.2');
  socket.destroy();
  const lookedUp = await new Promise<unknown>((resolve) => p.lookup('10.0.0.1', {}, (err) => resolve(err)));
  assert.ok(lookedUp instanceof OutboundRefused, 'lookup refuses a literal handed to it');
  assert.equal(elsewhere.connections + secureElsewhere.connections, before, 'nothing reached a refused address');
});
