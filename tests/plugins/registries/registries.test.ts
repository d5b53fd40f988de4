// Registry logins over the real API against the test environment's htpasswd registry (127.0.0.1:5001): checked on save (its token service against the outbound policy too), sealed, used by deploys, builds and autoupdate, never shown.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../../../sdk/index.ts';
import { createSecrets, loadSecretKey } from '../../../kernel/services/secrets.ts';
import { eventually, startServer, type TestServer } from '../../helpers/harness.ts';
import { tgz } from '../git/archives.ts';
import { act, cleanupProjects, containerOf, createStack, docker, freePort, uniqueName, waitJob } from '../stacks/helpers.ts';
import { recordingServer, type RecordingServer } from '../docker/helpers.ts';

const registry = process.env.REGISTRY_AUTH ?? '';
const username = process.env.REGISTRY_AUTH_USER ?? '';
const password = process.env.REGISTRY_AUTH_PASSWORD ?? '';
const skip = !registry && 'test-env has no auth registry';
const wrongPassword = `wrong-${randomBytes(8).toString('hex')}`;

const name = uniqueName('regs');
const autoName = uniqueName('regauto');
const buildName = uniqueName('regbuild');
// tags of this run only: other test files use the same registry and engine
const ref = `${registry}/dockwright-test/${name}:1`;
const autoRef = `${registry}/dockwright-test/${autoName}:1`;
const baseRef = `${registry}/dockwright-test/${buildName}-base:1`;
const builtImage = `${buildName}-app`;

/** every log line, as text, whatever its level */
const logged: string[] = [];
function capturingLogger(bindings: object = {}): Logger {
  const write = (obj: object | string, msg?: string) => {
    const err = (obj as { err?: unknown }).err;
    logged.push(JSON.stringify({ bindings, obj, msg, err: err instanceof Error ? { ...err, message: err.message, stack: err.stack } : undefined }));
  };
  return { info: write, warn: write, error: write, debug: write, child: (more) => capturingLogger({ ...bindings, ...more }) };
}

let s: TestServer;
let db: pg.Client;

function follow(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve, reject) => docker.modem.followProgress(stream, (err: unknown, out: { error?: string }[]) => {
    const failed = out?.find((e) => e.error);
    if (err || failed) reject(err ?? new Error(failed!.error)); else resolve();
  }));
}
/** pushes a local image to the auth registry under target with the test's own login, and drops the local tag so only the registry has it */
async function pushAs(local: string, target: string) {
  const [repo, tag] = [target.slice(0, target.lastIndexOf(':')), target.slice(target.lastIndexOf(':') + 1)];
  await docker.getImage(local).tag({ repo, tag });
  await follow(await docker.getImage(target).push({ authconfig: { username, password, serveraddress: registry } }));
  await dropTag(target);
}
const dropTag = (target: string) => docker.getImage(target).remove().then(() => undefined, () => undefined);

const save = (body: Record<string, unknown>, token = s.admin) => s.api('POST', '/api/v1/registries', { body, token });
const list = async () => (await s.api('GET', '/api/v1/registries')).body as any[];
const rowCount = async () => Number((await db.query('SELECT count(*) AS n FROM registry_logins')).rows[0].n);

before(async () => {
  if (skip) return;
  await pushAs('dockwright-test/busybox:1', ref);
  await pushAs('dockwright-test/busybox:1', autoRef);
  await pushAs('dockwright-test/busybox:1', baseRef);
  s = await startServer({
    log: capturingLogger(),
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } },
      containers: {},
      stacks: {},
      git: {},
      registries: {},
    },
  });
  db = new pg.Client({ connectionString: s.databaseUrl });
  await db.connect();
});
after(async () => {
  if (skip) return;
  await cleanupProjects(name, autoName, buildName);
  await db?.end();
  await s?.close();
  for (const r of [ref, autoRef, baseRef, builtImage]) await docker.getImage(r).remove({ force: true }).catch(() => undefined);
  // an image replaced under its tag keeps a digest reference of our repository: drop those too (never the image, others tag it)
  const ours = [ref, autoRef, baseRef].map((r) => `${r.slice(0, r.lastIndexOf(':'))}@`);
  for (const image of await docker.listImages()) {
    for (const digest of image.RepoDigests ?? []) if (ours.some((o) => digest.startsWith(o))) await docker.getImage(digest).remove().catch(() => undefined);
  }
});

