// The git source over the real API: deploy from a real bare repository, check, pin/unpin, refused URLs and branches, credentials never shown.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { eventually, type TestServer } from '../../helpers/harness.ts';
import { act, appEnv, docker, waitJob, busybox, cleanupProjects, createStack, envCompose, repoRoot, setSource, startGitServer, TestRepo, uniqueName } from './helpers.ts';

const run = promisify(execFile);
let s: TestServer;
const repos = repoRoot();
let repo: TestRepo;
const name = uniqueName('gitsrc');
const other = uniqueName('gitbad');
const secretive = uniqueName('gitsec');
const built = uniqueName('gitbuild');
const ignored = uniqueName('gitignore');
let first: string;
let second: string;

before(async () => {
  // polling would race the checks here; poll.test.ts has it
  s = await startGitServer([repos.root], { pollIntervalMs: 3_600_000 });
  repo = await TestRepo.create(repos.root, 'app');
  first = await repo.commit({ 'compose.yaml': envCompose(), 'app.env': 'MESSAGE=one\n' }, 'first');
});
after(async () => {
  await cleanupProjects(name, other, secretive, built, ignored);
  for (const image of [`${built}-app`, `${ignored}-app`]) await docker.getImage(image).remove({ force: true }).catch(() => undefined);
  await s.close();
  repos.rm();
});

const source = async (stack: string) => (await s.api('GET', `/api/v1/stacks/${stack}/source`)).body;

test('deploy from git: the compose file and its env file come from the checked-out commit', async () => {
  await createStack(s, name, busybox());
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}/source`)).status, 404, 'no source yet');
  const t0 = Date.now();
  const set = await setSource(s, name, { url: repo.bare, branch: 'main' });
  const setMs = Date.now() - t0;
  assert.equal(set.kind, 'git');
  assert.equal(set.url, repo.bare);
  assert.equal(set.branch, 'main');
  assert.equal(set.autodeploy, true);
  assert.deepEqual(set.check, { ok: true, remoteHead: first, composePath: 'compose.yaml', error: null });

  const t1 = Date.now();
  const job = await act(s, 'deploy', name);
  const deployMs = Date.now() - t1;
  assert.match(job.output, new RegExp(`commit ${first}`));
  assert.match(job.output, /"first" by Test, compose file compose\.yaml/);
  assert.equal(job.result.commit, first);
  assert.equal((await appEnv(name)).MESSAGE, 'one');

  const view = await eventually(async () => {
    const v = (await s.api('GET', `/api/v1/stacks/${name}`)).body;
    return v.source?.deployedCommit === first && v;
  }, 10_000, 'the deployed commit on the stack');
  assert.equal(view.source.kind, 'git');
  assert.equal(view.source.remoteHead, first);
  assert.equal(view.source.pinnedCommit, null);
  console.log(`# PUT source with its first fetch: ${setMs} ms; deploy from git: ${deployMs} ms`);
});

test('a build context from the repository is built at the checked-out commit', async () => {
  const buildRepo = await TestRepo.create(repos.root, 'built');
  const commit = await buildRepo.commit({
    'compose.yaml': 'services:\n  app:\n    build: ./image\n    command: ["sleep", "3600"]\n',
    'image/Dockerfile': 'FROM dockwright-test/busybox:1\nCOPY greeting.txt /greeting.txt\nENV GREETING=from-the-repo\n',
    'image/greeting.txt': 'hello\n',
  }, 'with a build');
  await createStack(s, built, busybox());
  await setSource(s, built, { url: buildRepo.bare });
  const t0 = Date.now();
  const job = await act(s, 'deploy', built);
  console.log(`# deploy from git with an image build: ${Date.now() - t0} ms`);
  assert.equal(job.result.commit, commit);
  assert.equal((await appEnv(built)).GREETING, 'from-the-repo');
});

