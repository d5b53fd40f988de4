// The releases page of the portal in a real Chromium: releases listed, Rollback confirmed after seeing the difference, the job's output shown; the updates table.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { addUser, launch, shot, signedIn, unnamed } from '../portal/helpers.ts';
import { act, cleanupProjects, createStack, uniqueName } from './helpers.ts';

const stack = uniqueName('relp');
let server: TestServer;
let browser: Browser;
let page: Page;

before(async () => {
  server = await startServer({
    plugins: { docker: { options: { reconcile: false, stopTimeoutSeconds: 1 } }, containers: {}, stacks: {}, alerts: {}, registries: {}, releases: {}, portal: {} },
  });
  await addUser(server, 'ada', 'admin');
  browser = await launch();
  page = await signedIn(browser, server, 'ada');
});
after(async () => {
  await browser?.close();
  await cleanupProjects(stack);
  await server?.close();
});

test('the releases page: a rollback shows the difference before it runs, then its job', async () => {
  await createStack(server, stack, 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n');
  await act(server, 'deploy', stack);
  await server.api('PUT', `/api/v1/stacks/${stack}/compose`, { body: { content: 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3601"]\n', revision: 1 } });
  await act(server, 'deploy', stack);

  await page.goto(`/stacks/${stack}`);
  await page.getByRole('link', { name: 'Releases' }).click();
  await page.getByRole('heading', { name: `Releases of ${stack}` }).waitFor();
  await page.getByText('Not checked yet.').waitFor();
  assert.deepEqual(await unnamed(page), []);
  assert.equal(await page.getByRole('button', { name: 'Roll back to release 2' }).count(), 0, 'the current release has no rollback');
  await page.getByRole('button', { name: 'Roll back to release 1' }).click();
  const dialog = page.getByRole('dialog', { name: 'Roll back to release 1?' });
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /revision 1 instead of 2/);
  await shot(page, 'releases-confirm');
  await dialog.getByRole('button', { name: 'Roll back', exact: true }).click();
  await page.getByTestId('job-output').getByText(/rolling .* back to release 1/).waitFor();
  await page.getByRole('cell', { name: 'rollback to #1 revision 1' }).waitFor({ timeout: 60_000 });
  const releases = (await server.api('GET', `/api/v1/stacks/${stack}/releases`)).body;
  assert.deepEqual([releases[0].kind, releases[0].rolledBackTo], ['rollback', 1]);
});
