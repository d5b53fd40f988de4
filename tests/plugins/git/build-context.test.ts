// Build contexts given as git URLs, through the API on the real engine: fetched over HTTPS from a loopback git server (its CA trusted through NODE_EXTRA_CA_CERTS), a ref and a folder, a token never shown, a moved branch rebuilt, and every refusal named.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, containerOf, docker, uniqueName, waitJob } from '../stacks/helpers.ts';
import { repoRoot, startGitServer, TestRepo } from './helpers.ts';
import { startHttpsGitServer, type HttpsGitServer } from './https-server.ts';

const repos = repoRoot();
const token = 'gho_build-context-token-4f2a9c';
let s: TestServer;
let server: HttpsGitServer;
let app: TestRepo;
let secret: TestRepo;
/** the first commit of app.git, which the tag v1 names */
let firstCommit: string;
const stacks: string[] = [];

const dockerfile = 'FROM dockwright-test/busybox:1\nCOPY message.txt /message.txt\nCMD ["sh", "-c", "cat /message.txt; sleep 3600"]\n';

before(async () => {
  app = await TestRepo.create(repos.root, 'app');
  firstCommit = await app.commit({ 'README.md': 'the root has no Dockerfile\n', 'web/Dockerfile': dockerfile, 'web/message.txt': 'first\n' }, 'first');
  await app.tag('v1');
  const privateRoot = join(repos.root, 'private');
  secret = await TestRepo.create(privateRoot, 'secret');
  await secret.commit({ Dockerfile: dockerfile, 'message.txt': 'from the private repository\n' }, 'private');
  server = await startHttpsGitServer(repos.root, { user: 'ci', password: token });
  s = await startGitServer([], {}, {}, { env: { NODE_EXTRA_CA_CERTS: server.caFile } });
});
after(async () => {
  await s?.close();
  await server?.close();
  await cleanupProjects(...stacks);
  for (const name of stacks) await docker.getImage(`${name}-web`).remove({ force: true }).catch(() => undefined);
  repos.rm();
});

const base = () => `https://127.0.0.1:${server.port}`;
const compose = (context: string, extra = '') => `services:\n  web:\n    build: ${JSON.stringify(context)}\n${extra}`;

async function deploy(name: string, content: string, variables: Record<string, string> = {}) {
  if (!stacks.includes(name)) {
    stacks.push(name);
    const put = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content }, headers: { 'if-none-match': '*' } });
    assert.equal(put.status, 200, put.text);
    if (Object.keys(variables).length) {
      const env = await s.api('PUT', `/api/v1/stacks/${name}/env`, { body: { values: variables, revision: 1 } });
      assert.equal(env.status, 200, env.text);
    }
  }
  const started = await s.api('POST', `/api/v1/stacks/${name}/deploy`);
  assert.equal(started.status, 202, started.text);
  return waitJob(s, started.body.id);
}

async function messageOf(name: string): Promise<string> {
  const c = await containerOf(name, 'web');
  assert.ok(c, 'the service runs');
  for (let i = 0; i < 100; i++) {
    const logs = (await docker.getContainer(c.Id).logs({ stdout: true, stderr: true })).toString();
    if (logs.trim()) return logs;
    await new Promise((r) => setTimeout(r, 100));
  }
  return '';
}

test('a stack without a source tree builds from a folder of a git repository at a branch, and a moved branch is built again', async () => {
  const name = uniqueName('gbc');
  const first = await deploy(name, compose(`${base()}/app.git#main:web`));
  assert.equal(first.status, 'succeeded', `${first.error}\n${first.output}`);
  assert.match(first.output, new RegExp(`web: build context: ${base().replaceAll('.', '\\.')}/app\\.git#main, folder web at commit [0-9a-f]{12}`));
  assert.match(await messageOf(name), /first/);

  await app.commit({ 'web/message.txt': 'second\n' }, 'second');
  const again = await deploy(name, '');
  assert.equal(again.status, 'succeeded', `${again.error}\n${again.output}`);
  assert.match(await messageOf(name), /second/, 'the new head was fetched and built');
  assert.deepEqual(readdirSync(join(s.dataDir, 'plugins', 'git', 'build-contexts', 'trees')), [], 'every build\'s tree is gone after it');
});

