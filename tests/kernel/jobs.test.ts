// Jobs through HTTP: 202 + wait, serial keys, attach-to-queued, output and redaction, failure, cancel, listing, and restart recovery.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { call, startChild, startServer, eventually, type TestServer } from '../helpers/harness.ts';
import { claimUpdate } from '../../kernel/jobs/store.ts';

let s: TestServer;
// more requests than the default rate limit allows a minute
before(async () => { s = await startServer({ config: { jobs: { concurrency: 4, outputLimit: 4096 }, rateLimit: { perMinute: 1000 } } }); });
after(async () => { await s.close(); });

async function startJob(body: Record<string, unknown>, server = s) {
  const res = await server.api('POST', '/api/v1/probe/jobs', { body });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body;
}

test('a job is queued with an id, runs, and wait answers at its finish (woken, not polling)', async () => {
  const job = await startJob({ ms: 600 });
  assert.match(job.id, /^[0-9a-f-]{36}$/);
  assert.equal(job.status, 'queued');
  assert.equal(job.done, false);
  const asked = Date.now();
  // timed without the client's own contract check of the answer (its first run compiles validators); checked below
  const waited = await s.api('GET', `/api/v1/jobs/${job.id}/wait?timeout=120`, { unchecked: true });
  const answeredAt = Date.now();
  assert.deepEqual((await s.api('GET', `/api/v1/jobs/${job.id}/wait?timeout=120`)).body, waited.body, 'a finished job\'s wait answers the same at once');
  assert.equal(waited.body.status, 'succeeded');
  assert.equal(waited.body.done, true);
  const finishedAt = new Date(waited.body.finishedAt).getTime();
  // the figure (under 100 ms) is bench:jobs' "finish → its wait answers"; a loaded CI machine can take a few hundred ms
  assert.ok(answeredAt - finishedAt < 1000, `answered ${answeredAt - finishedAt} ms after the finish`);
  assert.ok(answeredAt - asked >= 400, 'it did wait');
  assert.match(waited.body.output, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z sleeping 600 ms\n\S+Z done\n/, 'each line carries its UTC time');
  const [first, last] = waited.body.output.trim().split('\n').map((l: string) => Date.parse(l.split(' ')[0]));
  assert.ok(last - first >= 550, 'the times are when each line was written');
  assert.equal(waited.body.actor.kind, 'user');
  for (const field of ['createdAt', 'startedAt', 'finishedAt']) assert.ok(waited.body[field], field);
});

test('wait answers done: false when its timeout passes first; timeout is in seconds and clamped, not refused', async () => {
  const job = await startJob({ ms: 3000 });
  const t0 = Date.now();
  const waited = await s.api('GET', `/api/v1/jobs/${job.id}/wait?timeout=1`);
  const took = Date.now() - t0;
  assert.equal(waited.body.done, false);
  assert.ok(took >= 900 && took < 2000, `took ${took} ms`);
  assert.equal((await s.api('GET', `/api/v1/jobs/${job.id}/wait?timeout=100000`)).body.status, 'succeeded');
  assert.equal((await s.api('GET', `/api/v1/jobs/${job.id}/wait?timeout=-1`)).status, 400);
});

test('jobs with one serial key run one at a time, in order; other keys run alongside', async () => {
  const a = await startJob({ ms: 300, key: 'k1' });
  const b = await startJob({ ms: 300, key: 'k1' });
  const c = await startJob({ ms: 300, key: 'k1' });
  const other = await startJob({ ms: 300, key: 'k2' });
  const done = await Promise.all([a, b, c, other].map((j) => s.api('GET', `/api/v1/jobs/${j.id}/wait`)));
  const [ra, rb, rc, ro] = done.map((d) => d.body.result);
  assert.ok(ra.finishedAt <= rb.startedAt, 'b started after a finished');
  assert.ok(rb.finishedAt <= rc.startedAt, 'c started after b finished');
  assert.ok(ro.startedAt < ra.finishedAt, 'another key is not held up');
});

