// A restart invisible to API clients: SIGTERM under load lets requests in flight finish, answers new ones 503 with Retry-After (no other 5xx, no reset of an accepted connection), and a running job ends, not stays running.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, createDatabase, eventually, probePath, startChild } from '../helpers/harness.ts';

interface Answer { status: number; retryAfter?: string; body: string }

function get(url: string, token: string, agent: Agent | false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { authorization: `Bearer ${token}` }, agent, timeout: 15_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    // whether the request went out on a kept-alive connection, one the service had accepted before
    req.on('error', (err) => reject(Object.assign(err, { reused: req.reusedSocket })));
    req.end();
  });
}

test('SIGTERM under load: requests in flight finish, new ones get 503 with Retry-After, no accepted connection is reset; the running job ends, not stays running', async (t) => {
  const db = await createDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-drain-'));
  const config = { databaseUrl: db.url, dataDir, rateLimit: { perMinute: 1_000_000 }, shutdown: { graceMs: 4000 }, plugins: { probe: { path: probePath } } };
  let child = await startChild(config);
  try {
    const token = readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
    const job = await call(child.url, 'POST', '/api/v1/probe/jobs', { token, body: { ms: 60_000 }, unchecked: true });
    assert.equal(job.status, 202, job.text);
    await eventually(async () => (await call(child.url, 'GET', `/api/v1/jobs/${job.body.id}`, { token, unchecked: true })).body.status === 'running', 10_000, 'the job to run');

    // in flight when the signal comes: long polls that answer after 2 s
    const waits = [1, 2, 3].map(() => get(`${child.url}/api/v1/jobs/${job.body.id}/wait?timeout=2`, token, false));
    // and clients that keep asking (20 a second each, on keep-alive connections, not waiting as Retry-After asks) until nothing listens any more
    const statuses = new Map<number, number>();
    const errors: { message: string; reused: boolean }[] = [];
    let withoutRetryAfter = 0;
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const loops = [1, 2, 3, 4].map(async () => {
      for (let n = 0; n < 5000; n++) {
        try {
          const a = await get(`${child.url}/api/v1/me`, token, agent);
          statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
          if (a.status === 503 && (!a.retryAfter || !/shutting-down/.test(a.body))) withoutRetryAfter++;
        } catch (err) {
          // refused: the service is gone (its listener closed); anything else is a broken connection
          if ((err as NodeJS.ErrnoException).code === 'ECONNREFUSED') return;
          errors.push({ message: (err as Error).message, reused: (err as { reused?: boolean }).reused === true });
          return;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    const signalled = Date.now();
    child.signal('SIGTERM');
    const answered = await Promise.all(waits);
    const code = await child.exited;
    const tookMs = Date.now() - signalled;
    await Promise.all(loops);
    agent.destroy();
    t.diagnostic(`errors ${JSON.stringify(errors)}; in flight ${JSON.stringify(answered.map((a) => a.status))}`);
    t.diagnostic(`statuses ${JSON.stringify(Object.fromEntries(statuses))}; exited ${tookMs} ms after SIGTERM`);

    assert.deepEqual(answered.map((a) => a.status), [200, 200, 200], 'the requests in flight finished');
    assert.equal(code, 0);
    // Draining resets nothing: every connection the service accepted gets its answer and a clean close, so no request on
    // a kept-alive connection breaks. What it cannot help is a new connection still in the kernel's accept queue when the
    // listener closes: Linux resets it. At 4 × 20 requests a second, about one run in two sees one such reset, a loaded
    // machine more (each client stops at its first); a listener handed over by systemd's socket activation keeps even
    // those queued for the next start.
    assert.ok(errors.every((e) => /ECONNRESET/.test(e.message) && !e.reused), `connections broken: ${JSON.stringify(errors)}`);
    assert.deepEqual([...statuses.keys()].sort(), [200, 503], `only 200 and the documented 503: ${JSON.stringify(Object.fromEntries(statuses))}`);
    assert.equal(withoutRetryAfter, 0, 'every 503 says shutting-down and carries Retry-After');
    assert.ok(tookMs < 4000 + 8000, `the drain took ${tookMs} ms (grace 4000 ms)`);

    // the job outlived the grace: ended by the shutdown, or taken over by the next start; nothing stays running
    child = await startChild(config);
    const after = await eventually(async () => {
      const j = (await call(child.url, 'GET', `/api/v1/jobs/${job.body.id}`, { token, unchecked: true })).body;
      return j.done ? j : null;
    }, 60_000, 'the interrupted job to be taken over');
    assert.equal(after.status, 'failed');
    assert.match(after.error, /interrupt|shutting down|aborted/);
  } finally {
    await child.kill('SIGKILL');
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
