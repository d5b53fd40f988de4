// The containers API against a real engine: list and filters, start/stop/restart by id, short id or name (idempotent, in the activity log), logs, scopes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, type TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, deployOk, docker, freePort, logsOf, startDockerServer, uniqueName, until } from '../docker/helpers.ts';

const name = uniqueName('ctr');
const loose = `${name}-loose`;
let s: TestServer;
let port: number;

before(async () => {
  s = await startDockerServer();
  port = await freePort();
  await deployOk(s, name, `
services:
  web:
    image: dockwright-test/web:1
    ports: ["127.0.0.1:${port}:8080"]
  talker:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "echo out-line; echo err-line >&2; i=0; while true; do i=$$((i+1)); echo tick $$i; sleep 0.2; done"]
  done:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "echo finished"]
`);
  // a container Dockwright does not own
  await (await docker.createContainer({ name: loose, Image: 'dockwright-test/busybox:1', Cmd: ['sleep', '3600'], StopTimeout: 1 })).start();
  // read through the API: its answers follow the engine's events, a moment after the engine itself
  await until(async () => (await s.api('GET', `/api/v1/containers?stack=${name}&status=exited`)).body.length === 1, 30_000, 'the one-shot to exit');
});
after(async () => {
  await s?.close();
  await cleanupProjects(name);
});

test('GET /containers lists every container with its stack and service; filters by stack and status; pages by name', async () => {
  const all = await s.api('GET', '/api/v1/containers?limit=1000');
  assert.equal(all.status, 200);
  const web = all.body.find((c: any) => c.name === `${name}-web-1`);
  assert.ok(web, JSON.stringify(all.body.map((c: any) => c.name)));
  assert.equal(web.project, name);
  assert.equal(web.service, 'web');
  assert.equal(web.image, 'dockwright-test/web:1');
  assert.equal(web.state, 'running');
  assert.match(web.id, /^[0-9a-f]{64}$/);
  assert.ok(!Number.isNaN(Date.parse(web.createdAt)));
  assert.deepEqual(web.ports, [{ hostIp: '127.0.0.1', hostPort: port, containerPort: 8080, protocol: 'tcp' }]);
  assert.ok(!('SizeRw' in web) && !('sizeRw' in web));
  const other = all.body.find((c: any) => c.name === loose);
  assert.equal(other.project, null);
  assert.equal(other.service, null);

  const mine = await s.api('GET', `/api/v1/containers?stack=${name}`);
  assert.deepEqual(mine.body.map((c: any) => c.name), [`${name}-done-1`, `${name}-talker-1`, `${name}-web-1`]);
  const exited = await s.api('GET', `/api/v1/containers?stack=${name}&status=exited`);
  assert.deepEqual(exited.body.map((c: any) => c.name), [`${name}-done-1`]);
  await until(async () => (await s.api('GET', `/api/v1/containers?stack=${name}`)).body.find((c: any) => c.service === 'web').health === 'healthy', 30_000, 'web to report healthy');

  const first = await s.api('GET', `/api/v1/containers?stack=${name}&limit=2`);
  assert.equal(first.body.length, 2);
  const link = first.headers.get('link') ?? '';
  const next = /<([^>]+)>; rel="next"/.exec(link)?.[1];
  assert.ok(next, link);
  const second = await call(s.url, 'GET', next!, { token: s.admin });
  assert.deepEqual(second.body.map((c: any) => c.name), [`${name}-web-1`]);
  assert.equal((await s.api('GET', '/api/v1/containers?status=sleeping')).status, 400);
});

