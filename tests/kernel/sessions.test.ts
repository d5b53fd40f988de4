// Portal sessions through the real API: sign-in, cookie flags, CSRF, role scopes, activity under the user, sign-out (one and everywhere), expiry, rate limits, own tokens and their scopes, CLI passwd.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { call, root, startServer, type TestServer } from '../helpers/harness.ts';

let server: TestServer;
const password = 'correct horse battery';

async function user(name: string, role: 'admin' | 'operator' | 'viewer'): Promise<void> {
  await server.app.tokens.addUser(name, role);
  await server.app.sessions.setPassword(name, password);
}

async function signIn(name: string, pw = password, headers: Record<string, string> = {}) {
  const res = await call(server.url, 'POST', '/api/v1/session', { body: { username: name, password: pw }, headers });
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
  return { res, cookie, csrf: res.body?.csrf as string, as: (method: string, path: string, body?: unknown, csrf: string | null = res.body?.csrf) =>
    call(server.url, method, path, { body, headers: { cookie, ...(csrf === null ? {} : { 'x-dockwright-csrf': csrf }) } }) };
}

before(async () => {
  server = await startServer({ config: { sessions: { ttlMs: 60_000, failedSignInsPerMinute: 3 } } });
});
after(() => server.close());

test('sign-in sets an HttpOnly SameSite=Strict cookie; with the CSRF header it acts as the user with its role scopes', async () => {
  await user('olga', 'operator');
  const s = await signIn('olga');
  assert.equal(s.res.status, 201, s.res.text);
  const setCookie = s.res.headers.get('set-cookie')!;
  assert.match(setCookie, /^dw_session=dws_[\w-]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=60$/);
  assert.doesNotMatch(setCookie, /Secure/, 'plain HTTP: no Secure flag');
  assert.equal(s.res.body.user.name, 'olga');
  assert.ok(s.res.body.scopes.includes('jobs:cancel') && !s.res.body.scopes.includes('admin'), 'an operator gets the operator scopes');
  const me = await s.as('GET', '/api/v1/me');
  assert.equal(me.status, 200, me.text);
  assert.equal(me.body.user.name, 'olga');
  assert.equal(me.body.token, null);
  assert.ok(me.body.session.expiresAt);

  const noHeader = await s.as('GET', '/api/v1/me', undefined, null);
  assert.equal(noHeader.status, 403);
  assert.equal(noHeader.body.type, 'https://dockwright.dev/problems/csrf');
  const wrong = await s.as('POST', '/api/v1/tokens', { name: 'x', scopes: ['jobs:read'] }, s.csrf.slice(1) + 'A');
  assert.equal(wrong.status, 403);
  assert.equal(wrong.body.type, 'https://dockwright.dev/problems/csrf');
  assert.equal((await server.app.tokens.list('olga')).length, 0, 'a CSRF refusal changed nothing');

  // a write through the session is recorded under the user, channel portal
  const made = await s.as('POST', '/api/v1/tokens', { name: 'ci', scopes: ['jobs:read'] });
  assert.equal(made.status, 201, made.text);
  const log = await server.api('GET', '/api/v1/activity?action=kernel.token.create');
  assert.deepEqual(log.body[0].actor, { kind: 'user', name: 'olga', channel: 'portal' });
  const signInLog = await server.api('GET', '/api/v1/activity?action=kernel.session.create');
  assert.equal(signInLog.body[0].actor.name, 'olga');
});

test('behind HTTPS (publicUrl https) the cookie is Secure', async () => {
  const secure = await startServer({ config: { publicUrl: 'https://deploy.example.test' } });
  try {
    await secure.app.tokens.addUser('sam', 'viewer');
    await secure.app.sessions.setPassword('sam', password);
    const res = await call(secure.url, 'POST', '/api/v1/session', { body: { username: 'sam', password } });
    assert.equal(res.status, 201);
    assert.match(res.headers.get('set-cookie')!, /; Secure$/);
  } finally {
    await secure.close();
  }
});

