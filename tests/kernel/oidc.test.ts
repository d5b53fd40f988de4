// OIDC sign-in refusals against a scripted provider on loopback (jose keys): wrong audience, bad signature, replayed nonce or state, another browser; MFA by amr; enforced SSO with a break-glass admin; linking from a session.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { call, startServer, type TestServer } from '../helpers/harness.ts';
import { newKey, type SigningKey } from '../helpers/oidc-issuer.ts';

let s: TestServer;
let server: Server;
let issuer = '';
const key = { current: undefined as unknown as SigningKey };
/** how the next ID token is made: a test changes it */
let mint: { aud?: string; key?: SigningKey; nonce?: string; sub?: string; amr?: string[]; groups?: string[] } = {};
const seen: { nonce?: string } = {};

before(async () => {
  key.current = await newKey();
  server = createServer(async (req, res) => {
    const url = new URL(req.url!, issuer);
    const json = (body: unknown) => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify(body)); };
    if (url.pathname === '/.well-known/openid-configuration') {
      return json({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'], code_challenge_methods_supported: ['S256'] });
    }
    if (url.pathname === '/jwks') return json({ keys: [key.current.publicJwk] });
    if (url.pathname === '/authorize') {
      seen.nonce = url.searchParams.get('nonce') ?? undefined;
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
      assert.ok(url.searchParams.get('state') && url.searchParams.get('code_challenge'));
      res.statusCode = 302;
      res.setHeader('location', `${url.searchParams.get('redirect_uri')}?code=${randomUUID()}&state=${url.searchParams.get('state')}`);
      return res.end();
    }
    if (url.pathname === '/token') {
      for await (const _ of req) { /* the form: code, verifier, client credentials */ }
      const now = Math.floor(Date.now() / 1000);
      const signer = mint.key ?? key.current;
      const idToken = await new SignJWT({ nonce: mint.nonce ?? seen.nonce, email: 'carol@example.com', email_verified: true, preferred_username: 'carol', groups: mint.groups ?? ['ops'], ...(mint.amr ? { amr: mint.amr } : {}) })
        .setProtectedHeader({ alg: 'RS256', kid: signer.kid }).setIssuer(issuer).setAudience(mint.aud ?? 'dw-client').setSubject(mint.sub ?? 'carol-1')
        .setIssuedAt(now).setExpirationTime(now + 300).sign(signer.privateKey);
      return json({ access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: idToken });
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  s = await startServer({ config: { outbound: { allow: ['127.0.0.1'], allowHostnames: false } } });
  await setProviders();
});
after(async () => {
  await s?.close();
  server.closeAllConnections();
  server.close();
});

async function setProviders(more: Record<string, unknown> = {}) {
  const settings = await s.api('GET', '/api/v1/settings');
  const provider = { name: 'mini', issuer, clientId: 'dw-client', clientSecret: 'mini secret', mappings: [{ group: 'ops', role: 'operator' }] };
  const res = await s.api('PATCH', '/api/v1/settings', { body: { 'auth.oidc.providers': [provider], ...more }, headers: { 'if-match': `"${settings.body.revision}"` } });
  assert.equal(res.status, 200, res.text);
}

const cookieOf = (res: Response, name: string) => /^([^=]+)=([^;]*)/.exec((res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))) ?? '')?.[2];

/** the browser's part, by hand: begin, the provider's redirect, the callback (with this browser's flow cookie unless told otherwise) */
async function signIn(opts: { withoutFlowCookie?: boolean; extra?: string; cookie?: string } = {}) {
  const begin = await fetch(`${s.url}/auth/oidc/mini${opts.extra ?? ''}`, { redirect: 'manual', headers: opts.cookie ? { cookie: opts.cookie } : {} });
  assert.equal(begin.status, 302, await begin.text());
  const flow = cookieOf(begin, 'dw_oidc');
  const atIdp = await fetch(begin.headers.get('location')!, { redirect: 'manual' });
  const callbackUrl = atIdp.headers.get('location')!;
  const back = await fetch(callbackUrl, { redirect: 'manual', headers: opts.withoutFlowCookie ? {} : { cookie: `dw_oidc=${flow}` } });
  assert.equal(back.status, 302);
  return { location: back.headers.get('location')!, session: cookieOf(back, 'dw_session'), callbackUrl, flow };
}
const lastRefusal = async () => (await s.api('GET', '/api/v1/activity?action=kernel.oidc.sign-in&limit=1')).body[0];

test('a good sign-in opens a session; the same callback again, or one from another browser, is refused', async () => {
  mint = {};
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
  mint = { aud: 'someone-else' };
  assert.equal((await signIn()).location, '/?signInError=token-refused');
  assert.match((await lastRefusal()).detail.reason, /aud/);
  mint = { key: await newKey(key.current.kid) };
  assert.equal((await signIn()).location, '/?signInError=token-refused');
  assert.match((await lastRefusal()).detail.reason, /signature/i);
  mint = {};
  await signIn();
  const earlier = seen.nonce;
  mint = { nonce: earlier };
  const replay = await signIn();
  assert.equal(replay.location, '/?signInError=token-refused');
  assert.equal(replay.session, undefined);
  assert.match((await lastRefusal()).detail.reason, /nonce/);
});

test('with two-factor sign-in required, only an ID token whose amr names a second factor signs in', async () => {
  const settings = await s.api('GET', '/api/v1/settings');
  assert.equal((await s.api('PATCH', '/api/v1/settings', { body: { 'sessions.requireTotp': true }, headers: { 'if-match': `"${settings.body.revision}"` } })).status, 200);
  try {
    mint = { amr: ['pwd'] };
    assert.equal((await signIn()).location, '/?signInError=mfa-required');
    mint = { amr: ['pwd', 'mfa'] };
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
  mint = { sub: 'dave-1', groups: [] };
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
  assert.equal(tested.body.issuer, issuer);
  assert.equal(tested.body.pkceS256, true);
  assert.deepEqual(tested.body.grants, { role: 'operator', teams: [], groups: ['ops', 'other'] });
  assert.equal((await s.api('POST', '/api/v1/auth/oidc/providers/mini/test', { body: { claims: { groups: [] } } })).body.grants.role, null, 'refused: no mapping, no default');
  assert.equal((await s.api('GET', '/api/v1/users?limit=1000')).body.length, users);
});
