// The container page in a real Chromium: the console in xterm.js (type echo hi, see hi; its size sent, and sent again on a resize; readable: a monospace font, every colour at WCAG AA contrast, styled under the CSP without a console error), live CPU of a container that burns it as numbers and plots, a viewer without a console.
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
/** what the signed-in page reports as errors: CSP refusals, uncaught errors */
const errors: string[] = [];

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
  // the history plots ask GET /metrics/series, a 404 here: the metrics plugin is off in this test (the plots then stay away)
  page.on('console', (m) => { if (m.type() === 'error' && !/status of 404/.test(m.text())) errors.push(m.text()); });
  page.on('pageerror', (err) => errors.push(String(err)));
});

/** WCAG's contrast ratio of two computed colours (rgb() or rgba() strings) */
function contrast(a: string, b: string): number {
  const luminance = (css: string) => {
    const [r, g, bl] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number).map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
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

  // readable: the terminal's own theme and font apply (the CSP lets its style elements in by their nonce)
  const look = await view.evaluate((box) => {
    const rows = box.querySelector('.xterm-rows')!;
    let bg = 'rgba(0, 0, 0, 0)';
    for (let el: Element | null = rows; el && /rgba\(0, 0, 0, 0\)|transparent/.test(bg); el = el.parentElement) bg = getComputedStyle(el).backgroundColor;
    return { color: getComputedStyle(rows).color, bg, font: getComputedStyle(rows).fontFamily, width: (rows.querySelector('span') as HTMLElement | null)?.offsetWidth };
  });
  assert.ok(contrast(look.color, look.bg) >= 4.5, `text ${look.color} on ${look.bg}: ${contrast(look.color, look.bg).toFixed(2)}:1`);
  assert.match(look.font, /monospace/, look.font);
  // every one of the 16 colours a program may print in
  await page.keyboard.type(`clear; for c in 30 31 32 33 34 35 36 37 90 91 92 93 94 95 96 97; do printf "\\033[\${c}mC\$c\\033[0m "; done; echo`);
  await page.keyboard.press('Enter');
  await until(async () => (await screen()).some((l) => l.includes('C97')), 10_000, 'the colours');
  const colours = await view.evaluate((box) => [...box.querySelectorAll('.xterm-rows span')].filter((s) => /^C\d+$/.test(s.textContent ?? '')).map((s) => [s.textContent, getComputedStyle(s).color]));
  assert.equal(colours.length, 16, JSON.stringify(colours));
  for (const [name, colour] of colours) assert.ok(contrast(colour!, look.bg) >= 4.5, `${name} ${colour} on ${look.bg}: ${contrast(colour!, look.bg).toFixed(2)}:1`);
  assert.equal(new Set(colours.map((c) => c[1])).size, 16, 'sixteen distinct colours');
  // a 24-bit colour: xterm.js gives its cell a style of its own
  await page.keyboard.type(`printf "\\033[38;2;255;140;0mTRUE\\033[0m\\n"`);
  await page.keyboard.press('Enter');
  await until(async () => (await screen()).includes('TRUE'), 10_000, 'the 24-bit colour');
  const trueColour = await view.evaluate((box) => [...box.querySelectorAll('.xterm-rows span')].filter((s) => s.textContent === 'TRUE').map((s) => getComputedStyle(s).color));
  assert.deepEqual(trueColour, ['rgb(255, 140, 0)']);
  await shot(page, 'container-console-colours');
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
  assert.deepEqual(errors, [], 'no console errors (a style the CSP refused would be one)');
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
