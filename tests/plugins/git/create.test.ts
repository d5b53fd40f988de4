// One-step stacks over the real API: a stack created from an archive (a Dockerfile built in the same call) or a git repository with If-None-Match: *, ?deploy=1, and every refusal leaving nothing behind.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { call, type TestServer } from '../../helpers/harness.ts';
import { tgz, zip } from './archives.ts';
import { startServer } from '../../helpers/harness.ts';
import { containerOf } from '../stacks/helpers.ts';
import { busybox, cleanupProjects, createStack, docker, envCompose, repoRoot, TestRepo, uniqueName, waitJob } from './helpers.ts';

let s: TestServer;
const repos = repoRoot();
const names: string[] = [];
const fresh = (prefix: string) => { const n = uniqueName(prefix); names.push(n); return n; };

before(async () => {
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: {
      docker: { options: { stopTimeoutSeconds: 1, healthTimeoutMs: 60_000, reconcile: false } },
      containers: {}, stacks: {}, alerts: {},
      git: { options: { allowedLocalRoots: [repos.root], pollIntervalMs: 3_600_000 } },
    },
  });
});
after(async () => {
  await cleanupProjects(...names);
  for (const name of names) await docker.getImage(`${name}-web`).remove({ force: true }).catch(() => undefined);
  await s.close();
  repos.rm();
});

const create = (name: string, archive: Buffer, query = '', token?: string) =>
  s.api('PUT', `/api/v1/stacks/${name}/source/upload${query}`, {
    raw: new Uint8Array(archive), headers: { 'content-type': 'application/octet-stream', 'if-none-match': '*' }, ...(token ? { token } : {}),
  });
const stackDir = (name: string) => join(s.dataDir, 'plugins/git/stacks', name);

const dockerfile = 'FROM dockwright-test/busybox:1\nCOPY message.txt /message.txt\nCMD ["sh", "-c", "cat /message.txt; sleep 3600"]\n';
const buildCompose = 'services:\n  web:\n    build: .\n    stop_grace_period: 1s\n';

test('an archive whose compose file builds from a Dockerfile in it becomes a deployed stack in one call (If-None-Match: *, ?deploy=1)', async () => {
  const name = fresh('onestep');
  const archive = tgz([{ name: 'compose.yaml', content: buildCompose }, { name: 'Dockerfile', content: dockerfile }, { name: 'message.txt', content: 'built from the archive\n' }]);
  const res = await create(name, archive, '?deploy=1');
  assert.equal(res.status, 202, res.text);
  assert.equal(res.headers.get('location'), `/api/v1/jobs/${res.body.jobId}`);
  assert.equal(res.body.kind, 'upload');
  assert.equal(res.body.job.id, res.body.jobId);
  const job = await waitJob(s, res.body.jobId);
  assert.equal(job.status, 'succeeded', job.output);
  const c = (await containerOf(name, "web"))!;
  const logs = (await docker.getContainer(c.Id).logs({ stdout: true, stderr: true })).toString();
  assert.match(logs, /built from the archive/);

  const stack = (await s.api('GET', `/api/v1/stacks/${name}`)).body;
  assert.equal(stack.revision, 1);
  assert.equal(stack.source.kind, 'upload');
  const compose = (await s.api('GET', `/api/v1/stacks/${name}/compose`)).body;
  assert.equal(compose.content, buildCompose, 'the stack holds the file that deployed, not a placeholder');

  const again = await create(name, archive);
  assert.equal(again.status, 412, again.text);
  assert.equal(again.headers.get('content-type'), 'application/problem+json');
  assert.match(again.body.detail, /already exists/);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}`)).body.revision, 1, 'nothing changed');
});

test('an archive is created without a deploy (201), its compose file found by ?file=; ?deploy=0 deploys nothing; the answer names the warnings', async () => {
  const name = fresh('onefile');
  const res = await create(name, zip([{ name: 'stack.yml', content: `${envCompose()}    labels: { note: "\${UNSET_NOTE}" }\n` }, { name: 'app.env', content: 'MESSAGE=zip\n' }]), '?file=stack.yml&deploy=0');
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.path, 'stack.yml');
  assert.equal(res.body.jobId, undefined, 'deploy=0 deploys nothing');
  assert.ok(res.body.warnings.some((w: any) => /UNSET_NOTE/.test(w.message)), JSON.stringify(res.body.warnings));
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}`)).body.status, 'never-deployed');
});

