// The compose-spec keys: every key of the schema honoured, refused by a named rule or ignored with a warning (table-driven), and those beyond the core on a real engine: each honoured key checked on the created container, network and volume with inspect; hooks in the job log; container names held elsewhere; compose's own labels, seen by docker-compose.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestServer } from '../../helpers/harness.ts';
import { loadCompose } from '../../../plugins/docker/compose/load.ts';
import type { LoadedCompose } from '../../../plugins/docker/types.ts';
import { startStacksServer } from '../stacks/helpers.ts';
import { planContainer } from '../../../plugins/docker/spec.ts';
import { cleanupProjects, deployOk, docker, run, startDockerServer, uniqueName } from './helpers.ts';

const name = uniqueName('keys');
const other = uniqueName('keys');
const containerName = `${name}-named`;
const outsider = uniqueName('outside');
const subnet = `10.213.${Math.floor(Math.random() * 250) + 1}`;
// a block device of this machine, for blkio_config's throttles (the engine needs a real one)
const blockDevice = readdirSync('/sys/block').filter((d) => !/^(loop|ram|zram|dm-|md|sr)/.test(d)).map((d) => `/dev/${d}`).find((d) => existsSync(d));
let s: TestServer;
let judge: TestServer;
let tree: string;

const compose = `
services:
  db:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "echo from-db > /data/hello; sleep 3600"]
    volumes: ["data:/data"]
    networks: [back]
  app:
    image: dockwright-test/busybox:1
    container_name: ${containerName}
    command: ["sleep", "3600"]
    label_file: ./app.labels
    labels: { com.example.written: from-compose }
    cpuset: "0"
    cpu_quota: 50000
    cpu_period: 100ms
    oom_score_adj: 300
    oom_kill_disable: false
    mem_limit: 64m
    memswap_limit: 128m
    mem_swappiness: 10
    mac_address: "02:42:ac:11:00:42"
    dns_opt: ["ndots:2", "timeout:3"]
    cgroup_parent: dockwright-test
    cgroup: private
    runtime: runc
    ${blockDevice ? `blkio_config: { device_read_bps: [{ path: ${blockDevice}, rate: 1mb }], device_write_iops: [{ path: ${blockDevice}, rate: 100 }] }` : ''}
    volumes_from: ["db:ro"]
    post_start:
      - command: ["sh", "-c", "echo started-$$HOOKVAR > /tmp/post; echo post-start-output"]
        environment: { HOOKVAR: x1 }
    pre_stop:
      - command: ["sh", "-c", "echo pre-stop-output"]
    networks: [back]
    develop: { watch: [{ action: sync, path: ./src, target: /src }] }
networks:
  back:
    driver_opts: { com.docker.network.driver.mtu: 1400 }
    ipam:
      config:
        - subnet: ${subnet}.0/24
          ip_range: ${subnet}.128/25
          gateway: ${subnet}.1
volumes:
  data:
`;

before(async () => {
  s = await startDockerServer();
  tree = mkdtempSync(join(tmpdir(), 'dw-keys-'));
  writeFileSync(join(tree, 'app.labels'), 'com.example.fromfile=yes\ncom.example.written=from-file\n');
  // for the table of every schema key: validate through the stacks plugin, a build context, an env_file, an included file
  judge = await startStacksServer();
  writeFileSync(join(tree, 'Dockerfile'), 'FROM dockwright-test/busybox:1\n');
  writeFileSync(join(tree, 'app.env'), 'FROM_FILE=yes\n');
  writeFileSync(join(tree, 'included.yaml'), 'services:\n  extra:\n    image: dockwright-test/busybox:1\n');
});
after(async () => {
  await s?.close();
  await judge?.close();
  await cleanupProjects(name, other);
  await docker.getContainer(outsider).remove({ force: true }).catch(() => undefined);
  if (tree) rmSync(tree, { recursive: true, force: true });
});

async function execIn(id: string, cmd: string[]): Promise<string> {
  const exec = await docker.getContainer(id).exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve) => { stream.on('data', (c: Buffer) => chunks.push(c)); stream.on('end', resolve); });
  // the multiplexed frames carry an 8-byte header each; the text is what matters here
  return Buffer.concat(chunks).toString('utf8').replace(/[\x00-\x08]/g, '');
}

