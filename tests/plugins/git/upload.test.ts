// Archive uploads over the real API: tar.gz and zip replace the source and deploy; escaping, device, over-long names and oversized archives are refused with nothing written.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type TestServer } from '../../helpers/harness.ts';
import { tar, tgz, zip, type TestEntry } from './archives.ts';
import { act, appEnv, busybox, cleanupProjects, createStack, docker, envCompose, repoRoot, setSource, startGitServer, TestRepo, uniqueName, waitJob } from './helpers.ts';

let s: TestServer;
const repos = repoRoot();
const name = uniqueName('gitup');
const maxEntries = 50;

before(async () => {
  s = await startGitServer([repos.root], { pollIntervalMs: 3_600_000, archiveMaxEntries: maxEntries });
});
after(async () => {
  await cleanupProjects(name);
  await s.close();
  repos.rm();
});

const upload = (archive: Buffer, query = '', token?: string) =>
  s.api('PUT', `/api/v1/stacks/${name}/source/upload${query}`, { raw: new Uint8Array(archive), headers: { 'content-type': 'application/octet-stream' }, ...(token ? { token } : {}) });

/** every path under the plugin's data folder: what a refused upload must leave exactly as it was */
function tree(dir = join(s.dataDir, 'plugins/git'), prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => [prefix + d.name, ...(d.isDirectory() ? tree(join(dir, d.name), `${prefix}${d.name}/`) : [])]).filter((p) => !p.startsWith('staging')).sort();
}

test('a tar.gz upload replaces the git source and deploys from the uploaded tree', async () => {
  const repo = await TestRepo.create(repos.root, 'before-upload');
  await repo.commit({ 'compose.yaml': envCompose(), 'app.env': 'MESSAGE=from-git\n' }, 'git');
  await createStack(s, name, busybox());
  await setSource(s, name, { url: repo.bare });
  await act(s, 'deploy', name);
  assert.ok(existsSync(join(s.dataDir, 'plugins/git/stacks', name, 'git/HEAD')), 'the repository, beside the tree');
  assert.ok(!existsSync(join(s.dataDir, 'plugins/git/stacks', name, 'repo/.git')), 'nothing of git inside the tree containers may mount');

  const archive = tgz([{ name: 'compose.yaml', content: envCompose('conf/app.env') }, { name: 'conf/', type: 'dir' }, { name: 'conf/app.env', content: 'MESSAGE=uploaded\n' }]);
  const t0 = Date.now();
  const res = await upload(archive);
  console.log(`# upload of a small tar.gz: ${Date.now() - t0} ms`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.kind, 'upload');
  assert.equal(res.body.url, null);
  assert.equal(res.body.upload.format, 'tar.gz');
  assert.equal(res.body.upload.files, 2);
  assert.match(res.body.upload.sha256, /^[0-9a-f]{64}$/);
  assert.ok(!existsSync(join(s.dataDir, 'plugins/git/stacks', name, 'repo')), 'the git checkout is gone');
  assert.ok(!existsSync(join(s.dataDir, 'plugins/git/stacks', name, 'git')), 'and its repository');

  const job = await act(s, 'deploy', name);
  assert.match(job.output, /tar\.gz archive uploaded at .*compose file compose\.yaml/);
  assert.equal(job.result.commit, null);
  assert.equal((await appEnv(name)).MESSAGE, 'uploaded');
  const view = (await s.api('GET', `/api/v1/stacks/${name}`)).body;
  assert.equal(view.source.kind, 'upload');
});

