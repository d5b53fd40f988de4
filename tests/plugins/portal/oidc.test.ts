// Sign-in with an identity provider in Chromium, against npm oidc-provider on loopback: the account made with its mapped role, a group removed at the provider removes the role, a name like a local admin's takes nothing over; the admin pages of providers and trust policies.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { call, startServer, type TestServer } from '../../helpers/harness.ts';
import { startIdp, type TestIdp } from '../../helpers/oidc-idp.ts';
import { addUser, launch, nav, shot, signedIn, unnamed } from './helpers.ts';

let s: TestServer;
let idp: TestIdp;
let browser: Browser;

before(async () => {
  s = await startServer({ plugins: { portal: {} }, config: { outbound: { allow: ['127.0.0.1'], allowHostnames: false } } });
  idp = await startIdp(`${s.url}/auth/oidc/local/callback`);
  const settings = await s.api('GET', '/api/v1/settings');
  const provider = {
    name: 'local', label: 'Local IdP', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret,
    mappings: [{ group: 'deployers', role: 'operator' }, { group: 'deployers', team: 'ci' }, { group: 'admins', role: 'admin' }], defaultRole: 'viewer',
  };
  const set = await s.api('PATCH', '/api/v1/settings', { body: { 'auth.oidc.providers': [provider] }, headers: { 'if-match': `"${settings.body.revision}"` } });
  assert.equal(set.status, 200, set.text);
  await addUser(s, 'ada', 'admin');
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await s?.close();
  await idp?.close();
});

/** a fresh browser signs in at the provider's (dev) login form as `login`; nothing leaves loopback */
async function signInWithIdp(login: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: s.url });
  await context.route('**/*', (route) => (/^https?:\/\/127\.0\.0\.1[:/]/.test(route.request().url()) ? route.continue() : route.abort()));
  const page = await context.newPage();
  await page.goto('/');
  await page.getByRole('link', { name: 'Sign in with Local IdP' }).click();
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  return page;
}

const userOf = async (name: string) => (await s.api('GET', `/api/v1/users/${name}`)).body;

test('the first sign-in makes the account with its mapped role and team; the portal opens signed in', async () => {
  idp.accounts.alice = { preferred_username: 'alice', email: 'alice@example.com', email_verified: true, groups: ['deployers'] };
  const page = await signInWithIdp('alice');
  await page.getByTestId('who').waitFor();
  assert.match(await page.getByTestId('who').innerText(), /alice \(operator\)/);
  const alice = await userOf('alice');
  assert.equal(alice.role, 'operator');
  assert.deepEqual(alice.teams, ['ci']);
  const log = await s.api('GET', '/api/v1/activity?action=kernel.oidc.sign-in&limit=5');
  assert.equal(log.body[0].result, 'ok');
  assert.equal(log.body[0].detail.created, true);
  await shot(page, 'oidc-signed-in');
  await page.context().close();
});

test('a group removed at the provider removes its role and team at the next sign-in; a team an admin gave stays', async () => {
  assert.equal((await s.api('POST', '/api/v1/teams', { body: { name: 'night' } })).status, 201);
  assert.equal((await s.api('POST', '/api/v1/teams/night/members', { body: { user: 'alice' } })).status, 200);
  idp.accounts.alice.groups = [];
  const page = await signInWithIdp('alice');
  await page.getByTestId('who').waitFor();
  const alice = await userOf('alice');
  assert.equal(alice.role, 'viewer', 'the provider\'s default role, no longer operator');
  assert.deepEqual(alice.teams, ['night'], 'the mapped team removed, the admin\'s kept');
  const log = await s.api('GET', '/api/v1/activity?action=kernel.oidc.sign-in&limit=1');
  assert.deepEqual(log.body[0].detail.role, { from: 'operator', to: 'viewer' });
  assert.deepEqual(log.body[0].detail.teamsRemoved, ['ci']);
  await page.context().close();
});

test('an identity named like a local admin gets an account of its own: the admin is not taken over', async () => {
  idp.accounts['idp-ada'] = { preferred_username: 'ada', email: 'ada@example.com', email_verified: true, groups: ['deployers'] };
  const page = await signInWithIdp('idp-ada');
  await page.getByTestId('who').waitFor();
  assert.match(await page.getByTestId('who').innerText(), /ada-2 \(operator\)/);
  assert.equal((await userOf('ada')).role, 'admin');
  assert.equal((await userOf('ada-2')).role, 'operator');
  // the local admin still signs in with its password, and is still itself
  const local = await signedIn(browser, s, 'ada');
  assert.match(await local.getByTestId('who').innerText(), /ada \(admin\)/);
  await local.context().close();
  await page.context().close();
});

