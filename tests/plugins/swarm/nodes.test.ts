// GET /nodes on the single-node test swarm: the manager, its resources and the tasks a service puts on it; admin only; the overview counts nodes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { docker, uniqueName, until } from '../docker/helpers.ts';

let s: TestServer;
const service = `dwswarm-${uniqueName()}`;
before(async () => {
  s = await startServer({ plugins: { docker: { options: { reconcile: false } }, stacks: {}, swarm: { enabled: true } } });
});
after(async () => {
  await docker.getService(service).remove().catch(() => undefined);
  await s?.close();
});

test('the admin lists the nodes: one ready, active manager (the leader) with its resources and the tasks running on it', async () => {
  await docker.createService({
    Name: service, Labels: { 'dockwright.test': service },
    TaskTemplate: { ContainerSpec: { Image: 'dockwright-test/busybox:1', Command: ['sleep', '600'], StopGracePeriod: 1e9 } },
    Mode: { Replicated: { Replicas: 2 } },
  });
  const [info] = [await docker.info()];
  // this engine's node (node-down.test.ts may have a drained worker of its own joined meanwhile)
  const self = (r: { body: { id: string }[] }) => r.body.find((n) => n.id === info.Swarm.NodeID) as any;
  const answer = await until(async () => {
    const r = await s.api('GET', '/api/v1/nodes');
    return r.status === 200 && self(r)?.tasks.running >= 2 ? r : null;
  }, 60_000, 'the two tasks to run');
  const node = self(answer);
  assert.equal(node.role, 'manager');
  assert.equal(node.leader, true);
  assert.equal(node.availability, 'active');
  assert.equal(node.state, 'ready');
  assert.ok(node.resources.cpus >= 1 && node.resources.memoryBytes > 0);
  assert.ok(node.tasks.total >= 2);

  const overview = await s.api('GET', '/api/v1/overview');
  assert.equal(overview.status, 200);
  assert.ok(JSON.stringify(overview.body).includes('"managers":1'), overview.text);
});

test('nodes are for admins: an operator token gets 403, no token 401, a bad cursor or limit 400', async () => {
  const operator = await s.token('operator', ['jobs:read']);
  assert.equal((await s.api('GET', '/api/v1/nodes', { token: operator })).status, 403);
  assert.equal((await s.api('GET', '/api/v1/nodes', { token: '' })).status, 401);
  assert.equal((await s.api('GET', '/api/v1/nodes?limit=0')).status, 400);
  const paged = await s.api('GET', '/api/v1/nodes?limit=1');
  assert.equal(paged.status, 200);
  assert.equal(paged.body.length, 1);
});
