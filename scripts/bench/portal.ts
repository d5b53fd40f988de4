// Benchmark (not a test): the portal's initial JavaScript, gzipped as served, and how soon a cold browser can use its first page (sign-in, then the overview).
// Run with `npm run bench:portal` after `npm test` has prepared PostgreSQL and Chromium (.test-env).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { root, startServer } from '../../tests/helpers/harness.ts';
import { addUser, launch, password } from '../../tests/plugins/portal/helpers.ts';
import { buildPortal } from '../portal/build.ts';
import { median, standalone, type Figure } from './common.ts';

const runs = 7;

export async function portalBench(): Promise<Figure[]> {
  await buildPortal(root);
  const dir = join(root, 'dist', 'portal');
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  // what the first page loads: the scripts and styles index.html names (the server sends them gzip level 9)
  const initial = readdirSync(dir).filter((f) => html.includes(`/${f}`));
  const jsGzip = initial.filter((f) => f.endsWith('.js')).reduce((n, f) => n + gzipSync(readFileSync(join(dir, f)), { level: 9 }).length, 0);
  const server = await startServer({ plugins: { docker: {}, containers: {}, stacks: {}, portal: {} } });
  const browser = await launch();
  try {
    await addUser(server, 'bench', 'operator');
    const signIn: number[] = [];
    const overview: number[] = [];
    const wall: number[] = [];
    for (let i = 0; i < runs; i++) {
      // a new context each time: no cache, no storage, like a first visit
      const context = await browser.newContext({ baseURL: server.url });
      // the page itself notes when it became usable (ms since its navigation began): the sign-in button, or the overview's data
      await context.addInitScript(() => {
        const w = window as unknown as { usable?: number };
        new MutationObserver(() => {
          if (w.usable === undefined && (document.querySelector('form button[type=submit]') || document.getElementById('attention'))) w.usable = performance.now();
        }).observe(document, { childList: true, subtree: true });
      });
      const page = await context.newPage();
      const started = performance.now();
      await page.goto('/', { waitUntil: 'commit' });
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      wall.push(performance.now() - started);
      signIn.push(await page.evaluate(() => (window as unknown as { usable: number }).usable));
      await page.getByLabel('User name').fill('bench');
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Needs attention' }).waitFor();
      // the signed-in overview loaded again (the session kept), until its data is shown
      await page.reload();
      await page.getByRole('heading', { name: 'Needs attention' }).waitFor();
      overview.push(await page.evaluate(() => (window as unknown as { usable: number }).usable));
      await context.close();
    }
    return [
      { figure: 'portal initial JavaScript, gzipped', value: +(jsGzip / 1024).toFixed(1), unit: 'KB', target: { below: 150 } },
      { figure: 'sign-in page usable, in the browser (first visit, median)', value: Math.round(median(signIn)), unit: 'ms', target: { below: 1000 }, note: `${runs} runs, from navigation start` },
      { figure: 'overview usable with its data, in the browser (median)', value: Math.round(median(overview)), unit: 'ms', target: { below: 1000 }, note: `${runs} runs, from navigation start` },
      { figure: 'sign-in page usable, seen from the test driver (median)', value: Math.round(median(wall)), unit: 'ms', target: { below: 1500 }, note: 'includes the new renderer process and the driver\'s polling' },
    ];
  } finally {
    await browser.close();
    await server.close();
  }
}

await standalone(import.meta.url, portalBench);
