// Without an engine the service still boots and serves: clear 503 problems, a critical overview item, failed jobs with the reason; a hung engine hits the call timeout.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestServer } from '../../helpers/harness.ts';
import { run, startDockerServer } from './helpers.ts';

const missing = '/nonexistent/dockwright/docker.sock';
let down: TestServer;
let hung: TestServer;
let hungEngine: Server;
const sockets: Socket[] = [];
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-hung-'));
  // accepts connections and never answers: an engine that hangs
  hungEngine = createServer((socket) => { sockets.push(socket); socket.on('error', () => undefined); });
  await new Promise<void>((resolve) => hungEngine.listen(join(dir, 'docker.sock'), resolve));
  down = await startDockerServer({ docker: { socketPath: missing } });
  hung = await startDockerServer({ docker: { socketPath: join(dir, 'docker.sock'), timeoutMs: 1000 } });
});
after(async () => {
  await down?.close();
  await hung?.close();
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => hungEngine?.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function assertUnavailable(res: { status: number; headers: Headers; body: any }, detail: RegExp) {
  assert.equal(res.status, 503, JSON.stringify(res.body));
  assert.equal(res.headers.get('content-type'), 'application/problem+json');
  assert.match(res.body.detail, detail);
}

test('the service boots and serves without an engine', async () => {
  const me = await down.api('GET', '/api/v1/me');
  assert.equal(me.status, 200);
  assert.equal(me.body.user.role, 'admin');
});

test('container endpoints answer 503 naming the engine address and what to check', async () => {
  const detail = new RegExp(`^the Docker engine at unix://${missing} does not answer: is dockerd running`);
  const list = await down.api('GET', '/api/v1/containers');
  assertUnavailable(list, detail);
  assert.equal(list.body.type, 'https://dockwright.dev/problems/docker-unavailable');
  assertUnavailable(await down.api('POST', '/api/v1/containers/web/start'), detail);
  assertUnavailable(await down.api('GET', '/api/v1/containers/web/logs'), detail);
});

test('the overview has a critical attention item and an unreachable engine in its summary', async () => {
  const res = await down.api('GET', '/api/v1/overview');
  assert.equal(res.status, 200);
  const item = res.body.attention.find((a: any) => a.kind === 'docker-unreachable');
  assert.ok(item, JSON.stringify(res.body));
  assert.equal(item.severity, 'critical');
  assert.equal(item.source, 'docker');
  assert.match(item.message, /does not answer: is dockerd running/);
  assert.equal(res.body.attention[0].kind, 'docker-unreachable', 'critical items come first');
  assert.deepEqual(res.body.summary.docker.engine, { reachable: false, endpoint: `unix://${missing}`, eventsFollowed: false });
  const viewer = await down.token('viewer', ['jobs:read']);
  const hidden = await down.api('GET', '/api/v1/overview', { token: viewer });
  assert.ok(!hidden.body.attention.some((a: any) => a.kind === 'docker-unreachable'), 'only callers with containers:read see it');
});

test('a deploy fails as a job with the reason; engine() reports it', async () => {
  const job = await run(down, 'deploy', 'nodocker', { compose: 'services:\n  a:\n    image: dockwright-test/busybox:1\n' });
  assert.equal(job.status, 'failed');
  assert.match(job.error!, /^the Docker engine at unix:\/\/\/nonexistent\/dockwright\/docker\.sock does not answer/);
  const engine = await down.api('GET', '/api/v1/driver/engine');
  assert.equal(engine.body.ok, false);
  assert.match(engine.body.reason, /does not answer/);
});

test('a hung engine: calls end at the timeout with a 503, the overview says so', async () => {
  const started = Date.now();
  const list = await hung.api('GET', '/api/v1/containers');
  assertUnavailable(list, /^the Docker engine at unix:\/\/.+ did not answer GET \/containers\/json within 1 s/);
  assert.ok(Date.now() - started < 10_000);
  const overview = await hung.api('GET', '/api/v1/overview');
  const item = overview.body.attention.find((a: any) => a.kind === 'docker-unreachable');
  assert.match(item?.message ?? '', /did not answer GET \/version within 1 s/);
});
