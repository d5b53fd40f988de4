// The overview and jobs pages read like a product, in a real Chromium against the real service, PostgreSQL and Docker: first steps on an empty installation, cards in sentences (no key: value dumps), attention items linked to the page that fixes them, recent deploys, jobs with duration and who started them, the service's own jobs behind a filter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { eventually, startServer, type TestServer } from '../../helpers/harness.ts';
import { startReceiver, type Receiver } from '../alerts/helpers.ts';
import { cleanupProjects, uniqueName } from '../edge/helpers.ts';
import { tgz } from '../git/archives.ts';
import { addUser, collectErrors, launch, shot, signedIn } from './helpers.ts';

let s: TestServer;
let rx: Receiver;
let browser: Browser;
let page: Page;
let held: Server;
const stack = uniqueName('ovw');
const errors: string[] = [];

before(async () => {
  rx = await startReceiver();
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: { docker: { options: { reconcile: false } }, stacks: {}, git: {}, containers: {}, alerts: { options: { retry: { attempts: 1, backoffMs: 20, maxBackoffMs: 20 } } }, portal: {} },
  });
  await addUser(s, 'ada', 'admin');
  browser = await launch();
  page = await signedIn(browser, s, 'ada', { width: 1400, height: 900 });
  collectErrors(page, errors);
});

after(async () => {
  await browser?.close();
  await cleanupProjects(stack);
  await s?.close();
  await rx?.close();
  held?.close();
});

/** the page's visible text: no card may read like `engine: reachable: true` */
async function noDumps(p: Page): Promise<void> {
  const text = await p.locator('main').innerText();
  assert.doesNotMatch(text, /\b\w+: (true|false)\b/, 'no raw key: boolean pairs');
  assert.doesNotMatch(text, /[{}]/, 'no JSON');
}

