// CI federation: trust policies, a local issuer's tokens exchanged (RFC 8693) for short tokens that reach only their policy's stacks; every refusal.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { call, eventually, startServer, type TestServer } from '../helpers/harness.ts';
import { exchangeForm, newKey, startIssuer, type LocalIssuer } from '../helpers/oidc-issuer.ts';
import { busybox, cleanupProjects, createStack, startStacksServer, uniqueName, waitJob } from '../plugins/stacks/helpers.ts';

let s: TestServer;
let issuer: LocalIssuer;
const allowedStack = uniqueName('fed');
const otherStack = uniqueName('fed');
const form = { 'content-type': 'application/x-www-form-urlencoded' };
const codeOf = (body: any) => String(body.type).split('/').pop();
const exchange = (jwt: string) => call(s.url, 'POST', '/api/v1/auth/token', { raw: exchangeForm(jwt), headers: form });

before(async () => {
  issuer = await startIssuer();
  s = await startStacksServer({ config: { outbound: { allow: [], allowHostnames: false } } });
  await createStack(s, allowedStack, busybox());
  await createStack(s, otherStack, busybox());
});
after(async () => {
  await cleanupProjects(allowedStack, otherStack);
  await s.close();
  await issuer.close();
});

const policyOf = () => ({
  issuer: issuer.url, audience: 'dockwright', subject: 'repo:acme/shop:ref:refs/heads/*', claims: { repository_owner: 'acme' },
  scopes: ['stacks:read', 'stacks:deploy', 'jobs:read'], stacks: [allowedStack],
});

test('trust policies: admin only, checked (issuer, scopes at most an operator\'s, ttl up to 1h), listed and removed', async () => {
  const operator = await s.token('operator', ['stacks:read', 'stacks:deploy']);
  assert.equal((await call(s.url, 'GET', '/api/v1/auth/federation', { token: operator })).status, 403);
  assert.equal((await call(s.url, 'POST', '/api/v1/auth/federation', { token: operator, body: policyOf() })).status, 403);
  for (const [change, code] of [
    [{ issuer: 'http://ci.example.com' }, 'invalid-policy'],
    [{ issuer: 'not a url' }, 'invalid-policy'],
    [{ scopes: ['users:write'] }, 'scope-too-wide'],
    [{ scopes: ['*'] }, 'unknown-scope'],
    [{ scopes: ['nope:nope'] }, 'unknown-scope'],
    [{ ttl: '2h' }, 'invalid-policy'],
    [{ ttl: '10s' }, 'invalid-policy'],
    [{ ttl: '15 minutes' }, 'invalid-request'],
  ] as const) {
    const bad = await s.api('POST', '/api/v1/auth/federation', { body: { ...policyOf(), ...change } });
    assert.equal(bad.status, 400, `${JSON.stringify(change)}: ${bad.text}`);
    assert.equal(codeOf(bad.body), code, JSON.stringify(change));
  }
  assert.deepEqual((await s.api('GET', '/api/v1/auth/federation')).body, [], 'nothing half-written');
  const made = await s.api('POST', '/api/v1/auth/federation', { body: { ...policyOf(), ttl: '1h' } });
  assert.equal(made.status, 201, made.text);
  assert.equal(made.body.ttl, '1h');
  assert.equal((await s.api('GET', '/api/v1/auth/federation')).body.length, 1);
  assert.equal((await s.api('DELETE', `/api/v1/auth/federation/${made.body.id}`)).status, 204);
  assert.equal((await s.api('DELETE', `/api/v1/auth/federation/${made.body.id}`)).status, 404);
});

test('the issuer is reached only through the outbound policy: a loopback issuer is refused before any connection until allowed', async () => {
  const made = await s.api('POST', '/api/v1/auth/federation', { body: policyOf() });
  try {
    const before = issuer.requests;
    const refused = await exchange(await issuer.sign());
    assert.equal(refused.status, 401, refused.text);
    assert.equal(codeOf(refused.body), 'invalid-token');
    assert.equal(issuer.requests, before, 'no request reached the issuer');
  } finally {
    await s.api('DELETE', `/api/v1/auth/federation/${made.body.id}`);
  }
  const settings = await s.api('GET', '/api/v1/settings');
  const allowed = await s.api('PATCH', '/api/v1/settings', { body: { 'outbound.allow': ['127.0.0.1'] }, headers: { 'if-match': `"${settings.body.revision}"` } });
  assert.equal(allowed.status, 200, allowed.text);
});