test('honoured keys reach the engine: inspect shows each on the container, the network and the volume', async () => {
  const job = await deployOk(s, name, compose, { workdir: tree });
  assert.match(job.output, /warning: services\.app\.develop: "develop" is for `docker compose watch`/);
  const app = await docker.getContainer(containerName).inspect();
  const h = app.HostConfig as any;
  const expected: [string, unknown, unknown][] = [
    ['cpuset', h.CpusetCpus, '0'],
    ['cpu_quota', h.CpuQuota, 50000],
    ['cpu_period (100ms in microseconds)', h.CpuPeriod, 100000],
    ['oom_score_adj', h.OomScoreAdj, 300],
    ['oom_kill_disable', h.OomKillDisable, false],
    ['mem_swappiness', h.MemorySwappiness, 10],
    ['memswap_limit', h.MemorySwap, 128 * 1024 ** 2],
    ['dns_opt', h.DnsOptions, ['ndots:2', 'timeout:3']],
    ['cgroup_parent', h.CgroupParent, 'dockwright-test'],
    ['cgroup', h.CgroupnsMode, 'private'],
    ['runtime', h.Runtime, 'runc'],
    ['volumes_from', h.VolumesFrom, [`${name}-db-1:ro`]],
    ['mac_address', (app.Config as any).MacAddress, '02:42:ac:11:00:42'],
    ['mac_address on the network', app.NetworkSettings.Networks[`${name}_back`]?.MacAddress, '02:42:ac:11:00:42'],
    ['label_file', app.Config.Labels['com.example.fromfile'], 'yes'],
    ['labels win over label_file', app.Config.Labels['com.example.written'], 'from-compose'],
  ];
  if (blockDevice) {
    expected.push(['blkio_config.device_read_bps', h.BlkioDeviceReadBps?.map((d: any) => d.Rate), [1024 ** 2]]);
    expected.push(['blkio_config.device_write_iops', h.BlkioDeviceWriteIOps?.map((d: any) => d.Rate), [100]]);
  }
  for (const [key, got, want] of expected) assert.deepEqual(got, want, key);
  assert.equal(app.State.Running, true);

  // volumes_from: db's volume, read-only
  assert.match(await execIn(app.Id, ['cat', '/data/hello']), /from-db/);
  assert.match(await execIn(app.Id, ['sh', '-c', 'touch /data/x 2>&1 || echo refused']), /Read-only file system|refused/);

  // post_start ran in the container, with its environment, and its output is in the job log
  assert.match(await execIn(app.Id, ['cat', '/tmp/post']), /started-x1/);
  assert.match(job.output, new RegExp(`${containerName}: post_start\\[0\\]\\| post-start-output`));
  const lines = job.output.split('\n');
  assert.ok(lines.findIndex((l) => l.includes('post-start-output')) < lines.findIndex((l) => l.includes(`${containerName}: started`)), 'the container counts as started once its post_start hooks ran');

  const net = await docker.getNetwork(`${name}_back`).inspect();
  assert.deepEqual(net.IPAM?.Config, [{ Subnet: `${subnet}.0/24`, IPRange: `${subnet}.128/25`, Gateway: `${subnet}.1` }]);
  assert.equal(net.Options?.['com.docker.network.driver.mtu'], '1400');
  assert.ok(app.NetworkSettings.Networks[`${name}_back`].IPAddress.startsWith(`${subnet}.`), 'the container got an address of the custom subnet');
});

