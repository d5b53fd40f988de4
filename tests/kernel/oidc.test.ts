// OIDC sign-in refusals against a scripted provider on loopback (jose keys): wrong audience, bad signature, replayed nonce or state, another browser; MFA by amr; enforced SSO with a break-glass admin; linking from a session.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, startServer, type TestServer } from '../helpers/harness.ts';
import { newKey } from '../helpers/oidc-issuer.ts';
import { driveSignIn, startScriptedProvider, type ScriptedProvider } from '../helpers/oidc-scripted.ts';

let s: TestServer;
let idp: ScriptedProvider;

before(async () => {
  idp = await startScriptedProvider();
  s = await startServer({ config: { outbound: { allow: ['127.0.0.1'], allowHostnames: false } } });
  await setProviders();
});
after(async () => {
  await s?.close();
  await idp?.close();
});

async function setProviders(more: Record<string, unknown> = {}) {
  const settings = await s.api('GET', '/api/v1/settings');
  const provider = { name: 'mini', issuer: idp.issuer, clientId: idp.clientId, clientSecret: 'mini secret', mappings: [{ group: 'ops', role: 'operator' }] };
  const res = await s.api('PATCH', '/api/v1/settings', { body: { 'auth.oidc.providers': [provider], ...more }, headers: { 'if-match': `"${settings.body.revision}"` } });
  assert.equal(res.status, 200, res.text);
}

const signIn = (opts: Parameters<typeof driveSignIn>[2] = {}) => driveSignIn(s.url, 'mini', opts);
const lastRefusal = async () => (await s.api('GET', '/api/v1/activity?action=kernel.oidc.sign-in&limit=1')).body[0];

test('a good sign-in opens a session; the same callback again, or one from another browser, is refused', async () => {
  idp.mint = {};
  const ok = await signIn();
  assert.equal(ok.location, '/');
  assert.ok(ok.session);
  const me = await call(s.url, 'GET', '/api/v1/session', { headers: { cookie: `dw_session=${ok.session}` } });
  assert.equal(me.status, 200);
  assert.deepEqual(me.body.user, { name: 'carol', role: 'operator' });
  const again = await fetch(ok.callbackUrl, { redirect: 'manual', headers: { cookie: `dw_oidc=${ok.flow}` } });
  assert.equal(again.headers.get('location'), '/?signInError=flow-unknown', 'a state is used once');
  const elsewhere = await signIn({ withoutFlowCookie: true });
  assert.equal(elsewhere.location, '/?signInError=flow-unknown');
  assert.equal(elsewhere.session, undefined);
});

test('refused: an ID token for another audience, one signed by another key, one carrying an earlier nonce', async () => {
  idp.mint = { aud: 'someone-else' };
  assert.equal((await signIn()).location, '/?signInError=token-refused');
  assert.match((await lastRefusal()).detail.reason, /aud/);
  idp.mint = { key: await newKey(idp.key.kid) };
  assert.equal((await signIn()).location, '/?signInError=token-refused');
  assert.match((await lastRefusal()).detail.reason, /signature/i);
  idp.mint = {};
  await signIn();
  const earlier = idp.lastNonce;
  assert.deepEqual(idp.lastAuthorization, { method: 'S256', state: true, challenge: true });
  idp.mint = { nonce: earlier };
  const replay = await signIn();
  assert.equal(replay.location, '/?signInError=token-refused');
  assert.equal(replay.session, undefined);
  assert.match((await lastRefusal()).detail.reason, /nonce/);
});

test('with two-factor sign-in required, only an ID token whose amr names a second factor signs in', async () => {
  const settings = await s.api('GET', '/api/v1/settings');
  assert.equal((await s.api('PATCH', '/api/v1/settings', { body: { 'sessions.requireTotp': true }, headers: { 'if-match': `"${settings.body.revision}"` } })).status, 200);
  try {
    idp.mint = { amr: ['pwd'] };
    assert.equal((await signIn()).location, '/?signInError=mfa-required');
    idp.mint = { amr: ['pwd', 'mfa'] };
    assert.equal((await signIn()).location, '/');
  } finally {
    const now = await s.api('GET', '/api/v1/settings');
    await s.api('PATCH', '/api/v1/settings', { body: { 'sessions.requireTotp': null }, headers: { 'if-match': `"${now.body.revision}"` } });
  }
});