test('a tag, a commit id, and a private repository with a token from the stack\'s variables that never shows', async () => {
  const tagged = uniqueName('gbt');
  const job = await deploy(tagged, compose(`${base()}/app.git#v1:web`));
  assert.equal(job.status, 'succeeded', `${job.error}\n${job.output}`);
  assert.match(await messageOf(tagged), /first/, 'the tag, not the moved branch');
  const pinned = uniqueName('gbs');
  const byId = await deploy(pinned, compose(`${base()}/app.git#${firstCommit}:web`));
  assert.equal(byId.status, 'succeeded', `${byId.error}\n${byId.output}`);
  assert.match(byId.output, new RegExp(`at commit ${firstCommit.slice(0, 12)}`));
  assert.match(await messageOf(pinned), /first/, 'a full commit id');

  const priv = uniqueName('gbp');
  const asked = server.requests.length;
  const built = await deploy(priv, compose(`https://ci:\${GIT_TOKEN}@127.0.0.1:${server.port}/private/secret.git`), { GIT_TOKEN: token });
  assert.equal(built.status, 'succeeded', `${built.error}\n${built.output}`);
  assert.match(await messageOf(priv), /from the private repository/);
  assert.ok(server.requests.slice(asked).some((r) => r.path.startsWith('/private/') && r.user === 'ci'), 'the token was sent');
  assert.ok(!built.output.includes(token), 'the job output never holds the token');
  const view = await s.api('GET', `/api/v1/stacks/${priv}`);
  assert.ok(!view.text.includes(token), 'nor does the stack');
});

test('what cannot be fetched fails the job naming why, before anything changes; what is no git URL is refused when saved', async () => {
  const name = uniqueName('gbf');
  const missing = await deploy(name, compose(`${base()}/app.git#no-such-branch:web`));
  assert.equal(missing.status, 'failed');
  assert.match(missing.error ?? '', /has no ref no-such-branch/);
  assert.equal(await containerOf(name, 'web'), undefined, 'nothing was created');

  const noFolder = uniqueName('gbd');
  const folder = await deploy(noFolder, compose(`${base()}/app.git#main:nowhere`));
  assert.equal(folder.status, 'failed');
  assert.match(folder.error ?? '', /the repository has no folder nowhere at commit [0-9a-f]{12}/);

  const noDockerfile = uniqueName('gbn');
  const root = await deploy(noDockerfile, compose(`${base()}/app.git`));
  assert.equal(root.status, 'failed');
  assert.match(root.error ?? '', /there is no Dockerfile in the repository at commit/);

  // the outbound policy of the tests allows loopback only, and looks up no name: nothing connects
  const refused = uniqueName('gbo');
  const asked = server.requests.length;
  const outbound = await deploy(refused, compose('https://git.example.com/team/app.git#main'));
  assert.equal(outbound.status, 'failed');
  assert.match(outbound.error ?? '', /the build context https:\/\/git\.example\.com\/team\/app\.git is not fetched: .*git\.example\.com/);
  assert.equal(server.requests.length, asked);

  for (const [context, why] of [
    [`git://127.0.0.1:${server.port}/app.git`, /the git:\/\/ protocol is neither authenticated nor encrypted/],
    [`http://127.0.0.1:${server.port}/app.git`, /plain http:\/\/ is not fetched/],
    [`${base()}/context.tar.gz`, /the URL of an archive or a Dockerfile is not downloaded by Dockwright/],
    [`${base()}/app.git#--upload-pack=x:web`, /is not a ref git can fetch/],
    [`${base()}/app.git#main:../web`, /is not a folder inside the repository/],
  ] as const) {
    const put = await s.api('PUT', `/api/v1/stacks/${uniqueName('gbr')}/compose`, { body: { content: compose(context) }, headers: { 'if-none-match': '*' } });
    assert.equal(put.status, 422, `${context}: ${put.text}`);
    assert.ok(put.body.errors.some((e: any) => e.path === 'services.web.build.context' && why.test(e.message)), `${context}: ${put.text}`);
  }
});
