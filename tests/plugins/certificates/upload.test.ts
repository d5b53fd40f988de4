// Uploaded certificates over the real API: checked (one 422 error per problem), served by the real Caddy (exact before wildcard), listed, deleted, expiry events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { call, eventually } from '../../helpers/harness.ts';
import { viaEdge } from '../edge/helpers.ts';
import { makeCert, routeHosts, servedSerial, startCertServer, stripZeros, type CertServer, type Made } from './helpers.ts';

let s: CertServer;
let root: Made;
let intermediate: Made;
const events: { name: string; payload: Record<string, unknown> }[] = [];
const day = 86_400_000;

before(async () => {
  s = await startCertServer({ certificates: { sweepIntervalMs: 1000 } });
  for (const name of ['certificate.expiring', 'certificate.expired', 'certificate.valid', 'certificate.renewed', 'certificate.renewal.failed']) {
    s.app.services.events.on(name, (payload) => { events.push({ name, payload }); });
  }
  root = await makeCert({ cn: 'Upload Test Root', ca: true });
  intermediate = await makeCert({ cn: 'Upload Test Intermediate', ca: true, issuer: root });
  await routeHosts(s, 'up', ['www.up.test', 'x.wild.test', 'y.wild.test']);
});
after(async () => { await s?.close(); });

const leaf = (domains: string[], o: { notBefore?: Date; notAfter?: Date } = {}) => makeCert({ cn: domains[0], domains, issuer: intermediate, ...o });
const upload = (name: string, certificate: string, key: string, token?: string) => s.api('POST', '/api/v1/certificates/upload', { body: { name, certificate, key }, ...(token ? { token } : {}) });

test('a good chain is stored, listed without its key, served by the edge over HTTPS, and HTTP redirects there', async () => {
  const www = await leaf(['www.up.test']);
  const r = await upload('www', `Bag Attributes\n    friendlyName: www\n${www.certificate}${intermediate.certificate}`, www.key);
  assert.equal(r.status, 201, r.text);
  assert.equal(r.body.status, 'valid');
  assert.equal(r.body.source, 'upload');
  assert.equal(r.body.issuer, 'Upload Test Intermediate');
  assert.deepEqual(r.body.domains, ['www.up.test']);
  assert.deepEqual(r.body.usedBy, ['www.up.test']);
  assert.ok(!r.text.includes('PRIVATE KEY'));
  const served = await eventually(async () => {
    const a = await servedSerial(s.httpsPort, 'www.up.test', root.certificate);
    return 'serial' in a && a.status === 200 ? a : null;
  }, 15_000, 'the uploaded certificate to be served');
  assert.equal(stripZeros(served.serial), stripZeros(r.body.serial));
  const redirect = await viaEdge(s.httpPort, 'www.up.test', '/page?q=1');
  assert.equal(redirect.status, 308);
  assert.equal(redirect.headers.location, `https://www.up.test:${s.httpsPort}/page?q=1`);

  const list = await s.api('GET', '/api/v1/certificates');
  assert.equal(list.status, 200);
  const item = list.body.find((c: any) => c.name === 'www');
  assert.equal(item.status, 'valid');
  assert.equal(item.chain, undefined);
  assert.ok(!list.text.includes('PRIVATE KEY'));
  const one = await s.api('GET', '/api/v1/certificates/www');
  assert.equal(one.status, 200);
  assert.match(one.body.chain, /^-----BEGIN CERTIFICATE-----[\s\S]*BEGIN CERTIFICATE/);
  assert.ok(!one.body.chain.includes('Bag Attributes'));
  assert.ok(!one.text.includes('PRIVATE KEY'));
  const activity = await s.api('GET', '/api/v1/activity');
  assert.ok(activity.body.some((e: any) => e.action === 'certificate.upload' && e.resource === 'certificate:www' && e.result === 'ok'));
});

test('an exact certificate wins over a wildcard; the wildcard serves the other names', async () => {
  const wildcard = await leaf(['*.wild.test']);
  const exact = await leaf(['x.wild.test']);
  assert.equal((await upload('wild', wildcard.certificate + intermediate.certificate, wildcard.key)).status, 201);
  const x = await upload('x-wild', exact.certificate + intermediate.certificate, exact.key);
  assert.equal(x.status, 201);
  const serialOf = async (host: string) => eventually(async () => {
    const a = await servedSerial(s.httpsPort, host, root.certificate);
    return 'serial' in a ? stripZeros(a.serial) : null;
  }, 15_000, `a certificate for ${host}`);
  await eventually(async () => (await serialOf('x.wild.test')) === stripZeros(x.body.serial), 15_000, 'the exact certificate for x.wild.test');
  const list = (await s.api('GET', '/api/v1/certificates')).body;
  assert.deepEqual(list.find((c: any) => c.name === 'x-wild').usedBy, ['x.wild.test']);
  assert.deepEqual(list.find((c: any) => c.name === 'wild').usedBy, ['y.wild.test']);
  const wildSerial = (await s.api('GET', '/api/v1/certificates/wild')).body.serial;
  assert.equal(await serialOf('y.wild.test'), stripZeros(wildSerial));

  // deleting the exact one: the wildcard takes over, nothing goes plain
  assert.equal((await s.api('DELETE', '/api/v1/certificates/x-wild')).status, 204);
  await eventually(async () => (await serialOf('x.wild.test')) === stripZeros(wildSerial), 15_000, 'the wildcard to serve x.wild.test');
});