test("compose's own labels sit beside Dockwright's on containers, networks and volumes; docker-compose sees the project", async () => {
  const app = await docker.getContainer(containerName).inspect();
  const db = await docker.getContainer(`${name}-db-1`).inspect();
  const l = app.Config.Labels;
  assert.equal(l['dockwright.project'], name, 'the ownership labels stay');
  assert.deepEqual(
    [l['com.docker.compose.project'], l['com.docker.compose.service'], l['com.docker.compose.container-number'], l['com.docker.compose.oneoff'], l['com.docker.compose.version']],
    [name, 'app', '1', 'False', '2.24.0'],
  );
  assert.equal(l['com.docker.compose.config-hash'], l['dockwright.config-hash']);
  assert.equal(l['com.docker.compose.project.working_dir'], tree);
  assert.equal(l['com.docker.compose.depends_on'], 'db:service_started:false', 'volumes_from orders db first, as compose does');
  assert.equal(db.Config.Labels['com.docker.compose.service'], 'db');
  assert.equal(db.Config.Labels['com.docker.compose.depends_on'], '');
  const net = await docker.getNetwork(`${name}_back`).inspect();
  assert.deepEqual([net.Labels?.['com.docker.compose.project'], net.Labels?.['com.docker.compose.network'], net.Labels?.['dockwright.project']], [name, 'back', name]);
  const vol = await docker.getVolume(`${name}_data`).inspect();
  assert.deepEqual([vol.Labels['com.docker.compose.project'], vol.Labels['com.docker.compose.volume'], vol.Labels['dockwright.project']], [name, 'data', name]);

  // docker-compose 1.29 lists the containers of the services its file names, found by these labels
  const dir = mkdtempSync(join(tmpdir(), 'dw-dc-'));
  try {
    writeFileSync(join(dir, 'docker-compose.yml'), 'services:\n  db:\n    image: dockwright-test/busybox:1\n  app:\n    image: dockwright-test/busybox:1\n');
    const { stdout } = await promisify(execFile)('docker-compose', ['-p', name, '-f', join(dir, 'docker-compose.yml'), 'ps'], { timeout: 60_000 });
    assert.match(stdout, new RegExp(`${name}-db-1\\s.*Up`), stdout);
    assert.match(stdout, new RegExp(`${containerName}\\s.*Up`), stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a container_name held elsewhere fails the deploy naming the holder, never with the engine\'s raw conflict', async () => {
  const taken = `services:\n  app:\n    image: dockwright-test/busybox:1\n    container_name: ${containerName}\n    command: ["sleep", "3600"]\n`;
  const byStack = await run(s, 'deploy', other, { compose: taken });
  assert.equal(byStack.status, 'failed');
  assert.match(byStack.error ?? '', new RegExp(`the container name "${containerName}" is held by the stack ${name} \\(container [0-9a-f]{12}\\)`));
  assert.doesNotMatch(byStack.error ?? '', /\b409\b|Conflict/, "not the engine's raw conflict (a random name may hold the digits 409)");

  // a container made outside Dockwright (docker run --name)
  const made = await docker.createContainer({ name: outsider, Image: 'dockwright-test/busybox:1', Cmd: ['sleep', '3600'] });
  const byOutsider = await run(s, 'deploy', other, { compose: taken.replace(containerName, outsider) });
  assert.equal(byOutsider.status, 'failed');
  assert.match(byOutsider.error ?? '', new RegExp(`the container name "${outsider}" is held by a container made outside Dockwright \\(${made.id.slice(0, 12)}, image dockwright-test/busybox:1\\)`));
  assert.doesNotMatch(byOutsider.error ?? '', /\b409\b|Conflict/, "not the engine's raw conflict (a random name may hold the digits 409)");
});

test('pre_stop runs before the container stops, its output in the stop job', async () => {
  const stop = await run(s, 'stop', name);
  assert.equal(stop.status, 'succeeded', stop.output);
  assert.match(stop.output, new RegExp(`${containerName}: pre_stop\\[0\\]\\| pre-stop-output`));
  const lines = stop.output.split('\n');
  assert.ok(lines.findIndex((l) => l.includes('pre-stop-output')) < lines.findIndex((l) => l.includes(`${containerName} removed`)), stop.output);
});

test('a failing post_start fails the deploy with its exit code, and leaves no half-started container', async () => {
  const failing = `services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n    post_start: [{ command: ["sh", "-c", "echo not-ready; exit 3"] }]\n`;
  const job = await run(s, 'deploy', other, { compose: failing });
  assert.equal(job.status, 'failed');
  assert.match(job.error ?? '', new RegExp(`${other}-app-1: post_start\\[0\\] failed with exit code 3`));
  assert.match(job.output, /post_start\[0\]\| not-ready/);
  assert.deepEqual((await docker.listContainers({ all: true, filters: { name: [`^/${other}-app-1$`] } })).length, 0);
});

test('keys the engine here cannot honour fail the deploy with a message naming the key; gpus reach the engine as device requests', async () => {
  const cases: [string, RegExp][] = [
    ['gpus: all', /the engine has no driver for the GPUs that gpus asks for/],
    ['storage_opt: { size: 1G }', /storage_opt needs a storage driver and file system with quotas/],
    ['cpu_rt_runtime: 1000\n    cpu_rt_period: 1000000', /cpu_rt_runtime and cpu_rt_period need a kernel with real-time group scheduling/],
  ];
  for (const [lines, message] of cases) {
    const job = await run(s, 'deploy', other, { compose: `services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n    ${lines}\n` });
    assert.equal(job.status, 'failed', lines);
    assert.match(job.error ?? '', message, `${lines}: ${job.error}`);
  }
  // what a deploy sends for gpus, created without a start: the engine keeps the device requests as compose would send them
  // deploy.resources.reservations.devices too, beside them; and network_mode container:<name> (when no-host-network is off) joins that container's network
  const loaded = loadCompose({
    name: other, variables: {},
    compose: `services:\n  app:\n    image: dockwright-test/busybox:1\n    gpus: [{ driver: nvidia, count: 2, capabilities: [gpu, utility], options: { a: b } }]\n    deploy: { resources: { reservations: { devices: [{ driver: nvidia, device_ids: ["0"], capabilities: [compute] }] } } }\n    network_mode: "container:${other}-gpus"\n`,
  });
  assert.deepEqual(loaded.errors, []);
  const plan = planContainer(other, loaded.services[0], 1, 'unused', 'test-installation');
  const created = await docker.createContainer({ ...plan.create, name: `${other}-gpus`, HostConfig: { ...plan.create.HostConfig, NetworkMode: 'none' } });
  const joined = await docker.createContainer({ ...plan.create, name: `${other}-joined` });
  try {
    const info = await created.inspect();
    assert.deepEqual((info.HostConfig as any).DeviceRequests, [
      { Driver: 'nvidia', Count: 2, DeviceIDs: null, Capabilities: [['gpu', 'utility']], Options: { a: 'b' } },
      { Driver: 'nvidia', Count: 0, DeviceIDs: ['0'], Capabilities: [['compute']], Options: {} },
    ]);
    assert.equal((await joined.inspect()).HostConfig.NetworkMode, `container:${info.Id}`);
  } finally {
    await joined.remove({ force: true });
    await created.remove({ force: true });
  }
});

// ---- every key of the compose-spec JSON schema: honoured (the model has it), refused by a named rule, or ignored with a warning ----

const schema = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'compose-go', 'schema', 'compose-spec.json'), 'utf8'));
type Treatment =
  | { honoured: string; check: (l: LoadedCompose) => [unknown, unknown] }
  | { refused: string; rule: string; at?: string }
  | { ignored: string };