test('a zip upload with one top folder (strip=1), deployed at once with deploy=true', async () => {
  const archive = zip([
    { name: 'project-main/', type: 'dir' }, { name: 'project-main/docker-compose.yml', content: envCompose() },
    { name: 'project-main/app.env', content: 'MESSAGE=zipped\n' }, { name: 'project-main/env-link', type: 'symlink', target: 'app.env' },
  ]);
  const unstripped = await upload(archive);
  assert.equal(unstripped.status, 422);
  assert.match(unstripped.body.detail, /strip=1/);
  const res = await upload(archive, '?strip=1&deploy=true');
  assert.equal(res.status, 202, res.text);
  assert.equal(res.body.upload.format, 'zip');
  const job = await waitJob(s, res.body.jobId);
  assert.equal(job.status, 'succeeded', job.output);
  assert.match(job.output, /compose file docker-compose\.yml/);
  assert.equal((await appEnv(name)).MESSAGE, 'zipped');

  const openapi = (await s.api('GET', '/api/v1/openapi.json')).body;
  assert.equal(openapi.paths['/api/v1/stacks/{name}/source/upload'].put['x-rate-limit-exempt'], true, 'uploads are exempt from the rate limit');
  const viewer = await s.token('operator', ['stacks:read', 'stacks:write']);
  assert.equal((await upload(archive, '?strip=1&deploy=true', viewer)).status, 403, 'deploy=true needs stacks:deploy');
});

