// /healthz, /readyz and /metrics beside /api: alive without a token, ready only with the database, and Prometheus text that a parser reads (the request counter grows), on the main port with metrics:read or on a scrape address of its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheus from 'parse-prometheus-text-format';
import { call, eventually, probePath, startChild, startServer, type Child, type TestServer } from '../helpers/harness.ts';
import { freePort } from '../plugins/docker/helpers.ts';

let s: TestServer;
before(async () => { s = await startServer(); });
after(async () => { await s.close(); });

/** the value of a counter's sample with these labels (0 when there is none yet) */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const family = parsePrometheus(text).find((f) => f.name === name);
  const found = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return Number(found?.value ?? found?.count ?? 0);
}

test('/healthz answers 200 without a token, with no rate limit and no portal page', async () => {
  const res = await fetch(`${s.url}/healthz`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { ok: true });
  assert.equal(res.headers.get('ratelimit'), null, 'a load balancer polls it as often as it likes');
  const unknown = await fetch(`${s.url}/metricz.txt`);
  assert.equal(unknown.status, 404);
});

test('/readyz: 200 with the database and the start done, the plugins\' parts as details', async () => {
  const res = await call(s.url, 'GET', '/readyz');
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.ready, true);
  assert.deepEqual(res.body.parts.database, { ok: true, state: 'up' });
  assert.deepEqual(res.body.parts.start, { ok: true, state: 'done' });
});

test('/readyz tells an anonymous caller no engine details (version, socket); a token with metrics:read gets them, with the same status', async () => {
  const withEngine = await startServer({ plugins: { docker: { options: { reconcile: false } } } });
  try {
    const anonymous = await call(withEngine.url, 'GET', '/readyz');
    assert.equal(anonymous.status, 200, anonymous.text);
    assert.deepEqual(anonymous.body.parts.docker, { ok: true, state: 'reachable' });
    assert.doesNotMatch(anonymous.text, /docker\.sock|Docker \d|unix:|\/var\/run/i, 'no version, no socket path');
    for (const part of Object.values(anonymous.body.parts) as { detail?: string }[]) assert.equal(part.detail, undefined);
    const narrow = await call(withEngine.url, 'GET', '/readyz', { token: await withEngine.token('operator', ['jobs:read']) });
    assert.equal(narrow.status, 200);
    assert.deepEqual(narrow.body.parts.docker, { ok: true, state: 'reachable' }, 'a token without metrics:read sees what anyone sees');
    const monitor = await call(withEngine.url, 'GET', '/readyz', { token: await withEngine.token('operator', ['metrics:read']) });
    assert.equal(monitor.status, 200);
    assert.match(monitor.body.parts.docker.detail, /^Docker \S+ at /, 'metrics:read sees the engine');
    const wrong = await call(withEngine.url, 'GET', '/readyz', { token: 'dw_not_a_real_token_at_all_0000000000000000' });
    assert.equal(wrong.status, 401, 'a token that is sent must hold');
    const doc = (await call(withEngine.url, 'GET', '/api/v1/openapi.json')).body;
    assert.deepEqual(doc.paths['/readyz'].get['x-optional-scopes'], ['metrics:read']);
  } finally {
    await withEngine.close();
  }
});

