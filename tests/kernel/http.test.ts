// The HTTP pipeline end to end: OpenAPI, auth (401/403), validation (400/415/413), unknown routes (404), unexpected errors (500).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { call, startServer, type TestServer } from '../helpers/harness.ts';

let s: TestServer;
before(async () => { s = await startServer({ config: { http: { bodyLimit: 4096, uploadLimit: 1_000_000 } } }); });
after(async () => { await s.close(); });

function assertProblem(res: { status: number; headers: Headers; body: any }, status: number) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.headers.get('content-type'), 'application/problem+json');
  assert.equal(res.body.status, status);
  assert.match(res.body.type, /^https:\/\/dockwright\.dev\/problems\//);
  assert.equal(typeof res.body.title, 'string');
  assert.equal(typeof res.body.detail, 'string');
}

test('the OpenAPI document needs no token and is derived from the routes', async () => {
  const res = await call(s.url, 'GET', '/api/v1/openapi.json');
  assert.equal(res.status, 200);
  const doc = res.body;
  assert.equal(doc.openapi, '3.1.0');
  const put = doc.paths['/api/v1/probe/items/{name}'].put;
  assert.deepEqual(put.security, [{ bearer: ['probe:write'] }, { session: [] }]);
  assert.deepEqual(put['x-required-scopes'], ['probe:write']);
  for (const status of ['400', '401', '403', '404', '412', '428', '429', '409']) assert.ok(put.responses[status], `PUT item documents ${status}`);
  assert.equal(put.requestBody.content['application/json'].schema.properties.value.type, 'string');
  assert.ok(doc.paths['/api/v1/jobs/{id}/wait'].get.parameters.some((p: any) => p.name === 'timeout' && p.in === 'query'));
  assert.ok(doc.paths['/api/v1/jobs'].get.parameters.some((p: any) => p.name === 'cursor'));
  assert.deepEqual(doc.paths['/api/probe/{name}/hook'].post.security, [{ webhookToken: [] }]);
  assert.deepEqual(doc.paths['/api/v1/openapi.json'].get.security, []);
  assert.equal(doc.paths['/api/v1/probe/upload'].put['x-rate-limit-exempt'], true);
  assert.match(doc.components.securitySchemes.bearer.description, /probe:write \(operator\+\)/);
});

test('GET /me names the user, the token and its effective scopes', async () => {
  const res = await s.api('GET', '/api/v1/me');
  assert.equal(res.status, 200);
  assert.equal(res.body.user.role, 'admin');
  assert.ok(res.body.scopes.includes('probe:write'));
  assert.ok(res.body.scopes.includes('admin'));
  const viewer = await s.token('viewer', ['probe:read', 'probe:write']);
  const me = await call(s.url, 'GET', '/api/v1/me', { token: viewer });
  assert.deepEqual(me.body.scopes, ['probe:read'], 'a viewer cannot hold an operator scope, whatever the token says');
});

test('401 for a missing, malformed, wrong, revoked or expired token, with WWW-Authenticate', async () => {
  const revoked = await s.token('operator', ['probe:read']);
  const id = (await s.app.tokens.list()).find((t) => revoked.startsWith(t.prefix))!.id;
  assert.equal(await s.app.tokens.revoke(id), true);
  const expired = await s.token('operator', ['probe:read'], { expiresAt: new Date(Date.now() - 1000) });
  const cases: [string, Record<string, string>][] = [
    ['missing', {}],
    ['malformed', { authorization: 'Basic abc' }],
    ['wrong', { authorization: 'Bearer dw_notarealtoken' }],
    ['revoked', { authorization: `Bearer ${revoked}` }],
    ['expired', { authorization: `Bearer ${expired}` }],
  ];
  for (const [what, headers] of cases) {
    const res = await call(s.url, 'GET', '/api/v1/probe/items/x', { headers });
    assertProblem(res, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/, what);
  }
  const inQuery = await call(s.url, 'GET', `/api/v1/me?access_token=${s.admin}`);
  assert.equal(inQuery.status, 401, 'tokens are never accepted in query strings');
});