test('a viewer session holds only viewer scopes: writes are refused with 403', async () => {
  await user('vera', 'viewer');
  const s = await signIn('vera');
  const res = await s.as('POST', '/api/v1/jobs/00000000-0000-4000-8000-000000000000/cancel');
  assert.equal(res.status, 403);
  assert.equal(res.body.type, 'https://dockwright.dev/problems/missing-scope');
});

test('sign out ends this session only; sign out everywhere ends them all', async () => {
  await user('paul', 'operator');
  const a = await signIn('paul');
  const b = await signIn('paul');
  const c = await signIn('paul');
  const out = await a.as('DELETE', '/api/v1/session');
  assert.equal(out.status, 204, out.text);
  assert.match(out.headers.get('set-cookie')!, /^dw_session=; .*Max-Age=0/);
  assert.equal((await a.as('GET', '/api/v1/me')).status, 401);
  assert.equal((await b.as('GET', '/api/v1/me')).status, 200);
  const everywhere = await b.as('DELETE', '/api/v1/sessions');
  assert.equal(everywhere.status, 200);
  assert.equal(everywhere.body.ended, 2);
  assert.equal((await b.as('GET', '/api/v1/me')).status, 401);
  assert.equal((await c.as('GET', '/api/v1/me')).status, 401);
  const bearer = await server.api('DELETE', '/api/v1/session');
  assert.equal(bearer.status, 400, 'a token is not a session');
});

test('a session expires after sessions.ttlMs', async () => {
  const short = await startServer({ plugins: {}, config: { sessions: { ttlMs: 1000, failedSignInsPerMinute: 3 } } });
  try {
    await short.app.tokens.addUser('eve', 'viewer');
    await short.app.sessions.setPassword('eve', password);
    const res = await call(short.url, 'POST', '/api/v1/session', { body: { username: 'eve', password } });
    const headers = { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0], 'x-dockwright-csrf': res.body.csrf };
    const signedInAt = Date.now();
    const early = await call(short.url, 'GET', '/api/v1/me', { headers });
    if (Date.now() - signedInAt < 900) assert.equal(early.status, 200, 'still valid within its lifetime');
    await new Promise((r) => setTimeout(r, 1200));
    const late = await call(short.url, 'GET', '/api/v1/me', { headers });
    assert.equal(late.status, 401);
    assert.match(late.body.detail, /sign in again/);
  } finally {
    await short.close();
  }
});

test('a session has a request budget of its own, not the address\'s', async () => {
  const tight = await startServer({ plugins: {}, config: { rateLimit: { perMinute: 4, failedAuthPerMinute: 30, webhookPerMinute: 60 } } });
  try {
    await tight.app.tokens.addUser('ivy', 'viewer');
    await tight.app.sessions.setPassword('ivy', password);
    const sessions = await Promise.all([0, 1].map(async () => {
      const res = await call(tight.url, 'POST', '/api/v1/session', { body: { username: 'ivy', password } });
      assert.equal(res.status, 201, res.text);
      return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0], 'x-dockwright-csrf': res.body.csrf };
    }));
    const statuses = async (headers: Record<string, string>, n: number) => { const out = []; for (let i = 0; i < n; i++) out.push((await call(tight.url, 'GET', '/api/v1/me', { headers })).status); return out; };
    assert.deepEqual(await statuses(sessions[0], 5), [200, 200, 200, 200, 429]);
    assert.deepEqual(await statuses(sessions[1], 4), [200, 200, 200, 200], 'the other session still has its own budget');
  } finally {
    await tight.close();
  }
});

