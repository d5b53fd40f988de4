// The activity page names calls made through MCP: a tool call and the API call it made show "(MCP)" beside the user, in a real Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { addUser, collectErrors, launch, nav, shot, signedIn } from './helpers.ts';

let s: TestServer;
let browser: Browser;
const errors: string[] = [];

before(async () => {
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: { docker: { options: { socketPath: '/nonexistent/dockwright/docker.sock', reconcile: false } }, stacks: {}, containers: {}, portal: {} },
  });
  await addUser(s, 'ada', 'admin');
  browser = await launch();
});
after(async () => { await browser?.close(); await s?.close(); });

test('an MCP tool call is listed as made through MCP, an API call as through the API', async () => {
  const token = (await s.app.tokens.create({ user: 'ada', name: 'assistant', scopes: ['*'] })).token;
  const answer = await fetch(`${s.url}/api/v1/mcp`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_stacks', arguments: {} } }),
  });
  assert.equal(answer.status, 200);
  assert.equal((await s.api('PUT', '/api/v1/stacks/plain/compose', { body: { content: 'services:\n  app:\n    image: dockwright-test/busybox:1\n' }, headers: { 'if-none-match': '*' } })).status, 200);
  const page = await signedIn(browser, s, 'ada');
  collectErrors(page, errors);
  await nav(page, 'Activity');
  const rows = page.getByTestId('activity').locator('tbody tr');
  await rows.filter({ hasText: 'mcp.list_stacks' }).first().waitFor();
  assert.match(await rows.filter({ hasText: 'mcp.list_stacks' }).first().innerText(), /\(MCP\)/);
  assert.match(await rows.filter({ hasText: 'stack.compose.write' }).first().innerText(), /\(API\)/);
  await shot(page, 'activity-mcp');
  assert.deepEqual(errors, []);
});