test('bad input is a 400 with the reason, scopes are enforced, an unknown host is a 404; nothing is stored', { skip }, async () => {
  const good = { host: registry, username, password: wrongPassword };
  for (const [body, path] of [
    [{ username, password }, '/body/host'],
    [{ host: registry, password }, '/body/username'],
    [{ host: registry, username }, '/body/password'],
    [{ ...good, password: '' }, '/body/password'],
    [{ ...good, username: 'a:b' }, '/body/username'],
    [{ ...good, extra: 1 }, '/body/extra'],
    [{ ...good, host: 'https://ghcr.io' }, '/body/host'],
    [{ ...good, host: 'ghcr.io/owner' }, '/body/host'],
    [{ ...good, host: 'a:b:c' }, '/host'],
    [{ ...good, host: 'registry.example.com:70000' }, '/host'],
    [{ ...good, host: 'registry.example.com:http' }, '/host'],
    [{ ...good, host: '-bad-.example.com' }, '/host'],
    [{ ...good, host: '[not-ipv6]:5000' }, '/host'],
  ] as const) {
    const res = await save(body);
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    assert.match(res.headers.get('content-type')!, /application\/problem\+json/);
    assert.ok(res.body.errors.some((e: { path: string }) => e.path === path), `${JSON.stringify(body)} names ${path}: ${res.text}`);
  }
  assert.equal((await s.api('POST', '/api/v1/registries', { raw: 'not json', headers: { 'content-type': 'application/json' } })).status, 400);
  assert.equal((await s.api('DELETE', '/api/v1/registries/a:b:c')).status, 400);

  // Docker Hub's aliases are one host: the 404 names the normalised one
  const unknown = await s.api('DELETE', '/api/v1/registries/INDEX.DOCKER.IO');
  assert.equal(unknown.status, 404);
  assert.match(unknown.body.detail, /no login for the registry docker\.io$/);

  const reader = await s.token('admin', ['registries:read']);
  const none = await s.token('admin', ['stacks:read']);
  const operator = await s.token('operator', ['registries:read', 'registries:write']);
  assert.equal((await save({ ...good, password }, reader)).status, 403);
  assert.equal((await save({ ...good, password }, operator)).status, 403, 'registry logins are for admins: every stack may pull with them');
  assert.equal((await s.api('DELETE', `/api/v1/registries/${registry}`, { token: reader })).status, 403);
  const hidden = await s.api('GET', '/api/v1/registries', { token: none });
  assert.equal(hidden.status, 403);
  assert.match(hidden.body.detail, /registries:read/);
  assert.deepEqual((await s.api('GET', '/api/v1/registries', { token: reader })).body, []);
  assert.equal(await rowCount(), 0);
});

test('a wrong password is a 422 with the registry\'s reason, an unreachable registry a 422 naming it; nothing is saved', { skip }, async () => {
  const wrong = await save({ host: registry, username, password: wrongPassword });
  assert.equal(wrong.status, 422, wrong.text);
  assert.equal(wrong.body.type, 'https://dockwright.dev/problems/registry-login-refused');
  assert.match(wrong.body.detail, new RegExp(`registry ${registry.replace(/\./g, '\\.')} refused the login of ${username}: .*401`));
  assert.match(wrong.body.detail, /nothing was saved/);

  const port = await freePort();
  const away = await save({ host: `127.0.0.1:${port}`, username, password });
  assert.equal(away.status, 422, away.text);
  assert.equal(away.body.type, 'https://dockwright.dev/problems/registry-unreachable');
  assert.match(away.body.detail, new RegExp(`could not reach the registry 127\\.0\\.0\\.1:${port}: .*connection refused`));

  assert.deepEqual(await list(), []);
  assert.equal(await rowCount(), 0);
  const activity = (await s.api('GET', `/api/v1/activity?resource=registry:${registry}&action=registry.save`)).body;
  assert.equal(activity[0].result, 'failed');
  assert.equal(activity[0].detail.status, 422);
});

