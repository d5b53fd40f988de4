// The compose-spec keys beyond the core on a real engine: each honoured key checked on the created container, network and volume with inspect; hooks in the job log; container names held elsewhere; compose's own labels, seen by docker-compose.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestServer } from '../../helpers/harness.ts';
import { loadCompose } from '../../../plugins/docker/compose/load.ts';
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
});
after(async () => {
  await s?.close();
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
  assert.doesNotMatch(byStack.error ?? '', /409|Conflict/);

  // a container made outside Dockwright (docker run --name)
  const made = await docker.createContainer({ name: outsider, Image: 'dockwright-test/busybox:1', Cmd: ['sleep', '3600'] });
  const byOutsider = await run(s, 'deploy', other, { compose: taken.replace(containerName, outsider) });
  assert.equal(byOutsider.status, 'failed');
  assert.match(byOutsider.error ?? '', new RegExp(`the container name "${outsider}" is held by a container made outside Dockwright \\(${made.id.slice(0, 12)}, image dockwright-test/busybox:1\\)`));
  assert.doesNotMatch(byOutsider.error ?? '', /409|Conflict/);
});

test('pre_stop runs before the container stops, its output in the stop job', async () => {
  const stop = await run(s, 'stop', name);
  assert.equal(stop.status, 'succeeded', stop.output);
  assert.match(stop.output, new RegExp(`${containerName}: pre_stop\\[0\\]\\| pre-stop-output`));
  const lines = stop.output.split('\n');
  assert.ok(lines.findIndex((l) => l.includes('pre-stop-output')) < lines.findIndex((l) => l === `${containerName} removed` || l.endsWith(`${containerName} removed`)), stop.output);
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
  const loaded = loadCompose({ name: other, compose: 'services:\n  app:\n    image: dockwright-test/busybox:1\n    gpus: [{ driver: nvidia, count: 2, capabilities: [gpu, utility], options: { a: b } }]\n', variables: {} });
  assert.deepEqual(loaded.errors, []);
  const plan = planContainer(other, loaded.services[0], 1, 'unused', 'test-installation');
  const created = await docker.createContainer({ ...plan.create, name: `${other}-gpus` });
  try {
    const info = await created.inspect();
    assert.deepEqual((info.HostConfig as any).DeviceRequests, [{ Driver: 'nvidia', Count: 2, DeviceIDs: null, Capabilities: [['gpu', 'utility']], Options: { a: 'b' } }]);
  } finally {
    await created.remove({ force: true });
  }
});