const app = (l: LoadedCompose) => l.services.find((x) => x.name === 'app')!;
const h = (lines: string, check: (l: LoadedCompose) => [unknown, unknown]): Treatment => ({ honoured: lines, check });
const r = (lines: string, rule: string, at?: string): Treatment => ({ refused: lines, rule, ...(at ? { at } : {}) });
const i = (lines: string): Treatment => ({ ignored: lines });

/** the service keys: the lines under `app` (beside a service `db`), and what becomes of them */
const serviceKeys: Record<string, Treatment[]> = {
  annotations: [i('annotations: { com.example.a: b }')],
  attach: [i('attach: false')],
  blkio_config: [h('blkio_config: { weight: 300 }', (l) => [app(l).host.BlkioWeight, 300])],
  build: [
    h('build: { context: ., target: prod }', (l) => [[app(l).build?.context, app(l).build?.target], [tree, 'prod']]),
    r('build: { context: ., cache_to: [user/app:cache] }', 'supported-build-options', 'services.app.build.cache_to'),
    r('build: { context: ., tags: ["app:1"] }', 'supported-build-options', 'services.app.build.tags'),
  ],
  cap_add: [h('cap_add: [CHOWN]', (l) => [app(l).capAdd, ['CHOWN']]), r('cap_add: [NET_ADMIN]', 'no-dangerous-capabilities')],
  cap_drop: [h('cap_drop: [ALL]', (l) => [app(l).capDrop, ['ALL']])],
  cgroup: [h('cgroup: private', (l) => [app(l).host.CgroupnsMode, 'private']), r('cgroup: host', 'no-host-pid')],
  cgroup_parent: [r('cgroup_parent: dw', 'no-cgroup-parent')],
  command: [h('command: echo hi', (l) => [app(l).command, ['echo', 'hi']])],
  configs: [h('configs: [conf]', (l) => [app(l).configs.map((c) => c.target), ['/conf']])],
  container_name: [h('container_name: keys-table-named', (l) => [app(l).containerName, 'keys-table-named'])],
  cpu_count: [i('cpu_count: 2')],
  cpu_percent: [i('cpu_percent: 50')],
  cpu_period: [h('cpu_period: 100ms', (l) => [app(l).host.CpuPeriod, 100_000])],
  cpu_quota: [h('cpu_quota: 50000', (l) => [app(l).host.CpuQuota, 50_000])],
  cpu_rt_period: [h('cpu_rt_period: 1000000', (l) => [app(l).host.CpuRealtimePeriod, 1_000_000])],
  cpu_rt_runtime: [h('cpu_rt_runtime: 95000', (l) => [app(l).host.CpuRealtimeRuntime, 95_000])],
  cpu_shares: [h('cpu_shares: 512', (l) => [app(l).resources.cpuShares, 512])],
  cpus: [h('cpus: 0.5', (l) => [app(l).resources.nanoCpus, 5e8])],
  cpuset: [h('cpuset: "0"', (l) => [app(l).host.CpusetCpus, '0'])],
  credential_spec: [i('credential_spec: { file: my.json }')],
  depends_on: [h('depends_on: { db: { condition: service_healthy } }', (l) => [app(l).dependsOn, [{ service: 'db', condition: 'service_healthy', required: true }]])],
  deploy: [
    h('deploy: { replicas: 2, resources: { limits: { memory: 64m } } }', (l) => [[app(l).replicas, app(l).resources.memory], [2, 64 * 1024 ** 2]]),
    h('deploy: { resources: { reservations: { devices: [{ capabilities: [gpu], count: 1 }] } } }', (l) => [app(l).host.DeviceRequests?.map((d) => [d.Count, d.Capabilities]), [[1, [['gpu']]]]]),
  ],
  develop: [i('develop: { watch: [{ action: sync, path: ./src, target: /src }] }')],
  device_cgroup_rules: [r('device_cgroup_rules: ["c 1:3 mr"]', 'no-devices')],
  devices: [r('devices: ["/dev/fuse"]', 'no-devices')],
  dns: [h('dns: [9.9.9.9]', (l) => [app(l).dns, ['9.9.9.9']])],
  dns_opt: [h('dns_opt: [ndots:2]', (l) => [app(l).host.DnsOptions, ['ndots:2']])],
  dns_search: [h('dns_search: example.com', (l) => [app(l).dnsSearch, ['example.com']])],
  domainname: [h('domainname: example.com', (l) => [app(l).domainname, 'example.com'])],
  entrypoint: [h('entrypoint: ["/bin/sh", "-c"]', (l) => [app(l).entrypoint, ['/bin/sh', '-c']])],
  env_file: [h('env_file: [./app.env, { path: ./absent.env, required: false }]', (l) => [app(l).environment, { FROM_FILE: 'yes' }])],
  environment: [h('environment: { A: "1" }', (l) => [app(l).environment, { A: '1' }])],
  expose: [h('expose: ["3000"]', (l) => [app(l).expose, ['3000']])],
  extends: [h('extends: { service: db }', (l) => [app(l).volumesFrom.length === 0 && app(l).mounts.map((m) => m.target), ['/data']])],
  external_links: [i('external_links: ["redis-1:redis"]')],
  extra_hosts: [h('extra_hosts: { a: 10.0.0.1 }', (l) => [app(l).extraHosts, ['a:10.0.0.1']])],
  gpus: [h('gpus: all', (l) => [app(l).host.DeviceRequests?.map((d) => d.Count), [-1]])],
  group_add: [h('group_add: [mail]', (l) => [app(l).groupAdd, ['mail']])],
  healthcheck: [h('healthcheck: { test: ["CMD", "true"], interval: 5s }', (l) => [app(l).healthcheck, { test: ['CMD', 'true'], intervalNs: 5e9 }])],
  hostname: [h('hostname: box', (l) => [app(l).hostname, 'box'])],
  image: [h('', (l) => [app(l).image, 'dockwright-test/busybox:1'])],
  init: [h('init: true', (l) => [app(l).init, true])],
  ipc: [h('ipc: shareable', (l) => [app(l).ipc, 'shareable']), r('ipc: host', 'no-host-pid')],
  isolation: [i('isolation: process')],
  label_file: [h('label_file: ./app.labels', (l) => [app(l).labels['com.example.fromfile'], 'yes'])],
  labels: [h('labels: { a: b }', (l) => [app(l).labels, { a: 'b' }])],
  links: [i('links: [db]')],
  logging: [h('logging: { driver: json-file, options: { max-size: 1m } }', (l) => [app(l).logging, { driver: 'json-file', options: { 'max-size': '1m' } }]), r('logging: { driver: syslog }', 'allowed-logging-drivers')],
  mac_address: [h('mac_address: "02:42:ac:11:00:42"', (l) => [app(l).macAddress, '02:42:ac:11:00:42'])],
  mem_limit: [h('mem_limit: 64m', (l) => [app(l).resources.memory, 64 * 1024 ** 2])],
  mem_reservation: [h('mem_reservation: 32m', (l) => [app(l).resources.memoryReservation, 32 * 1024 ** 2])],
  mem_swappiness: [h('mem_swappiness: 10', (l) => [app(l).host.MemorySwappiness, 10])],
  memswap_limit: [h('mem_limit: 64m\n    memswap_limit: 128m', (l) => [app(l).host.MemorySwap, 128 * 1024 ** 2])],
  models: [i('models: [llm]')],
  network_mode: [h('network_mode: none', (l) => [app(l).networkMode, 'none']), r('network_mode: host', 'no-host-network'), r('network_mode: "container:elsewhere"', 'no-host-network'), r('network_mode: bridge', 'no-docker-networks')],
  networks: [h('networks: { back: { aliases: [api] } }', (l) => [app(l).networks.map((n) => [n.key, n.aliases]), [['back', ['app', 'api']]]])],
  oom_kill_disable: [h('oom_kill_disable: false', (l) => [app(l).host.OomKillDisable, false]), r('oom_kill_disable: true', 'no-oom-protection')],
  oom_score_adj: [h('oom_score_adj: 300', (l) => [app(l).host.OomScoreAdj, 300]), r('oom_score_adj: -1000', 'no-oom-protection')],
  pid: [r('pid: host', 'no-host-pid')],
  pids_limit: [h('pids_limit: 100', (l) => [app(l).resources.pidsLimit, 100])],
  platform: [i('platform: linux/amd64')],
  ports: [h('ports: ["127.0.0.1:18080:80/udp"]', (l) => [app(l).ports.map((p) => [p.hostIp, p.published, p.target, p.protocol]), [['127.0.0.1', 18080, 80, 'udp']]])],
  post_start: [h('post_start: [{ command: echo hi }]', (l) => [app(l).hooks.postStart.map((x) => x.command), [['echo', 'hi']]]), r('post_start: [{ command: id, privileged: true }]', 'no-privileged')],
  pre_start: [i('pre_start: [{ command: ["echo", "init"], per_replica: true }]')],
  pre_stop: [h('pre_stop: [{ command: echo bye }]', (l) => [app(l).hooks.preStop.map((x) => x.command), [['echo', 'bye']]])],
  privileged: [r('privileged: true', 'no-privileged')],
  profiles: [h('profiles: [debug]', (l) => [l.services.map((x) => x.name), ['db']])],
  provider: [i('provider: { type: model, options: { model: x } }')],
  pull_policy: [h('pull_policy: always', (l) => [app(l).pullPolicy, 'always'])],
  pull_refresh_after: [i('pull_refresh_after: 1h')],
  read_only: [h('read_only: true', (l) => [app(l).readOnly, true])],
  restart: [h('restart: on-failure:3', (l) => [app(l).restart, { name: 'on-failure', maximumRetryCount: 3 }])],
  runtime: [h('runtime: runc', (l) => [app(l).host.Runtime, 'runc']), r('runtime: runsc', 'allowed-runtimes')],
  scale: [h('scale: 3', (l) => [app(l).replicas, 3])],
  secrets: [h('secrets: [token]', (l) => [app(l).secrets.map((x) => x.target), ['/run/secrets/token']])],
  security_opt: [h('security_opt: ["no-new-privileges:true"]', (l) => [app(l).securityOpt, ['no-new-privileges:true']]), r('security_opt: ["seccomp:unconfined"]', 'allowed-security-options')],
  shm_size: [h('shm_size: 64m', (l) => [app(l).resources.shmSize, 64 * 1024 ** 2])],
  stdin_open: [h('stdin_open: true', (l) => [app(l).stdinOpen, true])],
  stop_grace_period: [h('stop_grace_period: 1m', (l) => [app(l).stopGracePeriodSeconds, 60])],
  stop_signal: [h('stop_signal: SIGINT', (l) => [app(l).stopSignal, 'SIGINT'])],
  storage_opt: [h('storage_opt: { size: 1G }', (l) => [app(l).host.StorageOpt, { size: '1G' }])],
  sysctls: [h('sysctls: { net.ipv4.tcp_keepalive_time: 600 }', (l) => [app(l).sysctls, { 'net.ipv4.tcp_keepalive_time': '600' }]), r('sysctls: { vm.overcommit_memory: 1 }', 'allowed-sysctls')],
  tmpfs: [h('tmpfs: /run', (l) => [app(l).mounts.map((m) => [m.type, m.target]), [['tmpfs', '/run']]])],
  tty: [h('tty: true', (l) => [app(l).tty, true])],
  ulimits: [h('ulimits: { nofile: { soft: 1024, hard: 2048 } }', (l) => [app(l).ulimits, [{ name: 'nofile', soft: 1024, hard: 2048 }]])],
  use_api_socket: [r('use_api_socket: true', 'no-docker-socket')],
  user: [h('user: "1000:1000"', (l) => [app(l).user, '1000:1000'])],
  userns_mode: [r('userns_mode: host', 'no-host-pid')],
  uts: [r('uts: host', 'no-host-pid')],
  volumes: [h('volumes: ["data:/data:ro"]', (l) => [app(l).mounts.map((m) => [m.type, m.target, m.readOnly]), [['volume', '/data', true]]]), r('volumes: ["/etc:/host-etc"]', 'allowed-bind-mounts', 'services.app.volumes[0]')],
  volumes_from: [h('volumes_from: ["db:ro"]', (l) => [app(l).volumesFrom.map((v) => [v.service, v.readOnly]), [['db', true]]]), r('volumes_from: ["container:elsewhere"]', 'volumes-from-own-stack', 'services.app.volumes_from[0]')],
  working_dir: [h('working_dir: /srv', (l) => [app(l).workingDir, '/srv'])],
};