test('a .dockerignore committed as a link out of the build context fails the build naming it, never read; a link inside the context is followed', async () => {
  const linkRepo = await TestRepo.create(repos.root, 'ignore-link');
  // a host file a repository's link could name: read as ignore rules, it would leave the context empty
  const host = join(repos.root, 'host-file');
  writeFileSync(host, '*\n');
  await linkRepo.commit({
    'compose.yaml': 'services:\n  app:\n    build: ./image\n    command: ["sleep", "3600"]\n',
    'image/Dockerfile': 'FROM dockwright-test/busybox:1\nCOPY greeting.txt /greeting.txt\n',
    'image/greeting.txt': 'hello\n',
    'image/ignore-rules': 'nothing-to-ignore\n',
  }, 'a build');
  symlinkSync(host, join(linkRepo.work, 'image', '.dockerignore'));
  await linkRepo.commit({}, 'a .dockerignore out of the tree');
  await createStack(s, ignored, busybox());
  await setSource(s, ignored, { url: linkRepo.bare });
  const refused = await act(s, 'deploy', ignored, 'failed');
  assert.match(refused.error ?? '', new RegExp(`its \\.dockerignore is a symbolic link to ${host}, out of the build context; refusing to read it`));

  unlinkSync(join(linkRepo.work, 'image', '.dockerignore'));
  symlinkSync('ignore-rules', join(linkRepo.work, 'image', '.dockerignore'));
  const inside = await linkRepo.commit({}, 'a .dockerignore linked inside the tree');
  assert.equal((await s.api('POST', `/api/v1/stacks/${ignored}/source/check`)).status, 200);
  const job = await act(s, 'deploy', ignored);
  assert.equal(job.result.commit, inside);
});

test('check fetches the head and says whether it differs from the deployed commit', async () => {
  second = await repo.commit({ 'app.env': 'MESSAGE=two\n' }, 'second');
  const t0 = Date.now();
  const checked = await s.api('POST', `/api/v1/stacks/${name}/source/check`);
  console.log(`# check (fetch of a new head): ${Date.now() - t0} ms`);
  assert.equal(checked.status, 200, checked.text);
  assert.equal(checked.body.remoteHead.commit, second);
  assert.equal(checked.body.remoteHead.subject, 'second');
  assert.equal(checked.body.deployedCommit, first);
  assert.equal(checked.body.changed, true);
  assert.equal(checked.body.composePath, 'compose.yaml');
  assert.equal((await source(name)).remoteHead, second);
  assert.equal((await appEnv(name)).MESSAGE, 'one', 'checking deploys nothing');

  const job = await act(s, 'deploy', name);
  assert.equal(job.result.commit, second);
  assert.equal((await appEnv(name)).MESSAGE, 'two');
  await eventually(async () => (await source(name)).deployedCommit === second, 10_000, 'deployed commit');
  const again = await s.api('POST', `/api/v1/stacks/${name}/source/check`);
  assert.equal(again.body.changed, false);
});

