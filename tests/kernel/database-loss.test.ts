// The service outlives its database's connections: every backend terminated under load, the embedded server killed and started again, and one that cannot start again ends the service with a clear message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { call, eventually, probePath, startChild, startServer, type ApiAnswer, type Child, type TestServer } from '../helpers/harness.ts';

let s: TestServer;
const children: Child[] = [];
const dataDirs: string[] = [];

/**
 * Short leases and polls, the same on every instance (an instance judges another's missed renewals by its own settings):
 * an instance without its liveness lock is gone once it missed two renewals, here 1 s.
 */
const jobs = { concurrency: 4, leaseMs: 5000, renewMs: 500, pollMs: 200, outputLimit: 4096 };
/** a rate limit no load here reaches */
const childConfig = (dataDir: string, databaseUrl?: string) => ({
  ...(databaseUrl ? { databaseUrl } : {}), dataDir, plugins: { probe: { path: probePath } }, jobs,
  rateLimit: { perMinute: 100_000 },
  log: { level: process.env.DW_CHILD_LOG ?? 'silent' },
});

async function child(databaseUrl?: string): Promise<{ child: Child; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-dbloss-'));
  dataDirs.push(dataDir);
  const c = await startChild(childConfig(dataDir, databaseUrl));
  children.push(c);
  return { child: c, dataDir };
}

/**
 * Four callers for as long as it runs, half reading who they are, half starting 150 ms jobs. Every answer must be a
 * success or a 503 naming the database with Retry-After: never a 500, never a dropped connection.
 */