/** the top-level keys: what the file holds beside the services, and what becomes of it */
const topLevelKeys: Record<string, Treatment[]> = {
  configs: [h('configs:\n  conf: { content: "x=1" }\n', (l) => [l.configs.map((c) => [c.key, c.source]), [['conf', 'content']]])],
  include: [h('include: [./included.yaml]\n', (l) => [l.services.map((x) => x.name).sort(), ['app', 'db', 'extra']])],
  models: [i('models:\n  llm: { model: ai/smollm2 }\n')],
  // the stack name wins over compose's name: (SPEC, wave 3), said in a warning
  name: [i('name: another-name\n')],
  networks: [h('networks:\n  back: { internal: true }\n', (l) => [l.networks.find((n) => n.key === 'back')?.internal, true]), r('networks:\n  lan: { driver: macvlan }\n', 'allowed-network-drivers', 'networks.lan.driver')],
  secrets: [h('secrets:\n  token: { environment: TOKEN }\n', (l) => [l.secrets.map((x) => [x.key, x.source, x.from]), [['token', 'environment', 'TOKEN']]]), r('secrets:\n  token: { external: true }\n', 'no-external-resources', 'secrets.token')],
  services: [h('', (l) => [l.services.map((x) => x.name), ['db', 'app']])],
  version: [i('version: "3.8"\n')],
  volumes: [h('volumes:\n  data: { labels: { a: b } }\n', (l) => [l.volumes.find((v) => v.key === 'data')?.labels.a, 'b']), r('volumes:\n  data: { driver: sshfs }\n', 'allowed-volume-drivers', 'volumes.data.driver')],
};