test('own tokens: created once with at most the creator\'s scopes, listed without secret, revoked', async () => {
  const token = await server.token('operator', ['jobs:read', 'activity:read', 'tokens:read', 'tokens:write'], { name: 'tom' });
  const as = (method: string, path: string, body?: unknown) => call(server.url, method, path, { token, body });
  const beyond = await as('POST', '/api/v1/tokens', { name: 'more', scopes: ['jobs:cancel'] });
  assert.equal(beyond.status, 403, 'a token cannot mint a stronger one');
  assert.equal((await as('POST', '/api/v1/tokens', { name: 'bad', scopes: ['nope:nope'] })).status, 400);
  const made = await as('POST', '/api/v1/tokens', { name: 'reader', scopes: ['jobs:read'], expiresInDays: 7 });
  assert.equal(made.status, 201, made.text);
  assert.match(made.body.token, /^dw_/);
  const list = await as('GET', '/api/v1/tokens');
  assert.ok(list.body.some((t: { id: string }) => t.id === made.body.id));
  assert.ok(!list.text.includes(made.body.token), 'the list never holds a secret');
  assert.equal((await call(server.url, 'GET', '/api/v1/me', { token: made.body.token })).status, 200);
  assert.equal((await server.api('DELETE', `/api/v1/tokens/${made.body.id}`)).status, 404, 'another user\'s token is not yours to revoke');
  assert.equal((await as('DELETE', `/api/v1/tokens/${made.body.id}`)).status, 204);
  assert.equal((await call(server.url, 'GET', '/api/v1/me', { token: made.body.token })).status, 401);
});

test('a token without tokens:read and tokens:write sees and revokes only itself; a portal session manages them all', async () => {
  await user('nora', 'operator');
  const full = await server.app.tokens.create({ user: 'nora', name: 'full', scopes: ['*'] });
  const narrow = await server.app.tokens.create({ user: 'nora', name: 'narrow', scopes: ['jobs:read'] });
  const reader = await server.app.tokens.create({ user: 'nora', name: 'reader', scopes: ['tokens:read'] });
  const as = (token: string, method: string, path: string, body?: unknown) => call(server.url, method, path, { token, body });

  const seen = await as(narrow.token, 'GET', '/api/v1/tokens');
  assert.equal(seen.status, 200, seen.text);
  assert.deepEqual(seen.body.map((t: { id: string }) => t.id), [narrow.id], 'a narrow token lists only itself');
  const all = await as(reader.token, 'GET', '/api/v1/tokens');
  assert.deepEqual(all.body.map((t: { id: string }) => t.id).sort(), [full.id, narrow.id, reader.id].sort(), 'tokens:read lists every token of the owner');

  const revokeFull = await as(narrow.token, 'DELETE', `/api/v1/tokens/${full.id}`);
  assert.equal(revokeFull.status, 403, revokeFull.text);
  assert.equal(revokeFull.body.type, 'https://dockwright.dev/problems/missing-scope');
  assert.match(revokeFull.body.detail, /tokens:write/);
  assert.equal((await as(full.token, 'GET', '/api/v1/me')).status, 200, 'the * token still works');
  const unknown = await as(narrow.token, 'DELETE', '/api/v1/tokens/00000000-0000-4000-8000-000000000000');
  assert.equal(unknown.status, 403, 'a narrow token learns nothing about other ids');
  const mint = await as(narrow.token, 'POST', '/api/v1/tokens', { name: 'copy', scopes: ['jobs:read'] });
  assert.equal(mint.status, 403, mint.text);
  assert.match(mint.body.detail, /tokens:write/);

  // a portal session holds the role's scopes, tokens:read and tokens:write among them
  const session = await signIn('nora');
  assert.ok(session.res.body.scopes.includes('tokens:read') && session.res.body.scopes.includes('tokens:write'));
  assert.equal((await session.as('GET', '/api/v1/tokens')).body.length, 3);
  assert.equal((await session.as('DELETE', `/api/v1/tokens/${reader.id}`)).status, 204);
  assert.equal((await as(reader.token, 'GET', '/api/v1/me')).status, 401);

  const self = await as(narrow.token, 'DELETE', `/api/v1/tokens/${narrow.id}`);
  assert.equal(self.status, 204, 'a token may always revoke itself');
  assert.equal((await as(narrow.token, 'GET', '/api/v1/me')).status, 401);

  const doc = (await call(server.url, 'GET', '/api/v1/openapi.json')).body;
  assert.deepEqual(doc.paths['/api/v1/tokens'].get['x-optional-scopes'], ['tokens:read']);
  assert.deepEqual(doc.paths['/api/v1/tokens'].post['x-required-scopes'], ['tokens:write']);
  assert.deepEqual(doc.paths['/api/v1/tokens/{id}'].delete['x-optional-scopes'], ['tokens:write']);
});

