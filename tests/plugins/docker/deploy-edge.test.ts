// Deploys that fail cleanly (missing image, broken file, failing or unhealthy dependencies), depends_on conditions, replicas, builds from a source tree, pulls.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, deployOk, docker, freePort, logsOf, projectContainers, run, startDockerServer, uniqueName, until } from './helpers.ts';

let s: TestServer;
const used: string[] = [];
const project = (prefix: string) => { const n = uniqueName(prefix); used.push(n); return n; };
let tree: string;

before(async () => {
  s = await startDockerServer();
  tree = mkdtempSync(join(tmpdir(), 'dw-tree-'));
});
after(async () => {
  await s?.close();
  await cleanupProjects(...used);
  await docker.getImage(`${used.find((n) => n.startsWith('build'))}-app`).remove({ force: true }).catch(() => undefined);
  if (tree) rmSync(tree, { recursive: true, force: true });
});

test('a missing image fails the deploy with a clear job error, before any container is created', async () => {
  const name = project('miss');
  const job = await run(s, 'deploy', name, { compose: `
services:
  ok:
    image: dockwright-test/busybox:1
    command: sleep 3600
  bad:
    image: nope/missing:1
` });
  assert.equal(job.status, 'failed');
  // the tests' policy looks up no name: Docker Hub (docker.io) is refused before the engine is asked to pull
  assert.match(job.error!, /^image "nope\/missing:1" not found locally and could not be pulled: the outbound policy refuses its registry docker\.io .+/);
  assert.doesNotMatch(job.output, /pulling nope\/missing:1/);
  assert.deepEqual(await projectContainers(name), []);
});

test('a broken compose file fails the deploy naming every error', async () => {
  const job = await run(s, 'deploy', project('broken'), { compose: 'services:\n  a:\n    depends_on: [a]\n' });
  assert.equal(job.status, 'failed');
  assert.match(job.error!, /has 2 errors: services\.a: the service "a" has no image \(and no build\); services\.a\.depends_on: a service cannot depend on itself/);
});

test('service_completed_successfully: the dependent starts after a one-shot exits 0, and is never started when it fails', async () => {
  const name = project('once');
  const ok = await deployOk(s, name, `
services:
  migrate:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "sleep 1; echo migrated"]
  app:
    image: dockwright-test/busybox:1
    command: sleep 3600
    depends_on:
      migrate: { condition: service_completed_successfully }
`);
  const lines = ok.output.split('\n');
  assert.ok(lines.findIndex((l) => l.endsWith('migrate-1: completed successfully')) < lines.findIndex((l) => l.includes('app-1: creating')), ok.output);

  const failing = project('oncefail');
  const job = await run(s, 'deploy', failing, { compose: `
services:
  migrate:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "exit 3"]
  app:
    image: dockwright-test/busybox:1
    command: sleep 3600
    depends_on:
      migrate: { condition: service_completed_successfully }
  other:
    image: dockwright-test/busybox:1
    command: sleep 3600
` });
  assert.equal(job.status, 'failed');
  assert.match(job.error!, new RegExp(`app was not started: ${failing}-migrate-1 exited with code 3`));
  const services = (await projectContainers(failing)).map((c) => c.Labels['dockwright.service']).sort();
  assert.deepEqual(services, ['migrate', 'other'], 'the independent service still runs; the dependent was never created');
});

test('service_healthy: an unhealthy dependency stops its dependents with a clear error', async () => {
  const name = project('sick');
  const job = await run(s, 'deploy', name, { compose: `
services:
  db:
    image: dockwright-test/busybox:1
    command: sleep 3600
    healthcheck: { test: ["CMD", "false"], interval: 300ms, timeout: 1s, retries: 1 }
  app:
    image: dockwright-test/busybox:1
    command: sleep 3600
    depends_on:
      db: { condition: service_healthy }
  nohc:
    image: dockwright-test/busybox:1
    command: sleep 3600
  needy:
    image: dockwright-test/busybox:1
    command: sleep 3600
    depends_on:
      nohc: { condition: service_healthy }
` });
  assert.equal(job.status, 'failed');
  assert.match(job.error!, new RegExp(`app was not started: ${name}-db-1 is unhealthy`));
  assert.match(job.error!, new RegExp(`needy was not started: ${name}-nohc-1 has no healthcheck`));
  const services = (await projectContainers(name)).map((c) => c.Labels['dockwright.service']).sort();
  assert.deepEqual(services, ['db', 'nohc']);
});