test('archives that escape the tree, hold devices, names too long or break the limits are refused; nothing is written', async () => {
  const current = (await s.api('GET', `/api/v1/stacks/${name}/source`)).body;
  const files = tree();
  const outside = `/tmp/dw-evil-${name}`;
  const ok: TestEntry[] = [{ name: 'compose.yaml', content: envCompose() }, { name: 'app.env', content: 'MESSAGE=evil\n' }];
  const cases: [string, Buffer, number, RegExp][] = [
    ['tar with ../evil', tar([...ok, { name: '../evil', content: 'x' }]), 422, /leads out of the tree/],
    ['tgz with a/../../evil', tgz([...ok, { name: 'a/../../evil', content: 'x' }]), 422, /leads out of the tree/],
    ['tar with an absolute path', tar([...ok, { name: outside, content: 'x' }]), 422, /absolute path/],
    ['tar with a link out', tar([...ok, { name: 'etc', type: 'symlink', target: '../../../../etc' }]), 422, /outside the tree/],
    ['tar with an absolute link', tar([...ok, { name: 'passwd', type: 'symlink', target: '/etc/passwd' }]), 422, /outside the tree/],
    ['tar writing through a link', tar([{ name: 'out', type: 'symlink', target: 'sub' }, { name: 'out/x', content: 'x' }, ...ok]), 422, /below a symbolic link/],
    ['tar whose link climbs through a link listed after it', tar([...ok, { name: 'a/l', type: 'symlink', target: '../x/b/x/b/../../run' }, { name: 'x/b', type: 'symlink', target: '..' }]), 422, /through another link/],
    ['tar writing below a link listed after it', tar([...ok, { name: 'out/x', content: 'x' }, { name: 'out', type: 'symlink', target: 'sub' }]), 422, /below a symbolic link/],
    ['tar with a hard link out', tar([...ok, { name: 'h', type: 'hardlink', target: '../../etc/passwd' }]), 422, /leads out|hard link/],
    ['tar with a device', tar([...ok, { name: 'dev', type: 'chardev' }]), 422, /entry "dev" is a character device: only files, folders and links are accepted/],
    ['zip with ../evil', zip([...ok, { name: '../evil', content: 'x' }]), 422, /relative path|leads out/],
    ['zip with a link out', zip([...ok, { name: 'l', type: 'symlink', target: '../../x' }]), 422, /outside the tree/],
    // the file system refuses these halfway through (ENAMETOOLONG): refused with the rest, before anything is written
    ['tar with a 300-byte name', tar([...ok, { name: `sub/${'n'.repeat(300)}`, content: 'x' }]), 422, /entry "sub\/n+.*the name "n+…" has 300 bytes; a name \(each part of a path\) may have at most 255/],
    ['zip with a 1,029-byte path', zip([...ok, { name: Array.from({ length: 5 }, () => 'p'.repeat(205)).join('/'), content: 'x' }]), 422, /the path has 1029 bytes; a path may have at most 1024/],
    ['too many entries', tgz([...ok, ...Array.from({ length: maxEntries }, (_, i) => ({ name: `f${i}`, content: 'x' }))]), 413, /more than 50 entries/],
    ['not an archive', Buffer.from('just some text, not an archive'), 415, /not a tar, tar\.gz or zip/],
    ['no compose file', tgz([{ name: 'README', content: 'hi' }]), 422, /none of compose\.yaml/],
  ];
  for (const [what, archive, status, detail] of cases) {
    const res = await upload(archive);
    assert.equal(res.status, status, `${what}: ${res.status} ${res.text}`);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.match(res.body.detail, detail, what);
    assert.match(res.body.detail, /nothing was changed/, what);
    assert.deepEqual(tree(), files, `${what}: nothing written`);
  }
  assert.ok(!existsSync(outside));
  assert.deepEqual(readdirSync(join(s.dataDir, 'plugins/git/staging')), [], 'no staging leftovers');
  assert.deepEqual((await s.api('GET', `/api/v1/stacks/${name}/source`)).body, current, 'the previous source is intact');
  assert.equal((await act(s, 'deploy', name)).status, 'succeeded');
  assert.equal((await appEnv(name)).MESSAGE, 'zipped');
});

test("an uploaded project's .env is read as compose reads it: interpolation and COMPOSE_PROFILES", async () => {
  const compose = `services:
  app:
    image: "dockwright-test/busybox:\${TAG}"
    command: ["sleep", "3600"]
    environment: { MESSAGE: "\${MESSAGE}" }
  debug:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    profiles: [debug]
  never:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    profiles: [ops]
`;
  const stack = uniqueName('gitenv');
  await createStack(s, stack, busybox());
  const res = await s.api('PUT', `/api/v1/stacks/${stack}/source/upload`, { raw: new Uint8Array(tgz([{ name: 'compose.yaml', content: compose }, { name: '.env', content: 'TAG=1\nMESSAGE=from-dotenv\nCOMPOSE_PROFILES=debug\n' }])), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(res.status, 200, res.text);
  try {
    const job = await act(s, 'deploy', stack);
    assert.equal((await appEnv(stack)).MESSAGE, 'from-dotenv');
    const running = await docker.listContainers({ filters: { label: [`dockwright.project=${stack}`] } });
    assert.deepEqual(running.map((c) => c.Labels['dockwright.service']).sort(), ['app', 'debug'], job.output);
    // the stack's view lists the services of the file that deployed, not of its stored placeholder
    const view = (await s.api('GET', `/api/v1/stacks/${stack}`)).body;
    assert.deepEqual(view.services.filter((x: any) => x.declared).map((x: any) => x.name).sort(), ['app', 'debug']);
    // validate checks a file against the uploaded tree, as a deploy would load it there (.env, env_file)
    const checked = await s.api('POST', `/api/v1/stacks/${stack}/validate`, { body: { content: compose.replace('profiles: [ops]', 'profiles: [ops]\n    env_file: .env') } });
    assert.equal(checked.status, 200, checked.text);
    assert.deepEqual(checked.body.errors, []);
    assert.deepEqual(checked.body.warnings, [], 'TAG and MESSAGE come from .env');
    assert.deepEqual(checked.body.services.sort(), ['app', 'debug']);
  } finally {
    await cleanupProjects(stack);
  }
});

test('an uploaded project with include and extends deploys as compose would: the included service and the extended one run with their merged settings', async () => {
  const stack = uniqueName('gitext');
  await createStack(s, stack, busybox());
  const files = [
    { name: 'compose.yaml', content: 'include: [extra/compose.yaml]\nservices:\n  app:\n    extends: { file: common.yml, service: base }\n    environment: { MESSAGE: extended }\n' },
    { name: 'common.yml', content: 'services:\n  base:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n    env_file: base.env\n    environment: { MESSAGE: base }\n' },
    { name: 'base.env', content: 'FROM_BASE=1\n' },
    { name: 'extra/', type: 'dir' as const },
    { name: 'extra/compose.yaml', content: 'services:\n  side:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n' },
  ];
  const res = await s.api('PUT', `/api/v1/stacks/${stack}/source/upload`, { raw: new Uint8Array(tgz(files)), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(res.status, 200, res.text);
  try {
    const job = await act(s, 'deploy', stack);
    const env = await appEnv(stack);
    assert.equal(env.MESSAGE, 'extended', job.output);
    assert.equal(env.FROM_BASE, '1');
    const running = await docker.listContainers({ filters: { label: [`dockwright.project=${stack}`] } });
    assert.deepEqual(running.map((c) => c.Labels['dockwright.service']).sort(), ['app', 'side']);
  } finally {
    await cleanupProjects(stack);
  }
});
