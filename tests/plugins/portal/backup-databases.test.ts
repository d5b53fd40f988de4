// The Databases tab of a backup in a real Chromium against a real PostgreSQL service and restic: its target's strategy, snapshots "not verified" until Verify proves them, then "verified"; a restore as a download shows its one-time link.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { eventually, startServer, type TestServer } from '../../helpers/harness.ts';
import { act, cleanupProjects, containerOf, createStack, runJob, uniqueName } from '../backups/helpers.ts';
import { addUser, launch, shot, signedIn, unnamed } from './helpers.ts';

const run = promisify(execFile);
let s: TestServer;
let browser: Browser;
let page: Page;
const stack = uniqueName('pdb');

before(async () => {
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: { docker: { options: { reconcile: false, stopTimeoutSeconds: 1 } }, stacks: {}, backups: { options: { progressIntervalMs: 0, readyTimeoutMs: 60_000 } }, portal: {} },
  });
  await createStack(s, stack, `services:\n  db:\n    image: dockwright-test/postgres:15\n    environment:\n      POSTGRES_USER: shop\n      POSTGRES_PASSWORD: portal-db-password-1\n      POSTGRES_DB: shop\n`);
  await act(s, 'deploy', stack);
  const psql = async (sql: string) => run('docker', ['exec', (await containerOf(stack, 'db'))!.Id, 'psql', '-X', '-U', 'shop', '-d', 'shop', '-Atc', sql]);
  await eventually(() => psql('SELECT 1').then(() => true, () => false), 60_000, 'postgres ready', 300);
  await psql('CREATE TABLE orders (id int); INSERT INTO orders SELECT generate_series(1, 7)');
  assert.equal((await s.api('PUT', '/api/v1/backups/shopdb', { body: { targets: { databases: [{ stack, service: 'db' }] } } })).status, 201);
  await runJob(s, '/api/v1/backups/shopdb/run');
  await addUser(s, 'ada', 'admin');
  browser = await launch();
  page = await signedIn(browser, s, 'ada');
});

after(async () => {
  await browser?.close();
  await s?.close();
  await cleanupProjects(stack);
});

test('the Databases tab: the strategy, "not verified", Verify, then "verified"; a download restore shows its link', async () => {
  await page.goto('/backups/shopdb/databases');
  const targets = page.getByTestId('database-targets');
  await targets.getByText('postgres', { exact: true }).waitFor();
  await targets.getByText(/suggested: the image dockwright-test\/postgres:15 is PostgreSQL/).waitFor();
  const snaps = page.getByTestId('database-snapshots');
  await snaps.getByTestId('not-verified').first().waitFor();
  assert.equal(await snaps.getByTestId('verified').count(), 0);
  assert.deepEqual(await unnamed(page), [], 'every control has a name');
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.locator('.job .status-succeeded').waitFor({ timeout: 120_000 });
  assert.match(await page.getByTestId('job-output').innerText(), /shop: table public\.orders: 7 rows/);
  await snaps.getByTestId('verified').first().waitFor();
  assert.equal(await snaps.getByTestId('not-verified').count(), 0, 'both databases of the run are verified');
  await shot(page, 'backup-databases-verified');

  const shopRow = snaps.locator('tr', { hasText: 'shop' }).filter({ has: page.getByRole('cell', { name: 'shop', exact: true }) });
  await shopRow.getByRole('button', { name: /^Restore snapshot/ }).click();
  await page.getByLabel('Restore into').selectOption('download');
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  const button = page.getByRole('button', { name: 'Download shop' });
  await button.waitFor({ timeout: 60_000 });
  assert.match((await button.getAttribute('data-path'))!, /^\/api\/v1\/backups\/shopdb\/downloads\/[A-Za-z0-9_-]{16,64}$/);
  // saved by the browser with the session (and its CSRF header): a pg_dump custom archive, which starts with PGDMP
  const [saved] = await Promise.all([page.waitForEvent('download'), button.click()]);
  const chunks: Buffer[] = [];
  for await (const c of (await saved.createReadStream())!) chunks.push(c as Buffer);
  assert.equal(Buffer.concat(chunks).subarray(0, 5).toString(), 'PGDMP');
  await page.getByRole('button', { name: 'Downloaded shop' }).waitFor();
  await shot(page, 'backup-databases-download');
});
