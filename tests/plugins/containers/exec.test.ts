// The console over a WebSocket against a real engine: a shell and a command, resizing, the refusals before the upgrade, the portal's session with its CSRF value and Origin, the activity log; its limits: input held for a command that does not read it, sessions per user and in all, the idle timeout, the end of access, the processes killed when it closes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { WebSocket } from 'undici';
import { WebSocket as WsClient } from 'ws';
import { call, type TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, deployOk, docker, startDockerServer, uniqueName, until } from '../docker/helpers.ts';

const name = uniqueName('exec');
let s: TestServer;
let container: string;

before(async () => {
  s = await startDockerServer({ containers: { console: { maxSessions: 6, maxSessionsPerUser: 3, idleTimeoutSeconds: 4 } } });
  await deployOk(s, name, `
services:
  box:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    stop_grace_period: 1s
`);
  container = `${name}-box-1`;
});
after(async () => {
  await s?.close();
  await cleanupProjects(name);
});

const wsUrl = (path: string) => s.url.replace(/^http/, 'ws') + path;

/** a WebSocket session: every text frame collected, the close code and reason once it ends */
function open(path: string, headers: Record<string, string>): Promise<{ ws: WebSocket; text: () => string; closed: Promise<{ code: number; reason: string }> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(path), { headers } as never);
    let out = '';
    const closed = new Promise<{ code: number; reason: string }>((done) => ws.addEventListener('close', (e) => done({ code: e.code, reason: e.reason })));
    ws.addEventListener('message', (e) => { out += String(e.data); });
    ws.addEventListener('open', () => resolve({ ws, text: () => out, closed }));
    ws.addEventListener('error', () => reject(new Error('the WebSocket did not open')));
  });
}

/** the answer to an upgrade request when it is refused (or 101 when accepted) */
function upgradeStatus(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(s.url + path, {
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': randomBytes(16).toString('base64'), ...headers },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('upgrade', (res, socket) => { socket.destroy(); resolve({ status: res.statusCode ?? 0, body: '' }); });
    req.on('error', reject);
    req.end();
  });
}

test('a shell over the WebSocket with a bearer token: echo hi answers hi; each resize is applied before the input after it; exit closes with its code', async () => {
  const { ws, text, closed } = await open(`/api/v1/containers/${container}/exec`, { Authorization: `Bearer ${s.admin}` });
  ws.send(JSON.stringify({ resize: { cols: 100, rows: 30 } }));
  ws.send('echo hi-$((40+2))\n');
  await until(async () => text().includes('hi-42'), 10_000, `the echo in ${JSON.stringify(text())}`);
  ws.send('stty size\n');
  await until(async () => /30 100/.test(text()), 10_000, `the resized terminal in ${JSON.stringify(text())}`);
  // each resize is applied before the input that follows it: a stty sent right behind a resize sees that size, or a
  // later one (the shell may run it after the next resize came), never an earlier one
  const sizes = ['132x43', '80x24', '200x60', '90x33'];
  for (const size of sizes) {
    const [cols, rows] = size.split('x').map(Number);
    ws.send(JSON.stringify({ resize: { cols, rows } }));
    ws.send('stty size\n');
  }
  const seen = () => [...text().matchAll(/^(\d+) (\d+)\r?$/gm)].map((m) => `${m[2]}x${m[1]}`).slice(1);
  await until(async () => seen().length === sizes.length, 10_000, `the sizes after the resizes in ${JSON.stringify(text())}`);
  seen().forEach((size, i) => assert.ok(sizes.indexOf(size) >= i, `stty ${i + 1} saw ${size}, a size from before its resize (${seen().join(', ')})`));
  assert.equal(seen().at(-1), '90x33');
  ws.send('exit 3\n');
  const end = await closed;
  assert.equal(end.code, 1000);
  assert.equal(end.reason, 'exit 3');
});

test('a first frame { cmd } runs that command instead of the shell', async () => {
  const { ws, text, closed } = await open(`/api/v1/containers/${container}/exec`, { Authorization: `Bearer ${s.admin}` });
  ws.send(JSON.stringify({ cmd: ['echo', 'x-from-cmd'] }));
  const end = await closed;
  assert.match(text(), /x-from-cmd/);
  assert.equal(end.reason, 'exit 0');
});

