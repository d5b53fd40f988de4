// The metrics pages in a real Chromium against the real service: history charts (uPlot) of the host on the overview, of a stack and of a container over 1 h to 90 d, and the alert rules and silences page; screenshots under test-artifacts/portal.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { eventually, startServer, type TestServer } from '../../helpers/harness.ts';
import { act, busybox, cleanupProjects, createStack, uniqueName } from '../stacks/helpers.ts';
import { addUser, collectErrors, launch, nav, shot, signedIn, unnamed } from '../portal/helpers.ts';
import { hostMetrics } from '../../../plugins/metrics/series.ts';

const stack = uniqueName('mpo');
let s: TestServer;
let browser: Browser;
let page: Page;
const errors: string[] = [];

before(async () => {
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: { docker: { options: { stopTimeoutSeconds: 1, reconcile: false } }, containers: {}, stacks: {}, alerts: {}, metrics: { options: { intervalMs: 1000 } }, portal: {} },
  });
  await addUser(s, 'olga', 'operator');
  await addUser(s, 'victor', 'viewer');
  await createStack(s, stack, busybox({ app: 'sleep 3600' }));
  await act(s, 'deploy', stack);
  await eventually(async () => (await s.api('GET', `/api/v1/metrics/series?scope=stack:${stack}&metric=cpu`)).body.points?.length >= 2, 30_000, 'points of the stack');
  // 90 days of the host's history in the 15 min and 1 min tiers: a daily wave
  const value = (i: number, wave: string) => {
    const m = hostMetrics[i];
    return m === 'cpu' ? `40 + 30 * sin(${wave})` : m === 'memory' ? `3e9 + 1e9 * sin(${wave})` : m === 'network-rx' ? `2e5 + 1.5e5 * sin(${wave})` : m === 'network-tx' ? `8e4 + 6e4 * cos(${wave})` : 'NULL';
  };
  for (const [table, step, days] of [['metric_points_15m', '15 min', 90], ['metric_points_1m', '1 min', 7]] as const) {
    const wave = 'extract(epoch FROM t) / 86400 * 2 * pi()';
    await s.app.db.query(`INSERT INTO ${table} (source, t, v) SELECT (SELECT id FROM metric_sources WHERE scope = 'host'), t, ARRAY[${hostMetrics.map((_, i) => value(i, wave)).join(', ')}]::real[]
      FROM generate_series(date_bin('${step}', now() - interval '${days} days', 'epoch'::timestamptz), now() - interval '1 hour', interval '${step}') t ON CONFLICT DO NOTHING`);
  }
  browser = await launch();
  page = await signedIn(browser, s, 'olga');
  collectErrors(page, errors);
});

after(async () => {
  await browser?.close();
  await cleanupProjects(stack);
  await s?.close();
});

const plots = (p: Page) => p.getByTestId('history').locator('figure.plot canvas');

test('the overview charts the host\'s history; the range buttons read 1 h, 24 h, 7 d and 90 d', async () => {
  await page.goto('/');
  const history = page.getByTestId('history');
  await history.getByRole('heading', { name: 'Host' }).waitFor();
  await eventually(async () => (await plots(page).count()) === 3, 15_000, 'three plots');
  await shot(page, 'metrics-overview-1h');
  for (const [label, step] of [['7 d', '15 min'], ['90 d', '2.25 h'], ['24 h', '2 min'], ['1 h', '10 s']]) {
    await history.getByRole('button', { name: label, exact: true }).click();
    await history.getByText(`One point every ${step}`).waitFor();
    assert.equal(await history.getByRole('button', { name: label, exact: true }).getAttribute('aria-pressed'), 'true');
    if (label === '90 d') await shot(page, 'metrics-overview-90d');
  }
  assert.match(await history.getByRole('img', { name: /CPU over the last hour/ }).getAttribute('aria-label') ?? '', /last hour/);
  assert.deepEqual(await unnamed(page), []);
});

test('the stack page and the container page chart their history', async () => {
  await page.goto(`/stacks/${stack}/resources`);
  await eventually(async () => (await plots(page).count()) === 3, 15_000, 'the stack\'s plots');
  await page.getByTestId('history').getByText(/One point every 10 s/).waitFor();
  await shot(page, 'metrics-stack');
  const [c] = (await s.api('GET', `/api/v1/containers?stack=${stack}`)).body;
  await page.goto(`/containers/${c.id}`);
  await eventually(async () => (await plots(page).count()) === 3, 15_000, 'the container\'s plots');
  await page.getByTestId('history').getByRole('button', { name: '24 h', exact: true }).click();
  await page.getByTestId('history').getByText(/One point every 2 min/).waitFor();
  await shot(page, 'metrics-container');
});

test('the alert rules page lists the built-in rules, adds a rule, disables a built-in one, refuses a bad one, and adds and ends a silence', async () => {
  await page.goto('/');
  await nav(page, 'Alert rules', 'Alerts');
  const rules = page.getByTestId('rules');
  await rules.getByText('disk-full-forecast').waitFor();
  assert.equal(await rules.locator('tbody tr').count(), 7);
  await page.getByLabel('Scope').first().fill(`container:${stack}/*`);
  await page.getByLabel('Metric').fill('memory-percent');
  await page.getByLabel('Threshold').fill('80');
  await page.getByLabel('For', { exact: true }).fill('10m');
  await page.getByLabel('Resolves at').fill('70');
  await page.getByRole('button', { name: 'Add rule' }).click();
  await rules.getByText(`container:${stack}/*`).waitFor();
  await page.getByRole('button', { name: 'Disable rule cpu-high' }).click();
  await page.getByRole('button', { name: 'Enable rule cpu-high' }).waitFor();
  assert.equal((await s.api('GET', '/api/v1/alerts/rules/cpu-high')).body.enabled, false);
  await page.getByLabel('Metric').fill('no-such-metric');
  await page.getByRole('button', { name: 'Add rule' }).click();
  await page.getByText(/no metric "no-such-metric"/).waitFor();
  await page.locator('#new-silence').scrollIntoViewIfNeeded();
  await page.getByLabel('Reason').fill('upgrading the database');
  await page.getByRole('button', { name: 'Silence' }).click();
  await page.getByTestId('silences').getByText('upgrading the database').waitFor();
  assert.deepEqual(await unnamed(page), []);
  await shot(page, 'metrics-rules');
  await page.getByRole('button', { name: 'End silence of *' }).click();
  await page.getByText('No silence is running.').waitFor();
  assert.deepEqual(errors, []);
});

test('a viewer sees the rules without their buttons, and no history (metrics:read is an operator\'s)', async () => {
  const viewer = await signedIn(browser, s, 'victor');
  await viewer.goto('/');
  await viewer.getByRole('heading', { name: 'At a glance' }).waitFor();
  assert.equal(await viewer.getByTestId('history').count(), 0);
  await nav(viewer, 'Alert rules', 'Alerts');
  await viewer.getByTestId('rules').getByText('disk-high').waitFor();
  assert.equal(await viewer.getByRole('button', { name: /Disable rule/ }).count(), 0);
  assert.equal(await viewer.getByRole('button', { name: 'Add rule' }).count(), 0);
  await viewer.context().close();
});
