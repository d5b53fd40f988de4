// Two service instances (child processes) on one database: the per-token limit, jobs run once, a dead or frozen instance's job taken over, revocation everywhere at once.
import { test, before, beforeEach, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import pg from 'pg';
import { call, eventually, startChild, startServer, type TestServer } from '../helpers/harness.ts';
import { hashToken } from '../../kernel/auth/tokens.ts';

type Child = Awaited<ReturnType<typeof startChild>>;
let s: TestServer;
/** an admin token of the running test's own: each has its own request budget */
let admin: string;
const children: Child[] = [];
/** the children's own data directories (each holds its secret key) */
const dataDirs: string[] = [];
const probe = (instance: string) => ({ probe: { path: 'tests/fixtures/probe-plugin/index.ts', options: { instance } } });

/** an instance of its own on the shared database, with short leases so nothing waits for real */
async function instance(name: string, jobs: Record<string, unknown> = {}, databaseUrl = s.databaseUrl): Promise<Child> {
  const dataDir = `${s.dataDir}-${name}`;
  dataDirs.push(dataDir);
  const child = await startChild({
    databaseUrl, dataDir, plugins: probe(name),
    jobs: { concurrency: 2, leaseMs: 1500, renewMs: 100, pollMs: 100, ...jobs }, log: { level: process.env.DW_CHILD_LOG ?? 'silent' },
  });
  children.push(child);
  return child;
}

/**
 * The test database behind a loopback TCP proxy: while `slowMs` is above 0, a new connection waits that long before
 * it reaches the database (a database that is restarting, a busy host); connections already open are not held up.
 */
async function slowToConnect(): Promise<{ url: string; slowMs: number; close(): void }> {
  const target = new URL(s.databaseUrl);
  const sockets = new Set<Socket>();
  const held = new Set<NodeJS.Timeout>();
  const proxy = {
    url: '',
    slowMs: 0,
    close: () => {
      for (const timer of held) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
  const server = createServer((client) => {
    client.pause();
    sockets.add(client);
    client.on('error', () => undefined).once('close', () => sockets.delete(client));
    const timer = setTimeout(() => {
      held.delete(timer);
      if (client.destroyed) return;
      const upstream = connect(Number(target.port || 5432), target.hostname);
      sockets.add(upstream);
      upstream.on('error', () => undefined).once('close', () => { sockets.delete(upstream); client.destroy(); });
      client.once('close', () => upstream.destroy());
      client.pipe(upstream).pipe(client);
      client.resume();
    }, proxy.slowMs);
    held.add(timer);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = new URL(s.databaseUrl);
  url.host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  proxy.url = url.toString();
  return proxy;
}

async function query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: s.databaseUrl });
  await c.connect();
  try { return (await c.query(sql, params)).rows as T[]; } finally { await c.end(); }
}

// the in-process server only prepares the database and revokes: it runs no probe jobs of its own
before(async () => { s = await startServer({ plugins: {} }); });
beforeEach(async () => { admin = await s.token('admin', ['*']); });
after(async () => {
  for (const c of children) await c.kill('SIGTERM').catch(() => undefined);
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  await s.close();
});

test('200 requests with one token spread over two instances: at most 120 pass, the rest get 429 with Retry-After', async () => {
  const [a, b] = [await instance('rate-a'), await instance('rate-b')];
  try {
    const token = await s.token('operator', ['jobs:read']);
    // the budget is per aligned minute: a burst that straddles a minute's turn spends two budgets, so it starts well inside one
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 40_000) await new Promise((done) => setTimeout(done, 60_000 - intoMinute + 100));
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => call(i % 2 ? a.url : b.url, 'GET', '/api/v1/me', { token })));
    const ok = answers.filter((r) => r.status === 200).length;
    const limited = answers.filter((r) => r.status === 429);
    assert.equal(ok + limited.length, 200, 'every answer is a 200 or a 429');
    assert.ok(ok <= 120, `${ok} passed`);
    // an instance's unspent grant (a tenth of the limit: 12) may go unused: no more than that per instance is lost
    assert.ok(ok >= 120 - 2 * 12, `${ok} passed`);
    for (const r of limited) {
      const retry = Number(r.headers.get('retry-after'));
      assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
      assert.equal(r.headers.get('content-type'), 'application/problem+json');
    }
    const other = await s.token('operator', ['jobs:read']);
    assert.equal((await call(a.url, 'GET', '/api/v1/me', { token: other })).status, 200, 'another token has its own budget');
  } finally {
    await a.kill('SIGTERM');
    await b.kill('SIGTERM');
  }
});

