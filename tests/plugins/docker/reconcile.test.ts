// Reconcile on start: containers a crash left half-created are removed, a recreate a crash interrupted is undone (or finished) as its last completed step says, and a redeploy converges.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, deployOk, docker, startDockerServer, uniqueName, until } from './helpers.ts';

const name = uniqueName('rec');
let s: TestServer | undefined;

const labels = (service: string) => ({
  'dockwright.managed': 'true', 'dockwright.project': name, 'dockwright.service': service, 'dockwright.number': '1', 'dockwright.config-hash': 'stale',
});
const elsewhere = { 'dockwright.installation': 'another-installation' };
async function make(containerName: string, service: string | null, state: 'created' | 'running' | 'exited', extra: Record<string, string> = {}) {
  const c = await docker.createContainer({ name: containerName, Image: 'dockwright-test/busybox:1', Cmd: ['sleep', '3600'], Labels: service ? { ...labels(service), ...extra } : {}, StopTimeout: 1 });
  if (state !== 'created') await c.start();
  if (state === 'exited') await c.stop({ t: 0 });
  return c;
}
const running = async (n: string) => (await docker.getContainer(n).inspect()).State.Running;
const exists = (n: string) => docker.getContainer(n).inspect().then(() => true, () => false);
const idOf = async (n: string) => (await docker.getContainer(n).inspect()).Id;
const ids: Record<string, string> = {};

before(async () => {
  // what a crash in the middle of deploys leaves behind
  await make(`${name}-web-1`, 'web', 'created');
  await make(`${name}-api-1`, 'api', 'running');
  await make(`${name}-api-1-dwold-aaaaaaaaaaaa`, 'api', 'exited');
  await make(`${name}-db-1-dwold-bbbbbbbbbbbb`, 'db', 'exited');
  await make(`${name}-foreign`, null, 'created');
  // recreates a crash interrupted: the successor created but never started (the old one ran before)…
  ids.cache = (await make(`${name}-cache-1-dwold-cccccccccccc`, 'cache', 'exited')).id;
  await make(`${name}-cache-1`, 'cache', 'created');
  // …the old one set aside but still running (the crash came before it was stopped)…
  ids.queue = (await make(`${name}-queue-1-dwold-dddddddddddd`, 'queue', 'running')).id;
  // …and one that had completed before (a one-shot): it is put back, but not started
  ids.job = (await make(`${name}-job-1-dwold-eeeeeeeeeeee-stopped`, 'job', 'exited')).id;
  // the same, made by another installation on this engine: never this one's to clean up
  await make(`${name}-other-1`, 'other', 'created', elsewhere);
  await make(`${name}-other-2-dwold-ffffffffffff`, 'other', 'exited', elsewhere);
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

test('a recreate a crash interrupted is undone: the container set aside is the service\'s again, in the state the last deploy left it', async () => {
  await until(async () => (await exists(`${name}-cache-1`)) && (await idOf(`${name}-cache-1`)) === ids.cache && running(`${name}-cache-1`), 30_000, 'the old cache container to be back and running');
  assert.equal(await exists(`${name}-cache-1-dwold-cccccccccccc`), false);
  await until(async () => (await exists(`${name}-queue-1`)) && (await idOf(`${name}-queue-1`)) === ids.queue, 30_000, 'the queue container to get its name back');
  assert.equal(await running(`${name}-queue-1`), true);
  await until(async () => (await exists(`${name}-job-1`)) && (await idOf(`${name}-job-1`)) === ids.job, 30_000, 'the one-shot to get its name back');
  assert.equal(await running(`${name}-job-1`), false, 'what had completed before the recreate is not started again');
  const left = await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${name}`] } });
  assert.deepEqual(left.filter((c) => !c.Labels['dockwright.installation']).map((c) => c.Names[0]).filter((n) => n.includes('-dwold-')), [], 'nothing stays set aside');
  assert.equal(await exists(`${name}-other-1`), true, 'another installation\'s half-created container is left alone');
  assert.equal(await exists(`${name}-other-2-dwold-ffffffffffff`), true, 'another installation\'s set-aside container is left alone');
});

test('a redeploy converges on what the file says', async () => {
  const job = await deployOk(s!, name, `
services:
  web: { image: dockwright-test/busybox:1, command: sleep 3600 }
  api: { image: dockwright-test/busybox:1, command: sleep 3600 }
  db: { image: dockwright-test/busybox:1, command: sleep 3600 }
  cache: { image: dockwright-test/busybox:1, command: sleep 3600 }
  queue: { image: dockwright-test/busybox:1, command: sleep 3600 }
  job: { image: dockwright-test/busybox:1, command: sleep 3600 }
`);
  assert.deepEqual(job.result.services, [
    { service: 'web', action: 'created' }, { service: 'api', action: 'recreated' }, { service: 'db', action: 'recreated' },
    { service: 'cache', action: 'recreated' }, { service: 'queue', action: 'recreated' }, { service: 'job', action: 'recreated' },
  ]);
  const list = (await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${name}`] } })).filter((c) => c.Labels['dockwright.installation'] !== 'another-installation');
  assert.deepEqual(list.map((c) => `${c.Names[0]} ${c.State}`).sort(), ['api', 'cache', 'db', 'job', 'queue', 'web'].map((x) => `/${name}-${x}-1 running`));
});