test('refused uploads: 422 with one errors[] element per problem, and nothing stored', async () => {
  const good = await leaf(['bad.up.test']);
  const other = await leaf(['bad.up.test']);
  const strangerCa = await makeCert({ cn: 'Stranger CA', ca: true });
  const expired = await leaf(['bad.up.test'], { notBefore: new Date(Date.now() - 100 * day), notAfter: new Date(Date.now() - day) });
  const future = await leaf(['bad.up.test'], { notBefore: new Date(Date.now() + day), notAfter: new Date(Date.now() + 90 * day) });
  const rules = async (certificate: string, key: string) => {
    const r = await upload('bad', certificate, key);
    assert.equal(r.status, 422, r.text);
    assert.match(r.headers.get('content-type') ?? '', /problem\+json/);
    return r.body.errors.map((e: any) => e.rule).sort();
  };
  assert.deepEqual(await rules(good.certificate, other.key), ['key-mismatch']);
  assert.deepEqual(await rules(expired.certificate, expired.key), ['expired']);
  assert.deepEqual(await rules(future.certificate, future.key), ['not-yet-valid']);
  assert.deepEqual(await rules(good.certificate + strangerCa.certificate, good.key), ['chain-broken']);
  assert.deepEqual(await rules(good.certificate + root.certificate + intermediate.certificate, good.key), ['chain-order']);
  assert.deepEqual(await rules('not a pem', 'not a key'), ['unparsable', 'unparsable']);
  assert.deepEqual(await rules('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', good.key), ['unparsable']);
  // a certificate of localhost only would serve nothing: the edge serves no name under localhost
  const local = await leaf(['localhost', 'api.localhost']);
  assert.deepEqual(await rules(local.certificate, local.key), ['no-hostname']);
  // several problems at once: each is named
  assert.deepEqual(await rules(expired.certificate + strangerCa.certificate, other.key), ['chain-broken', 'expired', 'key-mismatch']);
  const r = await upload('bad', good.certificate, other.key);
  assert.ok(!r.text.includes('PRIVATE KEY'), 'the key is never echoed');
  assert.equal((await s.api('GET', '/api/v1/certificates/bad')).status, 404);
  const activity = await s.api('GET', '/api/v1/activity');
  assert.ok(activity.body.some((e: any) => e.action === 'certificate.upload' && e.resource === 'certificate:bad' && e.result === 'refused'));
});

test('bad input, unknown names, scopes and tokens', async () => {
  const good = await leaf(['scopes.up.test']);
  assert.equal((await upload('../etc', good.certificate, good.key)).status, 400);
  assert.equal((await s.api('POST', '/api/v1/certificates/upload', { body: { name: 'x', certificate: good.certificate } })).status, 400);
  assert.equal((await s.api('POST', '/api/v1/certificates/upload', { body: { name: 'x', certificate: good.certificate, key: good.key, extra: 1 } })).status, 400);
  assert.equal((await s.api('GET', '/api/v1/certificates/nope')).status, 404);
  for (const domains of [['localhost'], ['localhost.'], ['API.LocalHost'], ['ok.up.test', '*.localhost']]) {
    const r = await s.api('POST', '/api/v1/certificates/request', { body: { domains, challenge: 'dns-01' } });
    assert.equal(r.status, 400, `${domains}: ${r.text}`);
    assert.match(r.body.detail, /localhost/);
  }
  assert.equal((await s.api('DELETE', '/api/v1/certificates/nope')).status, 404);
  const reader = await s.token('viewer', ['certificates:read']);
  assert.equal((await upload('scopes', good.certificate, good.key, reader)).status, 403);
  assert.equal((await call(s.url, 'DELETE', '/api/v1/certificates/www', { token: reader })).status, 403);
  assert.equal((await call(s.url, 'GET', '/api/v1/certificates', { token: reader })).status, 200);
  assert.equal((await call(s.url, 'GET', '/api/v1/certificates')).status, 401);
  assert.equal((await call(s.url, 'GET', '/api/v1/certificates', { token: 'dw_wrong' })).status, 401);
});

