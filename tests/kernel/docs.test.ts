// The API reference at /api/v1/docs (Swagger UI served locally, rendered in Chromium) and unknown non-portal paths, which never get the portal's HTML.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { call, startServer, type TestServer } from '../helpers/harness.ts';
import { launch } from '../plugins/portal/helpers.ts';

let server: TestServer;
let browser: Browser | undefined;

before(async () => {
  server = await startServer({ plugins: { portal: {} } });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('the reference page and its files are served from this service, without a token', async () => {
  const page = await fetch(`${server.url}/api/v1/docs`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type')!, /^text\/html/);
  assert.match(page.headers.get('content-security-policy')!, /script-src 'self'/);
  const html = await page.text();
  assert.match(html, /<script src="\/api\/v1\/docs\/swagger-ui-bundle\.js">/);
  assert.doesNotMatch(html, /https?:\/\//, 'nothing is loaded from elsewhere');
  const bundle = await fetch(`${server.url}/api/v1/docs/swagger-ui-bundle.js`);
  assert.equal(bundle.status, 200);
  assert.match(bundle.headers.get('content-type')!, /^text\/javascript/);
  assert.ok((await bundle.arrayBuffer()).byteLength > 100_000);
  const start = await (await fetch(`${server.url}/api/v1/docs/start.js`)).text();
  assert.match(start, /url: '\/api\/v1\/openapi\.json'/);
  assert.equal((await fetch(`${server.url}/api/v1/docs/swagger-ui.css`)).status, 200);
  const other = await call(server.url, 'GET', '/api/v1/docs/package.json');
  assert.equal(other.status, 400, 'only the page\'s own files');
  assert.match(other.headers.get('content-type')!, /application\/problem\+json/);
  const openapi = await call(server.url, 'GET', '/api/v1/openapi.json');
  assert.ok(openapi.body.paths['/api/v1/docs'], 'the reference is listed in the document');
});

test('unknown paths under /api and files the portal lacks are a problem+json 404, never the portal\'s page; /docs leads to the reference', async () => {
  for (const path of ['/api', '/api/', '/api/nope', '/api/v1', '/api/v1/nope', '/api/v2/stacks', '/foo.php', '/wp-login.php', '/.env', '/favicon.txt']) {
    const answer = await fetch(`${server.url}${path}`);
    const text = await answer.text();
    assert.equal(answer.status, 404, `${path}: ${text.slice(0, 80)}`);
    assert.match(answer.headers.get('content-type')!, /^application\/problem\+json/, path);
    assert.doesNotMatch(text, /<html/i, path);
  }
  const docs = await fetch(`${server.url}/docs`, { redirect: 'manual' });
  assert.equal(docs.status, 308);
  assert.equal(docs.headers.get('location'), '/api/v1/docs');
  const portal = await fetch(`${server.url}/stacks`);
  assert.equal(portal.status, 200, 'a portal page is still the portal');
  assert.match(await portal.text(), /<html/);
});

test('Chromium renders the reference from the served document, with no request leaving this service and no script error', async () => {
  browser = await launch();
  const page = await browser.newPage();
  const errors: string[] = [];
  const elsewhere: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`); });
  page.on('request', (r) => { if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) elsewhere.push(r.url()); });
  await page.goto(`${server.url}/docs`);
  assert.equal(new URL(page.url()).pathname, '/api/v1/docs');
  await page.getByText('/api/v1/openapi.json', { exact: false }).first().waitFor();
  await page.locator('.opblock-summary-path', { hasText: '/api/v1/jobs/{id}' }).first().waitFor();
  assert.deepEqual(errors, []);
  assert.deepEqual(elsewhere, []);
});
