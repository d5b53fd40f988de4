// The samplers against fixture /proc and cgroup v2 trees (tests/fixtures/metrics): counters turned into rates as `docker stats` and `top` show them, and the engine's stats where no cgroup is readable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContainerInfo } from 'dockerode';
import { parseMeminfo, parseNetDev, parseStat } from '../../../plugins/metrics/proc.ts';
import { parseBlkio, parseIoStat } from '../../../plugins/metrics/cgroup.ts';
import { readingOf } from '../../../plugins/metrics/engine-stats.ts';
import { Sampler } from '../../../plugins/metrics/sampler.ts';
import { containerMetrics, hostMetrics } from '../../../plugins/metrics/series.ts';
import { root } from '../../helpers/harness.ts';

const id = 'a'.repeat(64);
const fixtures = join(root, 'tests/fixtures/metrics');
const listed = (over: Partial<ContainerInfo> = {}): ContainerInfo => ({
  Id: id, Names: ['/web-app-1'], State: 'running', Status: 'Up 5 minutes (healthy)', Labels: { 'dockwright.project': 'web', 'dockwright.service': 'app' }, ...over,
} as ContainerInfo);
const valueOf = (values: (number | null)[], metric: string) => values[(containerMetrics as readonly string[]).indexOf(metric)];
const hostValue = (values: (number | null)[], metric: string) => values[(hostMetrics as readonly string[]).indexOf(metric)];

function tree() {
  const dir = mkdtempSync(join(tmpdir(), 'dw-metrics-'));
  cpSync(fixtures, dir, { recursive: true });
  return { dir, proc: join(dir, 'proc'), cgroup: join(dir, 'cgroup'), v1: join(dir, 'cgroup-v1'), scope: join(dir, 'cgroup/system.slice', `docker-${id}.scope`), done: () => rmSync(dir, { recursive: true, force: true }) };
}

test('the /proc parsers: busy CPU leaves idle and iowait out, memory used is total minus available, loopback is not network', () => {
  assert.deepEqual(parseStat('cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1\ncpu1 1\ncpu2 1\n'), { busy: 150, total: 1000, cores: 3 });
  assert.deepEqual(parseMeminfo('MemTotal: 1000 kB\nMemAvailable: 250 kB\n'), { used: 750 * 1024, total: 1000 * 1024 });
  assert.deepEqual(parseNetDev('h\nh\n lo: 5 0 0 0 0 0 0 0 5 0 0 0 0 0 0 0\n eth0: 7 0 0 0 0 0 0 0 3 0 0 0 0 0 0 0\n wg0:2 0 0 0 0 0 0 0 1 0 0 0 0 0 0 0\n'), { rx: 9, tx: 4 });
  assert.deepEqual(parseIoStat('8:0 rbytes=10 wbytes=20 rios=1\n8:16 rbytes=1 wbytes=2\n'), { read: 11, write: 22 });
});

test('a container read from its cgroup v2 files: CPU as percent of one core, memory without the inactive file cache, rates per second', async () => {
  const t = tree();
  let now = 1_000_000;
  let engineCalls = 0;
  let status = 'Up 5 minutes (healthy)';
  try {
    const sampler = new Sampler({
      containers: async () => [listed({ Status: status }), listed({ Id: 'b'.repeat(64), Labels: {} }), listed({ Id: 'c'.repeat(64), State: 'exited' })],
      ownerOf: (labels) => (labels?.['dockwright.project'] ? { project: labels['dockwright.project'], service: labels['dockwright.service'] ?? null } : null),
      engineStats: async () => { engineCalls++; throw new Error('not to be asked'); },
      procRoot: t.proc, cgroupRoot: t.cgroup, dataDir: t.dir, engineRoot: '/nonexistent/engine-root', now: () => now,
    });
    const first = await sampler.sample();
    assert.equal(first.containers.length, 1, 'only running containers of this installation');
    const [c] = first.containers;
    assert.deepEqual([c.stack, c.service, c.name], ['web', 'app', 'web-app-1']);
    assert.equal(valueOf(c.values, 'memory'), 300_000_000 - 150_000_000);
    assert.equal(valueOf(c.values, 'memory-percent'), Math.round((150_000_000 / 536_870_912) * 10000) / 100);
    assert.equal(valueOf(c.values, 'cpu'), null, 'no rate without a previous reading');
    assert.equal(valueOf(c.values, 'unhealthy'), 0);
    assert.equal(hostValue(first.host, 'memory'), (4_000_000 - 3_000_000) * 1024);
    assert.equal(hostValue(first.host, 'load'), 0.75);
    assert.ok(Number(hostValue(first.host, 'disk-free')) > 0, 'the data folder\'s free disk');
    assert.equal(hostValue(first.host, 'engine-disk-free'), null, 'a missing engine root is skipped');

    // 10 s later: 15 s of CPU time (1.5 cores), 100 kB/s received, 2 kB/s written, one OOM kill, one restart, unhealthy
    now += 10_000;
    writeFileSync(join(t.scope, 'cpu.stat'), 'usage_usec 20000000\n');
    writeFileSync(join(t.scope, 'io.stat'), '8:0 rbytes=4096 wbytes=28192\n');
    writeFileSync(join(t.scope, 'memory.events'), 'oom 2\noom_kill 2\n');
    writeFileSync(join(t.proc, '4242/net/dev'), 'h\nh\n lo: 9999999 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n eth0: 1020000 0 0 0 0 0 0 0 10000 0 0 0 0 0 0 0\n');
    writeFileSync(join(t.proc, 'stat'), 'cpu  1600 0 500 8900 500 0 0 0 0 0\ncpu0 1\ncpu1 1\n');
    sampler.noteStart(id);
    sampler.noteOom(id); // the engine's event of the same kill the cgroup counts: once, not twice
    status = 'Up 6 minutes (unhealthy)';
    const second = await sampler.sample();
    const [d] = second.containers;
    assert.equal(valueOf(d.values, 'cpu'), 150);
    assert.equal(valueOf(d.values, 'network-rx'), 100_000);
    assert.equal(valueOf(d.values, 'network-tx'), 0);
    assert.equal(valueOf(d.values, 'block-write'), 2000);
    assert.equal(valueOf(d.values, 'oom-kills'), 1);
    assert.equal(valueOf(d.values, 'restarts'), 1, 'a start of a container seen running is a restart');
    // host: 600 busy ticks of 1500 = 40 % of all cores, 80 % of one core on two
    assert.equal(hostValue(second.host, 'cpu-percent'), 40);
    assert.equal(hostValue(second.host, 'cpu'), 80);
    assert.equal(valueOf(d.values, 'unhealthy'), 1);
    assert.equal(engineCalls, 0, 'the engine is not asked while cgroups are readable');
  } finally { t.done(); }
});

