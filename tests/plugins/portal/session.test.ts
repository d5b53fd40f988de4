// The portal's session edges in a real Chromium: expiry back to sign-in, the sign-in rate limit, sign out everywhere; and how the files at / are served.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { addUser, launch, password, shot, signedIn } from './helpers.ts';

let server: TestServer;
let browser: Browser;

before(async () => {
  // sessions last as configured by default here: a short lifetime would let a slow machine end them in the middle of a test
  server = await startServer({ plugins: { portal: {} }, config: { sessions: { failedSignInsPerMinute: 3 } } });
  await addUser(server, 'sara', 'operator');
  await addUser(server, 'mallory', 'viewer');
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the files at / : the app for page paths, hashed assets cached for good, gzip, strict security headers; /api stays the API', async () => {
  const index = await fetch(`${server.url}/stacks/anything`);
  assert.equal(index.status, 200);
  assert.match(index.headers.get('content-type')!, /text\/html/);
  // the page carries a style nonce fresh for each answer: never kept, never 'unsafe-inline'
  assert.equal(index.headers.get('cache-control'), 'no-store');
  const csp = index.headers.get('content-security-policy')!;
  assert.match(csp, /default-src 'self'.*frame-ancestors 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline/);
  const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/=]{24})'/.exec(csp)?.[1];
  assert.ok(nonce, csp);
  const html = await index.text();
  assert.ok(html.includes(`<meta name="dockwright-style-nonce" content="${nonce}">`), 'the page names its nonce for its scripts');
  const again = await fetch(`${server.url}/`);
  assert.notEqual(/'nonce-([^']+)'/.exec(again.headers.get('content-security-policy')!)?.[1], nonce, 'a new nonce for each answer');
  assert.ok(!(await again.text()).includes('__CSP_NONCE__'));
  const script = /src="(\/app-[A-Z0-9]+\.js)"/.exec(html)![1];
  const asset = await fetch(server.url + script, { headers: { 'accept-encoding': 'gzip' } });
  assert.equal(asset.status, 200);
  assert.match(asset.headers.get('cache-control')!, /immutable/);
  assert.ok((await asset.arrayBuffer()).byteLength > 1000);
  const raw = await new Promise<Buffer>((resolve, reject) => {
    import('node:http').then(({ get }) => get(server.url + script, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
    }));
  });
  assert.match(gunzipSync(raw).toString('utf8'), /Dockwright/, 'the bundle is sent gzip-compressed');
  assert.equal((await fetch(`${server.url}/missing.js`)).status, 404);
  const api = await fetch(`${server.url}/api/v1/nothing-here`);
  assert.equal(api.status, 404);
  assert.match(api.headers.get('content-type')!, /problem\+json/);
  assert.equal((await fetch(`${server.url}/`, { method: 'POST' })).status, 404, 'only GET and HEAD reach the files');
});

test('an expired session sends the browser back to the sign-in page: at the next click, or at the next refresh of a page that refreshes itself', async (t) => {
  const ttlMs = 4000;
  const brief = await startServer({ plugins: { portal: {} }, config: { sessions: { ttlMs } } });
  t.after(() => brief.close());
  await addUser(brief, 'sara', 'operator');
  // the account page never refreshes itself: only the click can find the session gone
  const clicking = await signedIn(browser, brief, 'sara');
  await clicking.goto('/account');
  await clicking.getByRole('heading', { name: 'Account' }).waitFor();
  // the overview asks for its data again every 5 s, and that answer finds the session gone without any click
  const waiting = await signedIn(browser, brief, 'sara');
  await waiting.getByRole('heading', { name: 'Overview' }).waitFor();
  await new Promise((r) => setTimeout(r, ttlMs + 300));
  await clicking.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click();
  await clicking.getByRole('heading', { name: 'Sign in to Dockwright' }).waitFor({ timeout: 10_000 });
  await waiting.getByRole('heading', { name: 'Sign in to Dockwright' }).waitFor({ timeout: 10_000 });
  await clicking.context().close();
  await waiting.context().close();
});

test('sign out everywhere ends the sessions of other browsers too', async () => {
  const one = await signedIn(browser, server, 'sara');
  const two = await signedIn(browser, server, 'sara');
  const before = await server.app.db.query<{ n: number }>("SELECT count(*)::int AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.name = 'sara'");
  assert.ok(before.rows[0].n >= 2, 'both browsers hold a session before the sign-out');
  await one.goto('/account');
  await one.getByRole('button', { name: 'Sign out everywhere' }).click();
  await one.getByRole('heading', { name: 'Sign in to Dockwright' }).waitFor();
  const left = await server.app.db.query<{ n: number }>("SELECT count(*)::int AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.name = 'sara'");
  assert.equal(left.rows[0].n, 0, 'every session of sara is gone, not merely expired');
  await two.getByRole('link', { name: 'Activity' }).click();
  await two.getByRole('heading', { name: 'Sign in to Dockwright' }).waitFor({ timeout: 10_000 });
  await shot(two, 'sign-in');
  await one.context().close();
  await two.context().close();
});

test('failed sign-ins are limited: after three, even the right password waits', async () => {
  const context = await browser.newContext({ baseURL: server.url });
  const page = await context.newPage();
  await page.goto('/');
  for (let i = 0; i < 3; i++) {
    await page.getByLabel('User name').fill('mallory');
    await page.getByLabel('Password').fill(`wrong guess ${i}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText(/wrong user name or password/).waitFor();
  }
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').getByText(/too many failed sign-ins/).waitFor();
  await shot(page, 'sign-in-rate-limited');
  assert.equal(await page.getByTestId('who').count(), 0);
  await context.close();
});