test('/metrics: 401 without a token, 403 without metrics:read, and Prometheus text whose request counter grows', async () => {
  assert.equal((await call(s.url, 'GET', '/metrics')).status, 401);
  const viewer = await s.token('viewer', ['jobs:read']);
  const refused = await call(s.url, 'GET', '/metrics', { token: viewer });
  assert.equal(refused.status, 403);
  assert.match(refused.body.detail, /metrics:read/);
  const scraper = await s.token('operator', ['metrics:read']);
  const first = await call(s.url, 'GET', '/metrics', { token: scraper });
  assert.equal(first.status, 200, first.text);
  assert.match(first.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const labels = { method: 'GET', route: '/api/v1/me', status: '200' };
  const before = sample(first.text, 'dockwright_http_requests_total', labels);
  for (let i = 0; i < 3; i++) assert.equal((await s.api('GET', '/api/v1/me')).status, 200);
  assert.equal((await s.api('GET', '/api/v1/jobs/00000000-0000-0000-0000-000000000000')).status, 404);
  const job = (await s.api('POST', '/api/v1/probe/jobs', { body: { ms: 1 } })).body;
  assert.equal((await s.api('GET', `/api/v1/jobs/${job.id}/wait?timeout=30`)).body.status, 'succeeded');
  const text = (await call(s.url, 'GET', '/metrics', { token: scraper })).text;
  const families = parsePrometheus(text);
  assert.equal(sample(text, 'dockwright_http_requests_total', labels), before + 3, 'three more answers of /me');
  assert.equal(sample(text, 'dockwright_http_requests_total', { route: '/api/v1/jobs/:id', status: '404' }), 1, 'by route template, not by path');
  const latency = families.find((f) => f.name === 'dockwright_http_request_duration_seconds');
  assert.equal(latency?.type, 'HISTOGRAM');
  // the parser folds a labelled histogram's series into one: its count is read from the line itself
  const count = /^dockwright_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/me"\} (\d+)$/m.exec(text);
  assert.ok(Number(count?.[1]) >= 3, 'the latency of every /me answer is counted');
  assert.equal(sample(text, 'dockwright_jobs_finished_total', { type: 'probe.sleep', status: 'succeeded' }) >= 1, true);
  for (const name of ['dockwright_jobs_open', 'dockwright_db_pool_connections', 'dockwright_process_resident_memory_bytes', 'dockwright_nodejs_eventloop_lag_seconds']) {
    assert.ok(families.some((f) => f.name === name), `${name} is there`);
  }
});

/** the test database behind a loopback proxy that can be cut (a database that is down) and opened again */
async function cuttableDatabase(databaseUrl: string): Promise<{ url: string; cut(): void; open(): void; close(): void }> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  let up = true;
  const server: Server = createServer((client) => {
    if (!up) { client.destroy(); return; }
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const sock of [client, upstream]) { sockets.add(sock); sock.on('error', () => undefined).once('close', () => sockets.delete(sock)); }
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = new URL(databaseUrl);
  url.host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: url.toString(),
    cut: () => { up = false; for (const sock of sockets) sock.destroy(); },
    open: () => { up = true; },
    close: () => { up = false; for (const sock of sockets) sock.destroy(); server.close(); },
  };
}

test('/readyz is 503 naming the database while it is unreachable, and 200 once it is back; a scrape address answers /metrics without a token', async () => {
  const database = await cuttableDatabase(s.databaseUrl);
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-health-'));
  const scrapePort = await freePort();
  let child: Child | undefined;
  try {
    child = await startChild({ databaseUrl: database.url, dataDir, plugins: { probe: { path: probePath } }, metrics: { listen: `127.0.0.1:${scrapePort}` } });
    assert.equal((await call(child.url, 'GET', '/readyz')).status, 200);
    const scraped = await fetch(`http://127.0.0.1:${scrapePort}/metrics`);
    assert.equal(scraped.status, 200);
    assert.ok(parsePrometheus(await scraped.text()).some((f) => f.name === 'dockwright_http_requests_total'));
    assert.equal((await fetch(`http://127.0.0.1:${scrapePort}/api/v1/me`)).status, 404, 'the scrape address serves nothing else');

    database.cut();
    const down = await eventually(async () => {
      const r = await call(child!.url, 'GET', '/readyz');
      return r.status === 503 ? r : null;
    }, 15_000, '/readyz to answer 503');
    assert.equal(down.body.type, 'https://dockwright.dev/problems/not-ready');
    assert.equal(down.body.parts.database.ok, false);
    assert.match(down.body.detail, /database/);
    assert.equal(down.body.parts.database.detail, undefined, 'why the database is away (its address) is not for anyone');
    assert.doesNotMatch(down.text, /127\.0\.0\.1|ECONN|timeout|did not answer/i);
    assert.ok(Number(down.headers.get('retry-after')) >= 1);
    assert.equal((await fetch(`${child.url}/healthz`)).status, 200, 'alive all the same');

    database.open();
    await eventually(async () => (await call(child!.url, 'GET', '/readyz')).status === 200, 15_000, '/readyz to answer 200 again');
  } finally {
    await child?.kill('SIGTERM');
    database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
