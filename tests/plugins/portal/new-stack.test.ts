// The New stack page in a real Chromium: a stack from an archive (built and deployed in one step) and from a git repository (also one over SSH that trusts only a deploy key made on the page); the Compose tab says where the file that deploys comes from; the releases page says what a rebuild changed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { tgz } from '../git/archives.ts';
import { repoRoot, TestRepo } from '../git/helpers.ts';
import { startSshGitServer } from '../git/ssh-server.ts';
import { cleanupProjects, docker, uniqueName, waitJob } from '../stacks/helpers.ts';
import { addUser, launch, shot, signedIn, unnamed } from './helpers.ts';

const repos = repoRoot();
const built = uniqueName('newarc');
const fromGit = uniqueName('newgit');
const keyed = uniqueName('newkey');
let server: TestServer;
let browser: Browser;
let page: Page;

before(async () => {
  server = await startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: {
      docker: { options: { reconcile: false, stopTimeoutSeconds: 1 } }, containers: {}, stacks: {}, alerts: {}, registries: {}, releases: {}, portal: {},
      git: { options: { allowedLocalRoots: [repos.root], pollIntervalMs: 3_600_000 } },
    },
  });
  await addUser(server, 'ada', 'admin');
  browser = await launch();
  page = await signedIn(browser, server, 'ada');
});
after(async () => {
  await browser?.close();
  await cleanupProjects(built, fromGit, keyed);
  await docker.getImage(`${built}-web`).remove({ force: true }).catch(() => undefined);
  await server?.close();
  repos.rm();
});

const dockerfile = 'FROM dockwright-test/busybox:1\nCOPY message.txt /message.txt\nCMD ["sh", "-c", "cat /message.txt; sleep 3600"]\n';
const buildCompose = 'services:\n  web:\n    build: .\n    stop_grace_period: 1s\n';
const archive = (message: string) => tgz([{ name: 'compose.yaml', content: buildCompose }, { name: 'Dockerfile', content: dockerfile }, { name: 'message.txt', content: `${message}\n` }]);

