// Two-factor sign-in through the real API: enrolment with codes computed from the secret, codes and recovery codes used once, wrong codes limited, requireTotp, an admin's reset.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { Secret, TOTP } from 'otpauth';
import { call, startServer, type TestServer } from '../helpers/harness.ts';

let server: TestServer;
const password = 'a long enough password';

const codeOf = (secret: string, offsetSteps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), period: 30, digits: 6, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });

before(async () => {
  server = await startServer({ plugins: {}, config: { sessions: { ttlMs: 60_000, failedSignInsPerMinute: 4 } } });
});
after(() => server.close());

async function user(on: TestServer, name: string): Promise<void> {
  await on.app.tokens.addUser(name, 'operator');
  await on.app.sessions.setPassword(name, password);
}

function signIn(on: TestServer, username: string, extra: Record<string, string> = {}, pw = password) {
  return call(on.url, 'POST', '/api/v1/session', { body: { username, password: pw, ...extra } });
}

function sessionOf(on: TestServer, res: Awaited<ReturnType<typeof signIn>>) {
  const headers = { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0], 'x-dockwright-csrf': res.body.csrf };
  return (method: string, path: string, body?: unknown) => call(on.url, method, path, { headers, body });
}

async function column(on: TestServer, sql: string, params: unknown[]): Promise<Record<string, unknown>[]> {
  const c = new pg.Client({ connectionString: on.databaseUrl });
  await c.connect();
  try { return (await c.query(sql, params)).rows; } finally { await c.end(); }
}

test('a user enrols from its account (secret, URI, QR code, one code), then signs in with a code; codes and recovery codes work once; the secret is sealed at rest', async () => {
  await user(server, 'tess');
  const first = await signIn(server, 'tess');
  assert.equal(first.status, 201, first.text);
  const as = sessionOf(server, first);
  assert.deepEqual(await as('GET', '/api/v1/me/totp').then((r) => r.body), { enrolled: false, enrolledAt: null, recoveryCodesLeft: 0, required: false });

  const begun = await as('POST', '/api/v1/me/totp');
  assert.equal(begun.status, 200, begun.text);
  const { secret, otpauthUri, qrCode } = begun.body;
  assert.match(secret, /^[A-Z2-7]{32}$/);
  assert.equal(otpauthUri, `otpauth://totp/Dockwright:tess?issuer=Dockwright&secret=${secret}&algorithm=SHA1&digits=6&period=30`);
  assert.match(Buffer.from(qrCode.replace(/^data:image\/svg\+xml;base64,/, ''), 'base64').toString(), /^<svg[^>]*>.*<\/svg>\s*$/s);
  assert.equal((await signIn(server, 'tess')).status, 201, 'an enrolment not yet confirmed asks for no code');

  const wrong = await as('POST', '/api/v1/me/totp/confirm', { code: codeOf(secret, 5) });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.type, 'https://dockwright.dev/problems/totp-failed');
  const confirmed = await as('POST', '/api/v1/me/totp/confirm', { code: codeOf(secret) });
  assert.equal(confirmed.status, 200, confirmed.text);
  const recovery = confirmed.body.recoveryCodes as string[];
  assert.equal(recovery.length, 10);
  assert.equal(new Set(recovery).size, 10);
  recovery.forEach((c) => assert.match(c, /^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/));
  assert.equal((await as('POST', '/api/v1/me/totp')).status, 409, 'one authenticator at a time');
  const status = (await as('GET', '/api/v1/me/totp')).body;
  assert.equal(status.enrolled, true);
  assert.equal(status.recoveryCodesLeft, 10);

  // sealed at rest: neither the secret nor a recovery code is in the database as text
  const [row] = await column(server, 'SELECT totp_secret, totp_pending FROM users WHERE name = $1', ['tess']);
  assert.match(String(row.totp_secret), /^v1:/);
  assert.equal(row.totp_pending, null);
  assert.ok(!String(row.totp_secret).includes(secret));
  const hashes = await column(server, 'SELECT hash FROM recovery_codes r JOIN users u ON u.id = r.user_id WHERE u.name = $1', ['tess']);
  assert.equal(hashes.length, 10);
  assert.ok(hashes.every((h) => !recovery.some((c) => String(h.hash).includes(c.replace(/-/g, '')))));
  const admin = await server.api('GET', '/api/v1/users/tess');
  assert.equal(admin.body.totpEnrolled, true);
  assert.ok(!admin.text.includes(secret), 'no answer holds the secret after enrolment');

  const asked = await signIn(server, 'tess');
  assert.equal(asked.status, 401);
  assert.equal(asked.body.type, 'https://dockwright.dev/problems/totp-required');
  // the enrolment used this step's code: the next one signs in, once
  const next = codeOf(secret, 1);
  const signed = await signIn(server, 'tess', { code: next });
  assert.equal(signed.status, 201, signed.text);
  assert.equal(signed.body.recoveryCodes, undefined);
  assert.equal((await sessionOf(server, signed)('GET', '/api/v1/me')).status, 200);
  const replay = await signIn(server, 'tess', { code: next });
  assert.equal(replay.status, 401, 'a code signs in once');
  assert.equal(replay.body.type, 'https://dockwright.dev/problems/totp-failed');

  const spaced = recovery[0].toUpperCase().replace(/-/g, ' ');
  assert.equal((await signIn(server, 'tess', { code: spaced })).status, 201, 'a recovery code, however it is typed');
  assert.equal((await signIn(server, 'tess', { code: recovery[0] })).status, 401, 'a used recovery code is refused');
  assert.equal((await as('GET', '/api/v1/me/totp')).body.recoveryCodesLeft, 9);

  // API tokens are unchanged: no code is asked of them
  const { token } = await server.app.tokens.create({ user: 'tess', name: 'ci', scopes: ['jobs:read'] });
  assert.equal((await call(server.url, 'GET', '/api/v1/me', { token })).status, 200);

  const log = (await server.api('GET', '/api/v1/activity?action=kernel.totp.enrol')).body;
  assert.equal(log[0].actor.name, 'tess');
  const everything = JSON.stringify((await server.api('GET', '/api/v1/activity?limit=1000')).body);
  assert.ok(!everything.includes(secret) && !recovery.some((c) => everything.includes(c)), 'the activity log holds no secret and no recovery code');

  // removing it needs the password
  assert.equal((await as('DELETE', '/api/v1/me/totp', { password: 'not the password' })).status, 403);
  assert.equal((await as('DELETE', '/api/v1/me/totp', { password })).status, 204);
  assert.equal((await signIn(server, 'tess')).status, 201, 'without an authenticator the password signs in');
});