test('without a cgroup v2 hierarchy the engine\'s one-shot stats are read, one call per running container, and the reading counts as docker stats does', async () => {
  const t = tree();
  let now = 0;
  const asked: string[] = [];
  const doc = (cpuNs: number) => ({
    cpu_stats: { cpu_usage: { total_usage: cpuNs } },
    memory_stats: { usage: 50_000_000, limit: 100_000_000, stats: { total_inactive_file: 10_000_000 } },
    networks: { eth0: { rx_bytes: 100, tx_bytes: 50 }, eth1: { rx_bytes: 1, tx_bytes: 0 } },
    blkio_stats: { io_service_bytes_recursive: [{ op: 'Read', value: 7 }, { op: 'Write', value: 9 }, { op: 'Total', value: 16 }] },
  });
  try {
    rmSync(join(t.cgroup, 'cgroup.controllers'));
    let cpu = 0;
    const sampler = new Sampler({
      containers: async () => [listed(), listed({ Id: 'd'.repeat(64), Names: ['/web-db-1'] })],
      ownerOf: (labels) => (labels?.['dockwright.project'] ? { project: 'web', service: null } : null),
      engineStats: async (cid) => { asked.push(cid); return readingOf(doc(cpu)); },
      procRoot: t.proc, cgroupRoot: t.cgroup, dataDir: t.dir, engineRoot: t.dir, now: () => now,
    });
    await sampler.sample();
    now += 2000; cpu += 1e9; // one second of CPU time in two: 50 %
    const s = await sampler.sample();
    assert.equal(asked.length, 4, 'one call per container per sample, never a stream');
    assert.equal(sampler.source, 'engine');
    assert.equal(valueOf(s.containers[0].values, 'cpu'), 50);
    assert.equal(valueOf(s.containers[0].values, 'memory'), 40_000_000);
    assert.equal(valueOf(s.containers[0].values, 'memory-percent'), 40);
    assert.deepEqual(readingOf(doc(0)), { cpuUsec: 0, memoryUsed: 40_000_000, memoryLimit: 100_000_000, rxBytes: 101, txBytes: 50, readBytes: 7, writeBytes: 9, oomKills: 0 });
  } finally { t.done(); }
});

test('a container read from cgroup v1 files (cpuacct, memory, blkio) where there is no unified hierarchy: no limit is the host\'s memory', async () => {
  const t = tree();
  let now = 0;
  try {
    assert.deepEqual(parseBlkio('8:0 Read 10\n8:0 Write 20\n8:0 Total 30\n8:16 Read 1\nTotal 31\n'), { read: 11, write: 20 });
    const sampler = new Sampler({
      containers: async () => [listed()],
      ownerOf: () => ({ project: 'web', service: 'app' }),
      engineStats: async () => { throw new Error('not to be asked'); },
      procRoot: t.proc, cgroupRoot: t.v1, dataDir: t.dir, engineRoot: t.dir, now: () => now,
    });
    await sampler.sample();
    now += 4000;
    const dir = join(t.v1, 'cpuacct/docker', id);
    writeFileSync(join(dir, 'cpuacct.usage'), '7000000000\n'); // 2 s of CPU in 4 s: 50 %
    writeFileSync(join(t.v1, 'memory/docker', id, 'memory.oom_control'), 'oom_kill_disable 0\nunder_oom 0\noom_kill 3\n');
    writeFileSync(join(t.v1, 'blkio/docker', id, 'blkio.throttle.io_service_bytes'), '8:0 Read 8192\n8:0 Write 8192\n');
    const [c] = (await sampler.sample()).containers;
    assert.equal(sampler.source, 'cgroup');
    assert.equal(valueOf(c.values, 'cpu'), 50);
    assert.equal(valueOf(c.values, 'memory'), 150_000_000);
    assert.equal(valueOf(c.values, 'memory-percent'), Math.round((150_000_000 / (4_000_000 * 1024)) * 10000) / 100, 'of the host\'s memory');
    assert.equal(valueOf(c.values, 'block-read'), 1024);
    assert.equal(valueOf(c.values, 'oom-kills'), 3);
    assert.equal(valueOf(c.values, 'network-rx'), 0, 'the same counters as before: nothing received');
  } finally { t.done(); }
});
