// The sites pages in a real Chromium against the real service, PostgreSQL and Caddy: create, upload, edit the draft (with a conflict), publish, restore, preview token, a viewer's limits.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { call, eventually } from '../../helpers/harness.ts';
import { repoRoot, TestRepo } from '../git/helpers.ts';
import { addUser, launch, shot, signedIn, unnamed } from '../portal/helpers.ts';
import { basic, edgeAnswers, edgeRunning, entries, getVia, startSitesServer, tar, versionFiles, viaEdge, type SitesServer } from './helpers.ts';

const repos = repoRoot();
let s: SitesServer;
let browser: Browser;
let page: Page;
const site = 'docs';
const host = 'docs.sites.test';
const preview = `draft--${site}.preview.test`;

before(async () => {
  s = await startSitesServer({ more: { portal: {} }, git: { allowedLocalRoots: [repos.root] } });
  await edgeRunning(s);
  await addUser(s, 'alice', 'operator');
  await addUser(s, 'victor', 'viewer');
  browser = await launch();
  page = await signedIn(browser, s, 'alice');
});

after(async () => {
  await browser?.close();
  await s?.close();
  repos.rm();
});

const tab = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true }).click();
const said = (text: RegExp) => page.getByRole('status').filter({ hasText: text }).waitFor();

test('create an upload-only site: the preview token is shown once', async () => {
  await page.getByRole('link', { name: 'Sites' }).first().click();
  await page.getByRole('heading', { name: 'Sites' }).waitFor();
  await page.getByRole('link', { name: 'New site' }).click();
  await page.getByLabel('Name (lowercase letters, digits and -)').fill(site);
  await page.getByLabel('Hostnames (one per line)').fill(host);
  await page.getByRole('button', { name: 'Create site' }).click();
  const token = await page.getByTestId('secret').innerText();
  assert.match(token, /\S{16,}/);
  await page.getByRole('link', { name: `Open site ${site}` }).click();
  await page.getByRole('heading', { name: `Site ${site}` }).waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'H1', 'focus on the page heading');
  assert.equal(await page.getByTestId('secret').count(), 0, 'the token is not shown again');
  assert.ok(!(await page.content()).includes(token));
  assert.deepEqual((await s.api('GET', `/api/v1/sites/${site}`)).body.hostnames, [host]);
});

test('upload an archive: version 1 and its files, served through the edge', async () => {
  await page.getByLabel('Publish an archive (tar, tar.gz or zip)').setInputFiles({ name: 'site.tar', mimeType: 'application/x-tar', buffer: tar(entries(versionFiles(1))) });
  await said(/Published as version 1 \(4 files\)/);
  assert.deepEqual(await unnamed(page), [], 'every control of the overview has a name');
  await edgeAnswers(s.httpPort, host, '/', (a) => a.body === '<p>version 1</p>\n');
  await tab('Versions');
  const versions = page.getByTestId('versions');
  await versions.getByRole('cell', { name: 'upload' }).waitFor();
  assert.equal(await versions.locator('tbody tr').count(), 1);
  await tab('Published files');
  const files = page.getByTestId('files');
  await files.getByText('assets/f2.txt').waitFor();
  assert.equal(await files.locator('tbody tr').count(), 4);
  await page.getByRole('button', { name: 'View index.html' }).click();
  assert.equal(await page.getByTestId('file-text').innerText(), '<p>version 1</p>\n');
  await shot(page, 'site-files');
});