test('100 jobs enqueued on two instances: each runs exactly once, and both instances run some', async () => {
  const [a, b] = [await instance('jobs-a'), await instance('jobs-b')];
  try {
    // posts and waits spend two budgets: 200 requests of one token would meet the rate limit
    const waiter = await s.token('viewer', ['jobs:read']);
    const posted = await Promise.all(Array.from({ length: 100 }, (_, i) =>
      call(i % 2 ? a.url : b.url, 'POST', '/api/v1/probe/jobs', { token: admin, body: { ms: 20, record: true } })));
    const ids = posted.map((p) => { assert.equal(p.status, 202, p.text); return p.body.id as string; });
    for (const [i, id] of ids.entries()) {
      // a wait on the instance that did not run the job answers when the other announces its finish
      const done = (await call(i % 2 ? b.url : a.url, 'GET', `/api/v1/jobs/${id}/wait?timeout=60`, { token: waiter })).body;
      assert.equal(done.status, 'succeeded', JSON.stringify(done));
    }
    const runs = await query<{ job_id: string; instance: string }>('SELECT job_id, instance FROM probe_runs WHERE job_id = ANY($1::uuid[])', [ids]);
    assert.equal(runs.length, 100, 'one run per job');
    assert.equal(new Set(runs.map((r) => r.job_id)).size, 100);
    const by = new Set(runs.map((r) => r.instance));
    assert.ok(by.has('jobs-a') && by.has('jobs-b'), `ran on ${[...by].join(', ')}`);
  } finally {
    await a.kill('SIGTERM');
    await b.kill('SIGTERM');
  }
});

test('kill -9 one instance in the middle of a job: the other marks it failed "interrupted" at once and runs the queue', async () => {
  // a minute's lease on both: only the closed connection (the liveness lock) can tell b so soon
  const a = await instance('kill-a', { concurrency: 1, leaseMs: 60_000, renewMs: 100 });
  let b: Child | undefined;
  try {
    const post = (url: string, body: unknown) => call(url, 'POST', '/api/v1/probe/jobs', { token: admin, body });
    const long = (await post(a.url, { ms: 120_000, key: 'crash' })).body;
    await eventually(async () => (await call(a.url, 'GET', `/api/v1/jobs/${long.id}`, { token: admin })).body.status === 'running', 10_000, 'the long job to run on a');
    // b starts once a runs the job, so a holds it; the queued ones wait behind it (one key)
    b = await instance('kill-b', { leaseMs: 60_000, renewMs: 100 });
    const queued = await Promise.all(Array.from({ length: 5 }, () => post(a.url, { ms: 10, key: 'crash', record: true })));
    const killedAt = Date.now();
    await a.kill('SIGKILL');
    const interrupted = (await call(b.url, 'GET', `/api/v1/jobs/${long.id}/wait?timeout=60`, { token: admin })).body;
    assert.equal(interrupted.status, 'failed');
    assert.equal(interrupted.error, 'interrupted by restart');
    // the lease is a minute long: the dead instance's closed connection is what told b
    assert.ok(Date.now() - killedAt < 30_000, `taken over after ${Date.now() - killedAt} ms`);
    for (const q of queued) {
      const done: { status: string } = (await call(b.url, 'GET', `/api/v1/jobs/${q.body.id}/wait?timeout=60`, { token: admin })).body;
      assert.equal(done.status, 'succeeded');
    }
    const runs = await query<{ instance: string }>('SELECT instance FROM probe_runs WHERE job_id = ANY($1::uuid[])', [queued.map((q) => q.body.id)]);
    assert.deepEqual(runs.map((r) => r.instance), Array(5).fill('kill-b'));
    const activity = await call(b.url, 'GET', '/api/v1/activity?resource=probe:crash&actor=system', { token: admin });
    assert.ok(activity.body.some((e: any) => e.detail?.jobId === long.id && e.result === 'failed'));
  } finally {
    await a.kill('SIGKILL');
    await b?.kill('SIGTERM');
  }
});

test('a frozen instance loses its lease: another takes the job over, and the thawed one stops the job instead of finishing it', async () => {
  const a = await instance('freeze-a', { concurrency: 1 });
  let b: Child | undefined;
  try {
    const long = (await call(a.url, 'POST', '/api/v1/probe/jobs', { token: admin, body: { ms: 120_000, key: 'freeze' } })).body;
    await eventually(async () => (await call(a.url, 'GET', `/api/v1/jobs/${long.id}`, { token: admin })).body.status === 'running', 10_000, 'the job to run on a');
    // frozen, a keeps its connections (and its liveness lock) but renews nothing: only the lease can tell
    a.signal('SIGSTOP');
    b = await instance('freeze-b');
    const taken = (await call(b.url, 'GET', `/api/v1/jobs/${long.id}/wait?timeout=60`, { token: admin })).body;
    assert.equal(taken.status, 'failed');
    assert.equal(taken.error, 'interrupted by restart');
    a.signal('SIGCONT');
    // a's only slot frees once it finds its lease gone and stops the job: then it runs the next one
    const next = (await call(a.url, 'POST', '/api/v1/probe/jobs', { token: admin, body: { ms: 10, key: 'freeze-next' } })).body;
    const ran = (await call(a.url, 'GET', `/api/v1/jobs/${next.id}/wait?timeout=30`, { token: admin })).body;
    assert.equal(ran.status, 'succeeded');
    const after = (await call(a.url, 'GET', `/api/v1/jobs/${long.id}`, { token: admin })).body;
    assert.equal(after.status, 'failed');
    assert.equal(after.error, 'interrupted by restart', 'the record stays as the instance that took over wrote it');
  } finally {
    await a.kill('SIGKILL');
    await b?.kill('SIGTERM');
  }
});

