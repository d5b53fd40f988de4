// The edge's plugin API over real HTTP (through a test plugin): static directory routes, TLS with a certificate, the challenge path, refusals, an external Caddy, and no caddy at all.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../helpers/harness.ts';
import { edgeAnswers, edgeRunning, freePort, selfSigned, startEdgeServer, viaEdge } from './helpers.ts';

const work = mkdtempSync(join(tmpdir(), 'dw-edge-'));
after(() => rmSync(work, { recursive: true, force: true }));

function site(files: Record<string, string>): string {
  const dir = mkdtempSync(join(work, 'site-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

test('static routes, TLS with a certificate (HTTP redirects except the challenge path), bad input and refused configurations', async () => {
  const s = await startEdgeServer();
  try {
    await edgeRunning(s);
    const root = site({ 'index.html': 'hello static\n', 'docs/a.txt': 'doc a\n' });
    const put = (owner: string, routes: unknown[]) => s.api('PUT', `/api/v1/edge-client/routes/${owner}`, { body: { routes } });
    assert.equal((await put('site:www', [{ kind: 'static', hostname: 'www.static.test', root }, { kind: 'static', hostname: 'www.static.test', path: '/manual/', root: join(root, 'docs') }])).status, 200);
    assert.equal((await viaEdge(s.httpPort, 'www.static.test', '/')).body, 'hello static\n');
    assert.equal((await viaEdge(s.httpPort, 'WWW.static.test', '/manual/a.txt')).body, 'doc a\n', 'a prefix is stripped; hosts match case-insensitively');
    assert.equal((await viaEdge(s.httpPort, 'www.static.test', '/missing')).status, 404);

    // bad input: a clear problem, nothing stored
    for (const routes of [[{ kind: 'static', hostname: '*.static.test', root }], [{ kind: 'static', hostname: 'x.test', root: 'relative' }],
      [{ kind: 'proxy', hostname: 'x.test', upstream: { project: 'a', service: 'b', port: 70000 } }], [{ kind: 'static', hostname: 'x.test:80', root }]]) {
      const res = await put('site:bad', routes);
      assert.equal(res.status, 400, res.text);
      assert.ok(res.body.errors.length >= 1);
    }
    assert.equal((await s.api('GET', '/api/v1/edge')).body.hostnames.some((h: any) => h.owner === 'site:bad'), false);

    // the challenge path answers on every hostname over plain HTTP
    const challenge = (await s.api('GET', '/api/v1/edge-client/challenge-dir')).body.dir;
    writeFileSync(join(challenge, 'tok123'), 'tok123.thumb');
    assert.equal((await viaEdge(s.httpPort, 'any.host.test', '/.well-known/acme-challenge/tok123')).body, 'tok123.thumb');

    // a certificate: HTTPS with it, HTTP redirects (but not the challenge)
    const pem = await selfSigned('www.static.test', work);
    const installed = await s.api('PUT', '/api/v1/edge-client/certificates/www', { body: pem });
    assert.equal(installed.status, 200, installed.text);
    assert.deepEqual(installed.body.domains, ['www.static.test']);
    const secure = await edgeAnswers(s.httpsPort, 'www.static.test', '/', (a) => a.status === 200, 5000, { ca: pem.certificate });
    assert.equal(secure.body, 'hello static\n');
    const redirect = await viaEdge(s.httpPort, 'www.static.test', '/manual/a.txt?x=1');
    assert.equal(redirect.status, 308);
    assert.equal(redirect.headers.location, `https://www.static.test:${s.httpsPort}/manual/a.txt?x=1`);
    assert.equal((await viaEdge(s.httpPort, 'www.static.test', '/.well-known/acme-challenge/tok123')).body, 'tok123.thumb');
    const edge = (await s.api('GET', '/api/v1/edge')).body;
    assert.equal(edge.hostnames.find((h: any) => h.hostname === 'www.static.test').certificate.name, 'www');
    assert.equal(JSON.stringify(edge).includes('PRIVATE KEY'), false, 'keys never leave');
    assert.equal((await s.api('PUT', '/api/v1/edge-client/certificates/broken', { body: { certificate: pem.certificate, key: (await selfSigned('x.test', work)).key } })).status, 400);

    // a configuration Caddy refuses (its HTTPS port taken) changes nothing and is reported
    await s.api('DELETE', '/api/v1/edge-client/certificates/www');
    await edgeAnswers(s.httpPort, 'www.static.test', '/', (a) => a.status === 200);
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(s.httpsPort, () => r()));
    try {
      const refused = await s.api('PUT', '/api/v1/edge-client/certificates/www', { body: pem });
      assert.equal(refused.status, 502, refused.text);
      assert.match(refused.body.detail, /refused/);
      const after = (await s.api('GET', '/api/v1/edge')).body;
      assert.match(after.refused.error, /address already in use/);
      assert.deepEqual(after.certificates, []);
      // Caddy rolls back to the previous configuration itself; under load that takes a moment
      await edgeAnswers(s.httpPort, 'www.static.test', '/', (a) => a.body === 'hello static\n', 5_000);
      const overview = (await s.api('GET', '/api/v1/overview')).body;
      assert.ok(JSON.stringify(overview).includes('edge-config-refused'), JSON.stringify(overview));
    } finally {
      await new Promise((r) => blocker.close(r));
    }
    // removing the owner's routes frees the hostname
    assert.equal((await put('site:www', [])).status, 200);
    // (a listener of the refused configuration can linger for a moment after Caddy's rollback, answering its redirect)
    assert.equal((await edgeAnswers(s.httpPort, 'www.static.test', '/', (a) => a.status === 404, 5_000)).status, 404);
  } finally {
    await s.close();
  }
});

test('an external Caddy given by its admin address is configured the same way', async () => {
  const adminPort = await freePort();
  const dir = mkdtempSync(join(work, 'external-'));
  writeFileSync(join(dir, 'caddy.json'), JSON.stringify({ admin: { listen: `127.0.0.1:${adminPort}`, config: { persist: false } } }));
  const caddy = spawn('caddy', ['run', '--config', join(dir, 'caddy.json')], { env: { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: dir, XDG_DATA_HOME: dir }, stdio: 'ignore' });
  const s = await startEdgeServer({ edge: { adminAddress: `127.0.0.1:${adminPort}` } });
  try {
    const edge = await edgeRunning(s);
    assert.equal(edge.mode, 'external');
    assert.equal(edge.pid, null);
    const root = site({ 'index.html': 'external\n' });
    assert.equal((await s.api('PUT', '/api/v1/edge-client/routes/site:ext', { body: { routes: [{ kind: 'static', hostname: 'ext.test', root }] } })).status, 200);
    assert.equal((await viaEdge(s.httpPort, 'ext.test', '/')).body, 'external\n');
    // its own admin section is kept: the admin API still answers where it did
    const res = await fetch(`http://127.0.0.1:${adminPort}/config/admin`);
    assert.equal((await res.json() as any).listen, `127.0.0.1:${adminPort}`);
  } finally {
    await s.close();
    caddy.kill('SIGKILL');
  }
});

test('with no caddy binary the service starts and says what does not work', async () => {
  const s = await startEdgeServer({ edge: { caddy: '/nonexistent/caddy' } });
  try {
    const edge = await eventually(async () => {
      const r = (await s.api('GET', '/api/v1/edge')).body;
      return r.state === 'unavailable' ? r : null;
    }, 10_000, 'the edge to report the missing binary');
    assert.match(edge.reason, /caddy binary "\/nonexistent\/caddy" was not found/);
    const overview = (await s.api('GET', '/api/v1/overview')).body;
    assert.ok(JSON.stringify(overview).includes('edge-down'));
    // routes are still stored and checked: they reach Caddy once it runs
    const root = site({ 'index.html': 'later\n' });
    assert.equal((await s.api('PUT', '/api/v1/edge-client/routes/site:later', { body: { routes: [{ kind: 'static', hostname: 'later.test', root }] } })).status, 200);
    assert.equal((await s.api('GET', '/api/v1/edge')).body.routes.length, 1);
    const viewer = await s.token('viewer', ['*']);
    assert.equal((await s.api('GET', '/api/v1/edge', { token: viewer })).status, 403);
    assert.equal(existsSync(join(s.dataDir, 'plugins/edge/acme-challenge')), true);
  } finally {
    await s.close();
  }
});