function underLoad(url: string, token: string) {
  let running = true;
  const wrong: string[] = [];
  const jobs: string[] = [];
  let unavailable = 0;
  let lastOk = 0;
  const judge = (r: ApiAnswer, ok: number) => {
    if (r.status === ok) { lastOk = Date.now(); return; }
    if (r.status === 503 && r.body?.type?.endsWith('/database-unavailable') && Number(r.headers.get('retry-after')) >= 1) { unavailable++; return; }
    wrong.push(`${r.status} ${r.text.slice(0, 200)}`);
  };
  const worker = async (i: number) => {
    while (running) {
      try {
        if (i % 2) judge(await call(url, 'GET', '/api/v1/me', { token }), 200);
        else {
          const r = await call(url, 'POST', '/api/v1/probe/jobs', { token, body: { ms: 150 } });
          if (r.status === 202) jobs.push(r.body.id);
          judge(r, 202);
        }
      } catch (err) {
        wrong.push(`no answer: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const workers = Promise.all([0, 1, 2, 3].map(worker));
  return {
    get lastOk() { return lastOk; },
    /** resolves once the load has started this many jobs (a busy host makes fewer calls in the same time) */
    started: (n: number) => eventually(async () => jobs.length >= n, 30_000, `${n} jobs started by the load`, 20),
    async stop() {
      running = false;
      await workers;
      return { wrong, jobs, unavailable };
    },
  };
}

/** after the loss: how long until the service answers again from the database (who one is may come from memory) */
async function answersAgain(url: string, token: string, since: number): Promise<number> {
  await eventually(async () => (await call(url, 'GET', '/api/v1/jobs?limit=1', { token })).status === 200, 15_000, 'the service to answer again', 20);
  return Date.now() - since;
}

/** every job the load started ends succeeded: none lost, none left running */
async function allSucceeded(url: string, token: string, ids: string[]): Promise<void> {
  assert.ok(ids.length > 10, `only ${ids.length} jobs started`);
  for (const id of ids) {
    const job = (await call(url, 'GET', `/api/v1/jobs/${id}/wait?timeout=60`, { token })).body;
    assert.equal(job.status, 'succeeded', `job ${id}: ${JSON.stringify(job)}`);
  }
}

async function terminateBackends(databaseUrl: string): Promise<number> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [rows.map((r) => r.pid)]);
    return rows.length;
  } finally {
    await admin.end();
  }
}

const postmasterPid = (dataDir: string) => Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);

// a second instance on the database, which runs no jobs of its own but takes over those of instances it finds gone
before(async () => { s = await startServer({ plugins: {}, config: { jobs } }); });
after(async () => {
  for (const c of children) await c.kill('SIGKILL').catch(() => undefined);
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  await s.close();
});

test('every backend of the database terminated twice under load: the service lives, answers 503 with Retry-After meanwhile, again within 5 s, and loses no job', async () => {
  const { child: c } = await child(s.databaseUrl);
  const token = await s.token('admin', ['*']);
  const load = underLoad(c.url, token);
  await load.started(10);
  assert.ok((await terminateBackends(s.databaseUrl)) > 3, 'the service held connections');
  await new Promise((r) => setTimeout(r, 700));
  const lastLoss = Date.now();
  await terminateBackends(s.databaseUrl);
  const again = await answersAgain(c.url, token, lastLoss);
  await new Promise((r) => setTimeout(r, 500));
  const { wrong, jobs } = await load.stop();
  assert.equal(await Promise.race([c.exited, new Promise((r) => setTimeout(() => r('alive'), 100))]), 'alive', 'the service still runs');
  assert.ok(again < 5000, `answered again after ${again} ms`);
  assert.deepEqual(wrong, [], 'every answer is a success or a 503 naming the database');
  await allSucceeded(c.url, token, jobs);
  console.log(`# backends terminated twice: answered again ${again} ms after the second; ${jobs.length} jobs, all succeeded`);
  // its LISTEN channels came back: a job finished on another instance wakes a wait here at once
  const job = (await call(s.url, 'POST', '/api/v1/probe/jobs', { token, body: { ms: 10 } }));
  if (job.status === 202) assert.equal((await call(c.url, 'GET', `/api/v1/jobs/${job.body.id}/wait?timeout=30`, { token })).body.status, 'succeeded');
});

test('a job running while its finish cannot be written is finished once the database is back, not lost', async () => {
  const { child: c } = await child(s.databaseUrl);
  const token = await s.token('admin', ['*']);
  const job = (await call(c.url, 'POST', '/api/v1/probe/jobs', { token, body: { ms: 400 } })).body;
  await eventually(async () => (await call(c.url, 'GET', `/api/v1/jobs/${job.id}`, { token })).body.status === 'running', 10_000, 'the job to run');
  // its end comes while the backends are terminated again and again (about 1.5 s): the finish is tried until it lands
  const until = Date.now() + 1500;
  while (Date.now() < until) {
    await terminateBackends(s.databaseUrl);
    await new Promise((r) => setTimeout(r, 50));
  }
  const done = (await call(c.url, 'GET', `/api/v1/jobs/${job.id}/wait?timeout=30`, { token })).body;
  assert.equal(done.status, 'succeeded', JSON.stringify(done));
});

test('the embedded server killed (kill -9) under load: the service starts it again, answers within 5 s and loses no job', async () => {
  const { child: c, dataDir } = await child();
  const token = readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
  const load = underLoad(c.url, token);
  await load.started(10);
  const before = postmasterPid(dataDir);
  const killedAt = Date.now();
  process.kill(before, 'SIGKILL');
  const again = await answersAgain(c.url, token, killedAt);
  await new Promise((r) => setTimeout(r, 500));
  const { wrong, jobs, unavailable } = await load.stop();
  assert.equal(await Promise.race([c.exited, new Promise((r) => setTimeout(() => r('alive'), 100))]), 'alive', 'the service still runs');
  assert.notEqual(postmasterPid(dataDir), before, 'a new server runs');
  assert.ok(again < 5000, `answered again after ${again} ms`);
  assert.ok(unavailable > 0, 'the load met the database away');
  assert.deepEqual(wrong, [], 'every answer is a success or a 503 naming the database');
  await allSucceeded(c.url, token, jobs);
  console.log(`# embedded server killed: answered again after ${again} ms (${unavailable} answers 503 meanwhile); ${jobs.length} jobs, all succeeded`);
});

test('an embedded server that cannot start again ends the service with a message that says why', async () => {
  const { child: c, dataDir } = await child();
  // a setting PostgreSQL refuses at start: the server comes back no more
  appendFileSync(join(dataDir, 'postgres', 'postgresql.conf'), '\nshared_buffers = nonsense\n');
  process.kill(postmasterPid(dataDir), 'SIGKILL');
  const code = await Promise.race([c.exited, new Promise((r) => setTimeout(() => r('still running'), 30_000))]);
  assert.equal(code, 1);
  assert.match(c.stderr(), /embedded database server ended and could not be started again/);
  assert.match(c.stderr(), /postgres\.log/);
});