test('wrong codes count against the sign-in limit: past it, even the right code waits (429)', async () => {
  const tight = await startServer({ plugins: {}, config: { sessions: { ttlMs: 60_000, failedSignInsPerMinute: 3 } } });
  try {
    await user(tight, 'walt');
    const as = sessionOf(tight, await signIn(tight, 'walt'));
    const { secret } = (await as('POST', '/api/v1/me/totp')).body;
    assert.equal((await as('POST', '/api/v1/me/totp/confirm', { code: codeOf(secret) })).status, 200);
    const answers = [];
    for (const code of ['000000', '111111', '222222']) answers.push((await signIn(tight, 'walt', { code })).status);
    assert.deepEqual(answers, [401, 401, 401]);
    const limited = await signIn(tight, 'walt', { code: codeOf(secret, 1) });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.type, 'https://dockwright.dev/problems/sign-in-rate-limited');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
  } finally {
    await tight.close();
  }
});

test('parallel codes cannot pass the limit: 40 wrong codes and recovery codes at once check at most the limit, and the right code among them is refused', async () => {
  const limit = 4;
  const tight = await startServer({ plugins: {}, config: { sessions: { ttlMs: 60_000, failedSignInsPerMinute: limit } } });
  try {
    await user(tight, 'xena');
    const as = sessionOf(tight, await signIn(tight, 'xena'));
    const { secret } = (await as('POST', '/api/v1/me/totp')).body;
    assert.equal((await as('POST', '/api/v1/me/totp/confirm', { code: codeOf(secret) })).status, 200);
    const guesses = Array.from({ length: 40 }, (_, i) => signIn(tight, 'xena', { code: i % 2 ? String(100000 + i) : `aaaa-bbbb-cccc-${String(1000 + i)}` }));
    const right = signIn(tight, 'xena', { code: codeOf(secret, 1) });
    const statuses = (await Promise.all(guesses)).map((a) => a.status);
    assert.equal(statuses.filter((s) => s === 401).length, limit, 'exactly the limit was checked');
    assert.equal(statuses.filter((s) => s === 429).length, 40 - limit);
    const last = await right;
    assert.equal(last.status, 429, `the right code among them is refused: ${last.text}`);
    assert.equal(last.body.type, 'https://dockwright.dev/problems/sign-in-rate-limited');
  } finally {
    await tight.close();
  }
});