test('the right password saves (201) and a second login for the host replaces the first (200); concurrent saves leave one login', { skip }, async () => {
  const created = await save({ host: registry, username, password });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(Object.keys(created.body).sort(), ['addedAt', 'addedBy', 'host', 'lastUsedAt', 'username']);
  assert.equal(created.body.host, registry);
  assert.equal(created.body.username, username);
  assert.equal(created.body.addedBy.kind, 'user');
  assert.equal(created.body.lastUsedAt, null);

  const replaced = await save({ host: registry, username, password });
  assert.equal(replaced.status, 200, replaced.text);
  assert.ok(replaced.body.addedAt >= created.body.addedAt);

  const both = await Promise.all([save({ host: registry, username, password }), save({ host: registry, username, password })]);
  assert.deepEqual(both.map((r) => r.status), [200, 200]);
  const listed = await list();
  assert.equal(listed.length, 1);
  const later = both.map((r) => r.body).sort((a, b) => a.addedAt.localeCompare(b.addedAt)).at(-1);
  assert.deepEqual(listed[0], later, 'the later save is what stays');

  // the open test registry takes any login: a second host to page through
  const open = process.env.REGISTRY_OPEN ?? '127.0.0.1:5000';
  assert.equal((await save({ host: open, username: 'anyone', password: 'any' })).status, 201);
  const first = await s.api('GET', '/api/v1/registries?limit=1');
  assert.deepEqual(first.body.map((l: { host: string }) => l.host), [open]);
  const second = await s.api('GET', /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')![1]);
  assert.deepEqual(second.body.map((l: { host: string }) => l.host), [registry]);
  assert.equal(second.headers.get('link'), null);
  assert.equal((await s.api('DELETE', `/api/v1/registries/${open}`)).status, 204);

  const sealed = (await db.query('SELECT password_sealed FROM registry_logins WHERE host = $1', [registry])).rows[0].password_sealed as string;
  assert.match(sealed, /^v1:/, 'sealed with the installation key');
  const activity = (await s.api('GET', `/api/v1/activity?resource=registry:${registry}&action=registry.save`)).body;
  assert.equal(activity[0].result, 'ok');
  assert.deepEqual(activity[0].detail, { username, replaced: true });
});

test('a stack whose image is only in that registry deploys with the login; after the login is deleted the deploy fails naming the registry', { skip }, async () => {
  assert.equal((await save({ host: registry, username, password })).status, 200);
  await dropTag(ref);
  await createStack(s, name, `services:\n  app:\n    image: ${ref}\n    command: ["sleep", "3600"]\n`);
  const job = await act(s, 'deploy', name);
  assert.match(job.output, new RegExp(`pulling ${ref.replace(/\./g, '\\.')} \\(as ${username} on ${registry.replace(/\./g, '\\.')}\\)`));
  assert.equal((await containerOf(name, 'app'))!.State, 'running');
  const used = (await list())[0];
  assert.ok(used.lastUsedAt && used.lastUsedAt >= used.addedAt, 'the pull is noted as a use');

  await act(s, 'stop', name);
  await dropTag(ref);
  const deleted = await s.api('DELETE', `/api/v1/registries/${registry}`);
  assert.equal(deleted.status, 204, deleted.text);
  assert.deepEqual(await list(), []);
  assert.equal((await s.api('DELETE', `/api/v1/registries/${registry}`)).status, 404);
  const activity = (await s.api('GET', `/api/v1/activity?resource=registry:${registry}&action=registry.delete`)).body;
  assert.deepEqual(activity.map((a: { result: string }) => a.result), ['failed', 'ok']);

  const failed = await act(s, 'deploy', name, 'failed');
  assert.match(failed.error!, new RegExp(`the registry ${registry.replace(/\./g, '\\.')} refused the pull: no login for it is saved; add or replace it with POST /api/v1/registries`));

  // a login that stopped working after it was saved (the password was changed at the registry): sealed as the plugin seals
  const secrets = createSecrets(loadSecretKey(undefined, s.dataDir));
  await db.query("INSERT INTO registry_logins (host, username, password_sealed, added_by) VALUES ($1, $2, $3, '{\"kind\":\"system\"}')", [registry, username, secrets.seal(wrongPassword)]);
  const rejected = await act(s, 'deploy', name, 'failed');
  assert.match(rejected.error!, new RegExp(`the registry ${registry.replace(/\./g, '\\.')} refused the pull: its saved login \\(user ${username}\\) was rejected`));
  assert.equal((await s.api('DELETE', `/api/v1/registries/${registry}`)).status, 204);
});

test('nightly autoupdate checks the registry with the login and sees a new digest pushed there', { skip }, async () => {
  assert.equal((await save({ host: registry, username, password })).status, 201);
  await dropTag(autoRef);
  await createStack(s, autoName, `services:\n  app:\n    image: ${autoRef}\n    command: ["sleep", "3600"]\n`);
  await act(s, 'deploy', autoName);
  const first = (await containerOf(autoName, 'app'))!.Id;
  assert.equal((await s.api('PUT', `/api/v1/stacks/${autoName}/autoupdate`, { body: { enabled: true } })).status, 200);
  const runs = async () => (await s.api('GET', `/api/v1/jobs?resource=stack:${autoName}&type=stacks.autoupdate`)).body as any[];
  // the nightly slot, now: schedules are minute-grained, and a test does not wait for 3 a.m.
  await s.app.services.scheduler.trigger('stacks.autoupdate');

  const quiet = await eventually(async () => (await runs()).find((j) => j.done), 30_000, 'a first autoupdate run');
  assert.equal(quiet.status, 'succeeded', quiet.error ?? '');
  assert.equal(quiet.result.redeployed, false);
  assert.match(quiet.output, new RegExp(`\\(as ${username} on `));

  await pushAs('dockwright-test/busybox:2', autoRef);
  await s.app.services.scheduler.trigger('stacks.autoupdate');
  const updated = await eventually(async () => (await runs()).find((j) => j.result?.redeployed), 60_000, 'an autoupdate that redeploys');
  assert.deepEqual(updated.result.changed, [autoRef]);
  assert.notEqual((await containerOf(autoName, 'app'))!.Id, first, 'the service runs the new image');
  await s.api('PUT', `/api/v1/stacks/${autoName}/autoupdate`, { body: { enabled: false } });
  // a run queued just now must not outlive the test
  for (const j of await runs()) if (!j.done) await waitJob(s, j.id);
});

test('a build pulls its base image from the registry with the login', { skip }, async () => {
  if (!(await list()).length) assert.equal((await save({ host: registry, username, password })).status, 201);
  await dropTag(baseRef);
  await createStack(s, buildName, `services:\n  app:\n    image: dockwright-test/busybox:1\n`);
  const archive = tgz([
    { name: 'compose.yaml', content: 'services:\n  app:\n    build: .\n    command: ["sleep", "3600"]\n' },
    { name: 'Dockerfile', content: `ARG BASE=${baseRef}\nFROM \${BASE} AS base\nFROM base\nRUN true\n` },
  ]);
  const uploaded = await s.api('PUT', `/api/v1/stacks/${buildName}/source/upload`, { raw: new Uint8Array(archive), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(uploaded.status, 200, uploaded.text);
  const job = await act(s, 'deploy', buildName);
  // the classic builder pulls by itself with the login; for BuildKit, Dockwright pulls the base image before the build
  const reg = registry.replace(/\./g, '\\.');
  assert.match(job.output, new RegExp(`building ${builtImage} \\(base images as ${username} on ${reg}\\)|pulling ${baseRef.replace(/\./g, '\\.')} \\(as ${username} on ${reg}\\)`));
  assert.equal((await containerOf(buildName, 'app'))!.State, 'running');

  await act(s, 'stop', buildName);
  await dropTag(baseRef);
  await docker.getImage(builtImage).remove({ force: true }).catch(() => undefined);
  assert.equal((await s.api('DELETE', `/api/v1/registries/${registry}`)).status, 204);
  const failed = await act(s, 'deploy', buildName, 'failed');
  assert.match(failed.error!, new RegExp(`a login for ${registry.replace(/\./g, '\\.')} is missing or rejected`));
});

test('the password is in no answer, log line, job output, activity entry or table in plain text', { skip }, async () => {
  const secrets = [password, wrongPassword];
  const answers = [
    await s.api('GET', '/api/v1/registries'),
    await s.api('GET', '/api/v1/jobs?limit=1000'),
    await s.api('GET', '/api/v1/activity?limit=1000'),
    await s.api('GET', '/api/v1/openapi.json'),
  ];
  const jobs = answers[1].body as { id: string }[];
  assert.ok(jobs.length >= 6);
  for (const j of jobs) answers.push(await s.api('GET', `/api/v1/jobs/${j.id}`));
  for (const a of answers) for (const secret of secrets) assert.ok(!a.text.includes(secret), `an answer holds a password: ${a.text.slice(0, 200)}`);

  assert.ok(logged.length > 0, 'the logger was used');
  for (const line of logged) for (const secret of secrets) assert.ok(!line.includes(secret), `a log line holds a password: ${line}`);

  const { rows: tables } = await db.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'");
  assert.ok(tables.some((t) => t.table_name === 'registry_logins'));
  for (const { table_name } of tables) {
    const { rows } = await db.query(`SELECT t::text AS row FROM "${table_name}" t`);
    for (const { row } of rows) for (const secret of secrets) assert.ok(!(row as string).includes(secret), `${table_name} holds a password in plain text`);
  }
});

test('without a Docker engine a login cannot be checked: 503 naming the engine, nothing saved', async () => {
  const down = await startServer({ plugins: { docker: { options: { socketPath: '/nonexistent/dockwright/docker.sock', reconcile: false } }, registries: {} } });
  try {
    const res = await down.api('POST', '/api/v1/registries', { body: { host: '127.0.0.1:5999', username: 'me', password: 'secret-token' } });
    assert.equal(res.status, 503, res.text);
    assert.match(res.body.detail, /Docker engine .* does not answer/);
    assert.deepEqual((await down.api('GET', '/api/v1/registries')).body, []);
    const activity = (await down.api('GET', '/api/v1/activity?resource=registry:127.0.0.1:5999')).body;
    assert.deepEqual(activity.map((a: any) => [a.action, a.result, a.detail.status]), [['registry.save', 'failed', 503]]);
  } finally {
    await down.close();
  }
});

/** a registry on 127.0.0.1 that asks for a token from `realm` and takes the token that service gives */
async function tokenRegistry(realm: () => string): Promise<RecordingServer> {
  return recordingServer((req, res) => {
    if (req.url?.startsWith('/v2/') && req.headers.authorization === 'Bearer good-token') {
      res.writeHead(200, { 'content-type': 'application/json', 'docker-distribution-api-version': 'registry/2.0' }).end('{}');
    } else {
      res.writeHead(401, { 'content-type': 'application/json', 'docker-distribution-api-version': 'registry/2.0', 'www-authenticate': `Bearer realm="${realm()}",service="stand-in"` }).end('{"errors":[{"code":"UNAUTHORIZED"}]}');
    }
  });
}
const tokenService = (host: string) => recordingServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: 'good-token', access_token: 'good-token', expires_in: 300 }));
}, host);

