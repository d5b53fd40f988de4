// The portal's browser-test kit: Debian's Chromium driven by playwright-core, users with passwords, screenshots kept under test-artifacts/portal.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { root, type TestServer } from '../../helpers/harness.ts';

export const artifacts = join(root, 'test-artifacts', 'portal');
export const password = 'a long portal password';

export async function launch(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
}

export async function addUser(s: TestServer, name: string, role: 'admin' | 'operator' | 'viewer'): Promise<void> {
  await s.app.tokens.addUser(name, role);
  await s.app.sessions.setPassword(name, password);
}

/** a fresh browser context signed in through the sign-in form */
export async function signedIn(browser: Browser, s: TestServer, name: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ viewport, baseURL: s.url });
  const page = await context.newPage();
  await page.goto('/');
  await page.getByLabel('User name').fill(name);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('who').waitFor();
  return page;
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}

/** controls without an accessible name: a label, aria-label or aria-labelledby */
export function unnamed(p: Page): Promise<string[]> {
  return p.evaluate(() => [...document.querySelectorAll('input, select, textarea, button')]
    .filter((el) => {
      const e = el as HTMLInputElement;
      return !(e.labels?.length || e.getAttribute('aria-label') || e.getAttribute('aria-labelledby') || (el.tagName === 'BUTTON' && el.textContent?.trim()));
    })
    .map((el) => el.outerHTML.slice(0, 120)));
}

/** opens a page from the main navigation; a page of a group (Alert channels under Alerts) through its group's entry, then its link above the page */
export async function nav(p: Page, name: string, group?: string): Promise<void> {
  await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: group ?? name, exact: true }).click();
  if (group) await p.getByRole('navigation', { name: 'Section' }).getByRole('link', { name, exact: true }).click();
}

/** collects a page's uncaught errors and console errors into `errors` (a failed request the page shows as a problem is not one) */
export function collectErrors(page: Page, errors: string[]): void {
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(`${page.url()}: ${m.text()}`); });
}