test('a matching token is exchanged for a short token that deploys its stack, gets 403 on any other, and ends with its policy', async () => {
  const made = await s.api('POST', '/api/v1/auth/federation', { body: policyOf() });
  assert.equal(made.status, 201, made.text);
  const subjectToken = await issuer.sign();
  const answer = await exchange(subjectToken);
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.token_type, 'Bearer');
  assert.equal(answer.body.expires_in, 900, 'the default lifetime is 15 minutes');
  assert.equal(answer.headers.get('cache-control'), 'no-store');
  const token: string = answer.body.access_token;

  const me = await call(s.url, 'GET', '/api/v1/me', { token });
  assert.equal(me.status, 200, me.text);
  assert.deepEqual(me.body.user, { name: 'repo:acme/shop:ref:refs/heads/main', role: 'operator' });
  assert.deepEqual(me.body.stacks, [allowedStack]);
  assert.deepEqual([...me.body.scopes].sort(), ['jobs:read', 'stacks:deploy', 'stacks:read']);
  const deploy = await call(s.url, 'POST', `/api/v1/stacks/${allowedStack}/deploy`, { token });
  assert.equal(deploy.status, 202, deploy.text);
  assert.equal(deploy.body.actor.kind, 'federation');
  assert.equal((await waitJob(s, deploy.body.id)).status, 'succeeded');
  for (const name of [otherStack, 'no-such-stack-here']) {
    const outside = await call(s.url, 'POST', `/api/v1/stacks/${name}/deploy`, { token });
    assert.equal(outside.status, 403, `${name}: ${outside.text}`);
    assert.equal(codeOf(outside.body), 'stack-outside-token');
    assert.equal((await call(s.url, 'GET', `/api/v1/stacks/${name}`, { token })).status, 403);
  }
  const listed = await call(s.url, 'GET', '/api/v1/stacks?limit=1000', { token });
  assert.deepEqual(listed.body.map((x: any) => x.name), [allowedStack], 'only its stacks are listed');
  assert.equal((await call(s.url, 'PUT', `/api/v1/stacks/${allowedStack}/env`, { token, body: { values: {}, revision: 1 } })).status, 403, 'no scope beyond the policy\'s');
  assert.equal((await call(s.url, 'GET', '/api/v1/users', { token })).status, 403);
  assert.equal((await call(s.url, 'GET', '/api/v1/auth/federation', { token })).status, 403);

  const log = await s.api('GET', '/api/v1/activity?action=kernel.federation.exchange&limit=10');
  const entry = log.body.find((a: any) => a.result === 'ok');
  assert.equal(entry.resource, `federation:${made.body.id}`);
  assert.deepEqual(entry.detail.matched, { iss: issuer.url, aud: 'dockwright', sub: 'repo:acme/shop:ref:refs/heads/main', repository_owner: 'acme' });
  assert.doesNotMatch(log.text, new RegExp(subjectToken.split('.')[2].slice(0, 20)), 'the subject token is never logged');
  assert.doesNotMatch(log.text, new RegExp(token.slice(4)), 'nor the token given');

  assert.equal((await s.api('DELETE', `/api/v1/auth/federation/${made.body.id}`)).status, 204);
  assert.equal((await call(s.url, 'GET', `/api/v1/stacks/${allowedStack}`, { token })).status, 401, 'the policy removed, its tokens end at once');
});

