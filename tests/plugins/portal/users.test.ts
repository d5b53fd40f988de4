// Users, teams and two-factor sign-in in a real Chromium: an admin makes a user with a one-time password and a team, the user replaces it, enrols an authenticator from its account and signs in with a code; requireTotp enrols at sign-in.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { addUser, launch, nav, shot, signedIn, unnamed } from './helpers.ts';

let server: TestServer;
let browser: Browser;
let admin: Page;

const codeOf = (secret: string, offsetSteps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), period: 30, digits: 6, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });

before(async () => {
  server = await startServer({ plugins: { portal: {} }, config: { sessions: { ttlMs: 600_000, failedSignInsPerMinute: 20 } } });
  await addUser(server, 'ada', 'admin');
  browser = await launch();
  admin = await signedIn(browser, server, 'ada');
});

after(async () => {
  await browser?.close();
  await server?.close();
});


/** a fresh browser at the sign-in form, the name and password typed */
async function signInForm(name: string, password: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: server.url });
  const page = await context.newPage();
  await page.goto('/');
  await page.getByLabel('User name').fill(name);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return page;
}

test('an admin makes a team and a user with a one-time password; the user replaces it, enrols an authenticator and signs in with a code', async () => {
  await nav(admin, 'Teams', 'Users');
  await admin.getByRole('heading', { name: 'Teams', level: 1 }).waitFor();
  await admin.getByLabel('Team name').fill('ops');
  await admin.getByLabel('Description').fill('runs the night');
  await admin.getByRole('button', { name: 'Create team' }).click();
  await admin.getByTestId('team-ops').waitFor();
  assert.deepEqual(await unnamed(admin), [], 'every control of the teams page has a name');

  await nav(admin, 'Users');
  await admin.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
  await admin.getByLabel('User name').fill('una');
  await admin.getByLabel('Role').selectOption('viewer');
  await admin.getByRole('checkbox', { name: 'ops' }).check();
  await admin.getByLabel(/^One-time password/).fill('given by the admin');
  await admin.getByRole('button', { name: 'Create user' }).click();
  await admin.getByRole('link', { name: 'una', exact: true }).waitFor();
  assert.deepEqual(await unnamed(admin), [], 'every control of the users page has a name');
  const made = (await server.api('GET', '/api/v1/users/una')).body;
  assert.deepEqual([made.role, made.teams, made.mustChangePassword], ['viewer', ['ops'], true]);
  await shot(admin, 'users');

  // the user's first sign-in asks for a new password
  const una = await signInForm('una', 'given by the admin');
  await una.getByLabel(/^New password/).fill('una chose this one');
  await una.getByRole('button', { name: 'Continue' }).click();
  await una.getByTestId('who').waitFor();
  assert.equal(await server.app.sessions.checkPassword('una', 'una chose this one'), true);

  // enrol from the account page: the QR code and the secret as text, confirmed with a code computed from it
  await una.goto('/account');
  await una.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
  const secret = (await una.getByTestId('totp-secret').innerText()).trim();
  assert.match(secret, /^[A-Z2-7]{32}$/);
  const qr = una.getByRole('img', { name: /QR code/ });
  await qr.waitFor();
  assert.ok(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), 'the QR code is drawn');
  assert.deepEqual(await unnamed(una), [], 'every control of the enrolment has a name');
  await shot(una, 'totp-enrol');
  await una.getByLabel('Code from the app').fill(codeOf(secret));
  await una.getByRole('button', { name: 'Confirm authenticator' }).click();
  await una.getByTestId('recovery-codes').waitFor();
  const codes = await una.getByTestId('recovery-codes').getByRole('listitem').allInnerTexts();
  assert.equal(codes.length, 10);
  await una.getByText('10 recovery codes left').waitFor();
  await una.reload();
  await una.getByText('10 recovery codes left').waitFor();
  assert.ok(!(await una.content()).includes(secret), 'the secret is not shown again');

  // signing in again asks for a code
  const again = await signInForm('una', 'una chose this one');
  await again.getByLabel(/^Authenticator code/).fill('000000');
  await again.getByRole('button', { name: 'Continue' }).click();
  await again.getByRole('alert').getByText(/wrong, or was used already/).waitFor();
  await again.getByLabel(/^Authenticator code/).fill(codeOf(secret, 1));
  await again.getByRole('button', { name: 'Continue' }).click();
  await again.getByTestId('who').waitFor();
  assert.equal(await again.getByTestId('who').innerText(), 'una (viewer)');

  // the admin's user page: disable (its sessions end), enable, reset the enrolment
  await admin.goto('/users/una');
  await admin.getByRole('heading', { name: 'User una' }).waitFor();
  assert.deepEqual(await unnamed(admin), [], 'every control of the user page has a name');
  await admin.getByRole('button', { name: 'Disable user' }).click();
  await admin.getByRole('button', { name: 'Enable user' }).waitFor();
  assert.equal((await server.api('GET', '/api/v1/users/una')).body.disabled, true);
  // the disabled user's page asks the API again and is sent back to sign in
  await again.reload();
  await again.getByRole('button', { name: 'Sign in' }).waitFor();
  await admin.getByRole('button', { name: 'Enable user' }).click();
  await admin.getByRole('button', { name: 'Reset two-factor sign-in' }).click();
  await admin.getByText('Two-factor sign-in reset.').waitFor();
  assert.equal((await server.api('GET', '/api/v1/users/una')).body.totpEnrolled, false);
  await shot(admin, 'user');
});

test('with sessions.requireTotp, the sign-in leads a user without an authenticator to enrol, then shows the recovery codes once', async () => {
  const strict = await startServer({ plugins: { portal: {} }, config: { sessions: { ttlMs: 600_000, failedSignInsPerMinute: 20, requireTotp: true } } });
  try {
    await addUser(strict, 'rhea', 'operator');
    const context = await browser.newContext({ baseURL: strict.url });
    const page = await context.newPage();
    await page.goto('/');
    await page.getByLabel('User name').fill('rhea');
    await page.getByLabel('Password', { exact: true }).fill('a long portal password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const secret = (await page.getByTestId('totp-secret').innerText()).trim();
    await page.getByRole('img', { name: /QR code/ }).waitFor();
    await page.getByLabel(/^Authenticator code/).fill(codeOf(secret));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    assert.equal(await page.getByTestId('recovery-codes').getByRole('listitem').count(), 10);
    await shot(page, 'totp-required-enrolled');
    await page.getByRole('button', { name: /I have saved them/ }).click();
    await page.getByTestId('who').waitFor();
    assert.equal((await strict.api('GET', '/api/v1/users/rhea')).body.totpEnrolled, true);
  } finally {
    await strict.close();
  }
});