test('the draft: edit a file, meet a concurrent write (412: their change shown, keep mine), add and delete files, preview, publish version 2', async () => {
  await tab('Draft');
  await page.getByRole('button', { name: 'Edit index.html' }).click();
  const text = page.getByLabel('Content of index.html');
  assert.equal(await text.inputValue(), '<p>version 1</p>\n');
  await text.fill('<p>version 2</p>\n');
  // someone else writes the same file through the API meanwhile
  const theirs = await s.api('PUT', `/api/v1/sites/${site}/draft/files`, { body: { files: { 'index.html': { content: '<p>their edit</p>\n' } } } });
  assert.equal(theirs.status, 200, theirs.text);
  await page.getByRole('button', { name: 'Save to draft' }).click();
  const conflict = page.getByTestId('conflict');
  await conflict.waitFor();
  assert.match(await conflict.getByTestId('diff').innerText(), /\+ <p>their edit<\/p>/);
  await shot(page, 'site-draft-conflict');
  assert.deepEqual(await unnamed(page), [], 'every control of the draft and its editor has a name');
  await page.getByRole('button', { name: 'Keep my text (save over theirs)' }).click();
  await page.getByRole('button', { name: 'Save to draft' }).click();
  await said(/Saved to the draft/);

  await page.getByRole('button', { name: 'New file' }).click();
  await page.getByLabel('Path of the new file').fill('about.html');
  await page.getByLabel('Content of about.html').fill('about us');
  await page.getByRole('button', { name: 'Save to draft' }).click();
  await page.getByTestId('files').getByText('about.html').waitFor();
  await page.getByRole('button', { name: 'Delete assets/f0.txt' }).click();
  await said(/assets\/f0.txt is deleted/);
  assert.equal((await viaEdge(s.httpPort, host, '/')).body, '<p>version 1</p>\n', 'the draft is not served');

  // the preview URL is shown, never its password; a new token is shown once and replaces the old one
  const link = page.getByRole('link', { name: `http://${preview}:${s.httpPort}/` }); // the edge's own port: it is not 80 here
  await link.waitFor();
  await page.getByRole('button', { name: 'New preview token' }).click();
  const token = await page.getByTestId('secret').innerText();
  const viewed = await getVia(s.httpPort, preview, '/', basic('preview', token));
  assert.equal(viewed.status, 200);
  assert.equal(viewed.body, '<p>version 2</p>\n');
  await shot(page, 'site-draft');

  await page.getByRole('button', { name: 'Publish draft' }).click();
  await said(/published as version 2/);
  await edgeAnswers(s.httpPort, host, '/', (a) => a.body === '<p>version 2</p>\n');
  assert.equal((await viaEdge(s.httpPort, host, '/about.html')).body, 'about us');
  assert.equal((await viaEdge(s.httpPort, host, '/assets/f0.txt')).status, 404);
  await page.reload();
  await page.getByRole('heading', { name: `Site ${site}` }).waitFor();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId('files').waitFor();
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), 'on a phone the page does not scroll sideways (tables scroll by themselves)');
  await shot(page, 'site-draft-phone');
  await page.setViewportSize({ width: 1280, height: 900 });
  assert.equal(await page.getByTestId('secret').count(), 0, 'the preview token is gone after a reload');
});

test('restore version 1: published again as version 3', async () => {
  await tab('Versions');
  // by keyboard: the heading has the focus, Tab reaches the button, Enter presses it
  const restore = page.getByRole('button', { name: 'Restore version 1' });
  await restore.waitFor();
  for (let i = 0; i < 30 && !(await restore.evaluate((b) => b === document.activeElement)); i++) await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await said(/Version 1 is published again as version 3/);
  await edgeAnswers(s.httpPort, host, '/', (a) => a.body === '<p>version 1</p>\n');
  assert.equal((await s.api('GET', `/api/v1/sites/${site}`)).body.version, 3);
  const actions = (await s.api('GET', '/api/v1/activity?limit=100')).body.filter((a: any) => a.actor?.name === 'alice' && a.actor?.channel === 'portal').map((a: any) => a.action);
  for (const a of ['site.write', 'site.content.upload', 'site.draft.write', 'site.preview.rotate', 'site.draft.publish', 'site.restore']) assert.ok(actions.includes(a), `${a} under alice via portal`);
});

