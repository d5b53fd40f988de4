// Every place the code opens an outbound connection (or starts a program that connects) is listed here, and each refuses a loopback target before connecting when outbound.allow does not list loopback.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join, relative } from 'node:path';
import { call, root, startServer, type TestServer } from '../helpers/harness.ts';
import { exchangeForm } from '../helpers/oidc-issuer.ts';
import { freePort } from '../plugins/docker/helpers.ts';
import { createStack, waitJob } from '../plugins/stacks/helpers.ts';
import { rfc2136Provider } from '../../plugins/certificates/rfc2136.ts';
import { registryClient } from '../../plugins/releases/registry.ts';
import { OutboundRefused } from '../../sdk/index.ts';

/**
 * Each file that connects somewhere or starts a program that does, and the case below that proves it goes through the
 * outbound policy; or, for what never leaves for a user-given host, why not.
 */
const places: Record<string, string> = {
  'plugins/git/git.ts': 'git (a stack source, a site source, a build context)',
  'plugins/git/workspace.ts': 'git (fetches through git.ts)',
  'plugins/backups/restic.ts': 'restic (a remote repository)',
  'plugins/docker/images.ts': 'image pulls (the registry of an image)',
  'plugins/docker/registry-auth.ts': 'the registry login (for plugins/registries/login-check.ts), and the token service of a registry asked before each pull, push and login (its realm checked before it is contacted)',
  'plugins/stacks/core-jobs.ts': 'image pulls of the pull and autoupdate jobs (through the docker runtime: images.ts)',
  'plugins/releases/releases.ts': 'image pulls by digest for a rollback (through the docker runtime: images.ts)',
  'plugins/releases/registry.ts': 'update checks (the Registry HTTP API of an image\'s registry)',
  'plugins/templates/sources.ts': 'a template source (an HTTPS index URL, through the policy\'s dispatcher)',
  'plugins/templates/files.ts': 'a template source\'s files (over the dispatcher sources.ts made after its check)',
  'plugins/alerts/send.ts': 'alert channels (webhook, e-mail, …)',
  'plugins/certificates/acme.ts': 'ACME',
  'plugins/certificates/rfc2136.ts': 'DNS updates (RFC 2136)',
  'kernel/services/outbound.ts': 'the policy itself',
  'kernel/settings/routes.ts': 'the Settings page\'s connection test (a TCP connection only to an address the policy checked)',
  // never a user-given host
  'plugins/backups/database-target.ts': "exempt: pg_dump of Dockwright's own database (DATABASE_URL, the admin's)",
  'kernel/plugin-admin.ts': "exempt: `plugins add` runs npm for the admin at the command line, with npm's own registry settings (never a user of the API)",
  'kernel/db/embedded.ts': 'exempt: the embedded PostgreSQL, a local child process',
  'plugins/edge/process.ts': 'exempt: Caddy as a local child process (its admin API on loopback)',
  'plugins/edge/admin.ts': "exempt: Caddy's admin API (the child's socket, or the admin's plugins.edge.options.adminAddress)",
  'plugins/edge/network.ts': 'exempt: the engine joins containers to a network (no connection from here)',
  'plugins/docker/deploy.ts': 'exempt: the engine joins containers to networks (no connection from here)',
  'plugins/tasks/execute.ts': "exempt: a task runs inside the stack's own container (exec) or a one-off copy of it joined to the service's own networks through the engine's API",
  'plugins/backups/db-target.ts': "exempt: a database dump runs inside the stack's own container through the engine's exec API",
  'plugins/backups/db-restore.ts': "exempt: a database restore runs inside the stack's own container (or a new stack's) through the engine's exec API",
  'plugins/docker/hooks.ts': "exempt: post_start and pre_stop run inside the stack's own container through the engine's exec API",
  'plugins/docker/rollout.ts': "exempt: the readiness probe reaches the stack's own new container on the dockwright-edge network, an address the engine gave it",
  'plugins/certificates/routes.ts': 'exempt: store.request() names a database row, not a connection',
  'sdk/outbound.ts': 'the policy as plugins see it',
  'sdk/testing/contract.ts': 'exempt: the test kit reads the served OpenAPI document',
  'kernel/auth/issuer-keys.ts': 'a CI issuer\'s discovery and keys (a token exchange naming a loopback issuer)',
  'kernel/auth/oidc.ts': 'an identity provider\'s discovery and endpoints (its "test this provider" on loopback)',
  'kernel/mcp/routes.ts': "exempt: an MCP tool calls this service's own API on its own listening address, with the caller's token",
  'kernel/test-kit.ts': 'exempt: the test kit calls the service under test',
};
const primitives = /(?<![.\w])(spawn|spawnSync|execFile|execFileSync|exec|execSync|fork)\(|(?<=child_process\.)\w+\(|\bfetch\(|createConnection\(|\bconnect\(\{|\.request\(|createSocket\(|createTransport\(|new acme\.Client|\.pull\(|from 'undici'|import\('undici'\)|from 'node:(dgram|tls)'|import \{[^}]*\b(request|get|connect|createConnection)\b[^}]*\} from 'node:(http|https|net)'/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'portal') return [];
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

test('every file that connects somewhere or starts a program is listed with the case that proves the policy applies (or why none does)', () => {
  const found = ['kernel', 'sdk', 'plugins'].flatMap((d) => sources(join(root, d))).filter((f) => primitives.test(readFileSync(f, 'utf8'))).map((f) => relative(root, f));
  const unlisted = found.filter((f) => !(f in places));
  assert.deepEqual(unlisted, [], `connections or programs in files this test does not know: list each in places, with the case that proves it refuses a loopback target`);
  assert.deepEqual(Object.keys(places).filter((f) => !found.includes(f)), [], 'listed files that no longer connect: remove them from places');
});

/** a loopback listener that records every connection and answers nothing: proves "before connecting" */
let trap: { server: Server; port: number; connections: number };
let s: TestServer;
before(async () => {
  trap = { server: createServer((socket) => { trap.connections++; socket.destroy(); }), port: 0, connections: 0 };
  await new Promise<void>((resolve) => trap.server.listen(0, '127.0.0.1', () => resolve()));
  trap.port = (trap.server.address() as { port: number }).port;
  const loop = `127.0.0.1:${trap.port}`;
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 }, outbound: { allow: [], allowHostnames: false } },
    plugins: {
      docker: { options: { reconcile: false } }, stacks: {}, git: {}, registries: {}, backups: {}, alerts: {},
      edge: { options: { httpPort: await freePort(), httpsPort: await freePort() } }, sites: {}, templates: {},
      certificates: { options: { directoryUrl: `http://${loop}/directory`, pollAttempts: 1, dns: { rfc2136: { server: loop, zone: 'example.com', keyName: 'k', keySecret: Buffer.from('secret').toString('base64') } } } },
    },
  });
});
after(async () => {
  await s?.close();
  await new Promise((resolve) => trap.server.close(resolve));
});

const loopUrl = () => `127.0.0.1:${trap.port}`;
const refused = (res: { status: number; body: any; text: string }, what: string) => {
  assert.equal(res.status, 422, `${what}: ${res.text}`);
  assert.match(res.text, /127\.0\.0\.1.*(are refused|outbound)/, what);
};

test('each place refuses a loopback target before connecting when loopback is not in outbound.allow', async () => {
  const p = loopUrl();
  // git: a stack's source and a site's source
  await createStack(s, 'obcontract', 'services:\n  app:\n    image: dockwright-test/busybox:1\n');
  refused(await s.api('PUT', '/api/v1/stacks/obcontract/source', { body: { url: `https://${p}/r.git` } }), 'git (stack source)');
  refused(await s.api('PUT', '/api/v1/stacks/obcontract/source', { body: { url: `ssh://git@${p}/r.git` } }), 'git over ssh');
  refused(await s.api('PUT', '/api/v1/sites/obcontract', { body: { hostnames: ['ob.test'], source: { url: `https://${p}/r.git` } } }), 'git (site source)');
  // a template source: an index URL, and a git repository (through the git plugin)
  refused(await s.api('POST', '/api/v1/templates/sources', { body: { name: 'ob', url: `https://${p}/index.json` } }), 'template source (URL)');
  refused(await s.api('POST', '/api/v1/templates/sources', { body: { name: 'obgit', git: { url: `https://${p}/r.git`, ref: 'main' } } }), 'template source (git)');
  // restic
  refused(await s.api('PUT', '/api/v1/backups/obcontract', { body: { targets: { database: true }, repository: { url: `sftp://u@${p}//r` } } }), 'restic sftp');
  refused(await s.api('PUT', '/api/v1/backups/obcontract', { body: { targets: { database: true }, repository: { url: `rest:http://${p}/` } } }), 'restic rest');
  refused(await s.api('PUT', '/api/v1/backups/obcontract', { body: { targets: { database: true }, repository: { url: `s3:http://${p}/bucket` } } }), 'restic s3');
  // the registry login
  refused(await s.api('POST', '/api/v1/registries', { body: { host: p, username: 'u', password: 'p' } }), 'registry login');
  // image pulls: the registry of an image
  const image = await s.api('PUT', '/api/v1/stacks/obcontract/compose', { body: { content: `services:\n  app:\n    image: ${p}/x:1\n` }, headers: { 'if-match': '"1"' } });
  assert.equal(image.status, 422, image.text);
  assert.ok(image.body.errors.some((e: any) => e.rule === 'outbound-registry'), image.text);
  // a build context given as a git URL: fetched by the git plugin when the image is built
  const build = await s.api('PUT', '/api/v1/stacks/obcontract/compose', { body: { content: `services:\n  app:\n    build: https://${p}/r.git#main\n` }, headers: { 'if-match': '"1"' } });
  assert.equal(build.status, 200, build.text);
  const deploy = await s.api('POST', '/api/v1/stacks/obcontract/deploy');
  assert.equal(deploy.status, 202, deploy.text);
  const built = await waitJob(s, deploy.body.id);
  assert.equal(built.status, 'failed');
  assert.match(built.error ?? '', /build context https:\/\/127\.0\.0\.1:\d+\/r\.git is not fetched: .*127\.0\.0\.1.*(are refused|outbound)/, 'git (a build context)');
  // alert channels
  refused(await s.api('POST', '/api/v1/alerts/channels', { body: { name: 'x', kind: 'webhook', config: { url: `http://${p}/hook` } } }), 'alert webhook');
  refused(await s.api('POST', '/api/v1/alerts/channels', { body: { name: 'y', kind: 'email', config: { host: '127.0.0.1', port: trap.port, from: 'a@b.c', to: ['d@e.f'] } } }), 'alert e-mail');
  // ACME: the directory on loopback
  const request = await s.api('POST', '/api/v1/certificates/request', { body: { domains: ['www.example.com'] } });
  assert.equal(request.status, 202, request.text);
  const job = await waitJob(s, request.body.id);
  assert.equal(job.status, 'failed', 'the directory on loopback is refused');
  assert.match(job.error ?? '', /127\.0\.0\.1.*are refused/, 'at once, saying why (not after the ACME client\'s retries)');
  assert.equal(trap.connections, 0, 'the ACME directory was never contacted');
  // DNS updates (RFC 2136) through the kernel's own policy
  const dns = rfc2136Provider({ server: p, zone: 'example.com', keyName: 'k', keyAlgorithm: 'hmac-sha256', keySecret: Buffer.from('secret').toString('base64') }, s.app.services.outbound);
  await assert.rejects(dns.addTxt('_acme-challenge.www.example.com', 'x'), (err) => err instanceof OutboundRefused);
  // update checks: the Registry HTTP API (manifests and tags) of an image's registry
  const registry = registryClient(s.app.services.outbound, null);
  await assert.rejects(registry.digest(p, 'x', '1'), (err) => err instanceof OutboundRefused);
  await assert.rejects(registry.tags(p, 'x'), (err) => err instanceof OutboundRefused);
  await registry.close();
  // an identity provider's discovery (its "test this provider"), and a CI issuer's keys (a token exchange)
  const settings = await s.api('GET', '/api/v1/settings');
  const oidc = await s.api('PATCH', '/api/v1/settings', { body: { 'auth.oidc.providers': [{ name: 'ob', issuer: `http://${p}`, clientId: 'c', clientSecret: 's' }] }, headers: { 'if-match': `"${settings.body.revision}"` } });
  assert.equal(oidc.status, 200, oidc.text);
  const discovery = await s.api('POST', '/api/v1/auth/oidc/providers/ob/test', { body: {} });
  assert.equal(discovery.status, 502, discovery.text);
  assert.match(discovery.text, /127\.0\.0\.1.*(are refused|outbound)/, 'identity provider');
  const policy = await s.api('POST', '/api/v1/auth/federation', { body: { issuer: `http://${p}`, audience: 'dw', subject: '*', scopes: ['stacks:read'] } });
  assert.equal(policy.status, 201, policy.text);
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const jwt = `${part({ alg: 'RS256', kid: 'k' })}.${part({ iss: `http://${p}`, aud: 'dw', sub: 'x', jti: 'ob', exp: Math.floor(Date.now() / 1000) + 300 })}.${part({ s: 1 })}`;
  const exchange = await call(s.url, 'POST', '/api/v1/auth/token', { raw: exchangeForm(jwt), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(exchange.status, 401, exchange.text);
  // the Settings page's connection test
  const tested = await s.api('POST', '/api/v1/settings/outbound/test', { body: { host: '127.0.0.1', port: trap.port } });
  assert.equal(tested.status, 200, tested.text);
  assert.deepEqual([tested.body.allowed, tested.body.connected], [false, false], 'connection test');

  assert.equal(trap.connections, 0, 'nothing connected to the loopback listener');
  assert.deepEqual((await s.api('GET', '/api/v1/backups')).body, [], 'no refused definition was stored');
  assert.deepEqual((await s.api('GET', '/api/v1/registries')).body, []);
  assert.deepEqual((await s.api('GET', '/api/v1/alerts/channels')).body, []);
});