test('refused creations leave nothing: no compose file (422 naming the names looked for), rules broken, no scope to deploy, a bad flag', async () => {
  const name = fresh('onenone');
  const cases: [string, () => ReturnType<typeof create>, number, RegExp][] = [
    ['no compose file', () => create(name, tgz([{ name: 'README.md', content: 'hello\n' }])), 422, /none of compose\.yaml, compose\.yml, docker-compose\.yaml, docker-compose\.yml/],
    ['a missing ?file=', () => create(name, tgz([{ name: 'compose.yaml', content: busybox() }]), '?file=other.yaml'), 422, /no other\.yaml/],
    ['a build context missing from the archive', () => create(name, tgz([{ name: 'compose.yaml', content: 'services:\n  web:\n    build: ./web\n' }])), 422, /breaks|build/],
    ['a privileged service', () => create(name, tgz([{ name: 'compose.yaml', content: busybox().replace('    command:', '    privileged: true\n    command:') }])), 422, /privileged/],
    ['not an archive', () => create(name, Buffer.from('plain text')), 415, /not a tar/],
    ['deploy=yes', () => create(name, tgz([{ name: 'compose.yaml', content: busybox() }]), '?deploy=yes'), 400, /schema/],
  ];
  for (const [what, send, status, detail] of cases) {
    const res = await send();
    assert.equal(res.status, status, `${what}: ${res.text}`);
    assert.equal(res.headers.get('content-type'), 'application/problem+json', what);
    assert.match(res.body.detail + JSON.stringify(res.body.errors ?? ''), detail, what);
    assert.equal((await s.api('GET', `/api/v1/stacks/${name}`)).status, 404, `${what}: no stack`);
    assert.ok(!existsSync(stackDir(name)), `${what}: no tree`);
  }
  const writer = await s.token('operator', ['stacks:read', 'stacks:write']);
  const denied = await create(name, tgz([{ name: 'compose.yaml', content: busybox() }]), '?deploy=1', writer);
  assert.equal(denied.status, 403, 'deploy=1 needs stacks:deploy, checked before anything is written');
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}`)).status, 404);
  assert.ok(!existsSync(stackDir(name)));
  // without If-None-Match the stack must exist, as before
  const plain = await s.api('PUT', `/api/v1/stacks/${name}/source/upload`, { raw: new Uint8Array(tgz([{ name: 'compose.yaml', content: busybox() }])), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(plain.status, 404);
});

test('a stack hidden by its access list is not created over, and answers 404 as a missing one would to a write', async () => {
  const name = fresh('onehid');
  await createStack(s, name, busybox());
  const set = await s.api('POST', `/api/v1/stacks/${name}/access`, { body: { entries: [{ principal: 'user:nobody-here', role: 'manager' }] } });
  assert.equal(set.status, 200, set.text);
  const dave = await s.token('operator', ['stacks:read', 'stacks:write', 'stacks:deploy'], { name: `dave-${name}` });
  const hidden = await create(name, tgz([{ name: 'compose.yaml', content: busybox() }]), '', dave);
  assert.equal(hidden.status, 404, hidden.text);
  assert.doesNotMatch(hidden.text, /exists/);
  const git = await call(s.url, 'PUT', `/api/v1/stacks/${name}/source`, { token: dave, headers: { 'if-none-match': '*' }, body: { url: join(repos.root, 'none.git') } });
  assert.equal(git.status, 404, git.text);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}`)).body.source, null, 'the hidden stack is untouched');
});

