// A restart that drops nothing: with the listening socket held by systemd (socket activation), SIGTERM under load answers every request 200, resets no connection, and the next start takes the queued ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { handedOverSocket } from '../../kernel/http/socket-activation.ts';
import { createDatabase, onlyPlugins, root } from '../helpers/harness.ts';

test('a socket handed over is taken only by the process LISTEN_PID names, once, and its variables are removed for children', () => {
  assert.equal(handedOverSocket({ LISTEN_FDS: '1', LISTEN_PID: '41' }, 42), null, 'another process was meant');
  assert.equal(handedOverSocket({ LISTEN_FDS: '0', LISTEN_PID: '42' }, 42), null, 'no socket passed');
  assert.equal(handedOverSocket({}, 42), null, 'not socket-activated');
  const env: NodeJS.ProcessEnv = { LISTEN_FDS: '2', LISTEN_PID: '42', LISTEN_FDNAMES: 'api:metrics', PATH: '/bin' };
  assert.deepEqual(handedOverSocket(env, 42), { fd: 3 });
  assert.deepEqual(env, { PATH: '/bin' });
  assert.equal(handedOverSocket(env, 42), null, 'taken once');
});

function get(url: string, token: string, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { authorization: `Bearer ${token}` }, agent, timeout: 30_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

test('SIGTERM under load on a socket systemd holds: every request is answered 200 by the old or the next start, none is reset or refused', async (t) => {
  const db = await createDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-activation-'));
  const config = { host: '127.0.0.1', port: 0, log: { level: 'silent' }, databaseUrl: db.url, dataDir, rateLimit: { perMinute: 1_000_000 }, shutdown: { graceMs: 4000 }, plugins: onlyPlugins({}) };
  // two starts in a row on one socket, as systemd's Restart=always does after the first one exits
  const holder = spawn('perl', [join(root, 'tests/fixtures/socket-holder.pl'), '2', process.execPath, '--import', 'tsx', join(root, 'tests/helpers/child-server.ts')], {
    cwd: root, env: { ...process.env, DW_TEST_CONFIG: JSON.stringify(config) }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: holder.stdout! });
  const pids: number[] = [];
  const urls: string[] = [];
  let port = 0;
  let firstExited = 0;
  const serving = [0, 1].map(() => { let resolve!: () => void; const promise = new Promise<void>((r) => { resolve = r; }); return { promise, resolve }; });
  lines.on('line', (line) => {
    if (line.startsWith('port ')) port = Number(line.slice(5));
    else if (line.startsWith('pid ')) { pids.push(Number(line.slice(4))); if (pids.length === 2) firstExited = Date.now(); }
    else if (line.startsWith('{"url"')) { urls.push(JSON.parse(line).url); serving[urls.length - 1]?.resolve(); }
  });
  const holderExited = new Promise<number | null>((done) => holder.once('exit', done));
  try {
    await serving[0].promise;
    assert.ok(port > 0 && urls[0].endsWith(`:${port}`), `the service listens on the socket handed over: ${urls[0]} (port ${port})`);
    const token = readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();

    const statuses = new Map<number, number>();
    const answeredAt: number[] = [];
    const errors: string[] = [];
    let stop = false;
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const loops = [1, 2, 3, 4].map(async () => {
      while (!stop) {
        try {
          const status = await get(`http://127.0.0.1:${port}/api/v1/me`, token, agent);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          answeredAt.push(Date.now());
        } catch (err) {
          errors.push(`${(err as NodeJS.ErrnoException).code ?? ''} ${(err as Error).message}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    await new Promise((r) => setTimeout(r, 500));
    const signalled = Date.now();
    process.kill(pids[0], 'SIGTERM');
    await serving[1].promise;
    const servedAgain = Date.now();
    // the next start answers for a while, then it ends too
    await new Promise((r) => setTimeout(r, 1000));
    stop = true;
    await Promise.all(loops);
    agent.destroy();
    t.diagnostic(`statuses ${JSON.stringify(Object.fromEntries(statuses))}; errors ${JSON.stringify(errors)}; the first start exited ${firstExited - signalled} ms after SIGTERM, the next served ${servedAgain - signalled} ms after it`);

    assert.deepEqual(errors, [], 'no request failed: none reset, none refused');
    assert.deepEqual([...statuses.keys()], [200], `every answer is 200: ${JSON.stringify(Object.fromEntries(statuses))}`);
    assert.ok(answeredAt.some((at) => at < signalled) && answeredAt.some((at) => at > servedAgain), 'the load ran through the restart: answered before it and by the next start');
  } finally {
    for (const pid of pids) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    holder.kill('SIGKILL');
    await holderExited;
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
