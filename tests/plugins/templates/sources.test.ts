// Template sources: a catalogue served over HTTPS on loopback (a throwaway CA) and a local bare git repository, sha256 pins, each source's own error, refresh by hand and on the schedule, removal, and every refusal.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { call, eventually, startServer, type TestServer } from '../../helpers/harness.ts';
import { repoRoot, TestRepo } from '../git/helpers.ts';
import { cleanupProjects, uniqueName, waitJob } from '../stacks/helpers.ts';
import { startCatalogueServer, type CatalogueServer } from './catalogue-server.ts';

const template = (id: string, version: string, extra = '') => `x-dockwright:
  id: ${id}
  name: "App ${id}"
  version: "${version}"
  categories: [served]
  variables:
    GREETING: { type: string, default: hi }
    TOKEN: { type: secret, generate: "hex:32" }
services:
  app:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    environment: { GREETING: "\${GREETING}", TOKEN: "\${TOKEN}" }
${extra}`;
const index = (entries: object[]) => JSON.stringify({ templates: entries });
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

let web: CatalogueServer;
let s: TestServer;
const repos = repoRoot();
let repo: TestRepo;
const stacks: string[] = [];

before(async () => {
  web = await startCatalogueServer({
    '/cat/index.json': index([{ id: 'alpha', path: 'apps/alpha.yaml' }, { id: 'broken', path: 'apps/broken.yaml' }, { id: 'gone', path: 'apps/gone.yaml' }]),
    '/cat/apps/alpha.yaml': template('alpha', '1.0.0'),
    '/cat/apps/broken.yaml': template('broken', '1.0.0').replace('generate: "hex:32"', 'generate: "magic"'),
  });
  repo = await TestRepo.create(repos.root, 'catalogue');
  await repo.commit({ 'index.json': index([{ id: 'beta', path: 'beta.yaml' }]), 'beta.yaml': template('beta', '1.0.0') }, 'first');
  s = await startServer({
    // loopback is allowed for this test's catalogue server only through the outbound policy, as an admin would
    config: { rateLimit: { perMinute: 100_000 }, outbound: { allow: ['127.0.0.1/32'] } },
    env: { NODE_EXTRA_CA_CERTS: web.caFile },
    plugins: {
      docker: { options: { stopTimeoutSeconds: 1, reconcile: false } },
      stacks: {},
      git: { options: { allowedLocalRoots: [repos.root] } },
      templates: { options: { bundled: false, refreshIntervalMs: 1000 } },
    },
  });
});
after(async () => {
  await cleanupProjects(...stacks);
  await s?.close();
  await web?.close();
  repos.rm();
});

test('an HTTPS source: read at once, its bad entries named with the template and field, its templates listed and deployable', async () => {
  const added = await s.api('POST', '/api/v1/templates/sources', { body: { name: 'web', url: `${web.url}/cat/` } });
  assert.equal(added.status, 201, added.text);
  assert.equal(added.headers.get('location'), '/api/v1/templates/sources/web');
  assert.equal(added.body.kind, 'url');
  assert.equal(added.body.templates, 1);
  assert.equal(added.body.error, null);
  const byTemplate = Object.fromEntries(added.body.invalid.map((e: any) => [e.template, e]));
  assert.equal(byTemplate.broken.path, '/x-dockwright/variables/TOKEN/generate');
  assert.match(byTemplate.broken.message, /unknown generator "magic"/);
  assert.match(byTemplate.gone.message, /HTTP 404/);
  const list = await s.api('GET', '/api/v1/templates?source=web');
  assert.deepEqual(list.body.map((t: any) => [t.source, t.id, t.version]), [['web', 'alpha', '1.0.0']]);

  const stack = uniqueName('tplweb');
  stacks.push(stack);
  const deployed = await s.api('POST', '/api/v1/templates/web/alpha/deploy', { body: { stack, variables: {} } });
  assert.equal(deployed.status, 202, deployed.text);
  assert.equal((await waitJob(s, deployed.body.id)).status, 'succeeded');
});