test('a viewer sees the site but no write control', async () => {
  const viewer = await signedIn(browser, s, 'victor');
  await viewer.getByRole('link', { name: 'Sites' }).first().click();
  await viewer.getByTestId('sites').getByRole('link', { name: site }).waitFor();
  assert.equal(await viewer.getByRole('link', { name: 'New site' }).count(), 0);
  await viewer.getByTestId('sites').getByRole('link', { name: site }).click();
  await viewer.getByRole('heading', { name: `Site ${site}` }).waitFor();
  await viewer.getByText('none: upload-only').waitFor();
  const main = viewer.locator('main');
  const none = async (what: string) => assert.equal(await main.getByRole('button').count(), 0, `no buttons on ${what}`);
  assert.equal(await main.locator('input, textarea').count(), 0, 'no form on the overview');
  await none('the overview');
  for (const [name, check] of [['Versions', 'versions'], ['Draft', 'files']] as const) {
    await viewer.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true }).click();
    await viewer.getByTestId(check).waitFor();
    await none(name);
  }
  await shot(viewer, 'site-viewer');
  await viewer.context().close();
});

test('a site from git through the form: check now streams its job, the definition is edited, the check webhook token is shown once, delete asks first', async () => {
  const repo = await TestRepo.create(repos.root, 'www');
  await repo.commit({ 'public/index.html': 'one' }, 'first');
  await page.goto('/sites-new');
  await page.getByLabel('Name (lowercase letters, digits and -)').fill('www');
  await page.getByLabel('Hostnames (one per line)').fill('www.git.test');
  await page.getByLabel(/Fetch the site from a git repository/).check();
  await page.getByLabel('Repository URL').fill(repo.bare);
  await page.getByLabel('Folder of the repository that is the site (optional)').fill('public');
  await page.getByLabel(/Build image/).fill('busybox');
  assert.deepEqual(await unnamed(page), [], 'every control of the site form has a name');
  await page.getByLabel(/Build image/).fill('');
  await page.getByRole('button', { name: 'Create site' }).click();
  await page.getByRole('link', { name: 'Open site www' }).click();
  await edgeAnswers(s.httpPort, 'www.git.test', '/', (a) => a.body === 'one');

  const c2 = await repo.commit({ 'public/index.html': 'two' }, 'second');
  await page.getByRole('button', { name: 'Check now' }).click();
  await page.locator('.job .status-succeeded').waitFor({ timeout: 120_000 });
  assert.match(await page.getByTestId('job-output').innerText(), /\S/, 'the sync wrote output');
  await edgeAnswers(s.httpPort, 'www.git.test', '/', (a) => a.body === 'two');
  await page.getByText(c2.slice(0, 10)).first().waitFor();

  await page.getByLabel('Hostnames (one per line)').fill('www.git.test\nwww2.git.test');
  await page.getByRole('button', { name: 'Save site' }).click();
  await eventually(async () => (await s.api('GET', '/api/v1/sites/www')).body.hostnames.length === 2, 10_000, 'the second hostname saved');
  await edgeAnswers(s.httpPort, 'www2.git.test', '/', (a) => a.body === 'two');

  await tab('Webhook');
  await page.getByRole('button', { name: 'Enable webhook' }).click();
  const token = await page.getByTestId('secret').innerText();
  assert.equal((await call(s.url, 'GET', '/api/sites/www/status', { token })).status, 200);
  await page.getByRole('button', { name: 'Disable' }).click();
  await page.getByRole('button', { name: 'Enable webhook' }).waitFor();
  assert.equal((await call(s.url, 'GET', '/api/sites/www/status', { token })).status, 401);

  await tab('Overview');
  await page.getByRole('button', { name: 'Delete site…' }).click();
  assert.equal((await s.api('GET', '/api/v1/sites/www')).status, 200, 'nothing is deleted before the confirmation');
  await page.getByRole('button', { name: 'Yes, delete www' }).click();
  await page.getByRole('heading', { name: 'Sites' }).waitFor();
  assert.equal((await s.api('GET', '/api/v1/sites/www')).status, 404);
  await edgeAnswers(s.httpPort, 'www.git.test', '/', (a) => a.status !== 200);
});