test('pin to a commit (abbreviated ids resolve; unknown ones are refused), deploy it, unpin', async () => {
  const pinned = await s.api('POST', `/api/v1/stacks/${name}/source/pin`, { body: { commit: first.slice(0, 8) } });
  assert.equal(pinned.status, 200, pinned.text);
  assert.equal(pinned.body.pinnedCommit, first);
  const job = await act(s, 'deploy', name);
  assert.equal(job.result.commit, first);
  assert.match(job.output, new RegExp(`pinned to ${first}`));
  assert.equal((await appEnv(name)).MESSAGE, 'one');
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}`)).body.source.pinnedCommit, first);

  const missing = await s.api('POST', `/api/v1/stacks/${name}/source/pin`, { body: { commit: 'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef' } });
  assert.equal(missing.status, 422, missing.text);
  assert.match(missing.body.detail, /not in the repository/);
  const abbreviated = await s.api('POST', `/api/v1/stacks/${name}/source/pin`, { body: { commit: 'abcdef0' } });
  assert.equal(abbreviated.status, 422);
  const bad = await s.api('POST', `/api/v1/stacks/${name}/source/pin`, { body: { commit: 'main~1' } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.errors[0].path, '/body/commit');
  assert.equal((await source(name)).pinnedCommit, first, 'refused pins change nothing');

  const unpinned = await s.api('POST', `/api/v1/stacks/${name}/source/unpin?deploy=true`);
  assert.equal(unpinned.status, 202, unpinned.text);
  assert.equal(unpinned.body.pinnedCommit, null);
  assert.match(unpinned.body.jobId, /^[0-9a-f-]{36}$/);
  const deployed = await waitJob(s, unpinned.body.jobId);
  assert.equal(deployed.result.commit, second);
  await eventually(async () => (await source(name)).deployedCommit === second, 10_000, 'deployed commit');
});

test('evil URLs, branch names and paths are refused with 400 and change nothing', async () => {
  const settled = (v: any) => ({ url: v.url, branch: v.branch, path: v.path, pinnedCommit: v.pinnedCommit, credentials: v.credentials });
  const before = settled(await source(name));
  const urls = [
    'ext::sh -c touch% /tmp/pwned', 'ext::sh', '--upload-pack=touch /tmp/dw-evil-marker', '-oProxyCommand=touch /tmp/dw-evil-marker', 'fd::17',
    'file:///etc', '/etc', `${repos.root}/../../etc`, 'http://example.com/repo.git', 'git://example.com/repo.git',
    'https://example.com/a repo.git', 'https://example.com/repo.git\n', '-host:path', 'user@-host:path', 'host:-path', 'ftp://x/y',
  ];
  for (const url of urls) {
    const res = await s.api('PUT', `/api/v1/stacks/${name}/source`, { body: { url } });
    assert.equal(res.status, 400, `${url}: ${res.status} ${res.text}`);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
  }
  for (const branch of ['--foo', 'a..b', 'x y', 'HEAD', 'a~1', 'b^', 'c:d', 'e.lock', '.hidden', 'f/', 'g@{1}', 'h\\i', '-']) {
    const res = await s.api('PUT', `/api/v1/stacks/${name}/source`, { body: { url: repo.bare, branch } });
    assert.equal(res.status, 400, `${branch}: ${res.status} ${res.text}`);
    assert.equal(res.body.errors[0].path, '/body/branch');
  }
  for (const path of ['../compose.yaml', '/etc/passwd', 'a/../../b', '-x']) {
    const res = await s.api('PUT', `/api/v1/stacks/${name}/source`, { body: { url: repo.bare, path } });
    assert.equal(res.status, 400, `${path}: ${res.status} ${res.text}`);
  }
  assert.equal(existsSync('/tmp/pwned'), false);
  assert.equal(existsSync('/tmp/dw-evil-marker'), false);
  assert.deepEqual(settled(await source(name)), before, 'nothing changed');
});

test('a branch the repository does not have: saved, and check names the problem', async () => {
  await createStack(s, other, busybox());
  const set = await setSource(s, other, { url: `file://${repo.bare}`, branch: 'nope' });
  assert.equal(set.check.ok, false);
  assert.match(set.check.error, /no branch "nope"/);
  assert.match(set.lastError, /no branch "nope"/);
  const checked = await s.api('POST', `/api/v1/stacks/${other}/source/check`);
  assert.equal(checked.status, 422, checked.text);
  const failed = await act(s, 'deploy', other, 'failed');
  assert.match(failed.error ?? '', /no branch "nope"/);

  const wrongPath = await setSource(s, other, { url: repo.bare, branch: 'main', path: 'deploy/compose.yaml' });
  assert.match(wrongPath.check.error, /no deploy\/compose\.yaml/);
  await repo.commit({ 'deploy/compose.yaml': envCompose('../app.env') }, 'compose in a folder');
  const found = await s.api('POST', `/api/v1/stacks/${other}/source/check`);
  assert.equal(found.body.composePath, 'deploy/compose.yaml');
  assert.equal(found.body.error, null);
});

