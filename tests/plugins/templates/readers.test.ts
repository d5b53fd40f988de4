// The Dokploy and Portainer readers against fixtures in their formats: a Dokploy catalogue over HTTPS (helpers to generators, derived values bound to their hostname, domains to edge labels, mounts to configs) and Portainer v3 JSON in a git repository, each deployed on the real engine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { jwtVerify } from 'jose';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { repoRoot, TestRepo } from '../git/helpers.ts';
import { cleanupProjects, docker, uniqueName, waitJob } from '../stacks/helpers.ts';
import { startCatalogueServer, type CatalogueServer } from './catalogue-server.ts';

const fixtures = new URL('../../fixtures/templates/', import.meta.url).pathname;
const filesOf = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {};
  const walk = (d: string) => { for (const n of readdirSync(d)) { const p = join(d, n); if (statSync(p).isDirectory()) walk(p); else out[relative(dir, p)] = readFileSync(p, 'utf8'); } };
  walk(dir);
  return out;
};

let web: CatalogueServer;
let s: TestServer;
const repos = repoRoot();
const stacks: string[] = [];
const fresh = (p: string) => { const n = uniqueName(p); stacks.push(n); return n; };

before(async () => {
  web = await startCatalogueServer(Object.fromEntries(Object.entries(filesOf(join(fixtures, 'dokploy'))).map(([p, c]) => [`/dokploy/${p}`, c])));
  const repo = await TestRepo.create(repos.root, 'portainer');
  await repo.commit(filesOf(join(fixtures, 'portainer')), 'templates');
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 }, outbound: { allow: ['127.0.0.1/32'] } },
    env: { NODE_EXTRA_CA_CERTS: web.caFile },
    plugins: {
      docker: { options: { stopTimeoutSeconds: 1, reconcile: false } },
      stacks: {},
      git: { options: { allowedLocalRoots: [repos.root] } },
      templates: { options: { bundled: false } },
    },
  });
  const dok = await s.api('POST', '/api/v1/templates/sources', { body: { name: 'dok', url: `${web.url}/dokploy/`, format: 'dokploy' } });
  assert.equal(dok.status, 201, dok.text);
  const port = await s.api('POST', '/api/v1/templates/sources', { body: { name: 'port', git: { url: repo.bare, ref: 'main' }, format: 'portainer' } });
  assert.equal(port.status, 201, port.text);
});
after(async () => {
  await cleanupProjects(...stacks);
  await s?.close();
  await web?.close();
  repos.rm();
});

async function container(stack: string, service: string) {
  const [c] = await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${stack}`, `dockwright.service=${service}`] } });
  const info = await docker.getContainer(c.Id).inspect();
  return { id: c.Id, env: Object.fromEntries(info.Config.Env.map((e: string) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)])), labels: info.Config.Labels as Record<string, string> };
}
const deploy = async (source: string, id: string, stack: string, variables: Record<string, string>) => {
  const res = await s.api('POST', `/api/v1/templates/${source}/${id}/deploy`, { body: { stack, variables } });
  assert.equal(res.status, 202, res.text);
  const job = await waitJob(s, res.body.id);
  assert.equal(job.status, 'succeeded', `${job.error}\n${job.output}`);
  return res;
};

test('Dokploy: meta.json and blueprints read; a blueprint that does not parse is named with its file', async () => {
  const source = (await s.api('GET', '/api/v1/templates/sources')).body.find((x: any) => x.name === 'dok');
  assert.equal(source.error, null);
  assert.equal(source.templates, 2);
  assert.deepEqual(source.invalid.map((e: any) => [e.template, e.path]), [['broken', 'blueprints/broken/template.toml']]);
  assert.match(source.invalid[0].message, /TOML/);
  const notes = (await s.api('GET', '/api/v1/templates/dok/notes')).body;
  assert.equal(notes.version, '1.2.0');
  assert.deepEqual(notes.categories, ['productivity', 'self-hosted']);
  assert.equal(notes.logo, `${web.url}/dokploy/blueprints/notes/notes.svg`);
  assert.equal(notes.links.github, 'https://github.com/example/notes');
  const v = Object.fromEntries(notes.variables.map((x: any) => [x.name, x]));
  assert.equal(v.main_domain.type, 'hostname');
  assert.deepEqual(v.main_domain.binds, ['services.notes.labels.dockwright.http.host']);
  assert.equal(v.NOTES_PASSWORD.generate, 'password:16');
  assert.equal(v.DB_PASSWORD.generate, 'password:32');
  assert.deepEqual([v.NOTES_USERNAME.type, v.NOTES_USERNAME.default], ['string', 'default']);
  assert.match(notes.compose, /NOTES_DATABASE=db:\/\/notes:\$\{DB_PASSWORD\}@db:5432\/notes/);
  assert.match(notes.compose, /NOTES_URL=https:\/\/\$\{main_domain\}\/app/);
  assert.doesNotMatch(notes.compose, /ports:/, 'a port without a host port is not published: the edge routes');
  const chat = (await s.api('GET', '/api/v1/templates/dok/chat')).body;
  const c = Object.fromEntries(chat.variables.map((x: any) => [x.name, x]));
  assert.deepEqual([c.anon_key.generate, c.secret_key_base.generate, c.token_hash.generate, c.instance_id.generate], ['jwt:jwt_secret', 'base64:86', 'hex:32', 'uuid']);
});

test('Dokploy: a deploy generates once, writes derived values in, and the hostname changes everything derived from it', async () => {
  const stack = fresh('dok');
  await deploy('dok', 'notes', stack, { main_domain: 'notes.example.test' });
  const app = await container(stack, 'notes');
  const db = await container(stack, 'db');
  assert.match(db.env.DB_PASSWORD, /^[A-Za-z2-9]{32}$/);
  assert.equal(app.env.NOTES_DATABASE, `db://notes:${db.env.DB_PASSWORD}@db:5432/notes`);
  assert.equal(app.env.NOTES_URL, 'https://notes.example.test/app');
  assert.equal(app.labels['dockwright.http.host'], 'notes.example.test');
  assert.equal(app.labels['dockwright.http.port'], '3000');
  const env = await s.api('GET', `/api/v1/stacks/${stack}/env`);
  assert.equal(env.body.values.DB_PASSWORD, '***');
  assert.equal(env.body.values.NOTES_PASSWORD, '***');
  assert.ok(!env.text.includes(db.env.DB_PASSWORD));
  const edit = await s.api('PUT', `/api/v1/stacks/${stack}/env`, { body: { values: { ...env.body.values, main_domain: 'moved.example.test' }, revision: 1 } });
  assert.equal(edit.status, 200, edit.text);
  const again = await s.api('POST', `/api/v1/stacks/${stack}/deploy`);
  assert.equal((await waitJob(s, again.body.id)).status, 'succeeded');
  const moved = await container(stack, 'notes');
  assert.equal(moved.env.NOTES_URL, 'https://moved.example.test/app');
  assert.equal(moved.labels['dockwright.http.host'], 'moved.example.test');
  assert.equal(moved.env.NOTES_DATABASE, app.env.NOTES_DATABASE, 'the password stays');
});

