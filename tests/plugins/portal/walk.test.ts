// Every page of the portal in a real Chromium with every plugin on (edge with a real Caddy, sites, backups, alerts, certificates): no JavaScript error, no raw JSON; the Edge page's links, hostnames on stack and site pages, the nav on one line, the stack list's order, a crashed stack shown as down, the host on the overview.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '../../helpers/harness.ts';
import { docker } from '../docker/helpers.ts';
import { act, cleanupProjects, createStack, uniqueName, webCompose } from '../edge/helpers.ts';
import { edgeAnswers, edgeRunning, startSitesServer, type SitesServer } from '../sites/helpers.ts';
import { addUser, collectErrors, launch, shot, signedIn } from './helpers.ts';

let s: SitesServer;
let browser: Browser;
let page: Page;
const stack = uniqueName('walk');
const host = `${stack}.stacks.test`;
/** uncaught errors and console errors of every page walked (a failed request the page shows as a problem is not one) */
const errors: string[] = [];

before(async () => {
  s = await startSitesServer({
    more: {
      containers: {}, registries: {}, alerts: {}, portal: {},
      stacks: { options: { templates: { hello: { description: 'a greeting', compose: 'services:\n  app:\n    image: dockwright-test/busybox:1\n    environment: { MESSAGE: "${MESSAGE}" }\n', inputs: { properties: { MESSAGE: { type: 'string', title: 'Message' } }, required: ['MESSAGE'] } } } } },
      // never asked in this test: an ACME directory on a closed loopback port
      certificates: { options: { directoryUrl: 'https://127.0.0.1:9/dir', sweepIntervalMs: 3_600_000 } },
    },
  });
  await edgeRunning(s);
  await createStack(s, stack, webCompose(host));
  await act(s, 'deploy', stack);
  for (const name of ['ac10', 'ac2', 'ac1']) await createStack(s, name, 'services:\n  app:\n    image: dockwright-test/busybox:1\n');
  const site = await s.api('PUT', '/api/v1/sites/blog', { body: { hostnames: ['blog.sites.test'] } });
  assert.equal(site.status, 201, site.text);
  const backup = await s.api('PUT', '/api/v1/backups/nightly', { body: { targets: { stacks: [stack] }, schedule: '@daily', retention: { last: 2 } } });
  assert.equal(backup.status, 201, backup.text);
  await addUser(s, 'ada', 'admin');
  await addUser(s, 'vic', 'viewer');
  browser = await launch();
  page = await signedIn(browser, s, 'ada', { width: 1400, height: 900 });
  collectErrors(page, errors);
});

after(async () => {
  await browser?.close();
  await cleanupProjects(stack);
  await s?.close();
});