test('a token service (Bearer realm) the outbound policy refuses is never sent the login: 422 naming it, the engine not asked, nothing saved', async () => {
  // 127.0.0.1 is allowed, the rest of loopback is not: 127.0.0.2 stands for a private address behind a public registry
  const strict = await startServer({ config: { outbound: { allow: ['127.0.0.1'], allowHostnames: false } }, plugins: { docker: { options: { reconcile: false } }, registries: {} } });
  const refusedTokens = await tokenService('127.0.0.2');
  const allowedTokens = await tokenService('127.0.0.1');
  const refusing = await tokenRegistry(() => `http://127.0.0.2:${refusedTokens.port}/token`);
  const allowing = await tokenRegistry(() => `http://127.0.0.1:${allowedTokens.port}/token`);
  try {
    const refused = await strict.api('POST', '/api/v1/registries', { body: { host: `127.0.0.1:${refusing.port}`, username: 'me', password: 'token-secret' } });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.type, 'https://dockwright.dev/problems/outbound-refused');
    assert.match(refused.body.detail, new RegExp(`^connections to 127\\.0\\.0\\.2:${refusedTokens.port} are refused: it is a loopback address .*outbound\\.allow.*The registry 127\\.0\\.0\\.1:${refusing.port} sends logins there \\(its token service, the realm http://127\\.0\\.0\\.2:${refusedTokens.port}/token\\)`));
    assert.equal(refusedTokens.connections, 0, `the token service was reached: ${refusedTokens.requests.join(', ')}`);
    assert.deepEqual(refusing.requests, ['GET /v2/'], 'only Dockwright\'s probe, without credentials: the engine was not asked to log in');
    assert.deepEqual((await strict.api('GET', '/api/v1/registries')).body, []);

    // a token service the policy allows: Dockwright logs in there (the engine is never asked to), which the refusal above prevented
    const saved = await strict.api('POST', '/api/v1/registries', { body: { host: `127.0.0.1:${allowing.port}`, username: 'me', password: 'token-secret' } });
    assert.equal(saved.status, 201, saved.text);
    assert.ok(allowedTokens.requests.some((r) => r.startsWith('GET /token')), `the token service was asked: ${allowedTokens.requests.join(', ')}`);
  } finally {
    await strict.close();
    for (const server of [refusedTokens, allowedTokens, refusing, allowing]) await server.close();
  }
});