test('two uploads of one name at once: both answer, and what is stored is what the edge serves', async () => {
  const [a, b] = await Promise.all([leaf(['race.up.test']), leaf(['race.up.test'])]);
  await routeHosts(s, 'race', ['race.up.test']);
  const answers = await Promise.all([upload('race', a.certificate + intermediate.certificate, a.key), upload('race', b.certificate + intermediate.certificate, b.key)]);
  assert.deepEqual(answers.map((r) => r.status).sort(), [200, 201]);
  const stored = (await s.api('GET', '/api/v1/certificates/race')).body.serial;
  await eventually(async () => {
    const got = await servedSerial(s.httpsPort, 'race.up.test', root.certificate);
    return 'serial' in got && stripZeros(got.serial) === stripZeros(stored);
  }, 15_000, 'the stored certificate to be served');
});

test('an expiring certificate: status, one event, overview attention; a replacement clears them', async () => {
  const soon = await leaf(['soon.up.test'], { notAfter: new Date(Date.now() + 5 * day) });
  assert.equal((await upload('soon', soon.certificate + intermediate.certificate, soon.key)).status, 201);
  assert.equal((await s.api('GET', '/api/v1/certificates/soon')).body.status, 'expiring');
  await eventually(async () => events.some((e) => e.name === 'certificate.expiring' && e.payload.certificate === 'soon'), 10_000, 'the expiring event');
  const overview = await s.api('GET', '/api/v1/overview');
  assert.ok(JSON.stringify(overview.body).includes('certificate-expiring'), JSON.stringify(overview.body));
  const fresh = await leaf(['soon.up.test']);
  assert.equal((await upload('soon', fresh.certificate + intermediate.certificate, fresh.key)).status, 200);
  await eventually(async () => events.some((e) => e.name === 'certificate.valid' && e.payload.certificate === 'soon'), 10_000, 'the valid event');
  assert.ok(!JSON.stringify((await s.api('GET', '/api/v1/overview')).body).includes('certificate-expiring'));
  assert.equal(events.filter((e) => e.name === 'certificate.expiring' && e.payload.certificate === 'soon').length, 1, 'announced once');
});

test('delete: the edge stops serving it and plain HTTP no longer redirects', async () => {
  const del = await leaf(['del.up.test']);
  await routeHosts(s, 'del', ['del.up.test']);
  assert.equal((await upload('del', del.certificate + intermediate.certificate, del.key)).status, 201);
  await eventually(async () => 'serial' in (await servedSerial(s.httpsPort, 'del.up.test', root.certificate)), 15_000, 'served');
  assert.equal((await s.api('DELETE', '/api/v1/certificates/del')).status, 204);
  await eventually(async () => 'error' in (await servedSerial(s.httpsPort, 'del.up.test', root.certificate)), 15_000, 'no longer served');
  assert.equal((await viaEdge(s.httpPort, 'del.up.test', '/')).status, 200);
  assert.equal((await s.api('GET', '/api/v1/certificates/del')).status, 404);
});

test('a certificate that expires while held: status expired, one certificate.expired event, withdrawn from the edge, critical attention', async () => {
  const ends = await leaf(['ends.up.test']);
  await routeHosts(s, 'ends', ['ends.up.test']);
  assert.equal((await upload('ends', ends.certificate + intermediate.certificate, ends.key)).status, 201);
  await eventually(async () => 'serial' in (await servedSerial(s.httpsPort, 'ends.up.test', root.certificate)), 15_000, 'served');
  // its end, moved into the past (a clock cannot be wound forward in a real Caddy)
  const c = new pg.Client({ connectionString: s.databaseUrl });
  await c.connect();
  try { await c.query(`UPDATE certificates SET not_after = now() - interval '1 minute' WHERE name = 'ends'`); } finally { await c.end(); }
  assert.equal((await s.api('GET', '/api/v1/certificates/ends')).body.status, 'expired');
  await eventually(async () => events.some((e) => e.name === 'certificate.expired' && e.payload.certificate === 'ends'), 10_000, 'the expired event');
  await eventually(async () => 'error' in (await servedSerial(s.httpsPort, 'ends.up.test', root.certificate)), 15_000, 'withdrawn from the edge');
  const overview = JSON.stringify((await s.api('GET', '/api/v1/overview')).body);
  assert.ok(overview.includes('certificate-expired'), overview);
  assert.deepEqual((await s.api('GET', '/api/v1/certificates/ends')).body.usedBy, []);
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(events.filter((e) => e.name === 'certificate.expired' && e.payload.certificate === 'ends').length, 1, 'announced once');
});