test('stop, start and restart by name, short id and full id; repeating a start or stop is a 200 that changes nothing', async () => {
  const full = (await docker.getContainer(`${name}-talker-1`).inspect()).Id;
  const stop = await s.api('POST', `/api/v1/containers/${name}-talker-1/stop?timeout=1`);
  assert.equal(stop.status, 200, stop.text);
  assert.equal(stop.body.state, 'exited');
  assert.equal(stop.body.changed, true);
  assert.equal(stop.body.id, full);
  const again = await s.api('POST', `/api/v1/containers/${full.slice(0, 12)}/stop`);
  assert.equal(again.status, 200);
  assert.deepEqual([again.body.state, again.body.changed], ['exited', false]);

  const start = await s.api('POST', `/api/v1/containers/${full.slice(0, 12)}/start`);
  assert.deepEqual([start.status, start.body.state, start.body.changed], [200, 'running', true]);
  const startAgain = await s.api('POST', `/api/v1/containers/${full}/start`);
  assert.deepEqual([startAgain.status, startAgain.body.state, startAgain.body.changed], [200, 'running', false]);

  const before = (await docker.getContainer(full).inspect()).State.StartedAt;
  const restart = await s.api('POST', `/api/v1/containers/${name}-talker-1/restart?timeout=1`);
  assert.deepEqual([restart.status, restart.body.state, restart.body.changed], [200, 'running', true]);
  assert.notEqual((await docker.getContainer(full).inspect()).State.StartedAt, before);

  const activity = await s.api('GET', '/api/v1/activity?action=containers.*');
  const actions = activity.body.map((a: any) => `${a.action} ${a.resource} ${a.result}`);
  for (const expected of [`containers.stop container:${name}-talker-1 ok`, `containers.start container:${full.slice(0, 12)} ok`, `containers.restart container:${name}-talker-1 ok`]) {
    assert.ok(actions.includes(expected), `${expected} in ${actions.join('\n')}`);
  }
});

test('unknown containers are 404 problems; malformed ids are 400', async () => {
  for (const [method, path] of [['POST', '/start'], ['POST', '/stop'], ['POST', '/restart'], ['GET', '/logs']]) {
    const res = await s.api(method, `/api/v1/containers/${name}-nothing-1${path}`);
    assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.match(res.body.detail, new RegExp(`there is no container "${name}-nothing-1"`));
  }
  assert.equal((await s.api('POST', '/api/v1/containers/bad$name/start')).status, 400);
});

test('logs: stdout and stderr demultiplexed into plain text, tail, stream selection, timestamps, since', async () => {
  const container = `${name}-talker-1`;
  const text = await until(async () => { const t = await logsOf(s, container); return /tick 3\n/.test(t) && t; }, 30_000, 'a few ticks');
  const res = await s.api('GET', `/api/v1/containers/${container}/logs`);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  // stdout and stderr are logged apart, so their relative order is not fixed
  for (const line of ['out-line', 'err-line', 'tick 1']) assert.ok(text.startsWith(`${line}\n`) || text.includes(`\n${line}\n`), `${line} in:\n${text}`);
  assert.ok(text.trimEnd().split('\n').every((l) => /^(out-line|err-line|tick \d+)$/.test(l)), `whole lines only, no frame headers:\n${text}`);
  assert.ok(!/[\x00-\x08]/.test(text), 'no multiplexing bytes left in the text');

  // the earlier restart printed its first lines again: wait for ticks to be the newest lines
  const tail = await until(async () => { const t = await logsOf(s, container, 'tail=2'); return /^tick \d+\ntick \d+\n$/.test(t) && t; }, 30_000, 'two ticks at the end');
  assert.equal(tail.trimEnd().split('\n').length, 2);
  const stderr = await logsOf(s, container, 'stream=stderr');
  assert.equal(stderr.trim().split('\n').every((l) => l === 'err-line'), true, stderr);
  const stdout = await logsOf(s, container, 'stream=stdout&tail=all');
  assert.ok(stdout.includes('out-line') && !stdout.includes('err-line'));
  const stamped = await logsOf(s, container, 'timestamps=1&tail=1');
  assert.match(stamped, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z tick \d+\n$/);
  const future = await logsOf(s, container, `since=${Math.floor(Date.now() / 1000) + 3600}`);
  assert.equal(future, '');
  const iso = await logsOf(s, container, `since=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}&stream=stderr`);
  assert.match(iso, /err-line/);
  const bad = await s.api('GET', `/api/v1/containers/${container}/logs?since=yesterday`);
  assert.equal(bad.status, 400);
  assert.equal((await s.api('GET', `/api/v1/containers/${container}/logs?tail=-1`)).status, 400);
});

