// The backups pages in a real Chromium against the real service, PostgreSQL and restic: define a backup in the form, run it, read its history, browse a snapshot's folders, restore a file into a folder, edit the schedule and retention; no raw JSON.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { waitJob } from '../stacks/helpers.ts';
import { addUser, launch, shot, signedIn, unnamed } from './helpers.ts';

let s: TestServer;
let browser: Browser;
let page: Page;

before(async () => {
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: { docker: { options: { reconcile: false } }, stacks: {}, backups: { options: { progressIntervalMs: 0 } }, portal: {} },
  });
  await addUser(s, 'ada', 'admin');
  await addUser(s, 'victor', 'viewer');
  browser = await launch();
  page = await signedIn(browser, s, 'ada');
});

after(async () => {
  await browser?.close();
  await s?.close();
});

/** no answer of the API pasted as JSON: no `{"` in the page's text */
const rawJson = (p: Page) => p.evaluate(() => /\{\s*"/.test(document.querySelector('main')?.innerText ?? ''));

test('define a backup in the form: a refused schedule shows its message; the database target, then listed', async () => {
  await page.goto('/backups');
  await page.getByRole('link', { name: 'New backup' }).click();
  await page.getByRole('heading', { name: 'New backup' }).waitFor();
  assert.deepEqual(await unnamed(page), [], 'every control of the form has a name');
  await page.getByLabel('Name (lowercase letters, digits and -)').fill('nightly');
  await page.getByLabel("Dockwright's own database").check();
  await page.getByLabel(/^Schedule/).fill('*/5 * * * * *');
  await page.getByRole('button', { name: 'Create backup' }).click();
  await page.getByRole('alert').getByText(/minute-grained/).first().waitFor();
  assert.equal((await s.api('GET', '/api/v1/backups/nightly')).status, 404, 'nothing saved');
  await page.getByLabel(/^Schedule/).fill('');
  await page.getByLabel('last', { exact: true }).fill('3');
  await page.getByRole('button', { name: 'Create backup' }).click();
  await page.getByRole('heading', { name: /nightly/ }).waitFor();
  const defined = await s.api('GET', '/api/v1/backups/nightly');
  assert.equal(defined.status, 200);
  assert.deepEqual(defined.body.targets, { stacks: [], database: true });
  assert.deepEqual(defined.body.retention, { last: 3 });
  assert.equal(defined.body.schedule, null);
});

test('run now: the output as it runs, then the history in words', async () => {
  await page.goto('/backups/nightly');
  await page.getByRole('button', { name: 'Run now' }).click();
  await page.locator('.job .status-succeeded').waitFor({ timeout: 120_000 });
  const history = page.getByTestId('history');
  await history.getByText(/snapshot [0-9a-f]{8}, 1 files/).waitFor();
  assert.equal(await rawJson(page), false, 'no raw JSON on the backup page');
  await shot(page, 'backup-runs');
  await page.goto('/backups');
  await page.getByTestId('backups').getByText("Dockwright's database").waitFor();
  assert.equal(await rawJson(page), false, 'no raw JSON in the list');
});

test("browse a snapshot's folders and restore one file into a folder", async () => {
  await page.goto('/backups/nightly/snapshots');
  await page.getByRole('button', { name: /^Browse snapshot/ }).first().click();
  await page.getByRole('button', { name: 'Open folder /database' }).click();
  await page.getByTestId('snapshot-files').getByText('dockwright.dump').waitFor();
  await page.getByLabel('Choose /database/dockwright.dump for a restore').check();
  await page.getByLabel('Restore into').selectOption('folder');
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await page.locator('.job .status-succeeded').waitFor({ timeout: 120_000 });
  const jobs = await s.api('GET', '/api/v1/jobs?resource=backup:nightly&type=backups.restore');
  const job = await waitJob(s, jobs.body[0].id);
  assert.ok(existsSync(join(job.result.folder, 'database', 'dockwright.dump')), 'the chosen file was restored');
  assert.equal(await rawJson(page), false);
  await shot(page, 'backup-restore');
});

test('edit the definition: schedule and retention saved; a viewer sees no write control', async () => {
  await page.goto('/backups/nightly/definition');
  await page.getByLabel(/^Schedule/).fill('@daily');
  await page.getByLabel('daily', { exact: true }).fill('7');
  await page.getByLabel('Consistency').selectOption('stop');
  await page.getByRole('button', { name: 'Save backup' }).click();
  await page.getByRole('status').getByText('Saved.').waitFor();
  const b = (await s.api('GET', '/api/v1/backups/nightly')).body;
  assert.equal(b.schedule, '@daily');
  assert.deepEqual(b.retention, { last: 3, daily: 7 });
  assert.equal(b.consistency, 'stop');

  const viewer = await signedIn(browser, s, 'victor');
  await viewer.goto('/backups/nightly');
  await viewer.getByTestId('history').waitFor();
  assert.equal(await viewer.getByRole('button', { name: 'Run now' }).count(), 0);
  assert.equal(await viewer.getByRole('link', { name: 'New backup' }).count(), 0);
  await viewer.goto('/backups/nightly/definition');
  await viewer.getByText('Your role cannot change backups.').waitFor();
  await viewer.context().close();
});
