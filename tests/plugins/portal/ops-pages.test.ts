// The alerts and certificates pages in a real Chromium against the real service, PostgreSQL and Caddy: a webhook channel to a loopback receiver, a test send, an alert acknowledged, certificates uploaded, refused, shown and deleted, a viewer's limits.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { eventually, startServer, type TestServer } from '../../helpers/harness.ts';
import { startReceiver, type Receiver } from '../alerts/helpers.ts';
import { freePort, makeCert, routeHosts, startAcmeEnv, type AcmeEnv, type Made } from '../certificates/helpers.ts';
import { addUser, launch, nav, shot, signedIn, unnamed } from './helpers.ts';

let s: TestServer;
let rx: Receiver;
let browser: Browser;
let page: Page;
let ca: Made;
let acme: AcmeEnv;

before(async () => {
  rx = await startReceiver();
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  acme = await startAcmeEnv({ httpPort });
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: {
      docker: { options: { reconcile: false } },
      stacks: {},
      edge: { options: { httpPort, httpsPort, pollIntervalMs: 100, resyncIntervalMs: 60_000 } },
      'edge-client': { path: 'tests/fixtures/edge-client/index.ts' },
      certificates: { options: { sweepIntervalMs: 3_600_000, pollMinMs: 50, pollMaxMs: 500, pollAttempts: 40, directoryUrl: acme.directoryUrl, caFile: acme.caFile, email: 'admin@dwtest.test', auto: false } },
      alerts: { options: { retry: { attempts: 2, backoffMs: 20, maxBackoffMs: 100 } } },
      portal: {},
    },
  });
  ca = await makeCert({ cn: 'Portal Test CA', ca: true });
  await addUser(s, 'alice', 'admin'); // certificates:write is an admin's
  await addUser(s, 'victor', 'viewer');
  browser = await launch();
  page = await signedIn(browser, s, 'alice');
});

after(async () => {
  await browser?.close();
  await s?.close();
  await rx?.close();
  await acme?.stop();
});


test('a webhook channel made in the page: its signing secret shown once, a test delivered to the receiver', async () => {
  await nav(page, 'Alert channels', 'Alerts');
  await page.getByRole('heading', { name: 'Alert channels' }).waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'H1', 'focus on the page heading');
  await page.getByLabel(/^Channel kind/).selectOption('webhook');
  await page.getByLabel('Name', { exact: true }).fill('ops hook');
  await page.getByLabel('URL', { exact: true }).fill(`${rx.url}/hook`);
  await page.getByLabel(/^Least severity sent/).selectOption('warning');
  assert.deepEqual(await unnamed(page), [], 'every control of the channels page has a name');
  // the other kinds offer their own fields, secrets as passwords
  await page.getByLabel(/^Channel kind/).selectOption('gotify');
  assert.equal(await page.getByLabel('Application token').getAttribute('type'), 'password');
  await page.getByLabel(/^Channel kind/).selectOption('webhook');
  await page.getByLabel('URL', { exact: true }).fill(`${rx.url}/hook`);
  await page.getByRole('button', { name: 'Create channel' }).click();
  const secret = await page.getByTestId('secret').innerText();
  assert.match(secret, /^[A-Za-z0-9_-]{40,}$/);
  const channels = page.getByTestId('channels');
  await channels.getByRole('cell', { name: 'ops hook', exact: true }).waitFor();
  const [made] = (await s.api('GET', '/api/v1/alerts/channels')).body;
  assert.equal(made.minSeverity, 'warning');
  assert.ok(!JSON.stringify(made).includes(secret), 'the API never answers the secret again');

  await page.getByRole('button', { name: 'Send test to ops hook' }).click();
  const results = page.getByTestId('test-results');
  await results.getByText('delivered').waitFor();
  assert.match(await results.innerText(), /ops hook/);
  const [hook] = rx.on('/hook');
  assert.ok(hook, 'the receiver got the test');
  assert.equal(hook.headers['x-dockwright-signature'], `sha256=${createHmac('sha256', secret).update(hook.body).digest('hex')}`, 'signed with the secret shown');
  await shot(page, 'alert-channels');

  await page.reload();
  await page.getByRole('heading', { name: 'Alert channels' }).waitFor();
  await channels.getByRole('cell', { name: 'ops hook', exact: true }).waitFor();
  assert.equal(await page.getByTestId('secret').count(), 0, 'the secret is not shown again');
  assert.ok(!(await page.content()).includes(secret));
});