test('changing the password needs the current one and ends every other session of the user, on every instance; made with a token, all of them', async () => {
  // a server of its own: wrong passwords count against the address's sign-in budget, which the other tests share
  const one = await startServer({ plugins: {}, config: { sessions: { ttlMs: 60_000, failedSignInsPerMinute: 5 } } });
  const two = await startServer({ plugins: {}, config: { sessions: { ttlMs: 60_000, failedSignInsPerMinute: 5 } }, reuse: { databaseUrl: one.databaseUrl, dataDir: one.dataDir } });
  try {
    await one.app.tokens.addUser('carl', 'viewer');
    await one.app.sessions.setPassword('carl', password);
    const session = async (on: TestServer, pw: string) => {
      const res = await call(on.url, 'POST', '/api/v1/session', { body: { username: 'carl', password: pw } });
      assert.equal(res.status, 201, res.text);
      const headers = { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0], 'x-dockwright-csrf': res.body.csrf };
      return (method: string, path: string, body?: unknown) => call(on.url, method, path, { headers, body });
    };
    const [here, other, elsewhere] = [await session(one, password), await session(one, password), await session(two, password)];
    assert.equal((await here('PUT', '/api/v1/me/password', { current: 'not it at all', password: 'another long one' })).status, 403);
    assert.equal((await here('PUT', '/api/v1/me/password', { current: password, password: 'short' })).status, 400);
    assert.equal((await other('GET', '/api/v1/me')).status, 200, 'a refused change ends nothing');
    assert.equal((await here('PUT', '/api/v1/me/password', { current: password, password: 'another long one' })).status, 204);
    assert.equal(await one.app.sessions.checkPassword('carl', 'another long one'), true);
    assert.equal((await here('GET', '/api/v1/me')).status, 200, 'the session that made the change stays');
    assert.equal((await other('GET', '/api/v1/me')).status, 401, 'another session of the user ends');
    assert.equal((await elsewhere('GET', '/api/v1/me')).status, 401, 'a session on another instance ends at once');

    const token = (await one.app.tokens.create({ user: 'carl', name: 'ci', scopes: ['jobs:read', 'account:write'] })).token;
    const later = await session(two, 'another long one');
    const byToken = await call(one.url, 'PUT', '/api/v1/me/password', { token, body: { current: 'another long one', password: 'a third long one' } });
    assert.equal(byToken.status, 204, byToken.text);
    assert.equal((await here('GET', '/api/v1/me')).status, 401, 'a change made with a token ends every session');
    assert.equal((await later('GET', '/api/v1/me')).status, 401);
    assert.equal((await call(one.url, 'GET', '/api/v1/me', { token })).status, 200, 'tokens stay valid');
  } finally {
    await two.close();
    await one.close();
  }
});

