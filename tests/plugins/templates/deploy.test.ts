// Deploying a template on the real engine: generated secrets reach the container's environment and no answer, job output or later edit; bad input is a problem naming the template and field, and creates nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import { call, startServer, type TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, docker, uniqueName, waitJob } from '../stacks/helpers.ts';

const folder = mkdtempSync(join(tmpdir(), 'dw-templates-'));
const names: string[] = [];
const fresh = (prefix: string) => { const n = uniqueName(prefix); names.push(n); return n; };

const demo = `x-dockwright:
  id: demo
  name: Demo app
  version: "1.0.0"
  description: A busybox that shows its environment
  categories: [testing]
  instructions: "Open https://\${HOST}; sign in with the hidden variable PASSWORD."
  variables:
    HOST: { type: hostname, description: where it answers }
    GREETING: { type: string, default: hello, pattern: "[a-z ]+" }
    PASSWORD: { type: secret, generate: "password:32" }
    JWT_SECRET: { type: secret, generate: "hex:48" }
    ANON_KEY: { type: secret, generate: "jwt:JWT_SECRET", claims: { role: anon } }
services:
  app:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    environment:
      GREETING: \${GREETING}
      PASSWORD: \${PASSWORD}
      ANON_KEY: \${ANON_KEY}
      JWT_SECRET: \${JWT_SECRET}
    labels:
      dockwright.http.host: \${HOST}
    healthcheck: { test: ["CMD", "true"], interval: 1s, retries: 3 }
`;
const privileged = demo.replace('id: demo', 'id: strong').replace('    command: ["sleep", "3600"]\n', '    command: ["sleep", "3600"]\n    privileged: true\n');

let s: TestServer;
before(async () => {
  writeFileSync(join(folder, 'demo.yaml'), demo);
  writeFileSync(join(folder, 'strong.yaml'), privileged);
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: {
      docker: { options: { stopTimeoutSeconds: 1, healthTimeoutMs: 60_000, reconcile: false } },
      stacks: {},
      git: {},
      templates: { options: { folders: [{ name: 'mine', path: folder }] } },
    },
  });
});
after(async () => {
  await cleanupProjects(...names);
  await s?.close();
  rmSync(folder, { recursive: true, force: true });
});

