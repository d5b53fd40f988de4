// Reconcile on start: containers a crash left half-created are removed, containers set aside by an interrupted recreate are adopted or removed, and a redeploy converges.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, deployOk, docker, startDockerServer, uniqueName, until } from './helpers.ts';

const name = uniqueName('rec');
let s: TestServer | undefined;

const labels = (service: string) => ({
  'dockwright.managed': 'true', 'dockwright.project': name, 'dockwright.service': service, 'dockwright.number': '1', 'dockwright.config-hash': 'stale',
});
async function make(containerName: string, service: string | null, state: 'created' | 'running' | 'exited') {
  const c = await docker.createContainer({ name: containerName, Image: 'dockwright-test/busybox:1', Cmd: ['sleep', '3600'], Labels: service ? labels(service) : {}, StopTimeout: 1 });
  if (state !== 'created') await c.start();
  if (state === 'exited') await c.stop({ t: 0 });
  return c;
}
const running = async (n: string) => (await docker.getContainer(n).inspect()).State.Running;
const exists = (n: string) => docker.getContainer(n).inspect().then(() => true, () => false);

before(async () => {
  // what a crash in the middle of deploys leaves behind
  await make(`${name}-web-1`, 'web', 'created');
  await make(`${name}-api-1`, 'api', 'running');
  await make(`${name}-api-1-dwold-aaaaaaaaaaaa`, 'api', 'exited');
  await make(`${name}-db-1-dwold-bbbbbbbbbbbb`, 'db', 'exited');
  await make(`${name}-foreign`, null, 'created');
  // reconcile only touches what is older than the process: let the clock pass a second boundary
  const made = Math.floor(Date.now() / 1000);
  await until(async () => Math.floor(Date.now() / 1000) > made, 3000, 'the next second');
  s = await startDockerServer({ docker: { reconcile: true } });
});
after(async () => {
  await s?.close();
  await cleanupProjects(name);
});

test('a container created but never started is removed; one set aside is removed when its successor exists, adopted when not', async () => {
  await until(async () => !(await exists(`${name}-web-1`)), 30_000, 'the half-created container to be removed');
  await until(async () => !(await exists(`${name}-api-1-dwold-aaaaaaaaaaaa`)), 30_000, 'the replaced container to be removed');
  await until(async () => (await exists(`${name}-db-1`)) && running(`${name}-db-1`), 30_000, 'the set-aside db container to be adopted and started');
  assert.equal(await exists(`${name}-db-1-dwold-bbbbbbbbbbbb`), false);
  assert.equal(await running(`${name}-api-1`), true, 'a healthy container is left alone');
  assert.equal(await exists(`${name}-foreign`), true, 'containers without the ownership label are never touched');
});

test('a redeploy converges on what the file says', async () => {
  const job = await deployOk(s!, name, `
services:
  web: { image: dockwright-test/busybox:1, command: sleep 3600 }
  api: { image: dockwright-test/busybox:1, command: sleep 3600 }
  db: { image: dockwright-test/busybox:1, command: sleep 3600 }
`);
  assert.deepEqual(job.result.services, [
    { service: 'web', action: 'created' }, { service: 'api', action: 'recreated' }, { service: 'db', action: 'recreated' },
  ]);
  const list = await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${name}`] } });
  assert.deepEqual(list.map((c) => `${c.Names[0]} ${c.State}`).sort(), [`/${name}-api-1 running`, `/${name}-db-1 running`, `/${name}-web-1 running`]);
});
