// A multi-service project through its life: deploy, idempotent redeploy, change (recreate, keep, orphan), status, ports, stop, remove.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, containerOf, deployOk, docker, freePort, httpGet, logsOf, projectContainers, run, startDockerServer, uniqueName, until } from './helpers.ts';

const name = uniqueName('life');
let s: TestServer;
let port: number;

const compose = `
services:
  web:
    image: dockwright-test/web:1
    environment:
      MESSAGE: \${MSG}
    ports:
      - "127.0.0.1:\${PORT}:8080"
  client:
    image: dockwright-test/busybox:1
    depends_on:
      web: { condition: service_healthy }
    command: ["sh", "-c", "wget -q -O - http://web:8080/cgi-bin/env; echo fetched; sleep 3600"]
  store:
    image: dockwright-test/busybox:1
    environment: { GENERATION: "\${GEN}" }
    volumes: [data:/data]
    command: ["sh", "-c", "echo boot >> /data/boots; echo boots=$$(wc -l < /data/boots); sleep 3600"]
  extra:
    image: dockwright-test/busybox:1
    command: sleep 3600
volumes:
  data:
`;
const withoutExtra = compose.replace(/ {2}extra:\n(?: {4}.*\n)+/, '');

before(async () => {
  s = await startDockerServer();
  port = await freePort();
});
after(async () => {
  await s?.close();
  await cleanupProjects(name);
});

const ids = async () => Object.fromEntries((await projectContainers(name)).map((c) => [c.Labels['dockwright.service'], c.Id]));
let firstIds: Record<string, string>;

test('a first deploy creates network, volume and containers; independent services start together, the dependent one after its dependency is healthy', async () => {
  const job = await deployOk(s, name, compose, { variables: { MSG: 'first-secret-msg', PORT: String(port), GEN: '1' } });
  assert.deepEqual(job.result, {
    services: [
      { service: 'web', action: 'created' }, { service: 'client', action: 'created' },
      { service: 'store', action: 'created' }, { service: 'extra', action: 'created' },
    ],
    removed: [],
  });
  const lines = job.output.split('\n');
  const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
  assert.ok(at(new RegExp(`network ${name}_default created`)) >= 0, job.output);
  assert.ok(at(new RegExp(`volume ${name}_data created`)) >= 0, job.output);
  const firstStarted = at(/: started$/);
  for (const svc of ['web', 'store', 'extra']) {
    const created = at(new RegExp(`${name}-${svc}-1: creating`));
    assert.ok(created >= 0 && created < firstStarted, `${svc} is created before any service has started (parallel):\n${job.output}`);
  }
  assert.ok(at(new RegExp(`${name}-web-1: healthy`)) < at(new RegExp(`${name}-client-1: creating`)), `client waits for web to be healthy:\n${job.output}`);
  assert.match(job.output, /environment: 1 variable/);
  // the driver redacts variable values like stacks will; *** would show that the runtime tried to print one
  assert.ok(!job.output.includes('first-secret-msg') && !job.output.includes('***'), `environment values never reach the job output:\n${job.output}`);

  const page = await httpGet(port, '/');
  assert.equal(page.status, 200);
  assert.match(page.body, /hello from dockwright-test/);
  assert.match((await httpGet(port, '/cgi-bin/env')).body, /message=first-secret-msg/);
  await until(async () => /message=first-secret-msg[\s\S]*fetched/.test(await logsOf(s, `${name}-client-1`)), 30_000, 'the client reaching web by its service name');
  await until(async () => (await logsOf(s, `${name}-store-1`)).includes('boots=1'), 30_000, 'store to boot');

  const web = await docker.getContainer(`${name}-web-1`).inspect();
  assert.equal(web.Config.Labels['dockwright.managed'], 'true');
  assert.equal(web.Config.Labels['dockwright.project'], name);
  assert.equal(web.Config.Labels['dockwright.service'], 'web');
  assert.equal(web.Config.Labels['dockwright.number'], '1');
  assert.match(web.Config.Labels['dockwright.config-hash'], /^[0-9a-f]{64}$/);
  assert.ok(web.NetworkSettings.Networks[`${name}_default`].Aliases?.includes('web'));
  const net = await docker.getNetwork(`${name}_default`).inspect();
  assert.equal(net.Labels?.['dockwright.project'], name);
  firstIds = await ids();
});

test('a second deploy of the same file changes nothing: every service unchanged, same container ids', async () => {
  const job = await deployOk(s, name, compose, { variables: { MSG: 'first-secret-msg', PORT: String(port), GEN: '1' } });
  assert.deepEqual(job.result.services.map((x: any) => x.action), ['unchanged', 'unchanged', 'unchanged', 'unchanged']);
  assert.deepEqual(await ids(), firstIds);
});