async function containerEnv(stack: string): Promise<{ env: Record<string, string>; labels: Record<string, string> }> {
  const [c] = await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${stack}`, 'dockwright.service=app'] } });
  const info = await docker.getContainer(c.Id).inspect();
  return { env: Object.fromEntries(info.Config.Env.map((e: string) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)])), labels: info.Config.Labels };
}

test('the list holds every source, searchable by words and category; one template shows its typed variables', async () => {
  const all = await s.api('GET', '/api/v1/templates');
  assert.equal(all.status, 200);
  assert.ok(Array.isArray(all.body));
  assert.ok(all.body.some((t: any) => t.source === 'bundled' && t.id === 'wordpress'));
  assert.ok(all.body.some((t: any) => t.source === 'mine' && t.id === 'demo' && t.version === '1.0.0'));
  const paged = await s.api('GET', '/api/v1/templates?limit=10');
  assert.equal(paged.body.length, 10);
  assert.match(paged.headers.get('link') ?? '', /cursor=10/);
  assert.deepEqual((await s.api('GET', '/api/v1/templates?category=testing')).body.map((t: any) => t.id).sort(), ['demo', 'strong']);
  assert.deepEqual((await s.api('GET', '/api/v1/templates?q=busybox%20environment&source=mine')).body.map((t: any) => t.id).sort(), ['demo', 'strong']);
  const one = await s.api('GET', '/api/v1/templates/mine/demo');
  assert.equal(one.status, 200);
  const byName = Object.fromEntries(one.body.variables.map((v: any) => [v.name, v]));
  assert.deepEqual(byName.HOST, { name: 'HOST', type: 'hostname', description: 'where it answers', required: true, secret: false, binds: ['services.app.labels.dockwright.http.host'] });
  assert.equal(byName.ANON_KEY.generate, 'jwt:JWT_SECRET');
  assert.equal(byName.PASSWORD.secret, true);
  assert.equal((await s.api('GET', '/api/v1/templates/mine/nope')).status, 404);
  assert.equal((await s.api('GET', '/api/v1/templates/nowhere/demo')).status, 404);
  const viewer = await s.token('viewer', ['stacks:read']);
  assert.equal((await call(s.url, 'GET', '/api/v1/templates', { token: viewer })).status, 403, 'templates:read is needed');
});

test('bad input: each a problem naming the template and the field; nothing is created', async () => {
  const stack = fresh('tplbad');
  const bad = await s.api('POST', '/api/v1/templates/mine/demo/deploy', { body: { stack, variables: { HOST: 'not a host!', GREETING: 'HELLO', EXTRA: '1' } } });
  assert.equal(bad.status, 422, bad.text);
  assert.match(bad.body.detail, /template mine\/demo/);
  assert.deepEqual(bad.body.errors.map((e: any) => e.path).sort(), ['/body/variables/EXTRA', '/body/variables/GREETING', '/body/variables/HOST']);
  assert.ok(bad.body.errors.every((e: any) => e.template === 'mine/demo'));
  const missing = await s.api('POST', '/api/v1/templates/mine/demo/deploy', { body: { stack, variables: {} } });
  assert.equal(missing.status, 422);
  assert.deepEqual(missing.body.errors.map((e: any) => e.path), ['/body/variables/HOST']);
  const refused = await s.api('POST', '/api/v1/templates/mine/strong/deploy', { body: { stack, variables: { HOST: 'strong.example.test' } } });
  assert.equal(refused.status, 422, refused.text);
  assert.match(refused.body.detail, /template mine\/strong/);
  assert.deepEqual(refused.body.errors.map((e: any) => [e.rule, e.path, e.template]), [['no-privileged', 'services.app.privileged', 'mine/strong']]);
  assert.equal((await s.api('POST', '/api/v1/templates/mine/nope/deploy', { body: { stack, variables: {} } })).status, 404);
  assert.equal((await s.api('POST', '/api/v1/templates/mine/demo/deploy', { body: { stack: 'Bad_Name', variables: {} } })).status, 400);
  const reader = await s.token('operator', ['templates:read', 'stacks:read']);
  assert.equal((await call(s.url, 'POST', '/api/v1/templates/mine/demo/deploy', { token: reader, body: { stack, variables: { HOST: 'a.example.test' } } })).status, 403, 'deploying takes stacks:write and stacks:deploy');
  assert.equal((await s.api('GET', `/api/v1/stacks/${stack}`)).status, 404, 'nothing was created');
  assert.equal((await s.app.db.query('SELECT 1 FROM template_stacks WHERE stack = $1', [stack])).rowCount, 0);
});

test('a deploy: generated secrets reach the container and no answer; edits and redeploys keep them; the hostname follows its label', async () => {
  const stack = fresh('tpl');
  const res = await s.api('POST', '/api/v1/templates/mine/demo/deploy', { body: { stack, variables: { HOST: 'demo.example.test' } } });
  assert.equal(res.status, 202, res.text);
  assert.equal(res.body.stack, stack);
  assert.deepEqual(res.body.template, { source: 'mine', id: 'demo', version: '1.0.0' });
  assert.equal(res.body.instructions, 'Open https://demo.example.test; sign in with the hidden variable PASSWORD.');
  const job = await waitJob(s, res.body.id);
  assert.equal(job.status, 'succeeded', `${job.error}\n${job.output}`);
  const { env, labels } = await containerEnv(stack);
  assert.match(env.PASSWORD, /^[A-Za-z2-9]{32}$/);
  assert.match(env.JWT_SECRET, /^[0-9a-f]{48}$/);
  assert.equal((await jwtVerify(env.ANON_KEY, new TextEncoder().encode(env.JWT_SECRET))).payload.role, 'anon');
  assert.equal(env.GREETING, 'hello');
  assert.equal(labels['dockwright.http.host'], 'demo.example.test');
  const secrets = [env.PASSWORD, env.JWT_SECRET, env.ANON_KEY];

  const envAnswer = await s.api('GET', `/api/v1/stacks/${stack}/env`);
  assert.deepEqual(envAnswer.body.values, { GREETING: 'hello', HOST: 'demo.example.test', PASSWORD: '***', JWT_SECRET: '***', ANON_KEY: '***' });
  assert.deepEqual(envAnswer.body.redacted.sort(), ['ANON_KEY', 'JWT_SECRET', 'PASSWORD']);
  // an edit that leaves them out (or sends ***) keeps them; the hostname changes its label at the next deploy
  const edit = await s.api('PUT', `/api/v1/stacks/${stack}/env`, { body: { values: { GREETING: 'hello', HOST: 'other.example.test', PASSWORD: '***' }, revision: 1 } });
  assert.equal(edit.status, 200, edit.text);
  const again = await s.api('POST', `/api/v1/stacks/${stack}/deploy`);
  const second = await waitJob(s, again.body.id);
  assert.equal(second.status, 'succeeded', second.error ?? '');
  const after2 = await containerEnv(stack);
  assert.deepEqual([after2.env.PASSWORD, after2.env.JWT_SECRET, after2.env.ANON_KEY], secrets, 'never regenerated');
  assert.equal(after2.labels['dockwright.http.host'], 'other.example.test');

  const texts = [res.text, job.output, second.output, edit.text, envAnswer.text];
  for (const path of [`/stacks/${stack}`, `/stacks/${stack}/env`, `/stacks/${stack}/compose`, `/stacks/${stack}/revisions/1`, `/stacks/${stack}/revisions/2`, '/templates/mine/demo', `/jobs/${res.body.id}`, '/activity?limit=50']) {
    const r = await s.api('GET', `/api/v1${path}`);
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    texts.push(r.text);
  }
  for (const text of texts) for (const secret of secrets) assert.ok(!text.includes(secret), 'a generated value in an answer');
  assert.equal((await s.api('POST', '/api/v1/templates/mine/demo/deploy', { body: { stack, variables: { HOST: 'x.example.test' } } })).status, 409, 'the stack exists');
});

test('a name held by a stack hidden from the caller: 404, as the stacks plugin answers a create, with no hint that it exists', async () => {
  const stack = fresh('tplhid');
  const created = await s.api('PUT', `/api/v1/stacks/${stack}/compose`, { body: { content: 'services:\n  a:\n    image: dockwright-test/busybox:1\n' }, headers: { 'if-none-match': '*' } });
  assert.equal(created.status, 200, created.text);
  assert.equal((await s.api('POST', `/api/v1/stacks/${stack}/access`, { body: { entries: [{ principal: 'user:nobody-else', role: 'manager' }] } })).status, 200);
  const op = await s.token('operator', ['templates:read', 'stacks:read', 'stacks:write', 'stacks:deploy']);
  const hidden = await call(s.url, 'POST', '/api/v1/templates/mine/demo/deploy', { token: op, body: { stack, variables: { HOST: 'h.example.test' } } });
  assert.equal(hidden.status, 404, hidden.text);
  assert.doesNotMatch(hidden.text, /exists/);
});