test('attach-to-queued returns the queued job of the key instead of a new one', async () => {
  const running = await startJob({ ms: 800, key: 'deploy-x' });
  await eventually(async () => (await s.api('GET', `/api/v1/jobs/${running.id}`)).body.status === 'running');
  const queued = await startJob({ ms: 10, key: 'deploy-x', attach: true });
  assert.notEqual(queued.id, running.id, 'a running job is not attached to');
  const attached = await Promise.all([1, 2, 3].map(() => startJob({ ms: 10, key: 'deploy-x', attach: true })));
  for (const j of attached) assert.equal(j.id, queued.id);
  await s.api('GET', `/api/v1/jobs/${queued.id}/wait`);
  const list = await s.api('GET', '/api/v1/jobs?resource=probe:deploy-x');
  assert.equal(list.body.length, 2);
});

test('output is captured while the job runs, secrets are redacted everywhere, failures carry the error', async () => {
  const secret = 'hunter2-very-secret';
  const job = await startJob({ ms: 1500, secret });
  const partial = await eventually(async () => {
    const r = await s.api('GET', `/api/v1/jobs/${job.id}`);
    return r.body.status === 'running' && r.body.output.includes('sleeping') ? r.body : null;
  });
  assert.doesNotMatch(partial.output, /hunter2/);
  const done = (await s.api('GET', `/api/v1/jobs/${job.id}/wait`)).body;
  assert.doesNotMatch(JSON.stringify(done), /hunter2/);
  assert.equal(done.result.echoedSecret, '***');

  const failing = await startJob({ ms: 10, fail: true, secret });
  const failed = (await s.api('GET', `/api/v1/jobs/${failing.id}/wait`)).body;
  assert.equal(failed.status, 'failed');
  assert.equal(failed.done, true);
  assert.equal(failed.error, 'failed on purpose (secret ***)');
  assert.doesNotMatch((await s.api('GET', `/api/v1/activity?resource=`)).text, /hunter2/);
});

