// Rate limits: exactly N pass per token under concurrency, 429 with Retry-After, headers on every answer, uploads exempt; failed authentications per address; webhooks per address and resource.
import { test, before, after, describe } from 'node:test';
import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { call, startServer, type TestServer } from '../helpers/harness.ts';
import { RateLimiter } from '../../kernel/rate-limit.ts';
import { RateBudget } from '../../kernel/rate-budget.ts';

let s: TestServer;
before(async () => { s = await startServer(); });
after(async () => { await s.close(); });

test('200 parallel requests with one token: exactly 120 pass, 80 get 429 with Retry-After', async () => {
  const token = await s.token('operator', ['probe:read']);
  const answers = await Promise.all(Array.from({ length: 200 }, () => call(s.url, 'GET', '/api/v1/me', { token })));
  const ok = answers.filter((a) => a.status === 200);
  const limited = answers.filter((a) => a.status === 429);
  assert.equal(ok.length, 120);
  assert.equal(limited.length, 80);
  for (const a of limited) {
    assert.equal(a.headers.get('content-type'), 'application/problem+json');
    const retry = Number(a.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
  }
  for (const a of answers) {
    assert.equal(a.headers.get('ratelimit-policy'), '"default";q=120;w=60');
    assert.match(a.headers.get('ratelimit') ?? '', /^"default";r=\d+;t=\d+$/);
  }
  const other = await s.token('operator', ['probe:read']);
  assert.equal((await call(s.url, 'GET', '/api/v1/me', { token: other })).status, 200, 'another token has its own budget');
});

test('uploads are exempt from the rate limit', async () => {
  const token = await s.token('operator', ['probe:write']);
  await Promise.all(Array.from({ length: 120 }, () => call(s.url, 'GET', '/api/v1/me', { token })));
  assert.equal((await call(s.url, 'GET', '/api/v1/me', { token })).status, 429);
  const upload = await call(s.url, 'PUT', '/api/v1/probe/upload', { token, raw: Buffer.from('abc') });
  assert.equal(upload.status, 200);
  assert.equal(upload.headers.get('ratelimit'), null);
});

test('the window resets after 60 seconds', () => {
  let now = 1_000_000;
  const limiter = new RateLimiter(2, () => now);
  assert.equal(limiter.hit('k').allowed, true);
  assert.equal(limiter.hit('k').allowed, true);
  const third = limiter.hit('k');
  assert.equal(third.allowed, false);
  assert.equal(third.headers['Retry-After'], '60');
  now += 30_000;
  assert.equal(limiter.hit('k').headers['Retry-After'], '30');
  now += 30_000;
  assert.equal(limiter.hit('k').allowed, true);
});

test('the shared budget: requests waiting for a grant when the minute turns spend the new minute\'s budget, not a refusal', async () => {
  const windowStart = Math.floor(Date.now() / 60_000) * 60_000 + 60_000 * 10;
  let now = windowStart - 1;
  const budget = new RateBudget(s.app.db, 10, { chunk: 4, now: () => now }, s.app.log);
  const key = `t:turn-${randomBytes(4).toString('hex')}`;
  // all ten arrive together in the old window's last millisecond: none holds budget yet, so all wait on one grant
  const waiting = Array.from({ length: 10 }, () => budget.take(key));
  assert.ok(waiting.every((w) => w instanceof Promise));
  now = windowStart;
  const decided = await Promise.all(waiting);
  assert.deepEqual(decided.map((d) => d.allowed), Array(10).fill(true), 'ten of a budget of ten pass in the new window');
  assert.equal((await budget.take(key)).allowed, false, 'the eleventh in the same window is refused');
  const rows = await s.app.db.query<{ win: string; used: number }>('SELECT win, used FROM rate_budgets WHERE key = $1 ORDER BY win', [key]);
  assert.deepEqual(rows.rows.map((r) => [Number(r.win), r.used]), [[windowStart / 60_000 - 1, 4], [windowStart / 60_000, 10]], 'the old window granted one chunk that nobody spent; the new one its whole budget');
});

describe('failed authentications and webhooks (behind a trusted proxy, so each test is its own client address)', () => {
  let p: TestServer;
  let lookups = 0;
  let addresses = 0;
  const from = () => ({ 'x-forwarded-for': `198.51.100.${++addresses}` });
  before(async () => {
    p = await startServer({ config: { trustedProxies: ['127.0.0.1'], rateLimit: { failedAuthPerMinute: 5, webhookPerMinute: 8 } } });
    // counts the lookups that reach the token store (and so the database)
    const authenticate = p.app.tokens.authenticate.bind(p.app.tokens);
    p.app.tokens.authenticate = (bearer) => { lookups++; return authenticate(bearer); };
  });
  after(async () => { await p?.close(); });

  test('random well-formed bearers: 5 × 401, then 429 with Retry-After and RateLimit headers, without a lookup', async () => {
    const headers = from();
    const before = lookups;
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await call(p.url, 'GET', '/api/v1/me', { token: `dw_${randomBytes(32).toString('base64url')}`, headers }));
    assert.deepEqual(answers.map((a) => a.status), [...Array(5).fill(401), ...Array(15).fill(429)]);
    assert.equal(lookups - before, 5, 'refused addresses cost no lookup');
    const limited = answers[5];
    assert.equal(limited.headers.get('content-type'), 'application/problem+json');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal(limited.headers.get('ratelimit-policy'), '"failed-auth";q=5;w=60');
    assert.match(limited.headers.get('ratelimit') ?? '', /^"failed-auth";r=0;t=\d+$/);
    assert.match(limited.body.detail, /too many failed authentications/);
    // the address is refused whatever it sends now; another address is not
    assert.equal((await call(p.url, 'GET', '/api/v1/me', { token: p.admin, headers })).status, 429);
    assert.equal((await call(p.url, 'GET', '/api/v1/me', { token: p.admin, headers: from() })).status, 200);
  });

  test('malformed bearers are refused before the database, and count too', async () => {
    const headers = from();
    const before = lookups;
    for (const token of ['dw_short', `dw_${'x'.repeat(43)}!`, `dw_${'a'.repeat(44)}`, 'nope']) {
      assert.equal((await call(p.url, 'GET', '/api/v1/me', { token, headers })).status, 401);
    }
    assert.equal(lookups, before, 'no lookup for a bearer that cannot be a token');
    assert.equal((await call(p.url, 'GET', '/api/v1/me', { token: 'dw_short', headers })).status, 401);
    assert.equal((await call(p.url, 'GET', '/api/v1/me', { token: 'dw_short', headers })).status, 429);
  });

  test('a missing bearer and valid tokens do not count against the address', async () => {
    const headers = from();
    for (let i = 0; i < 10; i++) assert.equal((await call(p.url, 'GET', '/api/v1/me', { headers })).status, 401);
    for (let i = 0; i < 10; i++) assert.equal((await call(p.url, 'GET', '/api/v1/me', { token: p.admin, headers })).status, 200);
    assert.equal((await call(p.url, 'GET', '/api/v1/me', { token: 'dw_bad', headers })).status, 401);
  });

  test('wrong webhook tokens count against the address; a webhook is limited per address and per resource', async () => {
    const hook = (await p.api('POST', '/api/v1/probe/limited/hook-token')).body.token as string;
    const headers = from();
    const wrong = [];
    for (let i = 0; i < 7; i++) wrong.push((await call(p.url, 'POST', '/api/probe/limited/hook', { token: `dwh_${randomBytes(32).toString('base64url')}`, headers })).status);
    assert.deepEqual(wrong, [401, 401, 401, 401, 401, 429, 429]);
    const refused = await call(p.url, 'POST', '/api/probe/limited/hook', { token: hook, headers });
    assert.equal(refused.status, 429, 'the address is refused even with the right token');

    // per resource: 8 calls a minute to one webhook, whichever addresses they come from (the probe's own window answers the first ones)
    const other = (await p.api('POST', '/api/v1/probe/busy/hook-token')).body.token as string;
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await call(p.url, 'POST', '/api/probe/busy/hook', { token: other, headers: from() }));
    assert.deepEqual(answers.map((a) => a.status), [200, ...Array(9).fill(429)]);
    assert.ok(answers.slice(1, 8).every((a) => a.body.detail === 'one call per 30 s'));
    for (const last of answers.slice(8)) {
      assert.match(last.body.detail, /more than 8 webhook calls per minute for this resource/);
      assert.equal(last.headers.get('ratelimit-policy'), '"webhook";q=8;w=60');
      assert.ok(Number(last.headers.get('retry-after')) >= 1);
    }

    // per address: 8 calls a minute from one address, whichever webhooks it calls
    const tokens = [];
    for (let i = 0; i < 10; i++) tokens.push((await p.api('POST', `/api/v1/probe/addr-${i}/hook-token`)).body.token as string);
    const one = from();
    const byAddress = [];
    for (let i = 0; i < 10; i++) byAddress.push(await call(p.url, 'POST', `/api/probe/addr-${i}/hook`, { token: tokens[i], headers: one }));
    assert.deepEqual(byAddress.map((a) => a.status), [...Array(8).fill(200), 429, 429]);
    assert.match(byAddress[9].body.detail, /webhook calls per minute from this address/);
    assert.equal((await call(p.url, 'POST', '/api/probe/addr-9/hook', { token: tokens[9], headers: from() })).status, 200, 'another address has its own budget');
  });
});