test('the sign-in page shows the provider\'s button, and a refused sign-in comes back with the reason', async () => {
  idp.accounts.nobody = { preferred_username: 'nobody', groups: [] };
  const settings = await s.api('GET', '/api/v1/settings');
  // without a default role, a sign-in no mapping gives a role to is refused, and makes no account
  const provider = { name: 'local', label: 'Local IdP', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, mappings: [{ group: 'deployers', role: 'operator' }] };
  assert.equal((await s.api('PATCH', '/api/v1/settings', { body: { 'auth.oidc.providers': [provider] }, headers: { 'if-match': `"${settings.body.revision}"` } })).status, 200);
  const page = await signInWithIdp('nobody');
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').innerText(), /give you no role/);
  assert.equal((await s.api('GET', '/api/v1/users/nobody')).status, 404);
  await shot(page, 'oidc-sign-in-refused');
  await page.context().close();
});

test('admin pages: a provider tested with some groups; a trust policy added, shown and removed', async () => {
  const page = await signedIn(browser, s, 'ada');
  await nav(page, 'Identity providers', 'Users');
  await page.getByRole('heading', { name: 'Identity providers', level: 1 }).waitFor();
  await page.getByLabel('Groups to try').fill('deployers, other');
  await page.getByRole('button', { name: 'Test Local IdP' }).click();
  const tested = page.getByTestId('tested-local');
  await tested.waitFor();
  assert.match(await tested.innerText(), /PKCE S256\s+offered/);
  assert.match(await tested.innerText(), /role operator/);
  assert.deepEqual(await unnamed(page), []);
  await shot(page, 'identity-providers');

  await page.getByRole('navigation', { name: 'Section' }).getByRole('link', { name: 'CI federation', exact: true }).click();
  await page.getByRole('heading', { name: 'CI federation', level: 1 }).waitFor();
  await page.getByLabel('Audience').fill('https://dw.example.com');
  await page.getByLabel('Subject pattern').fill('repo:acme/shop:ref:refs/heads/main');
  await page.getByLabel(/^Claim patterns/).fill('workflow=deploy');
  await page.getByLabel(/^Scopes/).fill('jobs:read activity:read');
  await page.getByLabel(/^Stacks/).fill('shop');
  await page.getByRole('button', { name: 'Add trust policy' }).click();
  await page.getByTestId('trust-policy').waitFor();
  const [made] = (await s.api('GET', '/api/v1/auth/federation')).body;
  assert.deepEqual([made.subject, made.claims, made.stacks, made.scopes, made.ttl], ['repo:acme/shop:ref:refs/heads/main', { workflow: 'deploy' }, ['shop'], ['jobs:read', 'activity:read'], '15m']);
  assert.deepEqual(await unnamed(page), []);
  await shot(page, 'federation');
  await page.getByRole('button', { name: 'Remove the trust policy for repo:acme/shop:ref:refs/heads/main' }).click();
  await page.getByText('No trust policies').waitFor();
  assert.deepEqual((await s.api('GET', '/api/v1/auth/federation')).body, []);

  // the Settings page: the providers (with their client secret) are never shown; pasted as JSON, they replace the list
  await nav(page, 'Settings');
  const field = page.getByLabel(/^Identity providers \(OIDC\)/);
  await field.waitFor();
  assert.match(await page.getByTestId('setting-auth-oidc-providers').innerText(), /set; never shown/);
  assert.ok(!(await page.content()).includes(idp.clientSecret), 'the client secret is nowhere in the page');
  const renamed = [{ name: 'local', label: 'Corp SSO', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, mappings: [{ group: 'deployers', role: 'operator' }] }];
  await field.fill(JSON.stringify(renamed));
  await page.getByRole('button', { name: /^Save 1 change/ }).click();
  await page.getByText(/Saved 1 setting/).waitFor();
  assert.deepEqual((await call(s.url, 'GET', '/api/v1/auth/oidc/providers')).body.providers, [{ name: 'local', label: 'Corp SSO', url: '/auth/oidc/local' }]);
  await page.context().close();
});
