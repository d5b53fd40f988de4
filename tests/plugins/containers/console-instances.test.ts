// The console's caps across two instances on one database: a user's sessions and the installation's counted on both, a closed session's place freed, a killed instance's sessions no longer counted after the lease.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { WebSocket } from 'undici';
import { startChild, type Child, type TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, deployOk, driverPath, startDockerServer, uniqueName, until } from '../docker/helpers.ts';

const name = uniqueName('consoles');
const consoleOptions = { maxSessions: 6, maxSessionsPerUser: 4, leaseSeconds: 5, idleTimeoutSeconds: 300 };
let s: TestServer;
let child: Child | undefined;
let db: pg.Client;
let path: string;

before(async () => {
  s = await startDockerServer({ containers: { console: consoleOptions } });
  await deployOk(s, name, `
services:
  box:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    stop_grace_period: 1s
`);
  path = `/api/v1/containers/${name}-box-1/exec`;
  db = new pg.Client({ connectionString: s.databaseUrl });
  await db.connect();
});
after(async () => {
  await child?.kill();
  await db?.end();
  await s?.close();
  await cleanupProjects(name);
});

/** a second instance on the same database and data folder */
const startSecond = () => startChild({
  databaseUrl: s.databaseUrl, dataDir: s.dataDir, rateLimit: { perMinute: 100_000 },
  plugins: {
    docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } },
    containers: { options: { console: consoleOptions } },
    'compose-driver': { path: driverPath },
  },
});

interface Session { ws: WebSocket; closed: Promise<number> }

/** a console session on the instance at `base` */
function open(base: string, token: string): Promise<Session> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(base.replace(/^http/, 'ws') + path, { headers: { Authorization: `Bearer ${token}` } } as never);
    const closed = new Promise<number>((done) => ws.addEventListener('close', (e) => done(e.code)));
    ws.addEventListener('open', () => resolve({ ws, closed }));
    ws.addEventListener('error', () => reject(new Error('the WebSocket did not open')));
  });
}

/** the answer to an upgrade that is to be refused (its socket destroyed at once should it be accepted) */
function refusal(base: string, token: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, {
      headers: { Authorization: `Bearer ${token}`, Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': randomBytes(16).toString('base64') },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: body ? JSON.parse(body) : null }));
    });
    req.on('upgrade', (res, socket) => { socket.destroy(); resolve({ status: res.statusCode ?? 0, body: null }); });
    req.on('error', reject);
    req.end();
  });
}

const rows = async (username?: string) => (await db.query<{ instance: string; username: string }>(
  'SELECT instance, username FROM containers_console_sessions WHERE $1::text IS NULL OR username = $1', [username ?? null])).rows;

async function closeAll(sessions: Session[]): Promise<void> {
  for (const c of sessions) c.ws.close();
  await Promise.all(sessions.map((c) => c.closed));
  await until(async () => (await rows()).length === 0, 20_000, 'every session\'s row deleted');
}

test('a user\'s 5th session across two instances is refused with 429 console-limit; a closed one frees its place', async () => {
  child = await startSecond();
  const user = `cora-${process.pid}`;
  const token = await s.token('operator', ['containers:exec'], { name: user });
  const sessions = [await open(s.url, token), await open(child.url, token), await open(s.url, token), await open(child.url, token)];
  assert.equal((await rows(user)).length, 4);
  assert.equal(new Set((await rows(user)).map((r) => r.instance)).size, 2, 'two on each instance');
  for (const base of [s.url, child.url]) {
    const refused = await refusal(base, token);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.type, 'https://dockwright.dev/problems/console-limit');
    assert.equal(refused.body.scope, 'user');
    assert.match(refused.body.detail, /4 console sessions open/);
  }
  assert.equal((await rows(user)).length, 4, 'a refusal writes nothing');

  // the installation's cap: 6 in all, whoever opens them and wherever
  const other = await s.token('operator', ['containers:exec']);
  sessions.push(await open(child.url, other), await open(s.url, other));
  const full = await refusal(child.url, await s.token('operator', ['containers:exec']));
  assert.equal(full.status, 429);
  assert.equal(full.body.scope, 'installation');
  assert.equal(full.body.limit, 6);

  // a session closed on the second instance frees its place for the first
  sessions[1].ws.close();
  await sessions[1].closed;
  await until(async () => (await rows(user)).length === 3, 15_000, 'the closed session\'s row deleted');
  sessions.splice(1, 1, await open(s.url, token));
  assert.equal((await refusal(s.url, token)).status, 429);
  await closeAll(sessions);
});

test('10 sessions of one user asked at once on both instances: exactly 4 open, the rest refused with 429', async () => {
  child ??= await startSecond();
  const user = `pia-${process.pid}`;
  const token = await s.token('operator', ['containers:exec'], { name: user });
  const asked = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => open(i % 2 ? child!.url : s.url, token)));
  const opened = asked.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
  assert.equal(opened.length, 4, `${opened.length} sessions opened`);
  assert.equal((await rows(user)).length, 4);
  await closeAll(opened);
});

test('a killed instance\'s sessions count until their lease runs out, then are ignored and deleted', async () => {
  child ??= await startSecond();
  const user = `kai-${process.pid}`;
  const token = await s.token('operator', ['containers:exec'], { name: user });
  await open(child.url, token);
  await open(child.url, token);
  await open(child.url, token);
  const theirs = (await rows(user))[0].instance;
  await child.kill('SIGKILL');
  child = undefined;
  const killedAt = Date.now();
  const mine = [await open(s.url, token)];
  const refused = await refusal(s.url, token);
  assert.equal(refused.status, 429, 'within the lease, the killed instance\'s sessions still count');
  assert.ok(Date.now() - killedAt < 3000, 'the refusal was seen within the lease');
  // after the lease (5 s from the last renewal, which came at most 5/3 s before the kill), the place is free again and
  // the stale rows are gone
  await new Promise((r) => setTimeout(r, 5000 - (Date.now() - killedAt) + 200));
  mine.push(await open(s.url, token));
  const left = await rows(user);
  assert.equal(left.length, 2);
  assert.ok(left.every((r) => r.instance !== theirs), 'the killed instance\'s rows were deleted');
  await closeAll(mine);
});