test('a git repository becomes a stack in one call: fetched, checked, created (201) or deployed (?deploy=true, 202); a missing branch or compose file creates nothing', async () => {
  const repo = await TestRepo.create(repos.root, 'onestep-git');
  const head = await repo.commit({ 'compose.yaml': envCompose(), 'app.env': 'MESSAGE=from-git\n' }, 'first');
  const put = (name: string, body: Record<string, unknown>, query = '') =>
    s.api('PUT', `/api/v1/stacks/${name}/source${query}`, { body, headers: { 'if-none-match': '*' } });

  const name = fresh('onegit');
  const created = await put(name, { url: repo.bare, branch: 'main' });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.kind, 'git');
  assert.equal(created.body.remoteHead, head);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}/compose`)).body.content, envCompose());
  assert.equal((await put(name, { url: repo.bare })).status, 412);

  const deployed = fresh('onegitd');
  const res = await put(deployed, { url: repo.bare, branch: 'main' }, '?deploy=true');
  assert.equal(res.status, 202, res.text);
  const job = await waitJob(s, res.body.jobId);
  assert.equal(job.status, 'succeeded', job.output);
  assert.equal(job.result.commit, head);

  const none = fresh('onegitn');
  const cases: [Record<string, unknown>, number, RegExp][] = [
    [{ url: repo.bare, branch: 'nope' }, 422, /no branch "nope"/],
    [{ url: repo.bare, path: 'missing.yaml' }, 422, /no missing\.yaml; nothing was created/],
    [{ url: '/elsewhere/repo.git' }, 400, /not below a folder/],
  ];
  const empty = await TestRepo.create(repos.root, 'onestep-empty');
  await empty.commit({ 'README.md': 'no compose here\n' }, 'first');
  cases.push([{ url: empty.bare }, 422, /none of compose\.yaml, compose\.yml, docker-compose\.yaml, docker-compose\.yml/]);
  for (const [body, status, detail] of cases) {
    const r = await put(none, body);
    assert.equal(r.status, status, `${JSON.stringify(body)}: ${r.text}`);
    assert.match(r.body.detail, detail);
    assert.equal((await s.api('GET', `/api/v1/stacks/${none}`)).status, 404);
    assert.ok(!existsSync(stackDir(none)), 'no repository left');
  }
});

test('query booleans take 1, 0, true and false everywhere (deploy on unpin and upload, acknowledged on alerts); anything else is a 400', async () => {
  const repo = await TestRepo.create(repos.root, 'flags');
  await repo.commit({ 'compose.yaml': envCompose(), 'app.env': 'MESSAGE=flags\n' }, 'first');
  const name = fresh('oneflag');
  assert.equal((await s.api('PUT', `/api/v1/stacks/${name}/source`, { body: { url: repo.bare }, headers: { 'if-none-match': '*' } })).status, 201);
  for (const [value, deploys] of [['1', true], ['true', true], ['0', false], ['false', false]] as const) {
    const res = await s.api('POST', `/api/v1/stacks/${name}/source/unpin?deploy=${value}`);
    assert.equal(res.status, deploys ? 202 : 200, `deploy=${value}: ${res.text}`);
    assert.equal(typeof res.body.jobId === 'string', deploys, `deploy=${value}`);
    if (deploys) assert.equal((await waitJob(s, res.body.jobId)).status, 'succeeded');
  }
  for (const value of ['yes', '2', '']) {
    const res = await s.api('POST', `/api/v1/stacks/${name}/source/unpin?deploy=${value}`);
    assert.equal(res.status, 400, `deploy=${value}`);
    assert.equal(res.body.errors[0].path, '/query/deploy');
  }
  const upload = await s.api('PUT', `/api/v1/stacks/${name}/source/upload?deploy=1`, { raw: new Uint8Array(tgz([{ name: 'compose.yaml', content: envCompose() }, { name: 'app.env', content: 'MESSAGE=up\n' }])), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(upload.status, 202, upload.text);
  assert.equal((await waitJob(s, upload.body.jobId)).status, 'succeeded');
  for (const value of ['1', '0', 'true', 'false']) assert.equal((await s.api('GET', `/api/v1/alerts?acknowledged=${value}`)).status, 200, `acknowledged=${value}`);
  assert.equal((await s.api('GET', '/api/v1/alerts?acknowledged=maybe')).status, 400);
});

test('the compose file answered is the one that deploys, with where it comes from: the editor, the upload, the deployed commit', async () => {
  const name = fresh('oneorig');
  await createStack(s, name, busybox());
  const own = (await s.api('GET', `/api/v1/stacks/${name}/compose`)).body;
  assert.deepEqual(own.origin, { kind: 'editor' });
  assert.equal(own.content, busybox());
  assert.equal(own.saved, busybox());

  const uploaded = `${envCompose()}    labels: { from: upload }\n`;
  const up = await s.api('PUT', `/api/v1/stacks/${name}/source/upload`, { raw: new Uint8Array(tgz([{ name: 'docker-compose.yml', content: uploaded }, { name: 'app.env', content: 'MESSAGE=x\n' }])), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(up.status, 200, up.text);
  const fromUpload = (await s.api('GET', `/api/v1/stacks/${name}/compose`)).body;
  assert.equal(fromUpload.content, uploaded, 'the uploaded file, not the placeholder');
  assert.equal(fromUpload.saved, busybox());
  assert.deepEqual(fromUpload.origin, { kind: 'upload', path: 'docker-compose.yml', at: up.body.upload.at, sha256: up.body.upload.sha256 });

  const repo = await TestRepo.create(repos.root, 'origin');
  const first = await repo.commit({ 'compose.yaml': envCompose(), 'app.env': 'MESSAGE=1\n' }, 'first');
  const set = await s.api('PUT', `/api/v1/stacks/${name}/source?deploy=1`, { body: { url: repo.bare } });
  assert.equal(set.status, 202, set.text);
  assert.equal((await waitJob(s, set.body.jobId)).status, 'succeeded');
  const second = `${envCompose()}    labels: { commit: second }\n`;
  await repo.commit({ 'compose.yaml': second }, 'second');
  assert.equal((await s.api('POST', `/api/v1/stacks/${name}/source/check`)).status, 200);
  const fromGit = (await s.api('GET', `/api/v1/stacks/${name}/compose`)).body;
  assert.equal(fromGit.content, envCompose(), 'the deployed commit\'s file, not the newer head\'s');
  assert.deepEqual(fromGit.origin, { kind: 'git', path: 'compose.yaml', url: repo.bare, branch: 'main', commit: first, subject: null });
});

test('a push secret is issued only for a stack with a git source (409 otherwise, nothing issued)', async () => {
  const name = fresh('onepush');
  await createStack(s, name, busybox());
  const none = await s.api('POST', `/api/v1/stacks/${name}/webhooks/push`);
  assert.equal(none.status, 409, none.text);
  assert.match(none.body.detail, /no git source/);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}`)).body.webhooks.push.enabled, false, 'no secret issued');
  await s.api('PUT', `/api/v1/stacks/${name}/source/upload`, { raw: new Uint8Array(tgz([{ name: 'compose.yaml', content: busybox() }])), headers: { 'content-type': 'application/octet-stream' } });
  const upload = await s.api('POST', `/api/v1/stacks/${name}/webhooks/push`);
  assert.equal(upload.status, 409, upload.text);
  assert.match(upload.body.detail, /uploaded archive/);
  const repo = await TestRepo.create(repos.root, 'pushed');
  await repo.commit({ 'compose.yaml': busybox() }, 'first');
  assert.equal((await s.api('PUT', `/api/v1/stacks/${name}/source`, { body: { url: repo.bare, check: false } })).status, 200);
  const git = await s.api('POST', `/api/v1/stacks/${name}/webhooks/push`);
  assert.equal(git.status, 200, git.text);
  assert.match(git.body.secret, /\S{20,}/);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}`)).body.webhooks.push.enabled, true);
});