test('logs with follow=1 stream new lines until the client disconnects', async () => {
  const controller = new AbortController();
  const res = await fetch(`${s.url}/api/v1/containers/${name}-talker-1/logs?follow=1&tail=1`, { headers: { authorization: `Bearer ${s.admin}` }, signal: controller.signal });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  const ticks = () => [...seen.matchAll(/tick (\d+)/g)].map((m) => Number(m[1]));
  // more lines than the tail, so they were written after the request
  while (ticks().length < 4) {
    const { value, done } = await reader.read();
    assert.equal(done, false, 'the stream stays open');
    seen += decoder.decode(value, { stream: true });
  }
  const got = ticks();
  assert.deepEqual(got, got.map((_, i) => got[0] + i), 'consecutive lines, in order');
  controller.abort();
  await reader.cancel().catch(() => undefined);
  const after = await s.api('GET', `/api/v1/containers?stack=${name}`);
  assert.equal(after.status, 200, 'the server carries on after the client left');
});

test('scopes: containers:read lists, containers:write acts, containers:logs reads logs', async () => {
  const viewer = await s.token('viewer', ['containers:read', 'containers:write', 'containers:logs']);
  assert.equal((await call(s.url, 'GET', `/api/v1/containers?stack=${name}`, { token: viewer })).status, 200);
  const refused = await call(s.url, 'POST', `/api/v1/containers/${name}-web-1/stop`, { token: viewer });
  assert.equal(refused.status, 403);
  assert.match(refused.body.detail, /containers:write/);
  assert.equal((await call(s.url, 'GET', `/api/v1/containers/${name}-web-1/logs`, { token: viewer })).status, 403);
  const operator = await s.token('operator', ['containers:read']);
  assert.equal((await call(s.url, 'GET', `/api/v1/containers/${name}-web-1/logs`, { token: operator })).status, 403);
  const logs = await s.token('operator', ['containers:logs']);
  const logsRes = await call(s.url, 'GET', `/api/v1/containers/${name}-web-1/logs`, { token: logs }); assert.equal(logsRes.status, 200, logsRes.text);
  assert.equal((await call(s.url, 'GET', '/api/v1/containers', { token: logs })).status, 403);

  const doc = (await call(s.url, 'GET', '/api/v1/openapi.json')).body;
  assert.deepEqual(doc.paths['/api/v1/containers'].get['x-required-scopes'], ['containers:read']);
  assert.deepEqual(doc.paths['/api/v1/containers/{id}/restart'].post['x-required-scopes'], ['containers:write']);
  assert.deepEqual(doc.paths['/api/v1/containers/{id}/logs'].get['x-required-scopes'], ['containers:logs']);
});

test('containers made outside Dockwright are listed to admins only, as only admins act on them', async () => {
  const names = async (token: string) => {
    const res = await call(s.url, 'GET', '/api/v1/containers?limit=1000', { token });
    assert.equal(res.status, 200, res.text);
    return res.body.map((c: any) => c.name) as string[];
  };
  assert.ok((await names(s.admin)).includes(loose), 'an admin sees it');
  for (const role of ['viewer', 'operator'] as const) {
    const token = await s.token(role, ['containers:read', 'containers:write']);
    const seen = await names(token);
    assert.ok(seen.includes(`${name}-web-1`), `a ${role} sees the stack's containers`);
    assert.ok(!seen.includes(loose), `a ${role} does not see a container Dockwright did not make`);
    assert.ok(!(await call(s.url, 'GET', '/api/v1/containers?status=running&limit=1000', { token })).body.some((c: any) => c.project === null), `nor any other (${role}, filtered)`);
  }
});

test('the overview counts containers and shows the engine version', async () => {
  const res = await s.api('GET', '/api/v1/overview');
  const summary = res.body.summary.docker;
  assert.equal(summary.engine.reachable, true);
  assert.match(summary.engine.version, /^\d+\.\d+/);
  assert.ok(summary.containers.running >= 3 && summary.containers.stopped >= 1, JSON.stringify(summary));
  assert.ok(!res.body.attention.some((a: any) => a.kind === 'docker-unreachable'));
});
