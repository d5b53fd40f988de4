// Provenance and updates: a stack shows its template; a newer version merges three ways with the user's edit kept, deploys as a release that rolls back; a conflict answers 409 until resolved; a stack saved as a template keeps no secret.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { parseTemplate } from '../../../plugins/templates/format.ts';
import { cleanupProjects, docker, uniqueName, waitJob } from '../stacks/helpers.ts';
import { startCatalogueServer, type CatalogueServer } from './catalogue-server.ts';

const v1 = `x-dockwright:
  id: app
  name: App
  version: "1.0.0"
  variables:
    GREETING: { type: string, default: hello }
    TOKEN: { type: secret, generate: "hex:32" }
services:
  app:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    environment:
      GREETING: \${GREETING}
      TOKEN: \${TOKEN}
      LEVEL: "1"
    healthcheck: { test: ["CMD", "true"], interval: 1s, retries: 3 }
`;
const v2 = v1.replace('version: "1.0.0"', 'version: "2.0.0"').replace('image: dockwright-test/busybox:1', 'image: dockwright-test/busybox:2')
  .replace('    TOKEN: { type: secret, generate: "hex:32" }\n', '    TOKEN: { type: secret, generate: "hex:32" }\n    EXTRA: { type: secret, generate: "password:20" }\n')
  .replace('      TOKEN: ${TOKEN}\n', '      TOKEN: ${TOKEN}\n      EXTRA: ${EXTRA}\n');
const v3 = v2.replace('version: "2.0.0"', 'version: "3.0.0"').replace('LEVEL: "1"', 'LEVEL: "3"');

let web: CatalogueServer;
let s: TestServer;
const stack = uniqueName('tplupd');

before(async () => {
  web = await startCatalogueServer({ '/c/index.json': JSON.stringify({ templates: [{ id: 'app', path: 'app.yaml' }] }), '/c/app.yaml': v1 });
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 }, outbound: { allow: ['127.0.0.1/32'] } },
    env: { NODE_EXTRA_CA_CERTS: web.caFile },
    plugins: {
      docker: { options: { stopTimeoutSeconds: 1, reconcile: false } },
      stacks: {}, git: {}, alerts: {}, registries: {}, releases: {},
      templates: { options: { bundled: false } },
    },
  });
  assert.equal((await s.api('POST', '/api/v1/templates/sources', { body: { name: 'web', url: `${web.url}/c/` } })).status, 201);
});
after(async () => {
  await cleanupProjects(stack);
  await s?.close();
  await web?.close();
});