test('account security needs account:write: a narrow token cannot change the password, enrol or remove an authenticator, or end sessions', async () => {
  const own = await startServer({ plugins: {}, config: { sessions: { ttlMs: 60_000, failedSignInsPerMinute: 5 } } });
  try {
    await own.app.tokens.addUser('otto', 'operator');
    await own.app.sessions.setPassword('otto', password);
    const signedIn = await call(own.url, 'POST', '/api/v1/session', { body: { username: 'otto', password } });
    assert.equal(signedIn.status, 201, signedIn.text);
    assert.ok(signedIn.body.scopes.includes('account:write'), 'a portal session holds account:write');
    const session = { cookie: (signedIn.headers.get('set-cookie') ?? '').split(';')[0], 'x-dockwright-csrf': signedIn.body.csrf };
    const narrow = (await own.app.tokens.create({ user: 'otto', name: 'ci', scopes: ['jobs:read', 'tokens:read'] })).token;
    const strong = (await own.app.tokens.create({ user: 'otto', name: 'account', scopes: ['account:write'] })).token;
    const attempts: [string, string, unknown][] = [
      ['PUT', '/api/v1/me/password', { current: password, password: 'taken over now' }],
      ['POST', '/api/v1/me/totp', undefined],
      ['POST', '/api/v1/me/totp/confirm', { code: '123456' }],
      ['DELETE', '/api/v1/me/totp', { password }],
      ['DELETE', '/api/v1/sessions', undefined],
    ];
    for (const [method, path, body] of attempts) {
      const refused = await call(own.url, method, path, { token: narrow, body });
      assert.equal(refused.status, 403, `${method} ${path}: ${refused.text}`);
      assert.equal(refused.body.type, 'https://dockwright.dev/problems/missing-scope');
      assert.deepEqual(refused.body.requiredScopes, ['account:write']);
    }
    assert.equal(await own.app.sessions.checkPassword('otto', password), true, 'the password is unchanged');
    assert.equal((await own.app.twoFactor.status((await own.app.users.get('otto')).id)).enrolled, false);
    assert.equal(await own.app.twoFactor.pending((await own.app.users.get('otto')).id), false, 'no enrolment was started');
    assert.equal((await call(own.url, 'GET', '/api/v1/me', { headers: session })).status, 200, 'the session was not ended');
    assert.equal((await call(own.url, 'GET', '/api/v1/me/totp', { token: narrow })).status, 200, 'reading the state needs no scope');
    const mint = await call(own.url, 'POST', '/api/v1/tokens', { token: narrow, body: { name: 'more', scopes: ['account:write'] } });
    assert.equal(mint.status, 403, 'a narrow token cannot mint itself the scope');

    // a token created with account:write, and the portal session, may
    const enrol = await call(own.url, 'POST', '/api/v1/me/totp', { token: strong });
    assert.equal(enrol.status, 200, enrol.text);
    const wrongCode = await call(own.url, 'POST', '/api/v1/me/totp/confirm', { token: strong, body: { code: '000000' } });
    assert.equal(wrongCode.status, 400, 'past the scope, the code is checked');
    assert.equal((await call(own.url, 'PUT', '/api/v1/me/password', { headers: session, body: { current: password, password: 'the session may' } })).status, 204);
    assert.equal((await call(own.url, 'PUT', '/api/v1/me/password', { token: strong, body: { current: 'the session may', password: 'and the token too' } })).status, 204);
    const ended = await call(own.url, 'DELETE', '/api/v1/sessions', { token: strong });
    assert.equal(ended.status, 200, ended.text);
    const doc = (await call(own.url, 'GET', '/api/v1/openapi.json')).body;
    assert.deepEqual(doc.paths['/api/v1/me/password'].put['x-required-scopes'], ['account:write']);
    assert.deepEqual(doc.paths['/api/v1/sessions'].delete['x-required-scopes'], ['account:write']);
  } finally {
    await own.close();
  }
});

