// The edge's HTTP → HTTPS redirects as live settings: changed through PATCH /settings, the running Caddy is given a new document and serves the change, with no restart of the service or of Caddy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, eventually, startChild } from '../../helpers/harness.ts';
import { makeCert, routeHosts, startCertServer, type CertServer } from '../certificates/helpers.ts';
import { viaEdge } from './helpers.ts';

const redirect = 'plugins.edge.options.httpsRedirect';
const except = 'plugins.edge.options.httpsRedirectExcept';
let s: CertServer;

before(async () => {
  s = await startCertServer();
  await routeHosts(s, 'rd', ['www.rd.test', 'keep.rd.test']);
  const root = await makeCert({ cn: 'Redirect Test Root', ca: true });
  const leaf = await makeCert({ cn: 'www.rd.test', domains: ['www.rd.test', 'keep.rd.test'], issuer: root });
  const up = await s.api('POST', '/api/v1/certificates/upload', { body: { name: 'rd', certificate: leaf.certificate, key: leaf.key } });
  assert.equal(up.status, 201, up.text);
});
after(async () => { await s?.close(); });

const settings = async () => (await s.api('GET', '/api/v1/settings')).body;
const patch = async (body: Record<string, unknown>, token?: string) =>
  s.api('PATCH', '/api/v1/settings', { body, ...(token ? { token } : {}), headers: { 'if-match': `"${(await settings()).revision}"` } });
/** what plain HTTP to the edge answers for this hostname: 308 (to HTTPS) or the site */
const plain = async (host: string) => (await viaEdge(s.httpPort, host, '/')).status;
/** the time until plain HTTP of `host` answers `status` */
async function servedWithin(host: string, status: number): Promise<number> {
  const from = Date.now();
  await eventually(async () => (await plain(host)) === status, 10_000, `${host} to answer ${status} on plain HTTP`, 20);
  return Date.now() - from;
}

test('the redirect settings are listed as live, with their default source', async () => {
  const now = await settings();
  assert.equal(now.settings[redirect], true);
  assert.deepEqual(now.settings[except], []);
  assert.equal(now.sources[redirect], 'default');
  assert.equal(now.about[redirect].live, true);
  assert.equal(now.about[except].live, true);
  assert.equal(now.about[redirect].group, 'Edge');
});

test('turned off and on through PATCH /settings, the running Caddy redirects or serves plain HTTP without a restart', async () => {
  await servedWithin('www.rd.test', 308);
  const edgeBefore = (await s.api('GET', '/api/v1/edge')).body;
  assert.equal(edgeBefore.state, 'running');

  // one hostname served on plain HTTP, the other still redirected
  const some = await patch({ [except]: ['KEEP.rd.test'] });
  assert.equal(some.status, 200, some.text);
  assert.equal(some.body.sources[except], 'portal');
  const exceptMs = await servedWithin('keep.rd.test', 200);
  assert.equal(await plain('www.rd.test'), 308);

  // every redirect off
  const off = await patch({ [redirect]: false });
  assert.equal(off.status, 200, off.text);
  assert.deepEqual(off.body.restartNeeded, []);
  const offMs = await servedWithin('www.rd.test', 200);
  const page = await viaEdge(s.httpPort, 'www.rd.test', '/');
  assert.match(page.body, /hello from rd/);

  // back to the configured value (null): redirects again
  const back = await patch({ [redirect]: null, [except]: null });
  assert.equal(back.status, 200, back.text);
  assert.equal(back.body.sources[redirect], 'default');
  const onMs = await servedWithin('www.rd.test', 308);
  await servedWithin('keep.rd.test', 308);

  // the same Caddy and the same service: the change was pushed, not restarted into
  const edgeAfter = (await s.api('GET', '/api/v1/edge')).body;
  assert.equal(edgeAfter.pid, edgeBefore.pid);
  assert.equal(edgeAfter.startedAt, edgeBefore.startedAt);
  assert.equal(edgeAfter.restarts, edgeBefore.restarts);
  assert.ok(edgeAfter.pushes >= edgeBefore.pushes + 3, `${edgeAfter.pushes - edgeBefore.pushes} pushes for three changes`);
  console.log(`# setting changed → served: except ${exceptMs} ms, off ${offMs} ms, on ${onMs} ms`);
});

test('bad values are refused with 422 naming the path and change nothing; only admins write them', async () => {
  const before = await settings();
  for (const body of [{ [redirect]: 'yes' }, { [except]: 'www.rd.test' }, { [except]: [''] }, { [except]: [42] }]) {
    const bad = await patch(body);
    assert.equal(bad.status, 422, bad.text);
    assert.match(bad.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.ok(bad.body.errors[0].path.startsWith(Object.keys(body)[0]), bad.body.errors[0].path);
  }
  const operator = await s.token('operator', ['*']);
  const refused = await call(s.url, 'PATCH', '/api/v1/settings', { token: operator, body: { [redirect]: false }, headers: { 'if-match': `"${before.revision}"` }, unchecked: true });
  assert.equal(refused.status, 403, refused.text);
  const after = await settings();
  assert.equal(after.revision, before.revision);
  assert.equal(after.settings[redirect], true);
  assert.equal(await plain('www.rd.test'), 308);
});

test('changed on an instance that does not run the edge, the one that runs it pushes the change', async () => {
  const child = await startChild({
    databaseUrl: s.databaseUrl, dataDir: s.dataDir, rateLimit: { perMinute: 100_000 },
    plugins: {
      docker: { options: { reconcile: false } }, stacks: {},
      edge: { options: { httpPort: s.httpPort, httpsPort: s.httpsPort, pollIntervalMs: 100, resyncIntervalMs: 60_000 } },
      'edge-client': { path: 'tests/fixtures/edge-client/index.ts' },
      certificates: { options: { sweepIntervalMs: 3_600_000 } },
    },
  });
  try {
    const other = (method: string, path: string, o: Record<string, unknown> = {}) => call(child.url, method, path, { token: s.admin, unchecked: true, ...o });
    assert.equal((await other('GET', '/api/v1/edge')).body.state, 'standby');
    assert.equal(await plain('www.rd.test'), 308);
    const { revision } = (await other('GET', '/api/v1/settings')).body;
    const off = await other('PATCH', '/api/v1/settings', { body: { [redirect]: false }, headers: { 'if-match': `"${revision}"` } });
    assert.equal(off.status, 200, off.text);
    console.log(`# changed on the standby instance → served by the edge's: ${await servedWithin('www.rd.test', 200)} ms`);
    const back = await other('PATCH', '/api/v1/settings', { body: { [redirect]: null }, headers: { 'if-match': `"${off.body.revision}"` } });
    assert.equal(back.status, 200, back.text);
    await servedWithin('www.rd.test', 308);
  } finally {
    await child.kill('SIGTERM');
  }
});
