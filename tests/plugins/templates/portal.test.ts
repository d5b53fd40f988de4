// The templates pages in a real Chromium: the gallery searched and filtered, a form built from the typed variables, a deploy with its instructions, and the sources page with each source's error.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { addUser, collectErrors, launch, nav, shot, signedIn, unnamed } from '../portal/helpers.ts';
import { cleanupProjects, docker, uniqueName, waitJob } from '../stacks/helpers.ts';

const folder = mkdtempSync(join(tmpdir(), 'dw-portal-templates-'));
const stack = uniqueName('tplui');
let s: TestServer;
let browser: Browser;
let page: Page;
const errors: string[] = [];

before(async () => {
  writeFileSync(join(folder, 'demo.yaml'), `x-dockwright:
  id: demo
  name: Demo box
  version: "1.0.0"
  description: A busybox that keeps a generated password
  categories: [testing]
  instructions: "Open https://\${HOST}; the password is the hidden variable PASSWORD."
  variables:
    HOST: { type: hostname, description: where it answers }
    SIZE: { type: enum, values: [small, large], default: small }
    PORT: { type: port, default: "8080", range: [1024, 9000] }
    PASSWORD: { type: secret, generate: "password:24" }
services:
  app:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    environment: { PASSWORD: "\${PASSWORD}", SIZE: "\${SIZE}", PORT: "\${PORT}" }
    labels: { dockwright.http.host: "\${HOST}" }
`);
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: {
      docker: { options: { stopTimeoutSeconds: 1, reconcile: false } }, stacks: {}, git: {}, portal: {},
      templates: { options: { folders: [{ name: 'mine', path: folder }] } },
    },
  });
  await s.api('POST', '/api/v1/templates/sources', { body: { name: 'broken', url: 'https://127.0.0.1:9/none/' }, unchecked: true });
  await addUser(s, 'alice', 'admin');
  browser = await launch();
  page = await signedIn(browser, s, 'alice');
  collectErrors(page, errors);
});
after(async () => {
  await browser?.close();
  await cleanupProjects(stack);
  await s?.close();
  rmSync(folder, { recursive: true, force: true });
});

test('the gallery: every template as a tile, searched by words and filtered by category', async () => {
  await nav(page, 'Templates');
  const tiles = page.getByTestId('templates').locator('.card-tile');
  await tiles.first().waitFor();
  assert.ok((await tiles.count()) >= 26, 'the bundled catalogue and the folder');
  await shot(page, 'templates-gallery');
  await page.getByLabel('Search').fill('busybox password');
  assert.equal(await tiles.count(), 1);
  await page.getByLabel('Search').fill('');
  await page.getByLabel('Category').selectOption('database');
  const names = await tiles.locator('h3').allTextContents();
  assert.ok(names.some((n) => n.startsWith('PostgreSQL')) && !names.some((n) => n.startsWith('Demo box')), names.join(', '));
  assert.deepEqual(await unnamed(page), []);
});

test('a form built from the typed variables deploys, shows the instructions and the job, and never the generated password', async () => {
  await page.goto('/templates/mine/demo');
  const form = page.getByTestId('deploy-form');
  await form.waitFor();
  assert.equal(await form.getByLabel(/^SIZE/).evaluate((e) => e.tagName), 'SELECT');
  assert.equal(await form.getByLabel(/^PORT/).getAttribute('type'), 'number');
  assert.equal(await form.getByLabel(/^PORT/).getAttribute('max'), '9000');
  assert.equal(await form.getByLabel(/^PASSWORD/).getAttribute('type'), 'password');
  assert.equal(await form.getByLabel(/^HOST/).getAttribute('required'), '');
  assert.deepEqual(await unnamed(page), []);
  await form.getByLabel('Stack name').fill(stack);
  await form.getByLabel(/^HOST/).fill('demo.example.test');
  await shot(page, 'templates-form');
  await form.getByRole('button', { name: 'Deploy Demo box' }).click();
  await page.getByTestId('instructions').waitFor();
  assert.equal(await page.getByTestId('instructions').textContent(), 'Open https://demo.example.test; the password is the hidden variable PASSWORD.');
  const jobs = await s.api('GET', `/api/v1/jobs?limit=5`);
  const job = jobs.body.find((j: any) => j.type === 'stacks.deploy');
  assert.equal((await waitJob(s, job.id)).status, 'succeeded');
  await page.getByText('succeeded').first().waitFor();
  await shot(page, 'templates-deployed');
  const [c] = await docker.listContainers({ filters: { label: [`dockwright.project=${stack}`] } });
  const password = ((await docker.getContainer(c.Id).inspect()).Config.Env as string[]).find((e) => e.startsWith('PASSWORD='))!.slice('PASSWORD='.length);
  assert.ok(!(await page.content()).includes(password));
});

test('the sources page shows each source with its own error', async () => {
  await nav(page, 'Template sources', 'Templates');
  await page.getByTestId('sources').waitFor();
  assert.match((await page.getByTestId('source-error-broken').textContent()) ?? '', /refused|127\.0\.0\.1/);
  assert.deepEqual(await unnamed(page), []);
  await shot(page, 'templates-sources');
  assert.deepEqual(errors, []);
});