test('credentials are sealed and never echoed: not by GET source, the stack, check errors or job output', async () => {
  const token = 'ghp_SuperSecretToken1234567890';
  await createStack(s, secretive, busybox());
  // nothing listens on port 1: the fetch fails at once, and its error must not carry the token
  const set = await setSource(s, secretive, { url: 'https://127.0.0.1:1/owner/repo.git', credentials: { token } });
  assert.deepEqual(set.credentials, { kind: 'token' });
  assert.equal(set.check.ok, false);
  const fromUrl = await setSource(s, secretive, { url: `https://deploy:${token}@127.0.0.1:1/owner/repo.git`, check: false });
  assert.equal(fromUrl.url, 'https://127.0.0.1:1/owner/repo.git', 'the password moved out of the URL');
  assert.deepEqual(fromUrl.credentials, { kind: 'token' });

  const checked = await s.api('POST', `/api/v1/stacks/${secretive}/source/check`);
  assert.equal(checked.status, 502, checked.text);
  const job = await act(s, 'deploy', secretive, 'failed');
  const stack = await s.api('GET', `/api/v1/stacks/${secretive}`);
  const basic = Buffer.from(`deploy:${token}`).toString('base64');
  for (const text of [set, fromUrl, await source(secretive), checked.text, stack.text, job.output, job.error].map((t) => typeof t === 'string' ? t : JSON.stringify(t))) {
    assert.ok(!text.includes(token) && !text.includes(basic), `a secret leaked: ${text}`);
  }
  const db = new pg.Client({ connectionString: s.databaseUrl });
  await db.connect();
  const { rows } = await db.query('SELECT * FROM stack_sources WHERE stack = $1', [secretive]);
  await db.end();
  assert.ok(!JSON.stringify(rows).includes(token), 'stored sealed');

  // the same repository keeps its credentials; another one does not get them
  assert.deepEqual((await setSource(s, secretive, { url: 'https://127.0.0.1:1/owner/repo.git', branch: 'dev', check: false })).credentials, { kind: 'token' });
  assert.equal((await setSource(s, secretive, { url: 'https://127.0.0.1:2/elsewhere.git', check: false })).credentials, null);
  const mixed = await s.api('PUT', `/api/v1/stacks/${secretive}/source`, { body: { url: 'git@example.com:o/r.git', credentials: { token } } });
  assert.equal(mixed.status, 400);
  // a deploy key lives in a 0600 file for the length of one git command only
  const keyFile = join(repos.root, 'deploy-key');
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'dw-test', '-f', keyFile]);
  const sshKey = readFileSync(keyFile, 'utf8');
  const keyed = await setSource(s, secretive, { url: 'ssh://git@127.0.0.1:1/owner/repo.git', credentials: { sshKey } });
  assert.deepEqual(keyed.credentials, { kind: 'ssh-key' });
  assert.equal(keyed.check.ok, false);
  const sshJob = await act(s, 'deploy', secretive, 'failed');
  const keyBody = sshKey.split('\n')[1];
  for (const text of [JSON.stringify(keyed), JSON.stringify(await source(secretive)), sshJob.output, sshJob.error ?? '']) assert.ok(!text.includes(keyBody));
  assert.deepEqual(readdirSync(join(s.dataDir, 'plugins/git')).filter((f) => f.startsWith('key-')), [], 'no key file is left behind');
  const badKey = await s.api('PUT', `/api/v1/stacks/${secretive}/source`, { body: { url: 'git@example.com:o/r.git', credentials: { sshKey: 'not a key' } } });
  assert.equal(badKey.status, 400);
});

test('scopes and access: reading needs stacks:read, changing needs stacks:write; unknown stacks are 404', async () => {
  const viewer = await s.token('viewer', ['stacks:read']);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}/source`, { token: viewer })).status, 200);
  assert.equal((await s.api('PUT', `/api/v1/stacks/${name}/source`, { token: viewer, body: { url: repo.bare } })).status, 403);
  assert.equal((await s.api('POST', `/api/v1/stacks/${name}/source/pin`, { token: viewer, body: { commit: first } })).status, 403);
  assert.equal((await s.api('POST', `/api/v1/stacks/${name}/source/check`, { token: viewer })).status, 403, 'a check reaches out to a host: not for readers');
  assert.equal((await s.api('GET', '/api/v1/stacks/nosuchstack/source')).status, 404);
  assert.equal((await s.api('PUT', '/api/v1/stacks/nosuchstack/source', { body: { url: repo.bare } })).status, 404);
  const openapi = (await s.api('GET', '/api/v1/openapi.json')).body;
  assert.ok(openapi.paths['/api/v1/stacks/{name}/source/pin'].post.responses['422']);
  assert.ok(openapi.paths['/api/stacks/{name}/github'].post);
});

test('deleting a stack with a git source removes its working tree and its source', async () => {
  const gone = uniqueName('gitgone');
  await createStack(s, gone, busybox());
  await setSource(s, gone, { url: repo.bare, branch: 'main' });
  await act(s, 'deploy', gone);
  const tree = join(s.dataDir, 'plugins', 'git', 'stacks', gone);
  assert.ok(existsSync(tree), `a working tree at ${tree}`);
  const revision = (await s.api('GET', `/api/v1/stacks/${gone}`)).body.revision;
  const removed = await s.api('DELETE', `/api/v1/stacks/${gone}`, { headers: { 'if-match': `"${revision}"` } });
  assert.equal(removed.status, 200, removed.text);
  await eventually(async () => !existsSync(tree), 5000, 'the working tree to go');
  assert.equal((await s.api('GET', `/api/v1/stacks/${gone}/source`)).status, 404);
});