test('GET /jobs/{id}/output?follow=1 streams the output as it is written, then the end, and is in the OpenAPI document', async () => {
  const job = await startJob({ ms: 1500, secret: 'follow-secret-value' });
  const started = Date.now();
  const res = await fetch(`${s.url}/api/v1/jobs/${job.id}/output?follow=1`, { headers: { authorization: `Bearer ${s.admin}` } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^text\/plain/);
  const chunks: { at: number; text: string }[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) chunks.push({ at: Date.now() - started, text: decoder.decode(chunk) });
  const text = chunks.map((c) => c.text).join('');
  assert.match(text, /^\S+Z sleeping 1500 ms with secret \*\*\*\n\S+Z done\n-- job succeeded\n$/);
  const firstLine = chunks.find((c) => c.text.includes('sleeping'))!;
  assert.ok(firstLine.at < 1200, `the first line came while the job ran (${firstLine.at} ms)`);
  assert.ok(chunks.at(-1)!.at >= 1400, 'the stream ended with the job');
  const plain = await call(s.url, 'GET', `/api/v1/jobs/${job.id}/output`, { token: s.admin });
  assert.equal(plain.text, (await s.api('GET', `/api/v1/jobs/${job.id}`)).body.output, 'without follow: the output so far');
  const failed = await startJob({ ms: 1, fail: true });
  const end = await (await fetch(`${s.url}/api/v1/jobs/${failed.id}/output?follow=true`, { headers: { authorization: `Bearer ${s.admin}` } })).text();
  assert.match(end, /-- job failed: failed on purpose \(secret none\)\n$/);
  assert.equal((await call(s.url, 'GET', `/api/v1/jobs/${randomUUID()}/output?follow=1`, { token: s.admin })).status, 404);
  assert.equal((await call(s.url, 'GET', `/api/v1/jobs/${job.id}/output?follow=yes`, { token: s.admin })).status, 400);
  const doc = (await s.api('GET', '/api/v1/openapi.json')).body;
  const op = doc.paths['/api/v1/jobs/{id}/output'].get;
  assert.ok(op.parameters.some((p: { name: string }) => p.name === 'follow'));
  assert.ok(op.responses['200'].content['text/plain']);
});

test('output is capped: the head and the newest tail are kept', async () => {
  const job = await startJob({ ms: 1, lines: 500 });
  const done = (await s.api('GET', `/api/v1/jobs/${job.id}/wait`)).body;
  assert.ok(done.output.length <= 4096 + 100, `output is ${done.output.length} bytes`);
  assert.match(done.output, /^\S+Z sleeping 1 ms\n\S+Z line 0 /);
  assert.match(done.output, /bytes of output omitted/);
  assert.match(done.output, /line 499 x+\n\S+Z done\n$/);
});

test('cancel: a queued job at once, a running one by its signal; a succeeded one is a 409', async () => {
  // the blocker takes 300 ms to stop once asked: its cancel answers 202 while it still runs
  const blocker = await startJob({ ms: 1000, key: 'c', stopMs: 300 });
  const queued = await startJob({ ms: 1000, key: 'c' });
  const canceled = await s.api('POST', `/api/v1/jobs/${queued.id}/cancel`);
  assert.equal(canceled.status, 200);
  assert.equal(canceled.body.status, 'canceled');
  await eventually(async () => (await s.api('GET', `/api/v1/jobs/${blocker.id}`)).body.status === 'running');
  const askedAt = Date.now();
  const asked = await s.api('POST', `/api/v1/jobs/${blocker.id}/cancel`);
  assert.equal(asked.status, 202);
  assert.equal(asked.body.status, 'running');
  assert.equal((await s.api('GET', `/api/v1/jobs/${blocker.id}/wait`)).body.status, 'canceled');
  assert.ok(Date.now() - askedAt >= 250, 'the blocker took its time to stop');
  // a running job that stops at once may be done before its cancel answers: then the answer is 200 and canceled
  const quick = await startJob({ ms: 5000, key: 'c2' });
  await eventually(async () => (await s.api('GET', `/api/v1/jobs/${quick.id}`)).body.status === 'running');
  const stopped = await s.api('POST', `/api/v1/jobs/${quick.id}/cancel`);
  assert.ok(stopped.status === 202 ? stopped.body.status === 'running' : stopped.status === 200 && stopped.body.status === 'canceled', `${stopped.status} ${stopped.body.status}`);
  assert.equal((await s.api('GET', `/api/v1/jobs/${quick.id}/wait`)).body.status, 'canceled');
  assert.equal((await s.api('POST', `/api/v1/jobs/${blocker.id}/cancel`)).status, 200, 'canceling again is idempotent');
  const finished = await startJob({ ms: 1 });
  await s.api('GET', `/api/v1/jobs/${finished.id}/wait`);
  assert.equal((await s.api('POST', `/api/v1/jobs/${finished.id}/cancel`)).status, 409);
  const viewer = await s.token('viewer', ['jobs:read', 'jobs:cancel']);
  assert.equal((await call(s.url, 'POST', `/api/v1/jobs/${blocker.id}/cancel`, { token: viewer })).status, 403);
});

test('GET /jobs filters by status, type and resource, pages with a Link header', async () => {
  for (let i = 0; i < 3; i++) await startJob({ ms: 1, key: 'listing' });
  await eventually(async () => (await s.api('GET', '/api/v1/jobs?resource=probe:listing&status=succeeded')).body.length === 3);
  const first = await s.api('GET', '/api/v1/jobs?resource=probe:listing&limit=2');
  assert.equal(first.body.length, 2);
  const link = first.headers.get('link')!;
  assert.match(link, /^<\/api\/v1\/jobs\?resource=probe%3Alisting&limit=2&cursor=\d+>; rel="next"$/);
  const second = await s.api('GET', link.slice(1, link.indexOf('>')));
  assert.equal(second.body.length, 1);
  assert.equal(second.headers.get('link'), null);
  assert.ok(!first.body.some((j: any) => second.body.some((k: any) => k.id === j.id)));
  assert.equal((await s.api('GET', '/api/v1/jobs?type=probe.sleep&limit=1')).body[0].type, 'probe.sleep');
  assert.equal((await s.api('GET', '/api/v1/jobs?status=bogus')).status, 400);
  assert.equal((await s.api('GET', '/api/v1/jobs?cursor=abc')).status, 400);
});

test('a restart marks the running job failed ("interrupted by restart") and runs the queued ones', async () => {
  const dataDir = s.dataDir + '-child';
  const config = { databaseUrl: s.databaseUrl, dataDir, plugins: { probe: { path: 'tests/fixtures/probe-plugin/index.ts' } }, jobs: { concurrency: 1, outputLimit: 4096 } };
  const first = await startChild(config);
  const post = (url: string, body: unknown) => call(url, 'POST', '/api/v1/probe/jobs', { token: s.admin, body });
  const long = (await post(first.url, { ms: 60_000, key: 'crash' })).body;
  const queued = (await post(first.url, { ms: 10, key: 'crash' })).body;
  await eventually(async () => (await call(first.url, 'GET', `/api/v1/jobs/${long.id}`, { token: s.admin })).body.status === 'running');
  await first.kill('SIGKILL');

  const second = await startChild(config);
  try {
    const interrupted = (await call(second.url, 'GET', `/api/v1/jobs/${long.id}/wait`, { token: s.admin })).body;
    assert.equal(interrupted.status, 'failed');
    assert.equal(interrupted.error, 'interrupted by restart');
    const ran = (await call(second.url, 'GET', `/api/v1/jobs/${queued.id}/wait`, { token: s.admin })).body;
    assert.equal(ran.status, 'succeeded');
    const activity = await call(second.url, 'GET', `/api/v1/activity?resource=probe:crash&actor=system`, { token: s.admin });
    assert.ok(activity.body.some((a: any) => a.detail?.jobId === long.id && a.result === 'failed'));
  } finally {
    await second.kill('SIGTERM');
  }
});

/** the rows every scan of the plan read (found, and removed by a filter): the claim run for real, on 12 open jobs, in a transaction rolled back */
async function rowsClaimReads(): Promise<{ rows: number; plan: string }> {
  const client = await s.app.db.pool.connect();
  try {
    await client.query('BEGIN');
    // open jobs for the claim to find, gone with the rollback: some of its type (one kept back by its serial key), some of another
    await client.query(`INSERT INTO jobs (id, type, status, input, actor, serial_key)
      SELECT gen_random_uuid(), t.type, t.status, '{}', '{"kind":"system","name":"history"}', 'k' || (i % 3)
        FROM generate_series(1, 4) i, (VALUES ('probe.sleep', 'queued'), ('probe.sleep', 'running'), ('history.other', 'queued')) t(type, status)`);
    const [{ 'QUERY PLAN': [top] }] = (await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${claimUpdate(['probe.sleep'], randomUUID(), 30_000, 4)}`)).rows;
    let rows = 0;
    const visit = (node: Record<string, unknown>): void => {
      if (/Scan$/.test(node['Node Type'] as string)) rows += Number(node['Actual Rows'] ?? 0) + Number(node['Rows Removed by Filter'] ?? 0);
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) visit(child);
    };
    visit(top.Plan);
    return { rows, plan: JSON.stringify(top.Plan) };
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

test('a claim reads only the open jobs, however long the history of their type and whatever the statistics say', async () => {
  // 20,000 finished jobs written straight to the table: first with its statistics not renewed (a busy young table, as
  // the planner sees it), then analyzed (as autovacuum soon does). The planner may read either index of open jobs.
  await s.app.db.query(`INSERT INTO jobs (id, type, status, input, actor, started_at, finished_at)
    SELECT gen_random_uuid(), 'probe.sleep', 'succeeded', '{}', '{"kind":"system","name":"history"}', now(), now() FROM generate_series(1, 20000)`);
  try {
    for (const statistics of ['stale', 'fresh']) {
      if (statistics === 'fresh') await s.app.db.query('ANALYZE jobs');
      const { rows, plan } = await rowsClaimReads();
      assert.ok(rows < 100, `${statistics} statistics: the claim read ${rows} rows: ${plan}`);
    }
    const jobs = await Promise.all([0, 1, 2].map(() => startJob({ ms: 1 })));
    for (const job of jobs) assert.equal((await s.api('GET', `/api/v1/jobs/${job.id}/wait`)).body.status, 'succeeded');
  } finally {
    await s.app.db.query(`DELETE FROM jobs WHERE actor->>'name' = 'history'`);
  }
});

test('getMany reads a finished job from the database once (without output: shared and frozen); a job under way every time', async () => {
  const jobs = s.app.jobs;
  const running = await startJob({ ms: 800 });
  await eventually(async () => (await jobs.getMany([running.id], { output: false })).get(running.id)?.status === 'running');
  // the table changed behind the runner's back: a job under way is read again each time, so the change shows
  await s.app.db.query(`UPDATE jobs SET resource = 'moved' WHERE id = $1`, [running.id]);
  assert.equal((await jobs.getMany([running.id], { output: false })).get(running.id)!.resource, 'moved');

  assert.equal((await s.api('GET', `/api/v1/jobs/${running.id}/wait?timeout=30`)).body.status, 'succeeded');
  const done = (await jobs.getMany([running.id], { output: false })).get(running.id)!;
  assert.equal(done.status, 'succeeded');
  assert.equal(done.output, '', 'without output');
  assert.ok(Object.isFrozen(done) && Object.isFrozen(done.actor), 'every caller shares it');
  assert.throws(() => { (done as { status: string }).status = 'failed'; }, TypeError);
  // a finished job never changes again: the second read is answered from memory (this change, outside every rule, is not seen)
  await s.app.db.query(`UPDATE jobs SET error = 'changed behind the runner' WHERE id = $1`, [running.id]);
  const [again, other] = await Promise.all([jobs.getMany([running.id, randomUUID(), 'not-an-id'], { output: false }), jobs.getMany([running.id])]);
  assert.equal(again.get(running.id), done);
  assert.equal(again.size, 1);
  // with output too (one cache of finished jobs, output included): a copy of its own for the caller
  const whole = other.get(running.id)!;
  assert.equal(whole.error, null, 'with output it is answered from memory as well');
  assert.match(whole.output, /done/);
  assert.ok(!Object.isFrozen(whole), 'a read with output gets a copy of its own');
});

/** the statements that read jobs by id, counted while `during` runs (the runner queries through the app's database) */
async function jobReads<T>(during: () => Promise<T>): Promise<{ out: T; reads: number }> {
  const db = s.app.db;
  const real = db.query;
  let reads = 0;
  db.query = ((sql: string, params?: unknown[]) => {
    if (/FROM jobs WHERE id (= \$1|= ANY)/.test(sql)) reads++;
    return real.call(db, sql, params);
  }) as typeof db.query;
  try {
    return { out: await during(), reads };
  } finally {
    db.query = real;
  }
}

test('waits begun together read their jobs in one query, and the finishes this instance announces cost no read', async () => {
  const started = await Promise.all(Array.from({ length: 12 }, () => startJob({ ms: 300 })));
  const { out, reads } = await jobReads(() => Promise.all(started.map((j) => s.app.jobs.wait(j.id, 30_000))));
  assert.deepEqual(out.map((j) => j?.status), started.map(() => 'succeeded'));
  assert.deepEqual(out.map((j) => j?.id), started.map((j) => j.id));
  // the first wait reads alone, the eleven begun meanwhile together; the finishes wake them without another read
  assert.ok(reads <= 2, `${reads} reads for 12 waits`);
  assert.equal(await s.app.jobs.wait('not-an-id', 1000), null);
  assert.equal(await s.app.jobs.wait(randomUUID(), 1000), null);
});

test('one cache of finished jobs: a job first read without output is read whole once, then reads and waits need no query', async () => {
  // finished by another instance (written straight into the table): this one has not seen it
  const id = randomUUID();
  await s.app.db.query(
    `INSERT INTO jobs (id, type, status, input, output, actor, started_at, finished_at)
     VALUES ($1, 'probe.sleep', 'succeeded', '{"ms":0}', 'elsewhere\n', '{"kind":"system","name":"cache"}', now(), now())`, [id]);
  try {
    const bare = (await s.app.jobs.getMany([id], { output: false })).get(id)!;
    assert.equal(bare.output, '');
    // kept without its output, it does not answer a read that needs it: that read goes to the database, once
    const first = await jobReads(() => s.api('GET', `/api/v1/jobs/${id}`));
    assert.equal(first.out.body.output, 'elsewhere\n');
    assert.equal(first.reads, 1);
    const later = await jobReads(async () => [
      await s.api('GET', `/api/v1/jobs/${id}`), await s.api('GET', `/api/v1/jobs/${id}/wait?timeout=5`),
      (await s.app.jobs.getMany([id], { output: false })).get(id)!,
    ] as const);
    assert.equal(later.reads, 0, 'answered from memory');
    assert.equal(later.out[0].body.output, 'elsewhere\n');
    assert.equal(later.out[1].body.status, 'succeeded');
    assert.equal(later.out[2].output, '');
  } finally {
    await s.app.db.query('DELETE FROM jobs WHERE id = $1', [id]);
  }
});

test('a finish committed with its answer lost still wakes its wait at once', async () => {
  const { finishes } = s.app.jobs as unknown as { finishes: { session?: { query: (...args: unknown[]) => Promise<unknown> } } };
  await s.api('GET', `/api/v1/jobs/${(await startJob({ ms: 10 })).id}/wait?timeout=30`); // the finish connection is open
  const lane = finishes.session!;
  const real = lane.query;
  lane.query = async (...args: unknown[]) => {
    await real.apply(lane, args);
    lane.query = real;
    // the announcement of the commit arrives meanwhile, while the finish still counts as this instance's own
    await new Promise((r) => setTimeout(r, 300));
    throw new Error('connection lost after the commit');
  };
  const job = await startJob({ ms: 200 });
  const t0 = Date.now();
  const waited = await s.api('GET', `/api/v1/jobs/${job.id}/wait?timeout=10`);
  assert.equal(waited.body.status, 'succeeded');
  assert.ok(Date.now() - t0 < 2000, `answered after ${Date.now() - t0} ms`);
  // the retried finish finds the job done and writes nothing twice
  await new Promise((r) => setTimeout(r, 800));
  const { rows } = await s.app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM activity WHERE detail->>'jobId' = $1`, [job.id]);
  assert.equal(rows[0].n, 1);
  assert.equal((await s.app.jobs.get(job.id))!.status, 'succeeded');
});

test('a stop that comes while a claim is under way drains the jobs it claims: none is left running', { timeout: 90_000 }, async () => {
  const db = { databaseUrl: s.databaseUrl, dataDir: `${s.dataDir}-stops` };
  const left: string[] = [];
  for (let i = 0; i < 6; i++) {
    const server = await startServer({ reuse: db, config: { jobs: { concurrency: 4, outputLimit: 4096 } } });
    // the enqueue's notification starts a claim; the stop follows at once, usually while that claim is under way
    const job = await startJob({ ms: 150 }, server);
    await server.stop();
    const status = (await s.api('GET', `/api/v1/jobs/${job.id}`)).body.status;
    if (status === 'running') left.push(job.id);
    assert.ok(['queued', 'succeeded'].includes(status), `job ${job.id} is ${status} after the stop`);
  }
  assert.deepEqual(left, []);
});