test('403 names the missing scope', async () => {
  const reader = await s.token('operator', ['probe:read']);
  const res = await call(s.url, 'PUT', '/api/v1/probe/items/a', { token: reader, body: { value: 'x', revision: 0 } });
  assertProblem(res, 403);
  assert.match(res.body.detail, /probe:write/);
  const noJobs = await call(s.url, 'GET', '/api/v1/jobs', { token: reader });
  assertProblem(noJobs, 403);
  assert.match(noJobs.body.detail, /jobs:read/);
});

test('400 with errors[] for bodies, params and queries that fail the schema; nothing is written', async () => {
  const bad = await s.api('POST', '/api/v1/probe/echo', { body: { name: '', count: 'many', extra: true } });
  assertProblem(bad, 400);
  const paths = bad.body.errors.map((e: any) => e.path).sort();
  assert.deepEqual(paths, ['/body/count', '/body/extra', '/body/name']);
  const missing = await s.api('POST', '/api/v1/probe/echo', { body: {} });
  assert.deepEqual(missing.body.errors.map((e: any) => e.path).sort(), ['/body/count', '/body/name']);
  const badParam = await s.api('GET', '/api/v1/probe/items/NOT_VALID');
  assertProblem(badParam, 400);
  assert.equal(badParam.body.errors[0].path, '/params/name');
  const badQuery = await s.api('GET', '/api/v1/jobs?limit=5000');
  assertProblem(badQuery, 400);
  assert.equal(badQuery.body.errors[0].path, '/query/limit');
  const badWrite = await s.api('PUT', '/api/v1/probe/items/never', { body: { value: 42 }, headers: { 'if-none-match': '*' } });
  assertProblem(badWrite, 400);
  assertProblem(await s.api('GET', '/api/v1/probe/items/never'), 404);
  const ok = await s.api('POST', '/api/v1/probe/echo', { body: { name: 'a', count: 2 } });
  assert.deepEqual(ok.body, { name: 'a', count: 2 });
});

