// The portal in a real Chromium against the real service, PostgreSQL and Docker engine: the stack workflow, conflicts, logs, tokens, activity, a viewer's limits.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { call, eventually, startServer, type TestServer } from '../../helpers/harness.ts';
import { cleanupProjects } from '../stacks/helpers.ts';
import { addUser, launch, shot, signedIn } from './helpers.ts';

let server: TestServer;
let browser: Browser;
let page: Page;
const stack = `pt${randomBytes(4).toString('hex')}`;
const ticker = 'i=0; while true; do echo tick-$$i; i=$$((i+1)); sleep 0.2; done';
const good = `services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sh", "-c", "${ticker}"]\n`;
const refused = `services:\n  app:\n    image: dockwright-test/busybox:1\n    privileged: true\n    command: ["sh", "-c", "${ticker}"]\n`;

before(async () => {
  server = await startServer({
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } }, containers: {}, stacks: {}, portal: {},
    },
  });
  await addUser(server, 'alice', 'operator');
  await addUser(server, 'victor', 'viewer');
  browser = await launch();
  page = await signedIn(browser, server, 'alice');
  page.context().on('request', (r) => requests.push({ url: r.url(), kind: r.resourceType() }));
});
/** every request alice's pages made after sign-in */
const requests: { url: string; kind: string }[] = [];

after(async () => {
  await browser?.close();
  await cleanupProjects(stack);
  await server?.close();
});

async function composeText(): Promise<string> {
  return page.getByTestId('compose').inputValue();
}

test('overview after sign-in; the sign-in page and the overview on a phone', async () => {
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await shot(page, 'overview');
  const phone = await signedIn(browser, server, 'alice', { width: 390, height: 844 });
  await phone.getByRole('button', { name: 'Menu' }).click();
  await phone.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Stacks' }).waitFor();
  await shot(phone, 'overview-phone');
  await phone.context().close();
});

test('create a stack: a rule error shows inline at its line while typing, the 422 too, and the fix saves', async () => {
  await page.getByRole('link', { name: 'Stacks' }).first().click();
  await page.getByRole('heading', { name: 'Stacks' }).waitFor();
  await page.getByRole('link', { name: 'New stack' }).click();
  await page.getByLabel('Name (lowercase letters, digits and -)').fill(stack);
  await page.getByTestId('compose').fill(refused);
  const issues = page.getByTestId('issues');
  await issues.getByText(/privileged/).waitFor();
  assert.match(await issues.innerText(), /line 4/, 'the privileged rule points at line 4 of the compose file');
  await shot(page, 'compose-rule-error');
  await page.getByRole('button', { name: 'Create stack' }).click();
  await eventually(async () => /line 4/.test(await issues.innerText()), 10_000, 'the 422 shown inline');
  assert.equal((await call(server.url, 'GET', `/api/v1/stacks/${stack}`, { token: server.admin })).status, 404, 'the refused stack was not saved');
  await page.getByTestId('compose').fill(good);
  await issues.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Create stack' }).click();
  await page.getByRole('heading', { name: `Stack ${stack}` }).waitFor();
});

test('deploy: the job output streams to success', async () => {
  await page.getByRole('button', { name: 'Deploy' }).click();
  const output = page.getByTestId('job-output');
  await output.waitFor();
  await page.locator('.job .status-succeeded').waitFor({ timeout: 240_000 });
  assert.match(await output.innerText(), /\S/, 'the deploy wrote output');
  await page.getByText(/running/).first().waitFor({ timeout: 30_000 });
  await shot(page, 'stack-deployed');
});

test('an edit meets a concurrent API write: 412 shows their change, reload takes it', async () => {
  await page.getByRole('link', { name: 'Compose' }).click();
  await page.getByTestId('compose').waitFor();
  const mine = (await composeText()).replace('services:', 'services:\n  # my edit');
  await page.getByTestId('compose').fill(mine);
  const current = await server.api('GET', `/api/v1/stacks/${stack}/compose`);
  const theirs = current.body.content.replace('app:', 'app:\n    restart: unless-stopped');
  const write = await server.api('PUT', `/api/v1/stacks/${stack}/compose`, { body: { content: theirs }, headers: { 'if-match': `"${current.body.revision}"` } });
  assert.equal(write.status, 200, write.text);
  await page.getByRole('button', { name: 'Save compose file' }).click();
  const conflict = page.getByTestId('conflict');
  await conflict.waitFor();
  assert.match(await conflict.getByTestId('diff').innerText(), /\+ +restart: unless-stopped/, 'the diff shows what they changed');
  await shot(page, 'compose-conflict');
  await page.getByRole('button', { name: /Reload theirs/ }).click();
  await conflict.waitFor({ state: 'detached' });
  assert.equal(await composeText(), theirs);
});

