// The request rate limit: exactly N pass under concurrency, 429 with Retry-After, headers on every answer, uploads exempt.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, startServer, type TestServer } from '../helpers/harness.ts';
import { RateLimiter } from '../../kernel/rate-limit.ts';

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