test('refused: expired, not yet valid, wrong audience, unmatched subject or claim, replayed jti, bad signature, a shared-secret algorithm, bad form', async () => {
  const made = await s.api('POST', '/api/v1/auth/federation', { body: policyOf() });
  try {
    const now = Math.floor(Date.now() / 1000);
    const refusedWith = async (jwt: string, code: string, what: string) => {
      const res = await exchange(jwt);
      assert.equal(res.status, 401, `${what}: ${res.text}`);
      assert.equal(codeOf(res.body), code, what);
      assert.equal(res.body.error, 'invalid_grant', what);
    };
    await refusedWith(await issuer.sign({ exp: now - 300, iat: now - 600, nbf: now - 600 }), 'token-expired', 'expired');
    await refusedWith(await issuer.sign({ nbf: now + 600 }), 'token-expired', 'not yet valid');
    await refusedWith(await issuer.sign({ aud: 'someone-else' }), 'no-matching-policy', 'wrong audience');
    await refusedWith(await issuer.sign({ sub: 'repo:acme/shop:pull_request' }), 'no-matching-policy', 'unmatched subject');
    await refusedWith(await issuer.sign({ sub: 'repo:evil/shop:ref:refs/heads/main' }), 'no-matching-policy', 'another repository');
    await refusedWith(await issuer.sign({ repository_owner: 'evil' }), 'no-matching-policy', 'unmatched claim');
    await refusedWith(await issuer.sign({ repository_owner: ['acme'] }), 'no-matching-policy', 'a claim that is no string');
    await refusedWith(await issuer.sign({ iss: 'https://other.example' }), 'no-matching-policy', 'an issuer no policy trusts');
    await refusedWith(await issuer.sign({ jti: undefined }), 'invalid-token', 'no jti');
    const stranger = await newKey(issuer.published[0].kid);
    await refusedWith(await issuer.sign({}, stranger), 'invalid-token', 'signed by another key under the same kid');
    const hs = await new SignJWT({ iss: issuer.url, sub: 'repo:acme/shop:ref:refs/heads/main', aud: 'dockwright', exp: now + 300, jti: 'hs-1', repository_owner: 'acme' })
      .setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('a shared secret of thirty-two bytes!'));
    await refusedWith(hs, 'invalid-token', 'HS256');
    const [h, p] = (await issuer.sign()).split('.');
    await refusedWith(`${h}.${p}.`, 'invalid-token', 'no signature');
    await refusedWith('not-a-jwt', 'invalid-token', 'not a JWT');

    const once = await issuer.sign();
    assert.equal((await exchange(once)).status, 200);
    await refusedWith(once, 'token-replayed', 'the same jti again');

    const badGrant = await call(s.url, 'POST', '/api/v1/auth/token', { raw: exchangeForm(await issuer.sign()).replace('token-exchange', 'client-credentials'), headers: form });
    assert.equal(badGrant.status, 400);
    assert.equal(badGrant.body.error, 'unsupported_grant_type');
    const asJson = await call(s.url, 'POST', '/api/v1/auth/token', { body: { grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange' } });
    assert.equal(asJson.status, 400);
    assert.equal(asJson.body.error, 'invalid_request');
    const noToken = await call(s.url, 'POST', '/api/v1/auth/token', { raw: 'grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange', headers: form });
    assert.equal(noToken.status, 400);

    const refusals = await s.api('GET', '/api/v1/activity?action=kernel.federation.exchange&limit=50');
    const reasons = refusals.body.filter((a: any) => a.result === 'refused').map((a: any) => a.detail.reason as string);
    assert.ok(reasons.some((r: string) => /audience/.test(r)), 'the log says which check failed');
  } finally {
    await s.api('DELETE', `/api/v1/auth/federation/${made.body.id}`);
  }
});

test('a rotated key: an unknown kid fetches the JWKS once more; another unknown kid right after is refused without a fetch', async () => {
  const made = await s.api('POST', '/api/v1/auth/federation', { body: policyOf() });
  try {
    assert.equal((await exchange(await issuer.sign())).status, 200);
    // an unknown kid refetches at most every 10 s per issuer (the service's own limit): the rotation comes later than that
    await new Promise((r) => setTimeout(r, Math.max(0, issuer.lastJwksFetch + 10_500 - Date.now())));
    const fetches = issuer.jwksFetches;
    const rotated = await newKey();
    issuer.published = [rotated];
    const res = await exchange(await issuer.sign({}, rotated));
    assert.equal(res.status, 200, res.text);
    assert.equal(issuer.jwksFetches, fetches + 1, 'fetched once for the new kid');
    assert.equal((await exchange(await issuer.sign({}, rotated))).status, 200);
    assert.equal(issuer.jwksFetches, fetches + 1, 'then cached');
    const unknown = await exchange(await issuer.sign({}, await newKey()));
    assert.equal(unknown.status, 401);
    assert.equal(codeOf(unknown.body), 'invalid-token');
    assert.equal(issuer.jwksFetches, fetches + 1, 'a second unknown kid within 10 s fetches nothing');
  } finally {
    await s.api('DELETE', `/api/v1/auth/federation/${made.body.id}`);
  }
});

test('a policy removed on one instance is no longer trusted by another at once (its cached policies are dropped)', async () => {
  const other = await startServer({ reuse: { databaseUrl: s.databaseUrl, dataDir: s.dataDir }, plugins: {}, config: { outbound: { allow: ['127.0.0.1'], allowHostnames: false } } });
  try {
    const made = await s.api('POST', '/api/v1/auth/federation', { body: policyOf() });
    const viaOther = (jwt: string) => call(other.url, 'POST', '/api/v1/auth/token', { raw: exchangeForm(jwt), headers: form });
    assert.equal((await viaOther(await issuer.sign())).status, 200, 'the other instance trusts it (and caches it)');
    assert.equal((await s.api('DELETE', `/api/v1/auth/federation/${made.body.id}`)).status, 204);
    const after = await eventually(async () => { const r = await viaOther(await issuer.sign()); return r.status === 401 ? r : undefined; }, 2_000, 'the other instance to drop the policy');
    assert.equal(codeOf(after.body), 'no-matching-policy');
  } finally {
    await other.stop();
  }
});
