// deploy.mode global and network_mode service:<name> on the swarm runtime: a global service runs as one (a task per node); network_mode is refused with its reason.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { startSwarmServer } from '../swarm/helpers.ts';
import { docker, uniqueName } from './helpers.ts';
import { act, createStack } from '../stacks/helpers.ts';

let s: TestServer;
const name = uniqueName('swg');

before(async () => {
  s = await startSwarmServer();
});
after(async () => {
  for (const svc of await docker.listServices({ filters: { label: [`dockwright.project=${name}`] } }).catch(() => [])) await docker.getService(svc.ID).remove().catch(() => undefined);
  for (const n of await docker.listNetworks({ filters: { label: [`dockwright.project=${name}`] } }).catch(() => [])) await docker.getNetwork(n.Id).remove().catch(() => undefined);
  await s?.close();
});

test('deploy.mode global runs as a global swarm service', async () => {
  await createStack(s, name, 'x-dockwright: { runtime: swarm }\nservices:\n  agent:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n    stop_grace_period: 1s\n    deploy: { mode: global }\n');
  await act(s, 'deploy', name);
  const [svc] = await docker.listServices({ filters: { label: [`dockwright.project=${name}`] } }) as any[];
  assert.ok(svc, 'the service exists');
  assert.deepEqual(svc.Spec.Mode, { Global: {} });
});

test('network_mode service:<name> is refused on the swarm runtime, saying why', async () => {
  const res = await s.api('POST', `/api/v1/stacks/${uniqueName('swn')}/validate`, {
    body: { content: 'x-dockwright: { runtime: swarm }\nservices:\n  web:\n    image: dockwright-test/busybox:1\n  side:\n    image: dockwright-test/busybox:1\n    network_mode: service:web\n' },
  });
  assert.equal(res.status, 200, res.text);
  const errors = res.body.errors as { rule: string; path: string; message: string }[];
  assert.deepEqual(errors.map((e) => e.path), ['services.side.network_mode'], JSON.stringify(errors));
  assert.match(errors[0].message, /not available to swarm services/);
  assert.notEqual(errors[0].rule, 'compose-valid');
});