test('refusals come before the upgrade: a viewer 403, no token 401, a plain GET 426, an unknown container 404', async () => {
  const path = `/api/v1/containers/${container}/exec`;
  const viewer = await s.token('viewer', ['containers:read', 'containers:exec']);
  const refused = await upgradeStatus(path, { Authorization: `Bearer ${viewer}` });
  assert.equal(refused.status, 403, refused.body);
  assert.equal((await upgradeStatus(path, {})).status, 401);
  const operator = await s.token('operator', ['containers:read']);
  assert.equal((await upgradeStatus(path, { Authorization: `Bearer ${operator}` })).status, 403, 'without the scope');
  const plain = await call(s.url, 'GET', path, { token: s.admin });
  assert.equal(plain.status, 426, plain.text);
  assert.equal((await upgradeStatus('/api/v1/containers/nothing-like-this/exec', { Authorization: `Bearer ${s.admin}` })).status, 404);
  // any other route still answers an upgrade request as a plain request, then closes
  assert.equal((await upgradeStatus('/api/v1/me', { Authorization: `Bearer ${s.admin}` })).status, 200);
  const ok = await s.token('operator', ['containers:exec']);
  assert.equal((await upgradeStatus(path, { Authorization: `Bearer ${ok}` })).status, 101);
});

test('a portal session: the CSRF value as ?csrf= and its own Origin; another Origin is refused', async () => {
  await s.app.sessions.setPassword('admin', 'correct horse battery');
  const signIn = await call(s.url, 'POST', '/api/v1/session', { body: { username: 'admin', password: 'correct horse battery' } });
  assert.equal(signIn.status, 201, signIn.text);
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
  const path = `/api/v1/containers/${container}/exec`;
  const origin = s.url;
  const csrf = encodeURIComponent(signIn.body.csrf);
  assert.equal((await upgradeStatus(path, { Cookie: cookie, Origin: origin })).status, 403, 'without the CSRF value');
  assert.equal((await upgradeStatus(`${path}?csrf=${csrf}`, { Cookie: cookie, Origin: 'http://evil.example' })).status, 403, 'from another origin');
  assert.equal((await upgradeStatus(`${path}?csrf=${csrf}`, { Cookie: cookie })).status, 403, 'without an Origin');
  // the plain-http service's own host under another scheme is another origin
  assert.equal((await upgradeStatus(`${path}?csrf=${csrf}`, { Cookie: cookie, Origin: origin.replace(/^http:/, 'https:') })).status, 403, 'https for the plain-http service');
  assert.equal((await upgradeStatus(`${path}?csrf=${csrf}`, { Cookie: cookie, Origin: 'null' })).status, 403, 'an opaque origin');
  const { ws, text, closed } = await open(`${path}?csrf=${csrf}`, { Cookie: cookie, Origin: origin });
  ws.send('echo from-the-portal\n');
  await until(async () => text().includes('from-the-portal'), 10_000, 'the echo');
  ws.close();
  await closed;
});

test('every session is in the activity log with its command, start and end; never its input or output', async () => {
  const { ws, text, closed } = await open(`/api/v1/containers/${container}/exec`, { Authorization: `Bearer ${s.admin}` });
  ws.send('echo secret-typed-$((6*7))\n');
  await until(async () => text().includes('secret-typed-42'), 10_000, 'the echo');
  ws.close();
  await closed;
  const entries = await until(async () => {
    const res = await s.api('GET', '/api/v1/activity?action=containers.exec&limit=1000');
    const list = res.body.filter((a: any) => a.resource === `container:${container}`);
    // every session started so far has its end (this one ends last: its processes are ended first)
    return list.filter((a: any) => a.result === 'ok').length === list.filter((a: any) => a.result === 'started').length && list;
  }, 15_000, 'the session\'s end in the activity log');
  const end = entries.find((a: any) => a.result === 'ok');
  assert.deepEqual(end.detail.command, ['sh']);
  assert.equal(end.detail.endedBy, 'client');
  assert.ok(Date.parse(end.detail.startedAt) <= Date.parse(end.detail.endedAt));
  assert.equal(end.actor.kind, 'user');
  assert.ok(entries.some((a: any) => a.result === 'started'));
  const all = JSON.stringify((await s.api('GET', '/api/v1/activity?limit=1000')).body);
  assert.ok(!all.includes('secret-typed'), 'neither the input nor the output is logged');
});