test('400 for broken JSON, 415 for a body that is not JSON', async () => {
  assertProblem(await s.api('POST', '/api/v1/probe/echo', { raw: '{"name": ', headers: { 'content-type': 'application/json' } }), 400);
  assertProblem(await s.api('POST', '/api/v1/probe/echo', { raw: 'name=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415);
});

test('413 for a body over the limit; uploads have their own, larger limit', async () => {
  const big = { name: 'x'.repeat(5000), count: 1 };
  assertProblem(await s.api('POST', '/api/v1/probe/echo', { body: big }), 413);
  const upload = await s.api('PUT', '/api/v1/probe/upload', { raw: Buffer.alloc(100_000, 1), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(upload.status, 200);
  assert.equal(upload.body.size, 100_000);
  assertProblem(await s.api('PUT', '/api/v1/probe/upload', { raw: Buffer.alloc(1_100_000, 1) }), 413);
});

test('404 problem for an unknown route and an unknown resource', async () => {
  const route = await s.api('GET', '/api/v1/nothing/here');
  assertProblem(route, 404);
  assert.equal(route.body.instance, '/api/v1/nothing/here');
  assert.match(route.headers.get('ratelimit') ?? '', /^"default";r=\d+;t=\d+$/, 'rate-limit headers on every REST answer');
  assertProblem(await s.api('GET', '/api/v1/probe/items/absent'), 404);
  assertProblem(await s.api('GET', `/api/v1/jobs/${crypto.randomUUID()}`), 404);
});

test('an unexpected error is a 500 problem without internals, and the process keeps serving', async () => {
  const res = await s.api('GET', '/api/v1/probe/boom', { unchecked: true });
  assertProblem(res, 500);
  assert.doesNotMatch(res.body.detail, /kaboom/);
  assert.match(res.body.detail, /request id/);
  assert.equal((await s.api('GET', '/api/v1/me')).status, 200);
});

test('reads carry the revision as an ETag', async () => {
  await s.api('PUT', '/api/v1/probe/items/etag', { body: { value: 'v' }, headers: { 'if-none-match': '*' } });
  const res = await s.api('GET', '/api/v1/probe/items/etag');
  assert.equal(res.headers.get('etag'), '"1"');
});

test('every answer carries its request id and its rate limit, and a length that matches its body', async () => {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const rateLimited = (res: { headers: Headers }) => {
    assert.match(res.headers.get('ratelimit') ?? '', /^"default";r=\d+;t=\d+$/);
    assert.match(res.headers.get('ratelimit-policy') ?? '', /^"default";q=\d+;w=60$/);
  };
  const me = await s.api('GET', '/api/v1/me');
  assert.match(me.headers.get('x-request-id') ?? '', uuid);
  assert.equal(me.headers.get('content-type'), 'application/json');
  assert.equal(Number(me.headers.get('content-length')), Buffer.byteLength(me.text));
  assert.equal(me.headers.get('transfer-encoding'), null);
  rateLimited(me);
  assert.equal((await s.api('GET', '/api/v1/me', { headers: { 'x-request-id': 'ci-run.42' } })).headers.get('x-request-id'), 'ci-run.42', 'a caller\'s id is kept');

  // a long answer (sent as one buffer) and one with non-ASCII text: the length counts bytes
  const doc = await call(s.url, 'GET', '/api/v1/openapi.json');
  assert.ok(doc.text.length > 4096);
  assert.equal(Number(doc.headers.get('content-length')), Buffer.byteLength(doc.text));
  const accented = 'é'.repeat(500);
  await s.api('PUT', '/api/v1/probe/items/accented', { body: { value: accented }, headers: { 'if-none-match': '*' } });
  const read = await s.api('GET', '/api/v1/probe/items/accented');
  assert.equal(read.body.value, accented);
  assert.equal(Number(read.headers.get('content-length')), Buffer.byteLength(read.text));
  assert.equal(read.headers.get('etag'), '"1"');

  const refused = await call(s.url, 'PUT', '/api/v1/probe/items/a', { token: await s.token('operator', ['probe:read']), body: { value: 'x', revision: 0 }, headers: { 'x-request-id': 'refused-1' } });
  assertProblem(refused, 403);
  assert.equal(refused.headers.get('x-request-id'), 'refused-1');
  assert.equal(Number(refused.headers.get('content-length')), Buffer.byteLength(refused.text));
  rateLimited(refused);

  const boom = await s.api('GET', '/api/v1/probe/boom', { unchecked: true });
  assertProblem(boom, 500);
  assert.ok(boom.body.detail.includes(boom.headers.get('x-request-id')!), 'the 500 names the id it is sent with');

  const removed = await s.api('DELETE', '/api/v1/probe/items/accented', { headers: { 'if-match': '"1"' } });
  assert.equal(removed.status, 204);
  assert.equal(removed.text, '');
  assert.match(removed.headers.get('x-request-id') ?? '', uuid);
  rateLimited(removed);
});

/** answers made in the same moment each reach their own caller: many connections at once, and requests pipelined on one */
async function answersReachTheirCallers(s: TestServer): Promise<void> {
  // 40 callers at once on their own connections: every answer is the one its request asked for
  const answers = await Promise.all(Array.from({ length: 40 }, async (_, i) => {
    const path = i % 4 === 3 ? `/api/v1/probe/items/missing-${i}` : '/api/v1/me';
    const res = await call(s.url, 'GET', path, { token: s.admin, headers: { 'x-request-id': `many-${i}` }, unchecked: true });
    return { i, path, res };
  }));
  for (const { i, path, res } of answers) {
    assert.equal(res.headers.get('x-request-id'), `many-${i}`);
    if (path === '/api/v1/me') assert.equal(res.body.user.role, 'admin');
    else assertProblem(res, 404);
    assert.equal(Number(res.headers.get('content-length')), Buffer.byteLength(res.text));
  }

  // three requests written at once on one connection (HTTP/1.1 pipelining) are answered in their order, whole; the
  // unknown route's answer carries its request id too
  const socket = connect(Number(new URL(s.url).port), '127.0.0.1');
  const request = (path: string, id: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.admin}\r\nX-Request-Id: ${id}\r\n\r\n`;
  socket.write(request('/api/v1/me', 'one') + request('/api/v1/no-such-route', 'two') + request('/api/v1/jobs?limit=1', 'three'));
  let received = '';
  const heads = await new Promise<string[]>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      const complete: string[] = [];
      let rest = received;
      for (;;) {
        const end = rest.indexOf('\r\n\r\n');
        if (end < 0) break;
        const head = rest.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (rest.length < end + 4 + length) break;
        complete.push(head);
        rest = rest.slice(end + 4 + length);
      }
      if (complete.length === 3) resolve(complete);
    });
  });
  socket.destroy();
  assert.deepEqual(heads.map((h) => /x-request-id: (\S+)/i.exec(h)?.[1]), ['one', 'two', 'three']);
  assert.deepEqual(heads.map((h) => h.split(' ')[1]), ['200', '404', '200']);
}

test('answers made in the same moment each reach their own caller: many connections at once, and requests pipelined on one', () => answersReachTheirCallers(s));

test('with http.batchAnswers false every answer is ended as it is made, and each still reaches its own caller whole', async () => {
  const unbatched = await startServer({ config: { http: { bodyLimit: 4096, uploadLimit: 1_000_000, batchAnswers: false } } });
  try {
    await answersReachTheirCallers(unbatched);
  } finally {
    await unbatched.close();
  }
});

/** a client that sends `head` and then `drip` every `everyMs`, never finishing its request: when did the service close it, with what answer */
function slowClient(url: string, head: string, drip: string, everyMs: number, giveUpMs: number): Promise<{ closedAfterMs: number | null; answer: string }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    let answer = '';
    const dripping = setInterval(() => { if (socket.writable) socket.write(drip); }, everyMs);
    const done = (closedAfterMs: number | null) => {
      clearInterval(dripping);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ closedAfterMs, answer });
    };
    const giveUp = setTimeout(() => done(null), giveUpMs);
    socket.on('connect', () => socket.write(head));
    socket.on('data', (chunk) => { answer += chunk.toString(); });
    socket.on('error', () => undefined);
    socket.on('close', () => done(Date.now() - started));
  });
}

test('a client that sends its headers slowly is cut off after http.headersTimeoutMs (10 s), sooner than bare Node (60 to 90 s), with a 408', async () => {
  const { closedAfterMs, answer } = await slowClient(s.url, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: a\r\n', 250, 13_000);
  assert.ok(closedAfterMs !== null, 'the connection was still open after 13 s');
  assert.ok(closedAfterMs >= 9_500 && closedAfterMs <= 11_500, `closed after ${closedAfterMs} ms`);
  assert.match(answer, /^HTTP\/1\.1 408 /);
  assert.match(answer, /application\/problem\+json/);
  assert.equal((await call(s.url, 'GET', '/healthz')).status, 200, 'the service serves on');
});

test('a body sent slowly is cut off after http.requestTimeoutMs, with a 408; the timeouts are settings', async () => {
  const quick = await startServer({ plugins: {}, config: { http: { headersTimeoutMs: 1000, requestTimeoutMs: 2000 } } });
  try {
    const head = 'POST /api/v1/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';
    const body = await slowClient(quick.url, head, ' ', 200, 6000);
    assert.ok(body.closedAfterMs !== null && body.closedAfterMs >= 1_900 && body.closedAfterMs <= 3_500, `closed after ${body.closedAfterMs} ms`);
    assert.match(body.answer, /^HTTP\/1\.1 408 /);
    const headers = await slowClient(quick.url, 'GET /healthz HTTP/1.1\r\n', 'X-Slow: a\r\n', 200, 6000);
    assert.ok(headers.closedAfterMs !== null && headers.closedAfterMs >= 900 && headers.closedAfterMs <= 2_500, `closed after ${headers.closedAfterMs} ms`);
    assert.equal((await call(quick.url, 'GET', '/healthz')).status, 200);
  } finally {
    await quick.close();
  }
});

test('a request the parser refuses gets its 400 problem and the connection ends a second later, however the client trickles on', async () => {
  const { closedAfterMs, answer } = await slowClient(s.url, 'BREW /coffee HTCPCP/1.0\r\n', 'more\r\n', 200, 6000);
  assert.match(answer, /^HTTP\/1\.1 400 /);
  assert.match(answer, /application\/problem\+json/);
  assert.ok(closedAfterMs !== null && closedAfterMs <= 2_500, `closed after ${closedAfterMs} ms`);
});