test('an instance whose liveness lock connection drops (a database restart, say) takes it again and keeps its job', async () => {
  // renewals every 250 ms: b counts a gone after two missed ones (500 ms) without its lock
  const database = await slowToConnect();
  const a = await instance('relock-a', { concurrency: 1, leaseMs: 60_000, renewMs: 250 }, database.url);
  let b: Child | undefined;
  try {
    const job = (await call(a.url, 'POST', '/api/v1/probe/jobs', { token: admin, body: { ms: 60_000 } })).body;
    const [{ instance: owner }] = await eventually(async () => {
      const rows = await query<{ instance: string }>(`SELECT instance FROM jobs WHERE id = $1 AND status = 'running'`, [job.id]);
      return rows.length ? rows : undefined;
    }, 10_000, 'the job to run on a');
    b = await instance('relock-b', { leaseMs: 60_000, renewMs: 250 });
    const lockHolder = `SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted
      AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtext('dockwright.instance:' || $1::text)::bigint`;
    const [{ pid }] = await query<{ pid: number }>(lockHolder, [owner]);
    // a's new connection for the lock takes 1.5 s, six renewals: a goes on renewing its lease on the connections it
    // has, so b, which checks every 250 ms, never finds a both without its lock and late
    database.slowMs = 1500;
    const droppedAt = Date.now();
    await query('SELECT pg_terminate_backend($1)', [pid]);
    await eventually(async () => (await query<{ pid: number }>(lockHolder, [owner])).some((r) => r.pid !== pid), 10_000, 'a to hold its lock again');
    assert.ok(Date.now() - droppedAt >= 1500, 'the lock was taken again on a new connection, after its delay');
    database.slowMs = 0;
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal((await call(b.url, 'GET', `/api/v1/jobs/${job.id}`, { token: admin })).body.status, 'running');
  } finally {
    await a.kill('SIGKILL');
    await b?.kill('SIGTERM');
    database.close();
  }
});

test('a cancel sent to one instance stops the job running on the other', async () => {
  const a = await instance('cancel-a', { concurrency: 1 });
  let b: Child | undefined;
  try {
    const job = (await call(a.url, 'POST', '/api/v1/probe/jobs', { token: admin, body: { ms: 60_000 } })).body;
    await eventually(async () => (await query(`SELECT 1 FROM jobs WHERE id = $1 AND status = 'running'`, [job.id])).length > 0, 10_000, 'the job to run');
    b = await instance('cancel-b', { concurrency: 1 });
    // a runs it (b started after): the cancel goes to b and reaches a through the database
    const canceled = await call(b.url, 'POST', `/api/v1/jobs/${job.id}/cancel`, { token: admin });
    assert.ok([200, 202].includes(canceled.status), canceled.text);
    const done = (await call(b.url, 'GET', `/api/v1/jobs/${job.id}/wait?timeout=30`, { token: admin })).body;
    assert.equal(done.status, 'canceled');
  } finally {
    await a.kill('SIGTERM');
    await b?.kill('SIGTERM');
  }
});

test('a token revoked on one instance is refused by the others at once (within the notification\'s delay)', async () => {
  const [a, b] = [await instance('revoke-a'), await instance('revoke-b')];
  try {
    const token = await s.token('operator', ['jobs:read']);
    // both instances have it in their caches now
    assert.equal((await call(a.url, 'GET', '/api/v1/me', { token })).status, 200);
    assert.equal((await call(b.url, 'GET', '/api/v1/me', { token })).status, 200);
    const [row] = await query<{ id: string }>('SELECT id FROM tokens WHERE hash = $1', [hashToken(token)]);
    assert.equal(await s.app.tokens.revoke(row.id), true);
    // the revocation and its NOTIFY commit together; the notification then takes milliseconds to reach each instance
    const revokedAt = Date.now();
    for (const url of [b.url, a.url]) {
      await eventually(async () => (await call(url, 'GET', '/api/v1/me', { token })).status === 401, 1000, 'the revoked token to be refused', 5);
    }
    assert.ok(Date.now() - revokedAt < 1000);
  } finally {
    await a.kill('SIGTERM');
    await b.kill('SIGTERM');
  }
});
