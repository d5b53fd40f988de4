// Reconcile on start: containers a crash left half-created are removed, a recreate or a start-first replacement a crash interrupted is undone (or finished) as its last completed step says, and a redeploy converges.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, deployOk, docker, startDockerServer, uniqueName, until } from './helpers.ts';

const name = uniqueName('rec');
let s: TestServer | undefined;
/** the database's first server: it made the installation whose leftovers the second one reconciles */
let first: TestServer | undefined;
// labelled as the installation of this test's database: other test files' kernels that reconcile (start-first-crash) adopt unlabelled containers
let installation = '';

const labels = (service: string) => ({
  'dockwright.managed': 'true', 'dockwright.project': name, 'dockwright.service': service, 'dockwright.number': '1', 'dockwright.config-hash': 'stale',
  'dockwright.installation': installation,
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
/** when the stop a dead client asked for ends (its timeout) */
let stopInFlightUntil = 0;

/** asks the engine to stop a container with this timeout and hangs up at once, as a process killed mid-stop does */
async function stopAndDie(id: string, seconds: number): Promise<number> {
  const { request } = await import('node:http');
  const socketPath = (docker.modem as unknown as { socketPath: string }).socketPath;
  const req = request({ socketPath, method: 'POST', path: `/containers/${id}/stop?t=${seconds}` });
  req.on('error', () => undefined);
  req.end();
  const issued = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 300));
  req.destroy();
  return issued + seconds * 1000;
}

before(async () => {
  first = await startDockerServer();
  const client = new pg.Client({ connectionString: first.databaseUrl });
  await client.connect();
  installation = (await client.query<{ id: string }>('SELECT id FROM installation')).rows[0].id;
  await client.end();
  await first.stop();
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
  // start-first replacements a crash interrupted: the new container still getting ready beside the old one…
  ids.edge = (await make(`${name}-edge-1`, 'edge', 'running')).id;
  await make(`${name}-edge-1-dwnew-111111111111`, 'edge', 'running');
  // …between the two renames of the switch (the old one set aside, the new one not yet under the name)…
  ids.swap = (await make(`${name}-swap-1-dwold-222222222222`, 'swap', 'running')).id;
  await make(`${name}-swap-1-dwnew-333333333333`, 'swap', 'running');
  // …after the switch, while the old one drained…
  await make(`${name}-drain-1-dwold-444444444444`, 'drain', 'running');
  ids.drain = (await make(`${name}-drain-1`, 'drain', 'running')).id;
  // …and a new container whose old one is gone (removed by hand)
  ids.lone = (await make(`${name}-lone-1-dwnew-555555555555`, 'lone', 'running')).id;
  // the same, made by another installation on this engine: never this one's to clean up
  await make(`${name}-other-1`, 'other', 'created', elsewhere);
  await make(`${name}-other-2-dwold-ffffffffffff`, 'other', 'exited', elsewhere);
  // …and a stop-first recreate killed while the old container stopped: the engine finishes that stop after the process
  // died (its stop timeout, the container ignoring SIGTERM), so the start of the restart's reconcile comes while it still runs
  const slow = await docker.createContainer({
    name: `${name}-slow-1-dwold-666666666666`, Image: 'dockwright-test/busybox:1', Cmd: ['sh', '-c', 'trap "" TERM; while true; do sleep 1; done'],
    Labels: labels('slow'), StopTimeout: 12,
  });
  await slow.start();
  ids.slow = slow.id;
  stopInFlightUntil = await stopAndDie(slow.id, 12);
  // reconcile only touches what is older than the process: let the clock pass a second boundary
  const made = Math.floor(Date.now() / 1000);
  await until(async () => Math.floor(Date.now() / 1000) > made, 3000, 'the next second');
  s = await startDockerServer({ docker: { reconcile: true }, reuse: { databaseUrl: first.databaseUrl, dataDir: first.dataDir } });
});
after(async () => {
  await s?.close();
  await first?.close();
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

test('a start-first replacement a crash interrupted: the container under the service\'s name serves, the other one goes', async () => {
  const only = async (service: string) => (await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${name}`, `dockwright.service=${service}`] } }))
    .map((c) => `${c.Names[0]} ${c.State} ${c.Id}`);
  await until(async () => (await only('edge')).length === 1, 30_000, 'the new container that never got ready to be removed');
  assert.deepEqual(await only('edge'), [`/${name}-edge-1 running ${ids.edge}`], 'the old container keeps serving');
  await until(async () => (await only('swap')).length === 1, 30_000, 'the switch to be undone');
  assert.deepEqual(await only('swap'), [`/${name}-swap-1 running ${ids.swap}`], 'the old container takes its name back');
  await until(async () => (await only('drain')).length === 1, 30_000, 'the drained container to be removed');
  assert.deepEqual(await only('drain'), [`/${name}-drain-1 running ${ids.drain}`], 'the new one, which had taken over, stays');
  await until(async () => exists(`${name}-lone-1`), 30_000, 'the lone new container to take the name');
  assert.deepEqual(await only('lone'), [`/${name}-lone-1 running ${ids.lone}`]);
});

test('a recreate a crash interrupted is undone: the container set aside is the service\'s again, in the state the last deploy left it', async () => {
  await until(async () => (await exists(`${name}-cache-1`)) && (await idOf(`${name}-cache-1`)) === ids.cache && running(`${name}-cache-1`), 30_000, 'the old cache container to be back and running');
  assert.equal(await exists(`${name}-cache-1-dwold-cccccccccccc`), false);
  await until(async () => (await exists(`${name}-queue-1`)) && (await idOf(`${name}-queue-1`)) === ids.queue, 30_000, 'the queue container to get its name back');
  assert.equal(await running(`${name}-queue-1`), true);
  await until(async () => (await exists(`${name}-job-1`)) && (await idOf(`${name}-job-1`)) === ids.job, 30_000, 'the one-shot to get its name back');
  assert.equal(await running(`${name}-job-1`), false, 'what had completed before the recreate is not started again');
  const left = await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${name}`] } });
  assert.deepEqual(left.filter((c) => c.Labels['dockwright.installation'] === installation).map((c) => c.Names[0]).filter((n) => n.includes('-dwold-')), [], 'nothing stays set aside');
  assert.equal(await exists(`${name}-other-1`), true, 'another installation\'s half-created container is left alone');
  assert.equal(await exists(`${name}-other-2-dwold-ffffffffffff`), true, 'another installation\'s set-aside container is left alone');
});

