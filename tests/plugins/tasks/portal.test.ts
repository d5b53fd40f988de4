// The stack's Tasks tab in a real Chromium: tasks with next and last runs, Run now with the job's output, the runs with their output (secrets masked), a viewer without Run now.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { act, cleanupProjects, createStack, uniqueName } from '../stacks/helpers.ts';
import { addUser, collectErrors, launch, shot, signedIn, unnamed } from '../portal/helpers.ts';

let s: TestServer;
let browser: Browser;
let page: Page;
const stack = uniqueName('tp');
const errors: string[] = [];

before(async () => {
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: {
      docker: { options: { reconcile: false, stopTimeoutSeconds: 1 } }, stacks: {}, alerts: {}, tasks: {}, portal: {},
    },
  });
  const created = await createStack(s, stack, `services:
  app:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "sleep 3600"]
    environment:
      API_TOKEN: "\${API_TOKEN}"
x-dockwright:
  tasks:
    report:
      service: app
      command: echo "report with $API_TOKEN"
      schedule: "0 6 * * 1"
      timezone: Europe/Berlin
`);
  await s.api('PUT', `/api/v1/stacks/${stack}/env`, { body: { values: { API_TOKEN: 'tok-very-secret-123' }, revision: created.revision } });
  await act(s, 'deploy', stack);
  assert.equal((await s.api('POST', `/api/v1/stacks/${stack}/tasks`, { body: { name: 'cleanup', service: 'app', command: ['sh', '-c', 'exit 3'], schedule: '*/15 * * * *' } })).status, 201);
  await addUser(s, 'alice', 'admin');
  await addUser(s, 'victor', 'viewer');
  browser = await launch();
  page = await signedIn(browser, s, 'alice');
  collectErrors(page, errors);
});
after(async () => {
  await browser?.close();
  await s?.close();
  await cleanupProjects(stack);
});

test('the Tasks tab lists the tasks, runs one now, shows its runs and output', async () => {
  await page.goto(`/stacks/${stack}`);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Tasks' }).click();
  await page.getByRole('heading', { name: `Tasks of ${stack}` }).waitFor();
  const rows = page.getByTestId('tasks').locator('tbody tr');
  await rows.nth(1).waitFor();
  assert.equal(await rows.count(), 2);
  const report = rows.filter({ hasText: 'report' });
  assert.match(await report.innerText(), /\(compose\)/);
  assert.match(await report.innerText(), /0 6 \* \* 1\s+Europe\/Berlin/);
  assert.match(await rows.filter({ hasText: 'cleanup' }).innerText(), /never/);

  await page.getByRole('button', { name: 'Run report now' }).click();
  await page.getByTestId('job-output').filter({ hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
  const jobText = await page.getByTestId('job-output').innerText();
  assert.ok(!jobText.includes('tok-very-secret-123'), 'the secret is masked in the job output');
  await page.getByTestId('task-runs').locator('tbody tr').first().waitFor();
  await page.getByRole('button', { name: /^Output of the run/ }).first().click();
  const output = await page.getByTestId('run-output').innerText();
  assert.match(output, /report with \*\*\*/);

  await page.getByRole('button', { name: 'Run cleanup now' }).click();
  await page.locator('.job').filter({ hasText: 'failed' }).waitFor({ timeout: 60_000 });
  await page.getByTestId('task-runs').filter({ hasText: 'exit code 3' }).waitFor({ timeout: 10_000 });
  assert.match(await page.getByTestId('tasks').locator('tbody tr').filter({ hasText: 'cleanup' }).innerText(), /failed/);
  assert.deepEqual(await unnamed(page), [], 'every control has a name');
  await shot(page, 'tasks-tab');
  assert.deepEqual(errors, []);
});

test('a viewer sees the tasks without Run now', async () => {
  const viewer = await signedIn(browser, s, 'victor');
  await viewer.goto(`/stacks/${stack}/tasks`);
  await viewer.getByRole('heading', { name: `Tasks of ${stack}` }).waitFor();
  await viewer.getByTestId('tasks').waitFor();
  assert.equal(await viewer.getByRole('button', { name: /now$/ }).count(), 0);
  await viewer.context().close();
});