/** the console's entries in the activity log for this container, newest first */
const sessionsLogged = async () => (await s.api('GET', '/api/v1/activity?action=containers.exec&limit=1000')).body.filter((a: any) => a.resource === `container:${container}`);
/** every session started so far has ended (its end recorded, its place given back) */
const allEnded = () => until(async () => {
  const list = await sessionsLogged();
  return list.filter((a: any) => a.result === 'started').length === list.filter((a: any) => a.result === 'ok').length;
}, 20_000, 'every session to end');
/** the command lines of the container's processes */
async function processes(): Promise<string> {
  const exec = await docker.getContainer(container).exec({ Cmd: ['ps', '-o', 'pid,args'], AttachStdout: true, AttachStderr: true, Tty: true });
  const stream = await exec.start({ hijack: true, Tty: true }) as unknown as NodeJS.ReadableStream;
  let out = '';
  stream.on('data', (c: Buffer) => { out += c.toString(); });
  await new Promise((r) => stream.once('end', r));
  return out;
}

test('closing the console kills what it started (foreground and background), and the activity log has the exit code and who ended it', async () => {
  const since = Date.now() - 1000;
  const { ws, closed } = await open(`/api/v1/containers/${container}/exec`, { Authorization: `Bearer ${s.admin}` });
  ws.send('sleep 600 & sleep 601 & (sleep 602 &) ; sleep 603\n');
  await until(async () => ((await processes()).match(/sleep 60[0-3]/g) ?? []).length === 4, 10_000, 'the four sleeps to run');
  ws.close();
  await closed;
  const end = await until(async () => (await sessionsLogged()).find((a: any) => a.result !== 'started' && Date.parse(a.detail.startedAt) >= since), 15_000, 'the session\'s end in the activity log');
  assert.equal(end.result, 'ok');
  assert.equal(typeof end.detail.exitCode, 'number', `an exit code: ${JSON.stringify(end.detail)}`);
  assert.ok(end.detail.cleanup.signalled >= 4, JSON.stringify(end.detail.cleanup));
  const left = (await processes()).match(/sleep 60[0-3]/g) ?? [];
  assert.deepEqual(left, [], 'nothing the session started runs on');
});

test('input for a command that does not read it waits in the client: the server stops reading the WebSocket', async () => {
  await allEnded();
  const client = new WsClient(wsUrl(`/api/v1/containers/${container}/exec`), { headers: { Authorization: `Bearer ${s.admin}` } });
  await new Promise((resolve, reject) => { client.once('open', resolve); client.once('error', reject); });
  // raw mode: the terminal takes a few KB and then no more, as a program that never reads its input
  client.send(JSON.stringify({ cmd: ['sh', '-c', 'stty raw -echo; sleep 3600'] }));
  await new Promise((r) => setTimeout(r, 500));
  const piece = 'x'.repeat(512 * 1024);
  for (let i = 0; i < 64; i++) client.send(piece);
  await new Promise((r) => setTimeout(r, 2500));
  const waiting = client.bufferedAmount;
  client.terminate();
  // 32 MiB sent: all but what the terminal, the engine's pipe, two sockets' buffers and the 256 KiB limit hold
  assert.ok(waiting > 16 * 1024 * 1024, `only ${waiting} bytes still wait in the client: the server read the rest into memory`);
});

test('sessions per user and in all: one more is refused with 429 console-limit before the upgrade', async () => {
  await allEnded();
  const path = `/api/v1/containers/${container}/exec`;
  const one = await s.token('operator', ['containers:exec']);
  const mine = [];
  for (let i = 0; i < 3; i++) mine.push(await open(path, { Authorization: `Bearer ${one}` }));
  const refused = await upgradeStatus(path, { Authorization: `Bearer ${one}` });
  assert.equal(refused.status, 429, refused.body);
  assert.equal(JSON.parse(refused.body).type, 'https://dockwright.dev/problems/console-limit');
  assert.match(JSON.parse(refused.body).detail, /3 console sessions open/);
  const others = [];
  for (let i = 0; i < 3; i++) others.push(await open(path, { Authorization: `Bearer ${await s.token('operator', ['containers:exec'])}` }));
  const full = await upgradeStatus(path, { Authorization: `Bearer ${await s.token('operator', ['containers:exec'])}` });
  assert.equal(full.status, 429, full.body);
  assert.equal(JSON.parse(full.body).scope, 'installation');
  for (const c of [...mine, ...others]) c.ws.close();
  await Promise.all([...mine, ...others].map((c) => c.closed));
  await allEnded();
  // a closed session's place is given back once its processes are killed (TERM, then KILL a second later)
  const again = await until(() => open(path, { Authorization: `Bearer ${one}` }).catch(() => null), 10_000, 'a closed session to free its place');
  again.ws.close();
  await again.closed;
});