test('an archive with a Dockerfile becomes a deployed stack from the New stack page; its Compose tab shows the uploaded file; a rebuild is a change in its releases', async () => {
  await page.goto('/stacks');
  await page.getByRole('link', { name: 'New stack' }).click();
  await page.getByRole('heading', { name: 'New stack' }).waitFor();
  assert.deepEqual(await unnamed(page), []);
  await page.getByLabel('Name (lowercase letters, digits and -)').fill(built);
  await page.getByLabel('An archive upload').check();
  await page.getByLabel('Archive', { exact: true }).setInputFiles({ name: 'project.tar.gz', mimeType: 'application/gzip', buffer: archive('from the portal') });
  await page.getByLabel('Deploy it once created').check();
  assert.deepEqual(await unnamed(page), []);
  await shot(page, 'new-stack-archive');
  await page.getByRole('button', { name: 'Create stack' }).click();
  await page.waitForURL(/\/jobs\/[0-9a-f-]{36}$/);
  const job = await waitJob(server, page.url().split('/').at(-1)!);
  assert.equal(job.status, 'succeeded', job.output);

  await page.goto(`/stacks/${built}/compose`);
  const origin = page.getByTestId('compose-origin');
  await origin.waitFor();
  assert.match(await origin.innerText(), /compose\.yaml of the archive uploaded/);
  assert.equal(await page.getByLabel('Compose file').inputValue(), buildCompose, 'the uploaded file, not a placeholder');
  assert.equal(await page.getByLabel('Compose file').getAttribute('readonly'), '', 'read only: deploys use the archive\'s file');
  await shot(page, 'new-stack-compose-origin');

  const again = await server.api('PUT', `/api/v1/stacks/${built}/source/upload?deploy=1`, { raw: new Uint8Array(archive('rebuilt')), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(again.status, 202, again.text);
  assert.equal((await waitJob(server, again.body.jobId)).status, 'succeeded');
  await page.goto(`/stacks/${built}/releases`);
  const change = page.getByTestId('changes-2');
  await change.waitFor();
  assert.match(await change.innerText(), /web: rebuilt, image [0-9a-f]{12} → image [0-9a-f]{12}/);
  assert.doesNotMatch(await page.locator('main').innerText(), /no digest/);
  await shot(page, 'releases-rebuilt');
});

test('a git repository becomes a stack from the New stack page; its Compose tab names the commit', async () => {
  const repo = await TestRepo.create(repos.root, 'portal-new');
  const head = await repo.commit({ 'compose.yaml': 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n' }, 'the first version');
  await page.goto('/stacks-new');
  await page.getByLabel('Name (lowercase letters, digits and -)').fill(fromGit);
  await page.getByLabel('A git repository').check();
  await page.getByLabel('Repository URL').fill(repo.bare);
  assert.deepEqual(await unnamed(page), []);
  await shot(page, 'new-stack-git');
  await page.getByRole('button', { name: 'Create stack' }).click();
  await page.waitForURL(new RegExp(`/stacks/${fromGit}$`));
  await page.goto(`/stacks/${fromGit}/compose`);
  const origin = page.getByTestId('compose-origin');
  await origin.waitFor();
  assert.match(await origin.innerText(), new RegExp(`compose\\.yaml at commit ${head.slice(0, 12)} “the first version” of ${repo.bare.replace(/[.]/g, '\\.')} \\(main\\)`));

  // a refusal is shown and creates nothing
  await page.goto('/stacks-new');
  await page.getByLabel('Name (lowercase letters, digits and -)').fill(`${fromGit}-x`);
  await page.getByLabel('A git repository').check();
  await page.getByLabel('Repository URL').fill(repo.bare);
  await page.getByLabel('Branch').fill('nope');
  await page.getByRole('button', { name: 'Create stack' }).click();
  await page.getByText('the repository has no branch "nope"').waitFor();
  assert.equal((await server.api('GET', `/api/v1/stacks/${fromGit}-x`)).status, 404);
});

test('a deploy key made on the New stack page: its public half shown and copied, the stack created from a repository that trusts only it; the Source tab says so', async () => {
  const sshd = await startSshGitServer();
  try {
    const repo = await TestRepo.create(repos.root, 'portal-keyed');
    await repo.commit({ 'compose.yaml': 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n' }, 'over ssh');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.goto('/stacks-new');
    await page.getByLabel('Name (lowercase letters, digits and -)').fill(keyed);
    await page.getByLabel('A git repository').check();
    await page.getByLabel('Repository URL').fill(sshd.url(repo.bare));
    await page.getByRole('button', { name: 'Make a deploy key' }).click();
    const shown = page.getByLabel('Public key');
    await shown.waitFor();
    const publicKey = await shown.inputValue();
    assert.match(publicKey, new RegExp(`^ssh-ed25519 \\S+ dockwright-${keyed}$`));
    const made = (await server.api('GET', `/api/v1/stacks/${keyed}/source/deploy-key`)).body;
    assert.equal(publicKey, made.publicKey);
    assert.match(await page.getByTestId('deploy-key').innerText(), new RegExp(`${made.fingerprint.replace(/[+/]/g, '\\$&')}[\\s\\S]*Settings → Deploy keys`));
    await page.getByRole('button', { name: 'Copy public key' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), publicKey);
    assert.ok(await page.getByLabel('Fetch with the deploy key made for this stack').isChecked(), 'a key made here is the one the create uses');
    assert.equal(await page.getByLabel(/a private key of your own/).count(), 0);
    assert.deepEqual(await unnamed(page), []);
    await shot(page, 'new-stack-deploy-key');

    sshd.authorize([publicKey]);
    await page.getByRole('button', { name: 'Create stack' }).click();
    await page.waitForURL(new RegExp(`/stacks/${keyed}$`));
    assert.deepEqual((await server.api('GET', `/api/v1/stacks/${keyed}/source`)).body.credentials, { kind: 'deploy-key' });
    await page.goto(`/stacks/${keyed}/source`);
    await page.getByText('the deploy key made for this stack (SSH)').waitFor();
    await page.getByText('Change the repository').click();
    assert.equal(await page.getByLabel('Public key').inputValue(), publicKey);
    assert.ok(await page.getByLabel('Fetch with the deploy key made for this stack').isChecked());
    assert.doesNotMatch(await page.locator('main').innerText(), /PRIVATE KEY|goes .* unless/);
    await shot(page, 'source-deploy-key');
  } finally {
    await sshd.close();
  }
});