test('enforced SSO refuses password sign-in but for the break-glass admin; a signed-in user links an identity to its account', async () => {
  await s.app.tokens.addUser('root', 'admin');
  await s.app.sessions.setPassword('root', 'a long root password');
  await s.app.tokens.addUser('otto', 'operator');
  await s.app.sessions.setPassword('otto', 'a long otto password');
  await setProviders({ 'auth.oidc.enforceSso': true, 'auth.oidc.breakGlass': ['root'] });
  const otto = await call(s.url, 'POST', '/api/v1/session', { body: { username: 'otto', password: 'a long otto password' } });
  assert.equal(otto.status, 403);
  assert.match(otto.body.type, /sso-required/);
  const wrong = await call(s.url, 'POST', '/api/v1/session', { body: { username: 'otto', password: 'not the password' } });
  assert.equal(wrong.status, 401, 'a wrong password says nothing about SSO');
  const root = await call(s.url, 'POST', '/api/v1/session', { body: { username: 'root', password: 'a long root password' } });
  assert.equal(root.status, 201, root.text);
  const providers = await call(s.url, 'GET', '/api/v1/auth/oidc/providers');
  assert.deepEqual(providers.body, { providers: [{ name: 'mini', label: 'mini', url: '/auth/oidc/mini' }], enforceSso: true });

  // root links the identity dave-1 to its account from its session: the next sign-in as dave-1 is root, with root's own role kept
  const cookie = /dw_session=([^;]+)/.exec(root.headers.get('set-cookie')!)![1];
  const noCsrf = await fetch(`${s.url}/auth/oidc/mini?link=1`, { redirect: 'manual', headers: { cookie: `dw_session=${cookie}` } });
  assert.equal(noCsrf.status, 403);
  idp.mint = { sub: 'dave-1', groups: [] };
  const linked = await signIn({ extra: `?link=1&csrf=${root.body.csrf}`, cookie: `dw_session=${cookie}` });
  assert.equal(linked.location, '/');
  const again = await signIn();
  const me = await call(s.url, 'GET', '/api/v1/session', { headers: { cookie: `dw_session=${again.session}` } });
  assert.deepEqual(me.body.user, { name: 'root', role: 'admin' }, 'an admin\'s role is kept: no mapping gives one, and it was not the provider\'s');
  await setProviders({ 'auth.oidc.enforceSso': null, 'auth.oidc.breakGlass': null });
});

test('"test this provider": its discovery read now, and the grants some claims would get; nothing changes', async () => {
  const operator = await s.token('operator', ['jobs:read']);
  assert.equal((await call(s.url, 'POST', '/api/v1/auth/oidc/providers/mini/test', { token: operator, body: {} })).status, 403);
  assert.equal((await s.api('POST', '/api/v1/auth/oidc/providers/nope/test', { body: {} })).status, 404);
  const users = (await s.api('GET', '/api/v1/users?limit=1000')).body.length;
  const tested = await s.api('POST', '/api/v1/auth/oidc/providers/mini/test', { body: { claims: { groups: ['ops', 'other'] } } });
  assert.equal(tested.status, 200, tested.text);
  assert.equal(tested.body.issuer, idp.issuer);
  assert.equal(tested.body.pkceS256, true);
  assert.deepEqual(tested.body.grants, { role: 'operator', teams: [], groups: ['ops', 'other'] });
  assert.equal((await s.api('POST', '/api/v1/auth/oidc/providers/mini/test', { body: { claims: { groups: [] } } })).body.grants.role, null, 'refused: no mapping, no default');
  assert.equal((await s.api('GET', '/api/v1/users?limit=1000')).body.length, users);
});