test('a session idle (nothing typed or printed) for the idle timeout is closed with 4408', async () => {
  await allEnded();
  const { closed } = await open(`/api/v1/containers/${container}/exec`, { Authorization: `Bearer ${s.admin}` });
  const started = Date.now();
  const end = await closed;
  assert.equal(end.code, 4408);
  assert.match(end.reason, /idle for 4 s/);
  assert.ok(Date.now() - started >= 3500 && Date.now() - started < 12_000, `closed after ${Date.now() - started} ms`);
  await until(async () => (await sessionsLogged()).find((a: any) => a.detail.endedBy === 'idle'), 15_000, 'the idle end in the activity log');
});

test('an open console ends (1008) within seconds when its token is revoked, its user disabled or its portal session signed out', async () => {
  await allEnded();
  const path = `/api/v1/containers/${container}/exec`;
  const keepTalking = (ws: WebSocket) => setInterval(() => ws.send('\n'), 1000);
  const within = async (closed: Promise<{ code: number }>, what: string) => {
    const started = Date.now();
    const end = await closed;
    assert.equal(end.code, 1008, what);
    assert.ok(Date.now() - started < 10_000, `${what}: closed after ${Date.now() - started} ms`);
  };

  const token = await s.token('operator', ['containers:exec']);
  const a = await open(path, { Authorization: `Bearer ${token}` });
  const talkA = keepTalking(a.ws);
  const id = (await s.app.tokens.list()).find((t) => token.startsWith(t.prefix))!.id;
  assert.equal(await s.app.tokens.revoke(id), true);
  await within(a.closed, 'a revoked token');
  clearInterval(talkA);

  const name = `dana-${process.pid}`;
  const b = await open(path, { Authorization: `Bearer ${await s.token('operator', ['containers:exec'], { name })}` });
  const talkB = keepTalking(b.ws);
  assert.equal((await s.api('PATCH', `/api/v1/users/${name}`, { body: { disabled: true } })).status, 200);
  await within(b.closed, 'a disabled user');
  clearInterval(talkB);

  const pat = `pat-${process.pid}`;
  await s.app.tokens.addUser(pat, 'operator');
  await s.app.sessions.setPassword(pat, 'correct horse battery');
  const signIn = await call(s.url, 'POST', '/api/v1/session', { body: { username: pat, password: 'correct horse battery' } });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
  const c = await open(`${path}?csrf=${encodeURIComponent(signIn.body.csrf)}`, { Cookie: cookie, Origin: s.url });
  const talkC = keepTalking(c.ws);
  const out = await fetch(`${s.url}/api/v1/session`, { method: 'DELETE', headers: { Cookie: cookie, 'X-Dockwright-CSRF': signIn.body.csrf } });
  assert.equal(out.status, 204);
  await within(c.closed, 'a signed-out session');
  clearInterval(talkC);
  await until(async () => (await sessionsLogged()).filter((e: any) => e.detail.endedBy === 'revoked').length >= 3, 15_000, 'the three ends in the activity log');
});

// last: it stops the server
test('a restart of the service closes open sessions with 1001 instead of waiting out the grace', async () => {
  const { ws, text, closed } = await open(`/api/v1/containers/${container}/exec`, { Authorization: `Bearer ${s.admin}` });
  ws.send('echo still-here\n');
  await until(async () => text().includes('still-here'), 10_000, 'the echo');
  const started = Date.now();
  await s.stop();
  assert.equal((await closed).code, 1001);
  assert.ok(Date.now() - started < 5000, `stopped in ${Date.now() - started} ms`);
});
