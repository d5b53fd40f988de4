// The Settings page in Chromium: grouped and labelled, the config file's values read-only with their source, the connection test, a save on the revision that applies at once; and the preview domain of sites changed live.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startSitesServer, type SitesServer } from '../sites/helpers.ts';
import { addUser, launch, nav, shot, signedIn, unnamed } from './helpers.ts';

let s: SitesServer;
let browser: Browser;
let page: Page;
let listener: net.Server;
let port: number;
let connections = 0;
const errors: string[] = [];

before(async () => {
  listener = net.createServer((socket) => { connections++; socket.destroy(); });
  await new Promise<void>((done) => listener.listen(0, '127.0.0.1', () => done()));
  port = (listener.address() as AddressInfo).port;
  const file = join(mkdtempSync(join(tmpdir(), 'dw-settings-page-')), 'install.json');
  writeFileSync(file, JSON.stringify({ jobs: { concurrency: 2 } }));
  s = await startSitesServer({
    env: { DOCKWRIGHT_CONFIG: file },
    config: { outbound: { allow: [], allowHostnames: false } },
    more: {
      alerts: {}, portal: {},
      certificates: { options: { directoryUrl: 'https://127.0.0.1:9/dir', sweepIntervalMs: 3_600_000 } },
    },
  });
  await addUser(s, 'ada', 'admin');
  await addUser(s, 'otto', 'operator');
  browser = await launch();
  page = await signedIn(browser, s, 'ada', { width: 1280, height: 900 });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text()); });
});

after(async () => {
  await browser?.close();
  await s?.close();
  listener?.close();
});

test('the page shows every setting grouped and labelled, with the config file\'s values read-only and named as such', async () => {
  await nav(page, 'Settings');
  await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
  for (const group of ['Outbound connections', 'Certificates', 'Sites', 'Edge', 'Sign-in', 'Jobs', 'Images']) {
    assert.ok(await page.getByRole('heading', { name: group, level: 2 }).isVisible(), group);
  }
  const jobs = page.getByTestId('setting-jobs-concurrency');
  assert.equal(await jobs.getByLabel('Jobs run at once (per instance)').isDisabled(), true);
  assert.match(await jobs.innerText(), /set by the config file/);
  assert.equal(await page.getByLabel('Preview domain (draft--<site>.<domain>)').inputValue(), 'preview.test');
  assert.match(await page.getByTestId('setting-plugins-certificates-options-externalAccountBinding').innerText(), /not set; never shown/);
  assert.equal(await page.getByLabel('Redirect plain HTTP to HTTPS (hostnames with a certificate)').isChecked(), true);
  assert.equal(await page.getByLabel('Hostnames served on plain HTTP although a certificate covers them').isEditable(), true);
  assert.deepEqual(await unnamed(page), []);
  await shot(page, 'settings');
});

test('the connection test refuses loopback before connecting, allows it as edited, and a save applies it at once', async () => {
  const host = page.getByLabel('Host', { exact: true });
  await host.fill('127.0.0.1');
  await page.getByLabel('Port', { exact: true }).fill(String(port));
  await page.getByRole('button', { name: 'Test connection' }).click();
  assert.match(await page.getByTestId('connection-result').innerText(), /Refused by the policy: .*loopback/);
  assert.equal(connections, 0, 'refused before any connection');

  await page.getByLabel('Reachable although private').fill('127.0.0.1');
  await page.getByRole('button', { name: 'Test connection' }).click();
  await page.getByTestId('connection-result').filter({ hasText: 'connected to 127.0.0.1' }).waitFor();
  assert.equal(connections, 1);

  await page.getByLabel('Preview domain (draft--<site>.<domain>)').fill('drafts.test');
  await page.getByRole('button', { name: 'Save 2 changes' }).click();
  await page.getByText('Saved 2 setting(s); applied now.').waitFor();
  const view = (await s.api('GET', '/api/v1/settings')).body;
  assert.equal(view.revision, 1);
  assert.deepEqual(view.settings['outbound.allow'], ['127.0.0.1']);
  assert.equal(view.sources['outbound.allow'], 'portal');
  assert.match(await page.getByTestId('setting-outbound-allow').innerText(), /set here/);
  await shot(page, 'settings-saved');

  // the sites plugin reads the new preview domain at once: a new site's preview host is under it
  const site = await s.api('PUT', '/api/v1/sites/news', { body: { hostnames: ['news.sites.test'] } });
  assert.equal(site.status, 201, site.text);
  assert.match(site.body.previewUrl, /^https?:\/\/draft--news\.drafts\.test/);
  assert.deepEqual(errors, [], 'no console errors');
});

test('a stale page is told so (412) and reloads; an operator has no Settings page', async () => {
  assert.equal((await s.api('PATCH', '/api/v1/settings', { body: { 'images.keepReleases': 4 }, headers: { 'if-match': '"1"' } })).status, 200);
  await page.getByLabel('Releases whose images are kept').fill('7');
  await page.getByRole('button', { name: 'Save 1 change' }).click();
  await page.getByText(/read them again and retry/).waitFor();
  await page.getByText('revision 2', { exact: true }).waitFor();
  assert.equal(await page.getByLabel('Releases whose images are kept').inputValue(), '4');

  const other = await signedIn(browser, s, 'otto');
  assert.equal(await other.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).count(), 0);
  await other.context().close();
});