test('an alert raised by a failed backup is listed and acknowledged in the page', async () => {
  s.app.services.events.emit('backup.failed', { backup: 'nightly', jobId: '00000000-0000-0000-0000-000000000001' });
  await eventually(async () => (await s.api('GET', '/api/v1/alerts?status=open')).body.length === 1, 10_000, 'the alert is open');
  await nav(page, 'Alerts');
  await page.getByRole('heading', { name: 'Alerts' }).waitFor();
  const alerts = page.getByTestId('alerts');
  await alerts.getByText('backup:nightly').waitFor();
  assert.equal(await alerts.locator('tbody tr').count(), 1);
  assert.deepEqual(await unnamed(page), [], 'every control of the alerts page has a name');
  await page.getByRole('button', { name: /^Acknowledge alert/ }).click();
  await alerts.getByText(/acknowledged by alice/).waitFor();
  const [alert] = (await s.api('GET', '/api/v1/alerts?status=acknowledged')).body;
  assert.equal(alert.acknowledgedBy.name, 'alice');
  assert.equal(alert.status, 'acknowledged');
  await page.getByLabel(/^Acknowledged/).selectOption('false');
  await page.getByText('No alerts.').waitFor();
  await page.getByLabel(/^Acknowledged/).selectOption('');
  await alerts.getByText('backup:nightly').waitFor();
  await shot(page, 'alerts');
  const actions = (await s.api('GET', '/api/v1/activity?limit=100')).body.filter((a: any) => a.actor?.name === 'alice' && a.actor?.channel === 'portal').map((a: any) => a.action);
  for (const a of ['alert.channel.create', 'alert.test', 'alert.acknowledge']) assert.ok(actions.includes(a), `${a} under alice via portal`);
});

test('upload a certificate: listed, its detail shows the chain and never a key; a mismatched key shows its problem', async () => {
  const leaf = await makeCert({ cn: 'shop.test', domains: ['shop.test'], issuer: ca });
  const other = await makeCert({ cn: 'shop.test', domains: ['shop.test'], issuer: ca });
  await nav(page, 'Certificates', 'Edge');
  await page.getByRole('heading', { name: 'Certificates' }).waitFor();
  await page.getByLabel('Name (letters, digits, dot, underscore and hyphen)').fill('shop');
  await page.getByLabel('Certificate (PEM, leaf first, then its chain)').fill(leaf.certificate + ca.certificate);
  await page.getByLabel(/^Private key/).fill(other.key);
  assert.deepEqual(await unnamed(page), [], 'every control of the certificates page has a name');
  await page.getByRole('button', { name: 'Upload certificate' }).click();
  const problem = page.getByRole('alert').filter({ hasText: '422' });
  await problem.getByText('key-mismatch').waitFor();
  assert.match(await problem.innerText(), /does not belong to the certificate/);
  assert.equal((await s.api('GET', '/api/v1/certificates/shop')).status, 404, 'nothing stored');
  await shot(page, 'certificate-refused');

  await page.getByLabel(/^Private key/).fill(leaf.key);
  await page.getByRole('button', { name: 'Upload certificate' }).click();
  await page.getByRole('heading', { name: 'Certificate shop' }).waitFor();
  const chain = await page.getByTestId('chain').innerText();
  assert.match(chain, /BEGIN CERTIFICATE/);
  assert.ok(!(await page.content()).includes('PRIVATE KEY'), 'the key is never shown');
  await page.getByText('Portal Test CA').waitFor();
  await shot(page, 'certificate');

  await page.getByRole('link', { name: 'All certificates' }).click();
  // a wildcard over http-01 is refused before any job (and before any CA is contacted): the problem names the domain
  await page.getByLabel(/^Domains/).fill('*.wild.test');
  await page.getByLabel(/^Challenge/).selectOption('http-01');
  await page.getByRole('button', { name: 'Request certificate' }).click();
  await page.getByRole('alert').filter({ hasText: '422' }).getByText(/\*\.wild\.test is a wildcard/).first().waitFor();
  assert.equal(await page.getByTestId('job-output').count(), 0, 'no job was started');
  const list = page.getByTestId('certificates');
  await list.getByRole('link', { name: 'shop' }).waitFor();
  assert.match(await list.locator('tbody tr').first().innerText(), /shop\.test[\s\S]*upload[\s\S]*Portal Test CA[\s\S]*valid/);
  await page.setViewportSize({ width: 390, height: 844 });
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), 'on a phone the page does not scroll sideways');
  await shot(page, 'certificates-phone');
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('request a certificate from the ACME CA (pebble): the job\'s output shown as it runs, then the certificate listed', async () => {
  const host = 'req.ok.dwtest.test';
  await routeHosts(s, 'req', [host]);
  await nav(page, 'Certificates', 'Edge');
  await page.getByLabel(/^Domains/).fill(host);
  await page.getByLabel(/^Challenge/).selectOption('http-01');
  await page.getByRole('button', { name: 'Request certificate' }).click();
  await page.locator('.job .status-succeeded').waitFor({ timeout: 120_000 });
  assert.match(await page.getByTestId('job-output').innerText(), /finalize:/, 'the issuance steps are shown');
  const list = page.getByTestId('certificates');
  await list.getByRole('link', { name: host }).click();
  await page.getByRole('heading', { name: `Certificate ${host}` }).waitFor();
  await page.getByText(/Pebble/i).first().waitFor();
  assert.match(await page.getByTestId('chain').innerText(), /BEGIN CERTIFICATE/);
  await shot(page, 'certificate-acme');
});