test('an empty installation leads to its first stack, and its cards read as sentences', async () => {
  await page.goto('/');
  const first = page.getByTestId('first-steps');
  await first.waitFor();
  assert.match(await first.innerText(), /Deploy your first stack/);
  await page.getByTestId('card-docker').waitFor();
  assert.match(await page.getByTestId('card-docker').innerText(), /Docker \d+[\d.]*.*states followed live/s);
  assert.match(await page.getByTestId('card-docker').innerText(), /free on the engine's disk/, "the engine's disk beside the data folder's");
  assert.match(await page.getByTestId('card-stacks').innerText(), /No stacks yet/);
  assert.match(await page.getByTestId('host').innerText(), /memory free/);
  await noDumps(page);
  await shot(page, 'overview-empty');
  await first.getByRole('link', { name: 'New stack' }).click();
  await page.waitForURL('**/stacks-new');
});

test('a failed deploy is an attention item linked to its stack, and a recent deploy with who started it and how long it took', async () => {
  // a port held by this test: the engine cannot publish it, so the deploy fails (no image is pulled)
  held = createServer();
  await new Promise<void>((r) => held.listen(0, '127.0.0.1', () => r()));
  const port = (held.address() as { port: number }).port;
  const compose = `services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "600"]\n    ports: ["127.0.0.1:${port}:80"]\n`;
  assert.equal((await s.api('PUT', `/api/v1/stacks/${stack}/compose`, { body: { content: compose }, headers: { 'If-None-Match': '*' } })).status, 200);
  const job = await s.api('POST', `/api/v1/stacks/${stack}/deploy`);
  assert.equal(job.status, 202, job.text);
  const done = await s.api('GET', `/api/v1/jobs/${job.body.id}/wait?timeout=60`);
  assert.equal(done.body.status, 'failed', done.text);

  await page.goto('/');
  const item = page.getByTestId('attention').locator('li', { hasText: stack });
  await item.waitFor();
  assert.match(await item.innerText(), /the last deploy of .* failed/);
  await page.getByTestId('recent-deploys').getByRole('link', { name: stack }).waitFor();
  const row = await page.getByTestId('recent-deploys').locator('tbody tr').first().innerText();
  assert.match(row, /failed/);
  assert.match(row, /admin\S* \(API\)/, 'who started it, and how');
  assert.match(row, /\d+ (ms|s)/, 'how long it took');
  assert.match(await page.getByTestId('card-stacks').innerText(), /1 failed to deploy/);
  await noDumps(page);
  await shot(page, 'overview-failed-deploy');
  await item.getByRole('link', { name: /Open stack/ }).click();
  await page.waitForURL(`**/stacks/${stack}`);
});

test("the jobs list leaves the service's own deliveries out unless asked, in the API and the page", async () => {
  const channel = await s.api('POST', '/api/v1/alerts/channels', { body: { kind: 'webhook', name: 'hook', config: { url: `${rx.url}/hook` } } });
  assert.equal(channel.status, 201, channel.text);
  // an alert raised by an event is delivered by a job of the service's own
  s.app.services.events.emit('backup.failed', { backup: 'nightly', jobId: '00000000-0000-0000-0000-000000000001' });
  await eventually(async () => (await s.api('GET', '/api/v1/jobs?internal=true')).body.some((j: { status: string }) => j.status === 'succeeded'), 10_000, 'the delivery job ran');

  const types = async (query: string) => new Set((await s.api('GET', `/api/v1/jobs${query}`)).body.map((j: { type: string }) => j.type));
  assert.deepEqual([...await types('?internal=true')], ['alerts.deliver']);
  assert.deepEqual([...await types('?internal=false')], ['stacks.deploy']);
  assert.deepEqual([...await types('')].sort(), ['alerts.deliver', 'stacks.deploy'], 'without the filter: every job, as before');
  assert.equal((await s.api('GET', '/api/v1/jobs?internal=maybe')).status, 400);

  await page.goto('/jobs');
  const table = page.getByTestId('jobs');
  await table.getByText('stacks deploy').waitFor();
  assert.equal(await table.getByText('alerts deliver').count(), 0, 'deliveries hidden by default');
  assert.match(await table.innerText(), /admin\S* \(API\)/);
  await page.getByLabel(/background jobs/).check();
  await table.getByText('alerts deliver').first().waitFor();
  assert.match(await table.innerText(), /Dockwright/, 'a delivery is started by the service itself');
  await shot(page, 'jobs');
  assert.deepEqual(errors, [], 'no page error or console error');
  assert.deepEqual([...await types('?internal=0')].sort(), ['stacks.deploy'], 'query booleans as 0 and 1 too');
});

test("a stack's services show image, uptime and ports; a container opens by its name with the actions its state allows; an uploaded source offers no git actions", async () => {
  const name = `${stack}u`;
  const port = (await new Promise<number>((r) => { const srv = createServer(); srv.listen(0, '127.0.0.1', () => { const p = (srv.address() as { port: number }).port; srv.close(() => r(p)); }); }));
  const compose = `services:\n  web:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "600"]\n    ports: ["127.0.0.1:${port}:80"]\n`;
  assert.equal((await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: 'services:\n  x:\n    image: dockwright-test/busybox:1\n' }, headers: { 'If-None-Match': '*' } })).status, 200);
  const upload = await s.api('PUT', `/api/v1/stacks/${name}/source/upload`, { raw: new Uint8Array(tgz([{ name: 'compose.yaml', content: compose }])), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(upload.status, 200, upload.text);
  const job = await s.api('POST', `/api/v1/stacks/${name}/deploy`);
  assert.equal((await s.api('GET', `/api/v1/jobs/${job.body.id}/wait?timeout=60`)).body.status, 'succeeded');
  try {
    await page.goto(`/stacks/${name}`);
    const row = page.getByTestId('services').locator('tbody tr', { hasText: 'web' });
    await row.getByText(/^Up /).waitFor();
    const text = await row.innerText();
    assert.match(text, /dockwright-test\/busybox:1 \([0-9a-f]{12}\)/, 'the tag and the short id of the image behind it');
    assert.match(text, new RegExp(`127\\.0\\.0\\.1:${port}→80/tcp`), 'the published port');
    await shot(page, 'stack-services');

    const container = `${name}-web-1`;
    await page.goto(`/containers/${container}`);
    await page.getByRole('heading', { name: `Container ${container}` }).waitFor();
    await page.getByRole('button', { name: 'Stop', exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Start', exact: true }).count(), 0, 'no Start on a running container');
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByRole('button', { name: 'Start', exact: true }).waitFor({ timeout: 30_000 });
    assert.equal(await page.getByRole('button', { name: 'Stop', exact: true }).count(), 0);
    await page.goto('/containers/no-such-container');
    await page.getByText(/No container no-such-container here/).waitFor();

    await page.goto(`/stacks/${name}/source`);
    await page.getByTestId('source').getByText('an uploaded archive (tar.gz)').waitFor();
    assert.equal(await page.getByRole('button', { name: /Check for new commits|Unpin|^Pin$/ }).count(), 0, 'no git action on an uploaded source');
    await noDumps(page);
    await shot(page, 'stack-source-upload');
  } finally {
    await cleanupProjects(name);
  }
});