async function app() {
  const [c] = await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${stack}`, 'dockwright.service=app'] } });
  const info = await docker.getContainer(c.Id).inspect();
  return { image: info.Config.Image as string, env: Object.fromEntries((info.Config.Env as string[]).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)])) };
}
const job = async (res: { status: number; text: string; body: any }) => {
  assert.equal(res.status, 202, res.text);
  const done = await waitJob(s, res.body.id);
  assert.equal(done.status, 'succeeded', `${done.error}\n${done.output}`);
  return done;
};

test('the stack shows its template; an update merges the user\'s edit with the new version and deploys it as a release that rolls back', async () => {
  await job(await s.api('POST', '/api/v1/templates/web/app/deploy', { body: { stack, variables: {} } }));
  const token = (await app()).env.TOKEN;
  const shown = await s.api('GET', `/api/v1/stacks/${stack}`);
  assert.deepEqual(shown.body.template, { source: 'web', id: 'app', version: '1.0.0', variables: ['GREETING', 'TOKEN'] });
  const same = await s.api('GET', `/api/v1/stacks/${stack}/template/update`);
  assert.deepEqual([same.body.from, same.body.to, same.body.conflicts], ['1.0.0', '1.0.0', []]);

  // the user's edit: a line of their own
  const compose = (await s.api('GET', `/api/v1/stacks/${stack}/compose`)).body;
  const edited = compose.content.replace('      LEVEL: "1"\n', '      LEVEL: "1"\n      MINE: "kept"\n');
  assert.equal((await s.api('PUT', `/api/v1/stacks/${stack}/compose`, { body: { content: edited, revision: compose.revision } })).status, 200);

  web.files.set('/c/app.yaml', v2);
  assert.equal((await s.api('POST', '/api/v1/templates/sources/web/refresh')).body.error, null);
  const plan = await s.api('GET', `/api/v1/stacks/${stack}/template/update`);
  assert.equal(plan.status, 200, plan.text);
  assert.deepEqual([plan.body.from, plan.body.to, plan.body.conflicts, plan.body.variables], ['1.0.0', '2.0.0', [], { added: ['EXTRA'], removed: [] }]);
  assert.match(plan.body.compose, /busybox:2/);
  assert.match(plan.body.compose, /MINE: "kept"/);
  const revision = (await s.api('GET', `/api/v1/stacks/${stack}`)).body.revision;
  await job(await s.api('POST', `/api/v1/stacks/${stack}/template/update`, { body: {}, headers: { 'if-match': `"${revision}"` } }));
  const updated = await app();
  assert.equal(updated.image, 'dockwright-test/busybox:2');
  assert.equal(updated.env.MINE, 'kept', 'the user\'s edit is kept');
  assert.equal(updated.env.TOKEN, token, 'a generated value is never made again');
  assert.match(updated.env.EXTRA, /^[A-Za-z2-9]{20}$/, 'a variable the new version adds is generated');
  const after2 = await s.api('GET', `/api/v1/stacks/${stack}`);
  assert.equal(after2.body.template.version, '2.0.0');
  assert.equal(after2.body.revision, revision + 1);
  const env = await s.api('GET', `/api/v1/stacks/${stack}/env`);
  assert.equal(env.body.values.EXTRA, '***');
  assert.ok(!env.text.includes(updated.env.EXTRA) && !env.text.includes(token));

  const releases = await s.api('GET', `/api/v1/stacks/${stack}/releases`);
  assert.ok(releases.body.length >= 2, releases.text);
  await job(await s.api('POST', `/api/v1/stacks/${stack}/rollback`, { body: {} }));
  // a rollback runs the release's image pinned (by id here: a local image has no registry digest)
  const { Id } = await docker.getImage('dockwright-test/busybox:1').inspect();
  assert.ok([Id, 'dockwright-test/busybox:1'].includes((await app()).image), 'the release before the update runs again');
});

test('an update that changes a line the user changed too: 409 with the conflict until the resolved file is sent', async () => {
  const compose = (await s.api('GET', `/api/v1/stacks/${stack}/compose`)).body;
  const edited = compose.content.replace('LEVEL: "1"', 'LEVEL: "2"');
  assert.notEqual(edited, compose.content);
  assert.equal((await s.api('PUT', `/api/v1/stacks/${stack}/compose`, { body: { content: edited, revision: compose.revision } })).status, 200);
  web.files.set('/c/app.yaml', v3);
  await s.api('POST', '/api/v1/templates/sources/web/refresh');
  const plan = await s.api('GET', `/api/v1/stacks/${stack}/template/update`);
  assert.deepEqual([plan.body.from, plan.body.to], ['2.0.0', '3.0.0']);
  assert.equal(plan.body.conflicts.length, 1);
  // the user's line beside it is part of the same hunk, as git would show it
  assert.deepEqual(plan.body.conflicts[0], { line: plan.body.conflicts[0].line, current: ['      LEVEL: "2"', '      MINE: "kept"'], base: ['      LEVEL: "1"'], template: ['      LEVEL: "3"'] });
  assert.match(plan.body.compose, /<<<<<<< current\n {6}LEVEL: "2"\n {6}MINE: "kept"\n\|\|\|\|\|\|\| template 2\.0\.0\n {6}LEVEL: "1"\n=======\n {6}LEVEL: "3"\n>>>>>>> template 3\.0\.0/);
  const before = (await s.api('GET', `/api/v1/stacks/${stack}`)).body.revision;
  const refused = await s.api('POST', `/api/v1/stacks/${stack}/template/update`, { body: {} });
  assert.equal(refused.status, 409, refused.text);
  assert.match(refused.text, /update-conflicts/);
  assert.equal(refused.body.conflicts.length, 1);
  assert.equal((await s.api('GET', `/api/v1/stacks/${stack}`)).body.revision, before, 'nothing applied');
  assert.equal((await s.api('GET', `/api/v1/stacks/${stack}`)).body.template.version, '2.0.0');
  const resolved = plan.body.compose.replace(/<<<<<<< current\n[\s\S]*?>>>>>>> template 3\.0\.0/, '      LEVEL: "3"\n      MINE: "kept"');
  await job(await s.api('POST', `/api/v1/stacks/${stack}/template/update`, { body: { compose: resolved, revision: before } }));
  assert.deepEqual([(await app()).env.LEVEL, (await app()).env.MINE], ['3', 'kept']);
  assert.equal((await s.api('GET', `/api/v1/stacks/${stack}`)).body.template.version, '3.0.0');
});

test('a stack saved as a template: our format, its generators kept, no secret value', async () => {
  const { env } = await app();
  const res = await s.api('GET', `/api/v1/stacks/${stack}/template/export?id=my-app&version=0.1.0`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.id, 'my-app');
  const parsed = parseTemplate(res.body.template, 'x', 'my-app');
  assert.ok('template' in parsed, JSON.stringify(parsed));
  const v = Object.fromEntries(parsed.template.variables.map((x) => [x.name, x]));
  assert.equal(v.TOKEN.generate, 'hex:32');
  assert.equal(v.GREETING.default, 'hello');
  for (const secret of [env.TOKEN, env.EXTRA]) assert.ok(!res.text.includes(secret));
});

test('refusals: a stack not made from a template, a missing one, a caller without the scopes', async () => {
  const plain = uniqueName('plain');
  assert.equal((await s.api('PUT', `/api/v1/stacks/${plain}/compose`, { body: { content: 'services:\n  a:\n    image: dockwright-test/busybox:1\n' }, headers: { 'if-none-match': '*' } })).status, 200);
  const none = await s.api('GET', `/api/v1/stacks/${plain}/template/update`);
  assert.equal(none.status, 404);
  assert.match(none.text, /not made from a catalogue template/);
  assert.equal((await s.api('GET', '/api/v1/stacks/nope-nope/template/update')).status, 404);
  const reader = await s.token('operator', ['stacks:read', 'templates:read']);
  const { call } = await import('../../helpers/harness.ts');
  assert.equal((await call(s.url, 'POST', `/api/v1/stacks/${stack}/template/update`, { token: reader, body: {} })).status, 403);
  assert.equal((await s.api('GET', `/api/v1/stacks/${plain}`)).body.template, null);
});