test('a sha256 pin: a matching index is read, another is refused with its own error and nothing changes', async () => {
  const good = await s.api('POST', '/api/v1/templates/sources', { body: { name: 'pinned', url: `${web.url}/cat/index.json`, sha256: sha(web.files.get('/cat/index.json')!) } });
  assert.equal(good.status, 201, good.text);
  assert.equal(good.body.error, null);
  assert.equal(good.body.templates, 1);
  web.files.set('/cat/index.json', index([{ id: 'alpha', path: 'apps/alpha.yaml' }]));
  const moved = await s.api('POST', '/api/v1/templates/sources/pinned/refresh');
  assert.equal(moved.status, 200, moved.text);
  assert.match(moved.body.error, /has sha256 [0-9a-f]{64}, not the pinned/);
  assert.equal(moved.body.templates, 1, 'the last good read stays');
  const wrong = await s.api('POST', '/api/v1/templates/sources', { body: { name: 'wrongpin', url: `${web.url}/cat/`, sha256: '0'.repeat(64) } });
  assert.equal(wrong.status, 201);
  assert.equal(wrong.body.templates, 0);
  assert.match(wrong.body.error, /not the pinned 0{64}/);
  const missing = await s.api('POST', '/api/v1/templates/sources', { body: { name: 'missing', url: `${web.url}/nothing/` } });
  assert.match(missing.body.error, /HTTP 404/);
  const all = await s.api('GET', '/api/v1/templates/sources');
  const byName = Object.fromEntries(all.body.map((x: any) => [x.name, x]));
  assert.equal(byName.web.error, null, 'each source shows its own error');
  assert.match(byName.missing.error, /HTTP 404/);
});

test('a git source at a ref: read from the local bare repository, refreshed by hand to a new commit', async () => {
  const added = await s.api('POST', '/api/v1/templates/sources', { body: { name: 'repo', git: { url: repo.bare, ref: 'main' } } });
  assert.equal(added.status, 201, added.text);
  assert.equal(added.body.error, null);
  assert.equal(added.body.templates, 1);
  const first = added.body.commit;
  assert.match(first, /^[0-9a-f]{40}$/);
  const second = await repo.commit({ 'beta.yaml': template('beta', '1.1.0') }, 'beta 1.1.0');
  const refreshed = await s.api('POST', '/api/v1/templates/sources/repo/refresh');
  assert.equal(refreshed.body.commit, second);
  assert.equal((await s.api('GET', '/api/v1/templates/repo/beta')).body.version, '1.1.0');
  const badRef = await s.api('POST', '/api/v1/templates/sources', { body: { name: 'badref', git: { url: repo.bare, ref: 'nope' } } });
  assert.equal(badRef.status, 201);
  assert.match(badRef.body.error, /no branch "nope"/);
});

test('the schedule reads every source again', async () => {
  web.files.set('/cat/apps/alpha.yaml', template('alpha', '2.0.0'));
  await eventually(async () => (await s.api('GET', '/api/v1/templates/web/alpha')).body.version === '2.0.0', 20_000, 'the scheduled refresh');
});

test('refusals: bad bodies, names taken, hosts the outbound policy refuses (before any connection), unknown sources, scopes', async () => {
  const post = (body: object, token = s.admin) => call(s.url, 'POST', '/api/v1/templates/sources', { token, body });
  assert.equal((await post({ name: 'x', url: 'http://127.0.0.1/cat/' })).status, 400, 'https only');
  assert.equal((await post({ name: 'x' })).status, 400, 'url or git');
  assert.equal((await post({ name: 'x', url: `${web.url}/cat/`, git: { url: repo.bare, ref: 'main' } })).status, 400, 'not both');
  assert.equal((await post({ name: 'Bad Name', url: `${web.url}/cat/` })).status, 400);
  assert.equal((await post({ name: 'sources', url: `${web.url}/cat/` })).status, 400);
  assert.equal((await post({ name: 'x', url: `${web.url}/cat/`, sha256: 'abc' })).status, 400);
  assert.equal((await post({ name: 'web', url: `${web.url}/cat/` })).status, 409);
  const before = web.requests.length;
  const refused = await post({ name: 'private', url: 'https://10.1.2.3/cat/' });
  assert.equal(refused.status, 422, refused.text);
  assert.match(refused.text, /outbound-refused/);
  assert.equal(web.requests.length, before);
  assert.equal((await s.api('GET', '/api/v1/templates/sources')).body.some((x: any) => x.name === 'private'), false, 'nothing saved');
  assert.equal((await s.api('POST', '/api/v1/templates/sources/nope/refresh')).status, 404);
  assert.equal((await s.api('DELETE', '/api/v1/templates/sources/nope')).status, 404);
  const reader = await s.token('admin', ['templates:read']);
  assert.equal((await post({ name: 'y', url: `${web.url}/cat/` }, reader)).status, 403);
  assert.equal((await call(s.url, 'GET', '/api/v1/templates/sources', { token: reader })).status, 200);
  const operator = await s.token('operator', ['templates:read', 'templates:write']);
  assert.equal((await post({ name: 'y', url: `${web.url}/cat/` }, operator)).status, 403, 'sources are for admins');
});

test('removing a source: its templates go; the stacks made from them stay', async () => {
  assert.equal((await s.api('DELETE', '/api/v1/templates/sources/web')).status, 204);
  assert.equal((await s.api('GET', '/api/v1/templates/web/alpha')).status, 404);
  assert.ok(!(await s.api('GET', '/api/v1/templates')).body.some((t: any) => t.source === 'web'));
  assert.equal((await s.api('GET', `/api/v1/stacks/${stacks[0]}`)).status, 200);
});