test('a changed deploy recreates changed services, keeps the unchanged one, removes the orphan; the named volume survives', async () => {
  const job = await deployOk(s, name, withoutExtra, { variables: { MSG: 'second-msg', PORT: String(port), GEN: '2' } });
  assert.deepEqual(job.result, {
    services: [{ service: 'web', action: 'recreated' }, { service: 'client', action: 'unchanged' }, { service: 'store', action: 'recreated' }],
    removed: [`${name}-extra-1`],
  });
  assert.match(job.output, new RegExp(`${name}-extra-1 removed \\(orphan`));
  const now = await ids();
  assert.equal(now.client, firstIds.client, 'the unchanged service keeps its container');
  assert.notEqual(now.web, firstIds.web);
  assert.notEqual(now.store, firstIds.store);
  assert.equal(now.extra, undefined);
  assert.match((await httpGet(port, '/cgi-bin/env')).body, /message=second-msg/);
  await until(async () => (await logsOf(s, `${name}-store-1`)).includes('boots=2'), 30_000, 'the recreated store to see the first boot in its volume');
  // only this project's: tests in other files recreate containers of their own at the same time
  const names = (await docker.listContainers({ all: true })).map((c) => c.Names[0]).filter((n) => n.startsWith(`/${name}-`));
  assert.ok(!names.some((n) => n.includes('-dwold-')), 'no container set aside is left behind');
});

test('status answers per project and service from one list, ports in use name their project', async () => {
  const res = await s.api('GET', `/api/v1/driver/status?names=${name},${name}x`);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body[`${name}x`], []);
  const services = res.body[name];
  assert.deepEqual(services.map((x: any) => x.service), ['client', 'store', 'web']);
  const web = services.find((x: any) => x.service === 'web').containers[0];
  assert.equal(web.name, `${name}-web-1`);
  assert.equal(web.state, 'running');
  assert.equal(web.image, 'dockwright-test/web:1');
  await until(async () => (await s.api('GET', `/api/v1/driver/status?names=${name}`)).body[name].find((x: any) => x.service === 'web').containers[0].health === 'healthy', 30_000, 'web healthy in status');

  const ports = (await s.api('GET', '/api/v1/driver/ports')).body;
  assert.ok(ports.some((p: any) => p.project === name && p.hostPort === port && p.protocol === 'tcp'), JSON.stringify(ports));
  const others = (await s.api('GET', `/api/v1/driver/ports?except=${name}`)).body;
  assert.ok(!others.some((p: any) => p.project === name));
});

test('stop removes the containers and the network, keeps the volume; a later deploy finds the data again', async () => {
  const job = await run(s, 'stop', name);
  assert.equal(job.status, 'succeeded', job.error ?? '');
  assert.deepEqual(job.result, { removed: [`${name}-client-1`, `${name}-store-1`, `${name}-web-1`] });
  assert.deepEqual(await projectContainers(name), []);
  await assert.rejects(docker.getNetwork(`${name}_default`).inspect());
  await docker.getVolume(`${name}_data`).inspect();

  await deployOk(s, name, withoutExtra, { variables: { MSG: 'third', PORT: String(port), GEN: '2' } });
  await until(async () => (await logsOf(s, `${name}-store-1`)).includes('boots=3'), 30_000, 'store to see its earlier boots');
});

test('remove with volumes takes the named volume too', async () => {
  const job = await run(s, 'remove', name, { volumes: true });
  assert.equal(job.status, 'succeeded', job.error ?? '');
  assert.match(job.output, new RegExp(`volume ${name}_data removed`));
  assert.deepEqual(await projectContainers(name), []);
  await assert.rejects(docker.getVolume(`${name}_data`).inspect());
  assert.equal(await containerOf(name, 'web'), undefined);
});

test('a removal already under way (one a stopped process asked for) is waited for: the network and volume go too', async () => {
  const other = uniqueName('rip');
  try {
    await deployOk(s, other, `services:
  app:
    image: dockwright-test/busybox:1
    command: sleep 3600
    volumes: [data:/data]
volumes:
  data:
`);
    const [app] = await projectContainers(other);
    // the engine goes on removing after its caller is gone: the removal asked for meanwhile meets its 409
    const earlier = docker.getContainer(app.Id).remove({ force: true, v: true }).catch(() => undefined);
    const job = await run(s, 'remove', other, { volumes: true });
    await earlier;
    assert.equal(job.status, 'succeeded', `${job.error}\n${job.output}`);
    assert.doesNotMatch(job.output, /kept/);
    assert.deepEqual(await projectContainers(other), []);
    await assert.rejects(docker.getNetwork(`${other}_default`).inspect());
    await assert.rejects(docker.getVolume(`${other}_data`).inspect());
  } finally {
    await cleanupProjects(other);
  }
});