test('wrong current passwords count as failed sign-ins: past the limit, 429 with Retry-After, and sign-ins wait too', async () => {
  const pw = await startServer({ plugins: {}, config: { sessions: { ttlMs: 60_000, failedSignInsPerMinute: 5 } } });
  try {
    await pw.app.tokens.addUser('wanda', 'viewer');
    await pw.app.sessions.setPassword('wanda', password);
    const res = await call(pw.url, 'POST', '/api/v1/session', { body: { username: 'wanda', password } });
    const headers = { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0], 'x-dockwright-csrf': res.body.csrf };
    const change = (current: string) => call(pw.url, 'PUT', '/api/v1/me/password', { headers, body: { current, password: 'another long one' } });
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await change(`guess number ${i}`));
    assert.deepEqual(answers.map((a) => a.status), [403, 403, 403, 403, 403, 429, 429, 429, 429, 429, 429, 429]);
    const limited = answers.at(-1)!;
    assert.ok(Number(limited.headers.get('retry-after')) > 0, 'Retry-After says when to try again');
    assert.equal(limited.body.type, 'https://dockwright.dev/problems/sign-in-rate-limited');
    assert.equal((await change(password)).status, 429, 'the right password waits too');
    assert.equal(await pw.app.sessions.checkPassword('wanda', password), true, 'nothing was changed');
    const signIn = await call(pw.url, 'POST', '/api/v1/session', { body: { username: 'wanda', password } });
    assert.equal(signIn.status, 429, 'the account\'s sign-in budget is the same one');
  } finally {
    await pw.close();
  }
});

test('parallel guesses cannot pass the failed sign-in limit: at most the limit is checked, on two instances together, and the right password among them is refused', async () => {
  const limit = 10;
  const one = await startServer({ plugins: {}, config: { sessions: { ttlMs: 60_000, failedSignInsPerMinute: limit } } });
  const two = await startServer({ plugins: {}, config: { sessions: { ttlMs: 60_000, failedSignInsPerMinute: limit } }, reuse: { databaseUrl: one.databaseUrl, dataDir: one.dataDir } });
  try {
    await one.app.tokens.addUser('pam', 'viewer');
    await one.app.sessions.setPassword('pam', password);
    // 100 wrong guesses at once, half to each instance, then the right password while they are still being checked
    const guesses = Array.from({ length: 100 }, (_, i) => call((i % 2 ? two : one).url, 'POST', '/api/v1/session', { body: { username: 'pam', password: `wrong guess ${i}` } }));
    const right = call(one.url, 'POST', '/api/v1/session', { body: { username: 'pam', password } });
    const answers = await Promise.all(guesses);
    const statuses = answers.map((a) => a.status);
    assert.equal(statuses.filter((s) => s === 401).length, limit, 'exactly the limit was checked');
    assert.equal(statuses.filter((s) => s === 429).length, 100 - limit, 'the rest were refused before any check');
    const refused = answers.find((a) => a.status === 429)!;
    assert.equal(refused.body.type, 'https://dockwright.dev/problems/sign-in-rate-limited');
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    const last = await right;
    assert.equal(last.status, 429, `the right password sent among them is refused: ${last.text}`);
    assert.equal(last.headers.get('set-cookie'), null);
  } finally {
    await two.close();
    await one.close();
  }
});

test('a right password gives its place back: sign-ins that pass do not use up the limit', async () => {
  const own = await startServer({ plugins: {}, config: { sessions: { ttlMs: 60_000, failedSignInsPerMinute: 3 } } });
  try {
    await own.app.tokens.addUser('ray', 'viewer');
    await own.app.sessions.setPassword('ray', password);
    const rights = await Promise.all(Array.from({ length: 3 }, () => call(own.url, 'POST', '/api/v1/session', { body: { username: 'ray', password } })));
    assert.deepEqual(rights.map((r) => r.status), [201, 201, 201]);
    for (let i = 0; i < 6; i++) assert.equal((await call(own.url, 'POST', '/api/v1/session', { body: { username: 'ray', password } })).status, 201, `sign-in ${i}`);
    assert.equal((await call(own.url, 'POST', '/api/v1/session', { body: { username: 'ray', password: 'wrong one here' } })).status, 401);
    assert.equal((await call(own.url, 'POST', '/api/v1/session', { body: { username: 'ray', password } })).status, 201, 'one failure of three leaves room');
  } finally {
    await own.close();
  }
});

