// The stack page's Previews tab in a real Chromium: each preview's link, commit and status, settings saved, and a preview removed with its button.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { cleanupProjects, createStack, uniqueName, waitJob } from '../git/helpers.ts';
import { addUser, launch, shot, signedIn, unnamed } from '../portal/helpers.ts';
import { leftovers, startPreviewServer, type PreviewServer } from './helpers.ts';

let s: PreviewServer;
let browser: Browser;
let page: Page;
const name = uniqueName('pvp');

before(async () => {
  s = await startPreviewServer([], { portal: true });
  await createStack(s, name, `services:
  web:
    image: dockwright-test/web:1
    labels:
      dockwright.http.host: "${name}.app.test"
      dockwright.http.port: "8080"
`);
  await s.api('PUT', `/api/v1/stacks/${name}/previews`, { body: { enabled: true, hostname: '{key}.{stack}.preview.test' } });
  const res = await s.api('PUT', `/api/v1/stacks/${name}/previews/demo`, { body: {} });
  assert.equal((await waitJob(s, res.body.jobId)).status, 'succeeded');
  await addUser(s, 'ada', 'admin');
  browser = await launch();
  page = await signedIn(browser, s, 'ada');
});
after(async () => {
  await browser?.close();
  await s?.close();
  await cleanupProjects(name, `${name}-demo`);
});

test('the Previews tab lists each preview with its link and status; settings save; Remove removes it', async () => {
  await page.goto(`/stacks/${name}`);
  await page.getByRole('link', { name: 'Previews' }).click();
  await page.getByRole('heading', { name: `Previews of ${name}` }).waitFor();
  const row = page.getByTestId('previews').getByRole('row', { name: /demo/ });
  await row.getByRole('link', { name: `http://demo.${name}.preview.test` }).waitFor();
  assert.match(await row.innerText(), /running/);
  assert.deepEqual(await unnamed(page), []);

  await page.getByLabel('Most previews at once').fill('3');
  await page.getByRole('button', { name: 'Save settings' }).click();
  const saved = async () => (await s.api('GET', `/api/v1/stacks/${name}/previews`)).body.maxActive;
  for (let i = 0; i < 100 && (await saved()) !== 3; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(await saved(), 3);
  await shot(page, 'previews-tab');

  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Remove demo' }).click();
  await page.getByText('No previews.').waitFor({ timeout: 60_000 });
  assert.deepEqual(await leftovers(`${name}-demo`), { containers: [], networks: [], volumes: [] });
});
