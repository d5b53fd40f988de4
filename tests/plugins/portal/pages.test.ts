// Every page of the portal in a real Chromium, as an admin: it renders with its heading, every control has a name, the keyboard reaches the content; registries and backups pages work.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { addUser, launch, shot, signedIn, unnamed } from './helpers.ts';

let server: TestServer;
let browser: Browser;
let page: Page;

before(async () => {
  server = await startServer({
    plugins: { docker: { options: { reconcile: false } }, containers: {}, stacks: {}, git: {}, registries: {}, backups: {}, portal: {} },
  });
  await addUser(server, 'ada', 'admin');
  browser = await launch();
  page = await signedIn(browser, server, 'ada');
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('every page in the navigation renders its heading and names every control', async () => {
  const nav = page.getByRole('navigation', { name: 'Main' });
  const titles = await nav.getByRole('link').allInnerTexts();
  assert.deepEqual(titles, ['Overview', 'Stacks', 'Containers', 'Backups', 'Activity', 'Users', 'Settings'],
    'Volumes, Images and Registries join Containers; Jobs joins Activity; Teams and Tokens join Users; Plugins joins Settings');
  const checkPage = async (title: string) => {
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.waitForFunction(() => !document.querySelector('[role=status]')?.textContent?.includes('Loading'));
    assert.deepEqual(await unnamed(page), [], `${title}: every control has a name`);
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'H1', `${title}: the focus moves to the new page's heading`);
  };
  const section = page.getByRole('navigation', { name: 'Section' });
  for (const title of titles) {
    await nav.getByRole('link', { name: title }).click();
    await checkPage(title);
    // the other pages of its group, through the links above the page
    const others = (await section.getByRole('link').allInnerTexts()).filter((other) => other !== title);
    for (const other of others) {
      await section.getByRole('link', { name: other, exact: true }).click();
      await checkPage(other);
    }
  }
  await page.goto('/account');
  await page.getByRole('heading', { name: 'Account' }).waitFor();
  assert.deepEqual(await unnamed(page), []);
});

test('the keyboard: a new page starts at its heading, Tab moves on into the content; the skip link comes first and jumps to it', async () => {
  await page.goto('/stacks');
  await page.getByRole('heading', { name: 'Stacks' }).waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Stacks');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'New stack', 'the next stop after the heading is the page\'s own control');
  assert.equal(await page.evaluate(() => document.querySelector('a[href], button, input, select, textarea')?.textContent), 'Skip to content');
  await page.getByRole('link', { name: 'Skip to content' }).focus();
  await page.keyboard.press('Enter');
  assert.equal(new URL(page.url()).hash, '#main');
});

test('registry logins: add one (its password never shown again) and remove it', async () => {
  await page.goto('/registries');
  await page.getByRole('heading', { name: 'Registry logins' }).waitFor();
  await page.getByLabel('Registry host').fill('127.0.0.1:5000');
  await page.getByLabel('User name').fill('portal-test');
  await page.getByLabel('Password or token').fill('not-a-real-secret');
  await page.getByRole('button', { name: 'Save login' }).click();
  await page.getByRole('cell', { name: '127.0.0.1:5000', exact: true }).waitFor();
  assert.ok(!(await page.content()).includes('not-a-real-secret'));
  await shot(page, 'registries');
  await page.getByRole('button', { name: 'Remove login for 127.0.0.1:5000' }).click();
  await page.getByText('No registry logins').waitFor();
});

test('backups: a defined backup is listed and its page shows it', async () => {
  const defined = await server.api('PUT', '/api/v1/backups/nightly', { body: { targets: { database: true }, schedule: null } });
  assert.ok(defined.status < 300, defined.text);
  await page.goto('/backups');
  await page.getByRole('link', { name: 'nightly' }).click();
  await page.getByRole('heading', { name: 'Backup nightly' }).waitFor();
  await page.getByRole('button', { name: 'Run now' }).waitFor();
  await shot(page, 'backup');
});