test('sessions.requireTotp: a user without an authenticator enrols while signing in; an admin resets an enrolment; tokens need no code', async () => {
  const strict = await startServer({ plugins: {}, config: { sessions: { ttlMs: 60_000, failedSignInsPerMinute: 10, requireTotp: true } } });
  try {
    await user(strict, 'rhea');
    const asked = await signIn(strict, 'rhea');
    assert.equal(asked.status, 401, asked.text);
    assert.equal(asked.body.type, 'https://dockwright.dev/problems/totp-enrolment-required');
    const { secret, otpauthUri, qrCode } = asked.body.totp;
    assert.ok(secret && otpauthUri.includes(secret) && qrCode.startsWith('data:image/svg+xml;base64,'));
    const wrong = await signIn(strict, 'rhea', { code: codeOf(secret, 5) });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.type, 'https://dockwright.dev/problems/totp-failed');
    const enrolled = await signIn(strict, 'rhea', { code: codeOf(secret) });
    assert.equal(enrolled.status, 201, enrolled.text);
    assert.equal(enrolled.body.recoveryCodes.length, 10, 'the recovery codes, this once');
    assert.deepEqual(await sessionOf(strict, enrolled)('GET', '/api/v1/me/totp').then((r) => ({ enrolled: r.body.enrolled, required: r.body.required })), { enrolled: true, required: true });
    assert.equal((await signIn(strict, 'rhea')).body.type, 'https://dockwright.dev/problems/totp-required');
    assert.equal((await signIn(strict, 'rhea', { code: codeOf(secret, 1) })).status, 201);

    // a one-time password and an enrolment in one sign-in: the new password first, then the code, nothing changed before both
    await strict.api('POST', '/api/v1/users', { body: { name: 'nick', role: 'viewer', password } });
    assert.equal((await signIn(strict, 'nick')).body.type, 'https://dockwright.dev/problems/password-change-required');
    const step = await signIn(strict, 'nick', { newPassword: 'the password of nick' });
    assert.equal(step.body.type, 'https://dockwright.dev/problems/totp-enrolment-required');
    assert.equal(await strict.app.sessions.checkPassword('nick', password), true, 'the password is not changed before the code');
    const done = await signIn(strict, 'nick', { newPassword: 'the password of nick', code: codeOf(step.body.totp.secret) });
    assert.equal(done.status, 201, done.text);
    assert.equal(await strict.app.sessions.checkPassword('nick', 'the password of nick'), true);

    // the admin's reset: the next sign-in enrols again
    const viewer = await strict.token('viewer', ['*']);
    assert.equal((await call(strict.url, 'DELETE', '/api/v1/users/rhea/totp', { token: viewer })).status, 403);
    assert.equal((await strict.api('DELETE', '/api/v1/users/rhea/totp')).status, 204);
    assert.equal((await strict.api('GET', '/api/v1/users/rhea')).body.totpEnrolled, false);
    assert.equal((await signIn(strict, 'rhea')).body.type, 'https://dockwright.dev/problems/totp-enrolment-required');
    const reset = (await strict.api('GET', '/api/v1/activity?action=kernel.totp.reset')).body[0];
    assert.equal(reset.resource, 'user:rhea');
    assert.deepEqual(reset.detail, { wasEnrolled: true });

    const { token } = await strict.app.tokens.create({ user: 'rhea', name: 'ci', scopes: ['jobs:read'] });
    assert.equal((await call(strict.url, 'GET', '/api/v1/me', { token })).status, 200, 'tokens are unchanged');
  } finally {
    await strict.close();
  }
});