test('every pull asks the registry\'s token service right before the engine is asked, through the policy and without redirects; the engine gets the token, never the password, and never contacts a realm', async () => {
  // 127.0.0.1 is allowed, the rest of loopback is not: 127.0.0.2 stands for a private address behind a public registry
  const strict = await startServer({
    config: { outbound: { allow: ['127.0.0.1'], allowHostnames: false } },
    plugins: { docker: { options: { reconcile: false } }, containers: {}, stacks: {}, registries: {} },
  });
  const refusedTokens = await tokenService('127.0.0.2');
  const allowedTokens = await tokenService('127.0.0.1');
  const redirecting = await recordingServer((_req, res) => { res.writeHead(302, { location: `http://127.0.0.2:${refusedTokens.port}/token` }).end(); });
  let realm = `http://127.0.0.2:${refusedTokens.port}/token`;
  const registry = await tokenRegistry(() => realm);
  const host = `127.0.0.1:${registry.port}`;
  const stack = uniqueName('realm');
  const image = `${host}/team/${stack}:1`;
  const auths = () => registry.requests.length;
  try {
    await createStack(strict, stack, `services:\n  app:\n    image: ${image}\n`);
    const pull = () => act(strict, 'pull', stack, 'failed');
    // an anonymous pull: the realm the registry names is refused before anyone contacts it, the engine is not asked
    const anonymous = await pull();
    assert.equal(anonymous.status, 'failed');
    assert.match(anonymous.error!, new RegExp(`connections to 127\\.0\\.0\\.2:${refusedTokens.port} are refused: it is a loopback address.*The registry ${host} sends logins there \\(its token service, the realm http://127\\.0\\.0\\.2:${refusedTokens.port}/token\\), so the engine was not asked`));
    assert.equal(refusedTokens.connections, 0, `the refused token service was reached: ${refusedTokens.requests.join(', ')}`);
    assert.ok(registry.requests.every((r) => r === 'GET /v2/'), `only Dockwright's probes reached the registry, the engine did not: ${registry.requests.join(', ')}`);

    // a registry open to Dockwright's probe that shows the engine a realm: the engine, given a token, follows no realm
    const twoFaced = await recordingServer((req, res) => {
      if (/^docker\//.test(req.headers['user-agent'] ?? '')) res.writeHead(401, { 'www-authenticate': `Bearer realm="http://127.0.0.2:${refusedTokens.port}/token",service="x"` }).end();
      else res.writeHead(200, { 'content-type': 'application/json', 'docker-distribution-api-version': 'registry/2.0' }).end('{}');
    });
    try {
      const other = uniqueName('realm2');
      await createStack(strict, other, `services:\n  app:\n    image: 127.0.0.1:${twoFaced.port}/team/${other}:1\n`);
      const shown = await act(strict, 'pull', other, 'failed');
      assert.ok(twoFaced.requests.some((r) => r.startsWith('GET /v2/team/')), `the engine was asked and went to the registry: ${twoFaced.requests.join(', ')}; ${shown.error}`);
      assert.equal(refusedTokens.connections, 0, 'the engine followed the realm the registry showed it');
      await strict.api('DELETE', `/api/v1/stacks/${other}`);
    } finally {
      await twoFaced.close();
    }

    // a login saved while the realm was an allowed one; the registry names another realm afterwards: its pull is refused
    realm = `http://127.0.0.1:${allowedTokens.port}/token`;
    assert.equal((await strict.api('POST', '/api/v1/registries', { body: { host, username: 'me', password: 'token-secret' } })).status, 201);
    realm = `http://127.0.0.2:${refusedTokens.port}/token`;
    const changed = await pull();
    assert.equal(changed.status, 'failed');
    assert.match(changed.error!, /are refused: it is a loopback address.*so the engine was not asked/);
    assert.equal(refusedTokens.connections, 0, 'the password never went to the new realm');

    // an allowed realm that redirects: the redirect is not followed
    realm = `http://127.0.0.1:${redirecting.port}/token`;
    const redirected = await pull();
    assert.equal(redirected.status, 'failed');
    assert.match(redirected.error!, new RegExp(`http://127\\.0\\.0\\.1:${redirecting.port}/token redirects to http://127\\.0\\.0\\.2:${refusedTokens.port}/token: the redirects of a registry and its token service are not followed, so the engine was not asked`));
    assert.equal(refusedTokens.connections, 0);

    // an allowed realm: Dockwright fetches the token (once), the engine pulls with it and never asks the token service itself
    realm = `http://127.0.0.1:${allowedTokens.port}/token`;
    const before = allowedTokens.requests.length;
    const from = auths();
    const allowed = await pull();
    assert.equal(allowed.status, 'failed', 'the stand-in registry has no image');
    assert.deepEqual(allowedTokens.requests.slice(before).map((r) => r.replace(/\?.*/, '')), ['GET /token'], `only Dockwright asked the token service: ${allowedTokens.requests.slice(before).join(', ')}`);
    assert.match(allowedTokens.requests.at(-1)!, new RegExp(`scope=repository%3Ateam%2F${stack}%3Apull`));
    assert.ok(registry.requests.slice(from).some((r) => new RegExp(`^(GET|HEAD) /v2/team/${stack}/manifests/1$`).test(r)), `the engine asked the registry with the token: ${registry.requests.slice(from).join(', ')}`);
  } finally {
    await strict.api('DELETE', `/api/v1/stacks/${stack}`).catch(() => undefined);
    await strict.close();
    for (const server of [refusedTokens, allowedTokens, redirecting, registry]) await server.close();
  }
});
