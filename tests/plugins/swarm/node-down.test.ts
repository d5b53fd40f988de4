// A worker node that goes down: a second dockerd in its own network namespace joins the test swarm (drained, so no other test's tasks land on it), GET /nodes lists it, and once it stops it shows down there and as an attention item; it is removed from the swarm afterwards.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { promisify } from 'node:util';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { docker, until } from '../docker/helpers.ts';
import { startSecondEngine, type SecondEngine } from '../docker/second-engine.ts';

const run = promisify(execFile);
let s: TestServer;
let engine: SecondEngine | undefined;
let workerId: string | undefined;
/** a /30 of its own between the host and the engine's namespace: the manager listens on docker0's address, which the host answers on any interface */
const subnet = `10.223.${randomInt(0, 256)}`;
const hostSide = `dwh${randomInt(0, 0xffff).toString(16)}`;
const nsSide = `dwn${randomInt(0, 0xffff).toString(16)}`;
const workerAddr = `${subnet}.2`;

before(async () => {
  s = await startServer({ plugins: { docker: { options: { reconcile: false } }, stacks: {}, swarm: { enabled: true } } });
});
after(async () => {
  await engine?.stop().catch(() => undefined);
  // the shared swarm is left single-node, whatever happened
  if (workerId) await docker.getNode(workerId).remove({ force: true }).catch(() => undefined);
  await run('ip', ['link', 'delete', hostSide]).catch(() => undefined);
  await s?.close();
});

test('a worker joins: GET /nodes lists two nodes; when its engine stops it is down there and an attention item of the overview', async () => {
  engine = await startSecondEngine([]);
  const pid = String(engine.pid());
  await run('ip', ['link', 'add', hostSide, 'type', 'veth', 'peer', 'name', nsSide]);
  await run('ip', ['link', 'set', nsSide, 'netns', pid]);
  await run('ip', ['addr', 'add', `${subnet}.1/30`, 'dev', hostSide]);
  await run('ip', ['link', 'set', hostSide, 'up']);
  for (const args of [['addr', 'add', `${workerAddr}/30`, 'dev', nsSide], ['link', 'set', nsSide, 'up'], ['link', 'set', 'lo', 'up'], ['route', 'add', 'default', 'via', `${subnet}.1`]]) {
    await run('nsenter', ['-t', pid, '-n', 'ip', ...args]);
  }
  const info = await docker.info();
  const manager = (info.Swarm.RemoteManagers as { Addr: string }[])[0].Addr;
  const swarm = await docker.swarmInspect();
  await engine.docker.swarmJoin({ ListenAddr: `${workerAddr}:2377`, AdvertiseAddr: workerAddr, RemoteAddrs: [manager], JoinToken: swarm.JoinTokens.Worker, Availability: 'drain' });
  workerId = (await engine.docker.info()).Swarm.NodeID as string;
  assert.ok(workerId);

  const listed = await until(async () => {
    const r = await s.api('GET', '/api/v1/nodes');
    // by id: a worker left down by an interrupted earlier run may be listed too
    return r.status === 200 && r.body.find((n: any) => n.id === workerId)?.state === 'ready' ? r.body : null;
  }, 30_000, 'the worker to be listed ready');
  const worker = listed.find((n: any) => n.id === workerId);
  assert.equal(worker.role, 'worker');
  assert.equal(worker.leader, false);
  assert.equal(worker.availability, 'drain');
  assert.equal(worker.address, workerAddr);
  assert.ok(listed.some((n: any) => n.id !== workerId && n.role === 'manager' && n.leader), JSON.stringify(listed));
  const calm = await s.api('GET', '/api/v1/overview');
  assert.ok(!calm.body.attention.some((a: any) => a.kind === 'swarm-node-down'), calm.text);

  await engine.down();
  const down = await until(async () => {
    const r = await s.api('GET', '/api/v1/nodes');
    return r.body.find((n: any) => n.id === workerId)?.state === 'down' ? r.body : null;
  }, 90_000, 'the manager to see the worker down');
  assert.equal(down.find((n: any) => n.leader).state, 'ready', 'the manager itself is fine');
  const overview = await s.api('GET', '/api/v1/overview');
  assert.equal(overview.status, 200);
  const item = overview.body.attention.find((a: any) => a.kind === 'swarm-node-down' && a.resource === `node:${workerId}`);
  assert.ok(item, overview.text);
  assert.equal(item.severity, 'warning', 'a worker down is a warning (a manager down is critical)');
  assert.equal(item.resource, `node:${workerId}`);
  assert.match(item.message, new RegExp(`swarm worker .*${workerId}.* is down`));
  assert.ok(JSON.stringify(overview.body).includes('"down":1'), overview.text);
  const viewer = await s.token('viewer', ['stacks:read']);
  const hidden = await s.api('GET', '/api/v1/overview', { token: viewer });
  assert.ok(!hidden.body.attention.some((a: any) => a.kind === 'swarm-node-down'), 'only callers with nodes:read see it');

  // removed from the swarm: the item goes with it
  const removed = workerId;
  await docker.getNode(workerId).remove({ force: true });
  workerId = undefined;
  const clear = await s.api('GET', '/api/v1/overview');
  assert.ok(!clear.body.attention.some((a: any) => a.resource === `node:${removed}`), clear.text);
  assert.ok(!(await s.api('GET', '/api/v1/nodes')).body.some((n: any) => n.id === removed), 'no longer listed');
});