test('parallel wrong current passwords cannot pass the limit either: at most the limit is checked and the right one among them waits', async () => {
  const limit = 5;
  const own = await startServer({ plugins: {}, config: { sessions: { ttlMs: 60_000, failedSignInsPerMinute: limit } } });
  try {
    await own.app.tokens.addUser('vic', 'viewer');
    await own.app.sessions.setPassword('vic', password);
    const token = (await own.app.tokens.create({ user: 'vic', name: 'account', scopes: ['account:write'] })).token;
    const change = (current: string) => call(own.url, 'PUT', '/api/v1/me/password', { token, body: { current, password: 'taken over now' } });
    const guesses = Array.from({ length: 100 }, (_, i) => change(`wrong guess ${i}`));
    const right = change(password);
    const statuses = (await Promise.all(guesses)).map((a) => a.status);
    assert.equal(statuses.filter((s) => s === 403).length, limit, 'exactly the limit was checked');
    assert.equal(statuses.filter((s) => s === 429).length, 100 - limit);
    assert.equal((await right).status, 429, 'the right password among them waits');
    assert.equal(await own.app.sessions.checkPassword('vic', password), true, 'nothing was changed');
  } finally {
    await own.close();
  }
});

test('failed sign-ins are limited per account (any address) and per address (any account)', async () => {
  await user('rita', 'viewer');
  for (let i = 0; i < 3; i++) assert.equal((await signIn('rita', 'wrong password!')).res.status, 401);
  const blocked = await signIn('rita');
  assert.equal(blocked.res.status, 429, 'the right password is refused too while the account is blocked');
  assert.ok(Number(blocked.res.headers.get('retry-after')) > 0);
  assert.equal(blocked.res.body.type, 'https://dockwright.dev/problems/sign-in-rate-limited');
  // the address budget: the harness client is 127.0.0.1 for every call, so it is spent too (3 failures above)
  await user('nina', 'viewer');
  const other = await signIn('nina');
  assert.equal(other.res.status, 429);
  assert.match(other.res.body.detail, /this address/);
  const unknown = await call(server.url, 'POST', '/api/v1/session', { body: { username: 'nobody' } });
  assert.equal(unknown.status, 400, 'bad input is a 400, not a sign-in attempt');
});

test('CLI user passwd sets a password shown once and ends the user\'s sessions, and the first start gives admin a password file', async () => {
  const run = promisify(execFile);
  const env = { ...process.env, NODE_ENV: 'test', DATABASE_URL: server.databaseUrl, DATA_DIR: server.dataDir };
  await server.app.tokens.addUser('dora', 'viewer');
  await server.app.sessions.setPassword('dora', password);
  // signed in from another address: the failed sign-ins of the tests above have spent 127.0.0.1's budget
  const signed = await server.app.sessions.signIn('dora', password, '192.0.2.10');
  const headers = { cookie: `dw_session=${signed.cookie}`, 'x-dockwright-csrf': signed.csrf };
  assert.equal((await call(server.url, 'GET', '/api/v1/me', { headers })).status, 200);
  const { stdout } = await run(process.execPath, ['--import', 'tsx', join(root, 'kernel/main.ts'), 'user', 'passwd', 'dora'], { cwd: root, env });
  const shown = stdout.trim().split('\n').at(-1)!;
  assert.equal(await server.app.sessions.checkPassword('dora', shown), true);
  assert.equal((await call(server.url, 'GET', '/api/v1/me', { headers })).status, 401, 'the CLI ends the user\'s portal sessions');
  const missing = await run(process.execPath, ['--import', 'tsx', join(root, 'kernel/main.ts'), 'user', 'passwd', 'ghost'], { cwd: root, env }).catch((e) => e);
  assert.match(missing.stderr, /no user "ghost"/);
  const first = readFileSync(join(server.dataDir, 'initial-admin-password'), 'utf8').trim();
  assert.equal(await server.app.sessions.checkPassword('admin', first), true);
});