test('replicas: deploy.replicas numbers the containers; scaling down removes the extra ones', async () => {
  const name = project('rep');
  const file = (n: number) => `
services:
  worker:
    image: dockwright-test/busybox:1
    command: sleep 3600
    deploy: { replicas: ${n} }
`;
  await deployOk(s, name, file(3));
  assert.deepEqual((await projectContainers(name)).map((c) => c.Names[0]), [`/${name}-worker-1`, `/${name}-worker-2`, `/${name}-worker-3`]);
  const down = await deployOk(s, name, file(1));
  assert.deepEqual(down.result, { services: [{ service: 'worker', action: 'unchanged' }], removed: [`${name}-worker-2`, `${name}-worker-3`] });
  assert.deepEqual((await projectContainers(name)).map((c) => c.Names[0]), [`/${name}-worker-1`]);
});

test('a source tree: the image is built from it, env_file and relative bind mounts come from it', async () => {
  const name = project('build');
  writeFileSync(join(tree, 'Dockerfile'), 'FROM dockwright-test/busybox:1\nARG GREETING\nCOPY msg.txt /msg.txt\nRUN echo "$GREETING" > /greeting.txt\n');
  writeFileSync(join(tree, 'msg.txt'), 'built from the tree\n');
  writeFileSync(join(tree, 'app.env'), 'FROM_FILE=file-value\nOVERRIDDEN=file\n');
  mkdirSync(join(tree, 'conf'));
  writeFileSync(join(tree, 'conf', 'c.txt'), 'mounted config\n');
  const compose = `
services:
  app:
    build:
      context: .
      args: { GREETING: "\${GREETING}" }
    env_file: app.env
    environment: { OVERRIDDEN: compose }
    volumes: ["./conf:/conf:ro"]
    command: ["sh", "-c", "cat /msg.txt /greeting.txt /conf/c.txt; echo env=$$FROM_FILE/$$OVERRIDDEN; sleep 3600"]
`;
  const job = await deployOk(s, name, compose, { workdir: tree, variables: { GREETING: 'hi there' } });
  assert.match(job.output, new RegExp(`app: building ${name}-app`));
  const logs = await until(async () => { const l = await logsOf(s, `${name}-app-1`); return l.includes('env=') && l; }, 30_000, 'app output');
  assert.match(logs, /built from the tree\nhi there\nmounted config\nenv=file-value\/compose/);
  const again = await deployOk(s, name, compose, { workdir: tree, variables: { GREETING: 'hi there' } });
  assert.deepEqual(again.result.services, [{ service: 'app', action: 'unchanged' }], 'an unchanged tree builds the same image: nothing to recreate');
  writeFileSync(join(tree, 'msg.txt'), 'changed\n');
  const changed = await deployOk(s, name, compose, { workdir: tree, variables: { GREETING: 'hi there' } });
  assert.deepEqual(changed.result.services, [{ service: 'app', action: 'recreated' }]);
});

test('pull: a registry that cannot be reached fails the job clearly; the credentials hook is asked for the image\'s registry', async () => {
  const name = project('pull');
  const local = await run(s, 'pull', name, { compose: 'services:\n  a:\n    image: dockwright-test/busybox:1\n' });
  assert.equal(local.status, 'failed');
  assert.match(local.error!, /^pulling failed for dockwright-test\/busybox:1: .+/);

  assert.equal((await s.api('POST', '/api/v1/driver/registry-auth', { body: { username: 'robot', password: 'hunter2-registry-pass' } })).status, 200);
  // a registry the tests' policy allows (loopback) where nothing listens
  const registry = `127.0.0.1:${await freePort()}`;
  const job = await run(s, 'pull', name, { compose: `services:\n  a:\n    image: ${registry}/team/app:1\n` });
  assert.equal(job.status, 'failed');
  assert.match(job.output, new RegExp(`pulling ${registry.replace(/\./g, '\\.')}/team/app:1 \\(as robot on ${registry.replace(/\./g, '\\.')}\\)`));
  assert.match(job.error!, /connection refused/);
  assert.ok(!job.output.includes('hunter2') && !job.error!.includes('hunter2'), 'the password never reaches the job');
  assert.deepEqual((await s.api('GET', '/api/v1/driver/registry-auth')).body.asked, [registry]);
});