test('a viewer sees alerts, channels and certificates but no write control', async () => {
  const viewer = await signedIn(browser, s, 'victor');
  const main = viewer.locator('main');
  await nav(viewer, 'Alerts');
  await viewer.getByTestId('alerts').getByText('backup:nightly').waitFor();
  assert.equal(await main.getByRole('button').count(), 0, 'no acknowledge');
  await nav(viewer, 'Alert channels', 'Alerts');
  await viewer.getByTestId('channels').getByRole('cell', { name: 'ops hook', exact: true }).waitFor();
  assert.equal(await main.getByRole('button').count(), 0, 'no channel buttons');
  assert.equal(await main.locator('input, textarea').count(), 0, 'no channel form');
  await nav(viewer, 'Certificates');
  await viewer.getByTestId('certificates').getByRole('link', { name: 'shop' }).click();
  await viewer.getByTestId('chain').waitFor();
  assert.equal(await main.getByRole('button').count(), 0, 'no delete');
  await nav(viewer, 'Certificates');
  await viewer.getByTestId('certificates').waitFor();
  assert.equal(await main.locator('input, textarea, button').count(), 0, 'no upload or request form');
  await shot(viewer, 'certificates-viewer');
  await viewer.context().close();
});

test('delete asks first: a channel and a certificate', async () => {
  await page.goto('/certificates/shop');
  await page.getByRole('button', { name: 'Delete certificate…' }).click();
  assert.equal((await s.api('GET', '/api/v1/certificates/shop')).status, 200, 'nothing is deleted before the confirmation');
  await page.getByRole('button', { name: 'Yes, delete shop' }).click();
  await page.getByRole('heading', { name: 'Certificates' }).waitFor();
  assert.equal((await s.api('GET', '/api/v1/certificates/shop')).status, 404);

  await nav(page, 'Alert channels', 'Alerts');
  await page.getByRole('button', { name: 'Delete ops hook…' }).click();
  assert.equal((await s.api('GET', '/api/v1/alerts/channels')).body.length, 1);
  await page.getByRole('button', { name: 'Yes, delete ops hook' }).click();
  await page.getByText('No channels').waitFor();
  assert.equal((await s.api('GET', '/api/v1/alerts/channels')).body.length, 0);
});