/** keys of the schema still without a treatment, each with why: the list only shrinks (a new key of the schema fails the test) */
const pending: Record<string, string> = {};


/** the file a treatment is judged on: db and app, and what a top-level line brings (with the services and objects the keys above name) */
function fileOf(serviceLines: string, top = ''): string {
  const needs = [
    /\bconf\b/.test(serviceLines) && !top.startsWith('configs:') ? 'configs:\n  conf: { content: "x=1" }\n' : '',
    /\btoken\b/.test(serviceLines) && !top.startsWith('secrets:') ? 'secrets:\n  token: { environment: TOKEN }\n' : '',
    /\bback\b/.test(serviceLines) && !top.startsWith('networks:') ? 'networks:\n  back:\n' : '',
    /\bdata:/.test(serviceLines) && !top.startsWith('volumes:') ? 'volumes:\n  data:\n' : '',
  ].join('');
  const db = '  db:\n    image: dockwright-test/busybox:1\n    volumes: ["/data"]\n';
  return `${top.startsWith('include') || top.startsWith('version') || top.startsWith('name') ? top : ''}services:\n${db}  app:\n    image: dockwright-test/busybox:1\n${serviceLines ? `    ${serviceLines}\n` : ''}${top.startsWith('include') || top.startsWith('version') || top.startsWith('name') ? '' : top}${needs}`;
}