/** the page's own text shows no answer of the API as JSON */
async function noRawJson(p: Page, where: string): Promise<void> {
  const text = await p.evaluate(() => document.querySelector('main')?.innerText ?? '');
  assert.ok(!/[[{]\s*"[^"]*"\s*:/.test(text), `${where}: raw JSON on the page:\n${text.slice(0, 2000)}`);
}

async function settled(p: Page): Promise<void> {
  await p.getByRole('heading', { level: 1 }).waitFor();
  await p.waitForFunction(() => ![...document.querySelectorAll('[role=status]')].some((e) => e.textContent?.includes('Loading')));
}

test('the navigation fits one line at 1400 px, and every page in it and its groups renders without an error or raw JSON', async () => {
  const nav = page.getByRole('navigation', { name: 'Main' });
  const tops = await nav.getByRole('link').evaluateAll((links) => links.map((l) => (l as HTMLElement).getBoundingClientRect().top));
  assert.equal(new Set(tops).size, 1, `one line of links at 1400 px (tops ${tops.join(', ')})`);
  const headerHeight = await page.locator('header.top').evaluate((h) => h.getBoundingClientRect().height);
  assert.ok(headerHeight < 70, `the header is one line high (${headerHeight} px)`);
  await shot(page, 'walk-overview-1400');
  const titles = await nav.getByRole('link').allInnerTexts();
  assert.deepEqual(titles, ['Overview', 'Stacks', 'Containers', 'Sites', 'Edge', 'Backups', 'Alerts', 'Activity', 'Users', 'Settings']);
  for (const title of titles) {
    await nav.getByRole('link', { name: title, exact: true }).click();
    await settled(page);
    await noRawJson(page, title);
    // the other pages of its group
    for (const other of await page.getByRole('navigation', { name: 'Section' }).getByRole('link').allInnerTexts()) {
      await page.getByRole('navigation', { name: 'Section' }).getByRole('link', { name: other, exact: true }).click();
      await settled(page);
      await noRawJson(page, other);
    }
  }
  assert.deepEqual(errors, []);
});

test('every other page: a stack, site and backup with each tab, a container, a job, the forms, the account', async () => {
  const container = (await s.api('GET', '/api/v1/containers')).body.find((c: any) => c.project === stack);
  const job = (await s.api('GET', '/api/v1/jobs?limit=1')).body[0];
  const paths = [
    ...['', '/compose', '/variables', '/settings', '/resources', '/revisions', '/webhook', '/access', '/source'].map((t) => `/stacks/${stack}${t}`),
    ...['', '/versions', '/files', '/draft', '/webhook'].map((t) => `/sites/blog${t}`),
    ...['', '/snapshots', '/definition'].map((t) => `/backups/nightly${t}`),
    `/containers/${container.id}`, `/jobs/${job.id}`, '/stacks-new', '/sites-new', '/backups-new', '/alert-channels', '/teams', '/tokens', '/account', '/overview',
  ];
  for (const path of paths) {
    await page.goto(path);
    await settled(page);
    await noRawJson(page, path);
  }
  assert.deepEqual(errors, []);
});

test('the Edge page: each hostname with its owner, state and a link that opens it, with the edge\'s port', async () => {
  await page.goto('/edge');
  const table = page.getByTestId('edge-hostnames');
  const link = table.getByRole('link', { name: `http://${host}:${s.httpPort}/` });
  await link.waitFor();
  assert.equal(await link.getAttribute('href'), `http://${host}:${s.httpPort}/`);
  await table.getByRole('link', { name: `stack ${stack}` }).waitFor();
  await table.getByRole('link', { name: 'site blog' }).first().waitFor();
  await table.getByRole('link', { name: `http://blog.sites.test:${s.httpPort}/` }).waitFor();
  // the link's address is the one the edge answers on
  await edgeAnswers(s.httpPort, host, '/', (a) => a.status === 200);
  await shot(page, 'edge');

  await page.goto(`/stacks/${stack}`);
  await page.getByTestId('hostnames').getByRole('link', { name: `http://${host}:${s.httpPort}/` }).waitFor();
  await page.goto('/sites/blog');
  await page.getByTestId('hostnames').getByRole('link', { name: `http://blog.sites.test:${s.httpPort}/` }).waitFor();
  await page.goto('/sites/blog/draft');
  await page.getByRole('link', { name: `http://draft--blog.preview.test:${s.httpPort}/` }).waitFor();

  // a viewer (no edge:read) gets the same links on the pages it may read, from GET /edge/links
  const viewer = await signedIn(browser, s, 'vic');
  await viewer.goto(`/stacks/${stack}`);
  await viewer.getByTestId('hostnames').getByRole('link', { name: `http://${host}:${s.httpPort}/` }).waitFor();
  await viewer.goto('/sites/blog');
  await viewer.getByTestId('hostnames').getByRole('link', { name: `http://blog.sites.test:${s.httpPort}/` }).waitFor();
  assert.equal(await viewer.getByTestId('hostnames').getByRole('link').count(), 1, "the site's own hostnames, not its preview");
  assert.equal(await viewer.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Edge' }).count(), 0);
  await viewer.context().close();
  const links = await s.api('GET', '/api/v1/edge/links', { token: s.admin });
  assert.deepEqual(links.body.find((l: any) => l.hostname === host), { hostname: host, owner: `stack:${stack}`, url: `http://${host}:${s.httpPort}/`, https: false, routed: true });
});

test('the stack list sorts naturally; a stack\'s resource use as plots; a stack whose container crashed is down; the overview shows the host', async () => {
  await page.goto(`/stacks/${stack}/resources`);
  await page.getByTestId('stack-stats').getByRole('link', { name: `${stack}-web-1` }).waitFor();
  await eventually(async () => (await page.getByTestId('plots').locator('canvas').count()) === 3, 10_000, 'three plots');
  await shot(page, 'stack-resources');
  await page.goto('/stacks');
  await page.getByTestId('stacks').getByRole('link', { name: 'ac10' }).waitFor();
  const names = await page.getByTestId('stacks').locator('tbody tr td:first-child').allInnerTexts();
  assert.deepEqual(names.filter((n) => n.startsWith('ac')), ['ac1', 'ac2', 'ac10']);
  await docker.getContainer(`${stack}-web-1`).kill();
  const row = page.getByTestId('stacks').getByRole('row').filter({ hasText: stack });
  await eventually(async () => (await row.locator('.status').first().innerText()) === 'down', 10_000, 'the crashed stack shown as down');
  await page.goto('/overview');
  const hostBox = page.getByTestId('host');
  assert.match(await hostBox.innerText(), /[\d.]+ [KMG]iB of [\d.]+ [KMG]iB memory free/);
  assert.match(await hostBox.innerText(), /[\d.]+ [KMG]iB of [\d.]+ [KMG]iB free on the data folder's disk/);
  const overview = await s.api('GET', '/api/v1/overview');
  assert.ok(overview.body.host.memory.freeBytes > 0 && overview.body.host.memory.freeBytes <= overview.body.host.memory.totalBytes);
  assert.ok(overview.body.host.disk.freeBytes > 0);
});

test('a finished job offers no "Cancel job"', async () => {
  const job = (await s.api('GET', `/api/v1/jobs?resource=stack:${stack}&limit=1`)).body[0];
  await page.goto(`/jobs/${job.id}`);
  await page.locator('.job .status-succeeded').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Cancel job' }).count(), 0);
});

test('delete a stack from its page: asked first, then gone', async () => {
  await page.goto('/stacks/ac1');
  await page.getByRole('button', { name: 'Delete stack…' }).click();
  await page.getByRole('button', { name: 'Yes, delete ac1' }).click();
  await page.getByRole('heading', { name: 'Stacks', level: 1 }).waitFor();
  assert.equal((await s.api('GET', '/api/v1/stacks/ac1')).status, 404);
});

test('a new stack from a template: its inputs as fields, the compose file filled in; its settings edited as the same fields', async () => {
  await page.goto('/stacks-new');
  await page.getByLabel('Name (lowercase letters, digits and -)').fill('greeter');
  await page.getByLabel('Template').selectOption('hello');
  assert.match(await page.getByTestId('compose').inputValue(), /MESSAGE/);
  await page.getByLabel('Message').fill('hi there');
  await page.getByRole('button', { name: 'Create stack' }).click();
  await page.getByRole('heading', { name: 'Stack greeter' }).waitFor();
  const settings = await s.api('GET', '/api/v1/stacks/greeter/settings');
  assert.equal(settings.body.template, 'hello');
  assert.deepEqual(settings.body.settings, { MESSAGE: 'hi there' });
  // its settings are the same fields, never JSON
  await page.goto('/stacks/greeter/settings');
  assert.equal(await page.getByLabel('Message').inputValue(), 'hi there');
  await page.getByLabel('Message').fill('hello again');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByRole('status').getByText(/^Saved/).waitFor();
  assert.deepEqual((await s.api('GET', '/api/v1/stacks/greeter/settings')).body.settings, { MESSAGE: 'hello again' });
});

test('a refused compose save says why, beside the rule errors at their lines', async () => {
  await page.goto('/stacks/greeter/compose');
  const text = await page.getByTestId('compose').inputValue();
  await page.getByTestId('compose').fill(text.replace('image: dockwright-test/busybox:1', 'image: dockwright-test/busybox:1\n    privileged: true'));
  await page.getByRole('button', { name: 'Save compose file' }).click();
  await page.getByTestId('refusal').getByText(/Not saved: the compose file breaks 1 platform rule/).waitFor();
});
