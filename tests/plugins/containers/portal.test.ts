// The container page in a real Chromium: the console in xterm.js (type echo hi, see hi; its size sent, and sent again on a resize), live CPU of a container that burns it as numbers and plots, a viewer without a console.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, deployOk, docker, driverPath, uniqueName, until } from '../docker/helpers.ts';
import { addUser, launch, shot, signedIn } from '../portal/helpers.ts';

const name = uniqueName('cpage');
let s: TestServer;
let browser: Browser;
let page: Page;
let id: string;

before(async () => {
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } },
      containers: {}, portal: {}, 'compose-driver': { path: driverPath },
    },
  });
  await deployOk(s, name, `
services:
  burn:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "while :; do :; done"]
    stop_grace_period: 1s
`);
  id = (await docker.getContainer(`${name}-burn-1`).inspect()).Id;
  await addUser(s, 'olga', 'operator');
  await addUser(s, 'vera', 'viewer');
  browser = await launch();
  page = await signedIn(browser, s, 'olga');
});
after(async () => {
  await browser?.close();
  await s?.close();
  await cleanupProjects(name);
});

test('the console: opened from the container page, echo hi answers hi, the terminal size is the view\'s', async () => {
  await page.goto(`/containers/${id}`);
  await page.getByRole('button', { name: 'Open console' }).click();
  await until(async () => (await page.getByTestId('console-status').textContent()) === 'connected', 10_000, 'the console to connect');
  const view = page.getByTestId('console');
  /** the terminal's screen, a line per row (xterm.js draws its rows as elements) */
  const screen = async () => (await view.locator('.xterm-rows > div').allTextContents()).map((l) => l.replace(/\u00a0/g, ' ').trimEnd());
  await view.click();
  await page.keyboard.type('echo hi-$((40+2))');
  await page.keyboard.press('Enter');
  await until(async () => (await screen()).includes('hi-42'), 10_000, 'hi-42 in the console');
  const size = async () => `${await view.getAttribute('data-rows')} ${await view.getAttribute('data-cols')}`;
  await page.keyboard.type('stty size');
  await page.keyboard.press('Enter');
  await until(async () => (await screen()).includes(await size()), 10_000, 'the size of the terminal, as the shell sees it');
  // a narrower window: the terminal fits itself again and the shell is told
  const before = await size();
  await page.setViewportSize({ width: 700, height: 900 });
  await until(async () => (await size()) !== before, 10_000, 'the terminal to refit');
  // asked again until it answers: the layout may settle in more than one step, each a resize the shell is told of
  await until(async () => {
    await page.keyboard.type('clear; stty size');
    await page.keyboard.press('Enter');
    await new Promise((r) => setTimeout(r, 300));
    return (await screen()).includes(await size());
  }, 15_000, 'the new size, as the shell sees it', 500);
  await page.setViewportSize({ width: 1280, height: 900 });
  await shot(page, 'container-console');
  // dispatched to the button itself: the page is still settling from the resize above (the terminal refits), and a
  // mouse click at the button's last position could land beside it, leaving the console open
  await page.getByRole('button', { name: 'Close console' }).dispatchEvent('click');
  const ended = await until(async () => (await s.api('GET', '/api/v1/activity?action=containers.exec&limit=100')).body.find((a: any) => a.result === 'ok' && a.actor.name === 'olga'), 10_000, 'the session\'s end in the activity log');
  assert.equal(ended.actor.channel, 'portal');
});

test('live resource use: the CPU of a container that burns it, and its memory, as numbers and as plots', async () => {
  await page.goto(`/containers/${id}`);
  await until(async () => {
    const text = await page.getByTestId('stats-cpu').textContent({ timeout: 500 }).catch(() => null);
    return text !== null && parseFloat(text) > 10;
  }, 8_000, 'the CPU above 10 %');
  assert.match((await page.getByTestId('stats-memory').textContent()) ?? '', /[KMG]iB/);
  // uPlot draws each plot on a canvas, with a legend naming its series
  await until(async () => (await page.getByTestId('plots').locator('canvas').count()) === 3, 8_000, 'three plots');
  assert.match(await page.getByRole('figure', { name: 'CPU' }).innerText(), /now \d+\.\d %/);
  await shot(page, 'container-plots');
});

test('a viewer sees the resource use but no console', async () => {
  const viewer = await signedIn(browser, s, 'vera');
  await viewer.goto(`/containers/${id}`);
  await viewer.getByTestId('stats-cpu').waitFor();
  assert.equal(await viewer.getByRole('button', { name: 'Open console' }).count(), 0);
  await viewer.context().close();
});