test('restore a revision from its diff', async () => {
  await page.getByRole('link', { name: 'Revisions' }).click();
  await page.getByRole('button', { name: 'Show revision 1' }).click();
  await page.getByTestId('diff').waitFor();
  await shot(page, 'revisions-diff');
  await page.getByRole('button', { name: 'Restore revision 1' }).click();
  await page.getByText(/Revision 1 restored as revision 3/).waitFor();
  const now = await server.api('GET', `/api/v1/stacks/${stack}/compose`);
  assert.equal(now.body.revision, 3);
  assert.equal(now.body.content, good);
});

test("a container's logs arrive live", async () => {
  await page.getByRole('link', { name: 'Containers' }).first().click();
  await page.getByRole('link', { name: new RegExp(`^${stack}`) }).first().click();
  const logs = page.getByTestId('logs');
  await logs.getByText(/tick-\d+/).first().waitFor({ timeout: 30_000 });
  const count = async () => ((await logs.innerText()).match(/tick-/g) ?? []).length;
  const first = await count();
  await eventually(async () => (await count()) > first + 2, 15_000, 'more lines while the page stays open');
  await shot(page, 'container-logs');
});

test('a new token is shown once and works; the list never shows it again', async () => {
  await page.getByRole('link', { name: 'Tokens' }).click();
  await page.getByLabel('Name', { exact: true }).fill('ci');
  await page.getByLabel('jobs:read').check();
  await page.getByRole('button', { name: 'Create token' }).click();
  const secret = (await page.getByTestId('secret').innerText()).trim();
  assert.match(secret, /^dw_[\w-]{43}$/);
  const me = await call(server.url, 'GET', '/api/v1/me', { token: secret });
  assert.deepEqual([me.status, me.body.user.name, me.body.scopes], [200, 'alice', ['jobs:read']]);
  await shot(page, 'tokens');
  await page.reload();
  await page.getByRole('heading', { name: 'Your tokens' }).waitFor();
  await page.getByRole('cell', { name: 'ci', exact: true }).waitFor();
  assert.ok(!(await page.content()).includes(secret), 'shown once only');
});

test('the activity log shows each action under the user, via the portal', async () => {
  await page.getByRole('link', { name: 'Activity' }).click();
  const table = page.getByTestId('activity');
  await table.waitFor();
  for (const action of ['stack.compose.write', 'stack.deploy', 'stack.restore', 'kernel.token.create']) {
    await table.locator('tr', { hasText: action }).filter({ hasText: 'alice (portal)' }).first().waitFor();
  }
  const refusedWrite = await server.api('GET', `/api/v1/activity?resource=stack:${stack}&action=stack.compose.write`);
  assert.ok(refusedWrite.body.some((a: { actor: { name: string; channel?: string }; result: string }) => a.actor.name === 'alice' && a.actor.channel === 'portal' && a.result === 'failed'), 'the refused 422 is logged under alice too');
  await shot(page, 'activity');
  await page.getByRole('navigation', { name: 'Section' }).getByRole('link', { name: 'Jobs' }).click();
  await page.getByRole('table').waitFor();
  await shot(page, 'jobs');
  await page.getByRole('link', { name: 'Stacks' }).first().click();
  await page.getByTestId('stacks').getByText(stack).waitFor();
  await shot(page, 'stacks');
});

test('a viewer sees no write controls; a forced write is refused with 403, a request without the CSRF header too', async () => {
  const viewer = await signedIn(browser, server, 'victor');
  await viewer.goto(`/stacks/${stack}`);
  await viewer.getByRole('heading', { name: `Stack ${stack}` }).waitFor();
  await viewer.getByText('Services').waitFor();
  assert.equal(await viewer.getByRole('button', { name: 'Deploy' }).count(), 0);
  await viewer.getByRole('link', { name: 'Compose' }).click();
  await viewer.getByTestId('compose').waitFor();
  assert.equal(await viewer.getByTestId('compose').getAttribute('readonly'), '');
  assert.equal(await viewer.getByRole('button', { name: 'Save compose file' }).count(), 0);
  await shot(viewer, 'viewer-compose');
  const forced = await viewer.evaluate(async (name) => {
    const csrf = JSON.parse(localStorage.getItem('dockwright.session')!).csrf;
    const withHeader = await fetch(`/api/v1/stacks/${name}/deploy`, { method: 'POST', headers: { 'X-Dockwright-CSRF': csrf } });
    const without = await fetch('/api/v1/me');
    return [withHeader.status, without.status, (await without.json()).type];
  }, stack);
  assert.deepEqual(forced, [403, 403, 'https://dockwright.dev/problems/csrf']);
  await viewer.context().close();
});

test('the portal talks only to /api/v1 (and loads only its own files): nothing else of the service, no other origin', () => {
  const origin = new URL(server.url).origin;
  assert.ok(requests.some((r) => new URL(r.url).pathname.startsWith('/api/v1/')), 'the pages called the API');
  const elsewhere = requests.filter((r) => {
    const url = new URL(r.url);
    if (url.origin !== origin) return true;
    if (url.pathname.startsWith('/api/v1/')) return false;
    // its own files: the page, its script and style sheet
    return !['document', 'script', 'stylesheet', 'image', 'font'].includes(r.kind) || url.pathname.startsWith('/api/');
  });
  assert.deepEqual(elsewhere, []);
});
