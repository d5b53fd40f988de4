// Two installations (two databases) on one engine: what each creates carries its installation id, and neither lists, acts on, stops or reuses what the other made; containers from before the labels are adopted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, deployOk, docker, run, startDockerServer, uniqueName, until } from './helpers.ts';

const p = uniqueName('ins');
const legacy = uniqueName('leg');
const q = uniqueName('inq');
let a: TestServer;
let firstA: TestServer;
let b: TestServer;

const composeOf = 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n    volumes: ["data:/data"]\nvolumes:\n  data: {}\n';
const installationOf = (s: TestServer) => s.app.services.installationId;
const running = async (name: string) => (await docker.getContainer(name).inspect()).State.Running;

before(async () => {
  [a, b] = await Promise.all([startDockerServer(), startDockerServer()]);
  firstA = a;
  await deployOk(a, p, composeOf);
});
after(async () => {
  await a?.close();
  await firstA?.close();
  await b?.close();
  await cleanupProjects(p, legacy, q);
});

test('what a deploy creates carries the installation id: one per database, kept across restarts', async () => {
  const id = installationOf(a);
  assert.match(id, /^[0-9a-f-]{36}$/);
  assert.notEqual(installationOf(b), id, 'another database is another installation');
  const db = new pg.Client({ connectionString: a.databaseUrl });
  await db.connect();
  try {
    assert.deepEqual((await db.query('SELECT id FROM installation')).rows, [{ id }]);
  } finally {
    await db.end();
  }
  const container = await docker.getContainer(`${p}-app-1`).inspect();
  assert.equal(container.Config.Labels['dockwright.installation'], id);
  assert.equal((await docker.getNetwork(`${p}_default`).inspect()).Labels?.['dockwright.installation'], id);
  assert.equal((await docker.getVolume(`${p}_data`).inspect()).Labels['dockwright.installation'], id);

  await a.stop();
  a = await startDockerServer({ reuse: { databaseUrl: a.databaseUrl, dataDir: a.dataDir } });
  assert.equal(installationOf(a), id);
  const again = await deployOk(a, p, composeOf);
  assert.deepEqual(again.result.services, [{ service: 'app', action: 'unchanged' }], 'the same installation finds its own containers');
});

test('another installation\'s containers are neither listed nor acted on (403 other-installation)', async () => {
  const name = `${p}-app-1`;
  const all = (await b.api('GET', '/api/v1/containers?limit=1000')).body as { name: string }[];
  assert.equal(all.some((c) => c.name.startsWith(p)), false);
  assert.deepEqual((await b.api('GET', `/api/v1/containers?stack=${p}`)).body, []);
  assert.deepEqual((await b.api('GET', `/api/v1/driver/status?names=${p}`)).body, { [p]: [] });
  for (const verb of ['stop', 'restart', 'start']) {
    const res = await b.api('POST', `/api/v1/containers/${name}/${verb}`);
    assert.equal(res.status, 403, `${verb}: ${res.text}`);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.match(res.body.type, /\/other-installation$/);
    assert.match(res.body.detail, /another Dockwright installation/);
  }
  assert.equal((await b.api('GET', `/api/v1/containers/${name}/logs`)).status, 403);
  assert.equal(await running(name), true);

  // its own installation still does what it did
  assert.deepEqual(((await a.api('GET', `/api/v1/containers?stack=${p}`)).body as { name: string }[]).map((c) => c.name), [name]);
  const restarted = await a.api('POST', `/api/v1/containers/${name}/restart?timeout=0`);
  assert.equal(restarted.status, 200, restarted.text);
});

test('a deploy never reuses another installation\'s networks or volumes, and a stop or remove never touches its containers', async () => {
  const before = (await docker.getContainer(`${p}-app-1`).inspect()).Id;
  const same = await run(b, 'deploy', p, { compose: composeOf });
  assert.equal(same.status, 'failed');
  assert.match(same.error ?? '', new RegExp(`"${p}_(default|data)" exists but belongs to another Dockwright installation`));
  const volume = await run(b, 'deploy', q, { compose: `services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n    network_mode: none\n    volumes: ["data:/data"]\nvolumes:\n  data:\n    name: ${p}_data\n` });
  assert.equal(volume.status, 'failed');
  assert.match(volume.error ?? '', new RegExp(`the volume "${p}_data" exists but belongs to another Dockwright installation`));

  const stopped = await run(b, 'stop', p);
  assert.equal(stopped.status, 'succeeded', stopped.error ?? '');
  assert.deepEqual(stopped.result.removed, []);
  const removed = await run(b, 'remove', p, { volumes: true });
  assert.equal(removed.status, 'succeeded', removed.error ?? '');
  assert.equal((await docker.getContainer(`${p}-app-1`).inspect()).Id, before);
  assert.equal(await running(`${p}-app-1`), true);
  await docker.getNetwork(`${p}_default`).inspect();
  await docker.getVolume(`${p}_data`).inspect();
});

test('managed containers from before installation labels are adopted: listed and acted on, relabelled when a deploy recreates them', async () => {
  const name = `${legacy}-app-1`;
  const c = await docker.createContainer({
    name, Image: 'dockwright-test/busybox:1', Cmd: ['sleep', '3600'], StopTimeout: 1,
    Labels: { 'dockwright.managed': 'true', 'dockwright.project': legacy, 'dockwright.service': 'app', 'dockwright.number': '1', 'dockwright.config-hash': 'from-before' },
  });
  await c.start();
  // lists follow the engine's events, a moment after the engine
  const listed = await until(async () => {
    const list = (await b.api('GET', `/api/v1/containers?stack=${legacy}`)).body as { name: string; project: string; state: string }[];
    return list.length > 0 && list[0].state === 'running' ? list : null;
  }, 5000, 'the container to be listed', 50);
  assert.deepEqual(listed.map((x) => [x.name, x.project]), [[name, legacy]]);
  const stop = await b.api('POST', `/api/v1/containers/${name}/stop?timeout=0`);
  assert.equal(stop.status, 200, stop.text);
  assert.equal(stop.body.state, 'exited');

  const job = await deployOk(b, legacy, 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n');
  assert.deepEqual(job.result.services, [{ service: 'app', action: 'recreated' }]);
  assert.equal((await docker.getContainer(name).inspect()).Config.Labels['dockwright.installation'], installationOf(b));
  await until(async () => ((await a.api('GET', `/api/v1/containers?stack=${legacy}`)).body as unknown[]).length === 0, 5000, 'the recreated container to be the other installation\'s only', 50);
});