test('the options of a service reach the engine: limits, logging, hosts, user, workdir, restart, healthcheck, entrypoint, several networks with aliases', async () => {
  const name = project('opts');
  await deployOk(s, name, `
services:
  api:
    image: dockwright-test/busybox:1
    entrypoint: ["sh", "-c"]
    command: ["sleep 3600"]
    user: "0:0"
    working_dir: /tmp
    hostname: api-host
    restart: on-failure:2
    labels: { team: core }
    extra_hosts: ["db.internal:10.1.2.3"]
    logging: { driver: json-file, options: { max-size: 1m, max-file: "2" } }
    deploy: { resources: { limits: { cpus: "0.5", memory: 64m, pids: 64 } } }
    healthcheck: { test: ["CMD", "true"], interval: 2s, timeout: 1s, retries: 2, start_period: 1s }
    stop_grace_period: 3s
    cap_drop: [NET_RAW]
    read_only: true
    tmpfs: [/run]
    networks:
      front: { aliases: [api-front] }
      back: { aliases: [api-back] }
  probe:
    image: dockwright-test/busybox:1
    init: true
    command: ["sh", "-c", "nslookup api-back >/dev/null 2>&1 && echo back-ok; echo probed; sleep 3600"]
    networks: [back]
networks:
  front: {}
  back: { internal: true, labels: { tier: back } }
`);
  const info = await docker.getContainer(`${name}-api-1`).inspect();
  assert.deepEqual(info.Config.Entrypoint, ['sh', '-c']);
  assert.deepEqual(info.Config.Cmd, ['sleep 3600']);
  assert.equal(info.Config.User, "0:0");
  assert.equal(info.Config.WorkingDir, '/tmp');
  assert.equal(info.Config.Hostname, 'api-host');
  assert.equal(info.Config.Labels.team, 'core');
  assert.equal((info.Config as any).StopTimeout, 3);
  assert.deepEqual(info.Config.Healthcheck, { Test: ['CMD', 'true'], Interval: 2e9, Timeout: 1e9, Retries: 2, StartPeriod: 1e9 });
  const h = info.HostConfig as any;
  assert.deepEqual(h.RestartPolicy, { Name: 'on-failure', MaximumRetryCount: 2 });
  assert.deepEqual(h.ExtraHosts, ['db.internal:10.1.2.3']);
  assert.deepEqual(h.LogConfig, { Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '2' } });
  assert.equal(h.NanoCpus, 5e8);
  assert.equal(h.Memory, 64 * 1024 * 1024);
  assert.equal(h.PidsLimit, 64);
  assert.equal((await docker.getContainer(`${name}-probe-1`).inspect()).HostConfig.Init, true);
  assert.deepEqual(h.CapDrop, ['NET_RAW']);
  assert.equal(h.ReadonlyRootfs, true);
  assert.deepEqual(Object.keys(info.NetworkSettings.Networks).sort(), [`${name}_back`, `${name}_front`]);
  assert.ok(info.NetworkSettings.Networks[`${name}_front`].Aliases?.includes('api-front'));
  assert.ok(info.NetworkSettings.Networks[`${name}_back`].Aliases?.includes('api-back'));
  const back = await docker.getNetwork(`${name}_back`).inspect();
  assert.equal(back.Internal, true);
  assert.equal(back.Labels?.tier, 'back');
  const logs = await until(async () => { const l = await logsOf(s, `${name}-probe-1`); return l.includes('probed') && l; }, 30_000, 'the probe to resolve names');
  assert.match(logs, /back-ok/, 'the alias resolves on the shared network');

  const fewer = await deployOk(s, name, 'services:\n  api:\n    image: dockwright-test/busybox:1\n    command: sleep 3600\n');
  assert.match(fewer.output, new RegExp(`network ${name}_back removed \\(no service uses it any more\\)`));
  assert.deepEqual((await docker.listNetworks({ filters: { label: [`dockwright.project=${name}`] } })).map((n) => n.Name), [`${name}_default`]);
});