test('a stop-first recreate killed while its old container stopped: the container put back runs once that stop has ended', async () => {
  await until(async () => (await exists(`${name}-slow-1`)) && (await idOf(`${name}-slow-1`)) === ids.slow, 30_000, 'the slow container to get its name back');
  await until(async () => Date.now() > stopInFlightUntil + 1000, 30_000, 'the stop the killed process asked for to end');
  await until(() => running(`${name}-slow-1`), 10_000, 'the container put back to run again after that stop');
  const state = (await docker.getContainer(ids.slow).inspect()).State;
  assert.ok(Date.parse(state.StartedAt) > stopInFlightUntil - 12_000, 'it was started again after the stop (the stop did happen)');
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
  edge: { image: dockwright-test/busybox:1, command: sleep 3600 }
  swap: { image: dockwright-test/busybox:1, command: sleep 3600 }
  drain: { image: dockwright-test/busybox:1, command: sleep 3600 }
  lone: { image: dockwright-test/busybox:1, command: sleep 3600 }
`);
  assert.deepEqual(job.result.services, [
    { service: 'web', action: 'created' }, { service: 'api', action: 'recreated' }, { service: 'db', action: 'recreated' },
    { service: 'cache', action: 'recreated' }, { service: 'queue', action: 'recreated' }, { service: 'job', action: 'recreated' },
    { service: 'edge', action: 'recreated' }, { service: 'swap', action: 'recreated' }, { service: 'drain', action: 'recreated' }, { service: 'lone', action: 'recreated' },
  ]);
  const list = (await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${name}`] } })).filter((c) => c.Labels['dockwright.installation'] !== 'another-installation');
  assert.deepEqual(list.map((c) => `${c.Names[0]} ${c.State}`).sort(), ['api', 'cache', 'db', 'drain', 'edge', 'job', 'lone', 'queue', 'swap', 'web'].map((x) => `/${name}-${x}-1 running`));
});