test('Dokploy: a JWT signed with another variable and a mounted file with its variables written in', async () => {
  const stack = fresh('dokchat');
  await deploy('dok', 'chat', stack, { main_domain: 'chat.example.test' });
  const chat = await container(stack, 'chat');
  const { payload } = await jwtVerify(chat.env.ANON_KEY, new TextEncoder().encode(chat.env.JWT_SECRET));
  assert.deepEqual([payload.role, payload.iss, payload.exp], ['anon', 'chat', 1893456000]);
  assert.match(chat.env.INSTANCE_ID, /^[0-9a-f-]{36}$/);
  assert.equal(chat.env.SITE, 'chat.example.test');
  const { stdout } = await promisify(execFile)('docker', ['exec', chat.id, 'cat', '/etc/chat.conf']);
  assert.match(stdout, /site = chat\.example\.test/);
  assert.match(stdout, /token = [0-9a-f]{32}/);
  assert.match(stdout, /shell_var = \$HOME/, 'the file\'s own $ stays');
});

test('Portainer v3 from a git repository: container and stack templates, env entries as typed variables, what cannot run named', async () => {
  const source = (await s.api('GET', '/api/v1/templates/sources')).body.find((x: any) => x.name === 'port');
  assert.equal(source.error, null, source.error);
  assert.equal(source.templates, 2);
  assert.deepEqual(source.invalid.map((e: any) => [e.template, e.path]).sort(), [['elsewhere', '/templates/3/repository/stackfile'], ['windows-thing', '/templates/2/platform']]);
  const box = (await s.api('GET', '/api/v1/templates/port/box')).body;
  assert.equal(box.instructions, 'Open a shell with docker exec .');
  const v = Object.fromEntries(box.variables.map((x: any) => [x.name, x]));
  assert.deepEqual([v.MODE.type, v.MODE.values, v.MODE.default], ['enum', ['fast', 'safe'], 'safe']);
  assert.equal(v.REMOTE.default, 'https://registry-1.docker.io');
  assert.equal(v.GREETING.required, true);
  assert.equal(v.LEVEL.default, '3');
  const bad = await s.api('POST', '/api/v1/templates/port/box/deploy', { body: { stack: fresh('ptbad'), variables: { MODE: 'slow' } } });
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.body.errors.map((e: any) => e.path).sort(), ['/body/variables/GREETING', '/body/variables/MODE']);
  const stack = fresh('ptbox');
  await deploy('port', 'box', stack, { GREETING: 'hello' });
  const [c] = await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${stack}`] } });
  const env = (await docker.getContainer(c.Id).inspect()).Config.Env as string[];
  for (const e of ['MODE=safe', 'GREETING=hello', 'LEVEL=3', 'REMOTE=https://registry-1.docker.io']) assert.ok(env.includes(e), e);
  const board = fresh('ptboard');
  await deploy('port', 'board', board, { BOARD_PASSWORD: 'a-board-password' });
  assert.equal((await container(board, 'board')).env.BOARD_PASSWORD, 'a-board-password');
});