test('every key of the compose-spec schema is honoured, refused by a named rule, or ignored with its warning', async () => {
  const defs = schema.$defs ?? schema.definitions;
  const inSchema = { service: Object.keys(defs.service.properties).sort(), top: Object.keys(schema.properties).sort() };
  // a key of the schema in none of the three fails here (a newer schema's key cannot slip through)
  assert.deepEqual(inSchema.service.filter((k) => !serviceKeys[k] && !pending[k]), [], 'service keys with no treatment');
  assert.deepEqual(inSchema.top.filter((k) => !topLevelKeys[k]), [], 'top-level keys with no treatment');
  assert.deepEqual(Object.keys(serviceKeys).filter((k) => !inSchema.service.includes(k)), [], 'treated keys the schema does not have');
  assert.deepEqual(Object.keys(pending), [], 'the pending list only shrinks');

  const failures: string[] = [];
  let count = 0;
  const judgeOne = async (key: string, where: 'service' | 'top', tr: Treatment) => {
    count++;
    const lines = 'honoured' in tr ? tr.honoured : 'refused' in tr ? tr.refused : tr.ignored;
    // a top-level network is created (and judged) when a service joins it
    const joins = where === 'top' ? /^networks:\n {2}([\w-]+):/.exec(lines)?.[1] : undefined;
    const content = where === 'service' ? fileOf(lines) : fileOf(joins ? `networks: [${joins}]` : '', lines);
    const label = `${key} (${lines.replace(/\n\s*/g, ' ')})`;
    if ('honoured' in tr) {
      const res = await s.api('POST', '/api/v1/driver/load', { body: { name: 'keys', compose: content, variables: { TOKEN: 'secret-value' }, workdir: tree } });
      const l = res.body as LoadedCompose;
      if (l.errors.length) { failures.push(`${label}: honoured, but the loader says ${JSON.stringify(l.errors)}`); return; }
      const [got, want] = tr.check(l);
      try { assert.deepEqual(got, want); } catch { failures.push(`${label}: honoured, model has ${JSON.stringify(got)}, want ${JSON.stringify(want)}`); }
      return;
    }
    const res = await judge.api('POST', `/api/v1/stacks/${uniqueName('keys')}/validate`, { body: { content } });
    if (res.status !== 200) { failures.push(`${label}: validate answered ${res.status} ${res.text}`); return; }
    const errors = (res.body.errors as { rule: string; path: string }[]).map((e) => [e.rule, e.path]);
    const warnings = (res.body.warnings as { path: string; message: string }[]);
    const at = where === 'service' ? `services.app.${key}` : key;
    if ('refused' in tr) {
      const path = tr.at ?? at;
      if (!errors.some(([rule, p]) => rule === tr.rule && (p === path || p.startsWith(`${path}.`) || p.startsWith(`${path}[`)))) failures.push(`${label}: refused by ${tr.rule} at ${path}, but errors are ${JSON.stringify(errors)}`);
    } else {
      if (errors.length) failures.push(`${label}: ignored, but errors are ${JSON.stringify(errors)}`);
      const w = warnings.find((x) => x.path === at || x.path.startsWith(`${at}.`));
      if (!w || w.message.length < 30) failures.push(`${label}: ignored with a warning at ${at} saying why, but warnings are ${JSON.stringify(warnings)}`);
    }
  };
  for (const [key, list] of Object.entries(serviceKeys)) for (const tr of list) await judgeOne(key, 'service', tr);
  for (const [key, list] of Object.entries(topLevelKeys)) for (const tr of list) await judgeOne(key, 'top', tr);
  console.log(`# compose-spec keys: ${inSchema.service.length} service keys and ${inSchema.top.length} top-level keys, ${count} treatments judged, pending: ${Object.keys(pending).join(', ') || 'none'}`);
  assert.deepEqual(failures, []);
});
