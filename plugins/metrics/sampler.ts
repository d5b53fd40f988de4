// One sample of everything every interval: this installation's running containers (cgroup v2 or v1 files, else the engine's one-shot stats), the host, and Dockwright itself; counters turned into rates.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { ContainerInfo } from 'dockerode';
import PQueue from 'p-queue';
import { cgroupDirOf, cgroupV1DirsOf, isCgroupV1, isCgroupV2, readCgroup, readCgroupV1, type ContainerReading } from './cgroup.ts';
import { readDisk, readHost, type HostReading } from './proc.ts';
import { containerMetrics, hostMetrics, type ContainerSample, type Sample } from './series.ts';

export interface SamplerDeps {
  /** this installation's containers and those of no installation (one listing call, or the live table) */
  containers(): Promise<ContainerInfo[]>;
  /** the project and service of one of this installation's containers, else null */
  ownerOf(labels: Readonly<Record<string, string>> | null | undefined): { project: string; service: string | null } | null;
  /** the engine's one-shot stats of one container, where its cgroup is out of reach */
  engineStats(id: string): Promise<ContainerReading>;
  procRoot: string;
  cgroupRoot: string;
  dataDir: string;
  engineRoot: string;
  now?: () => number;
  /** engine calls at once when the cgroups are out of reach */
  concurrency?: number;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const rate = (now: number, before: number, seconds: number) => (seconds > 0 && now >= before ? (now - before) / seconds : 0);

/** the host's CPU, network rates, memory and load from its reading (rates against the one before, when there is one) */
function hostReadingValues(reading: HostReading, before: { at: number; reading: HostReading } | undefined, at: number): Record<string, number | null> {
  const values: Record<string, number | null> = {};
  if (before) {
    const busy = reading.cpuBusy - before.reading.cpuBusy;
    const total = reading.cpuTotal - before.reading.cpuTotal;
    const share = total > 0 ? Math.max(0, busy / total) : 0;
    values['cpu-percent'] = round(share * 100);
    values.cpu = round(share * 100 * reading.cores);
    const seconds = (at - before.at) / 1000;
    values['network-rx'] = round(rate(reading.rxBytes, before.reading.rxBytes, seconds));
    values['network-tx'] = round(rate(reading.txBytes, before.reading.txBytes, seconds));
  }
  values.memory = reading.memoryUsed;
  values['memory-percent'] = reading.memoryTotal ? round((reading.memoryUsed / reading.memoryTotal) * 100) : null;
  values.load = reading.load1;
  return values;
}

export class Sampler {
  readonly #deps: SamplerDeps;
  readonly #now: () => number;
  #previousHost: { at: number; reading: HostReading } | undefined;
  readonly #previous = new Map<string, { at: number; reading: ContainerReading }>();
  /** starts of containers already running once (restarts), not yet counted in a sample */
  readonly #restarts = new Map<string, number>();
  readonly #known = new Set<string>();
  readonly #ooms = new Map<string, number>();
  #hostMemory = 0;
  /** which cgroup files this host has: v2 (unified), v1 (cpuacct, memory, blkio), or none reachable */
  #cgroups: 'v2' | 'v1' | 'none' | undefined;
  #loop: IntervalHistogram | undefined;
  /** how the last sample read the containers, for /metrics and the benchmark */
  source: 'cgroup' | 'engine' | 'none' = 'none';

  constructor(deps: SamplerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  start(): void {
    this.#loop = monitorEventLoopDelay({ resolution: 20 });
    this.#loop.enable();
  }

  stop(): void {
    this.#loop?.disable();
  }

  /** a container started (the engine's event): a restart when it ran before */
  noteStart(id: string): void {
    if (this.#known.has(id)) this.#restarts.set(id, (this.#restarts.get(id) ?? 0) + 1);
    this.#known.add(id);
  }

  forget(id: string): void {
    this.#known.delete(id);
    this.#previous.delete(id);
    this.#restarts.delete(id);
  }

  async sample(): Promise<Sample> {
    const at = this.#now();
    // the host first: a container without a limit is measured against the host's memory
    const host = await this.#host(at);
    const containers = await this.#containers(at);
    return { at: new Date(at), host, containers };
  }

  async #host(at: number): Promise<(number | null)[]> {
    const [reading, data, engine] = await Promise.all([readHost(this.#deps.procRoot).catch(() => null), readDisk(this.#deps.dataDir), readDisk(this.#deps.engineRoot)]);
    const values: Record<string, number | null> = Object.fromEntries(hostMetrics.map((m) => [m, null]));
    if (reading) {
      Object.assign(values, hostReadingValues(reading, this.#previousHost, at));
      this.#previousHost = { at, reading };
    }
    if (data) {
      values['disk-used'] = data.used;
      values['disk-free'] = data.free;
      values['disk-used-percent'] = round((data.used / Math.max(1, data.used + data.free)) * 100);
    }
    if (engine) { values['engine-disk-used'] = engine.used; values['engine-disk-free'] = engine.free; }
    if (this.#loop) {
      values['event-loop-delay'] = round(this.#loop.percentile(99) / 1e6);
      this.#loop.reset();
    }
    values.rss = process.memoryUsage.rss();
    this.#hostMemory = reading?.memoryTotal ?? this.#hostMemory;
    return hostMetrics.map((m) => values[m]);
  }

  async #containers(at: number): Promise<ContainerSample[]> {
    const listed = (await this.#deps.containers().catch(() => [])).filter((c) => c.State === 'running');
    const ours = listed.flatMap((c) => {
      const owner = this.#deps.ownerOf(c.Labels);
      return owner ? [{ c, owner }] : [];
    });
    this.#cgroups ??= (await isCgroupV2(this.#deps.cgroupRoot)) ? 'v2' : (await isCgroupV1(this.#deps.cgroupRoot)) ? 'v1' : 'none';
    const readings = await this.#read(ours.map(({ c }) => c.Id));
    const seen = new Set<string>();
    const out: ContainerSample[] = [];
    ours.forEach(({ c, owner }, i) => {
      const reading = readings[i];
      seen.add(c.Id);
      this.#known.add(c.Id);
      if (!reading) return;
      out.push({ id: c.Id, name: (c.Names?.[0] ?? c.Id).replace(/^\//, ''), stack: owner.project, service: owner.service, values: this.#valuesOf(c, reading, at) });
    });
    for (const id of this.#previous.keys()) if (!seen.has(id)) this.#previous.delete(id);
    return out;
  }

  /** each container's counters: from its cgroup when reachable, else the engine's one-shot stats, a few at a time */
  async #read(ids: string[]): Promise<(ContainerReading | null)[]> {
    let viaEngine = 0;
    const queue = new PQueue({ concurrency: this.#deps.concurrency ?? 8 });
    const out = await Promise.all(ids.map((id) => queue.add(async () => {
      const reading = await this.#readCgroup(id);
      if (reading) return reading;
      viaEngine++;
      return this.#deps.engineStats(id).catch(() => null);
    }, { throwOnTimeout: true })));
    this.source = !ids.length ? 'none' : viaEngine ? 'engine' : 'cgroup';
    return out;
  }

  /** a container's counters from its cgroup files, null when they are out of reach */
  async #readCgroup(id: string): Promise<ContainerReading | null> {
    const { cgroupRoot, procRoot } = this.#deps;
    if (this.#cgroups === 'v2') {
      const dir = await cgroupDirOf(cgroupRoot, id);
      return dir ? readCgroup(dir, procRoot, this.#hostMemory).catch(() => null) : null;
    }
    if (this.#cgroups === 'v1') {
      const dirs = await cgroupV1DirsOf(cgroupRoot, id);
      return dirs ? readCgroupV1(dirs, procRoot, this.#hostMemory).catch(() => null) : null;
    }
    return null;
  }

  #valuesOf(c: ContainerInfo, reading: ContainerReading, at: number): (number | null)[] {
    const before = this.#previous.get(c.Id);
    this.#previous.set(c.Id, { at, reading });
    const values: Record<string, number | null> = Object.fromEntries(containerMetrics.map((m) => [m, null]));
    const seconds = before ? (at - before.at) / 1000 : 0;
    if (before && seconds > 0) {
      values.cpu = round(Math.max(0, (reading.cpuUsec - before.reading.cpuUsec) / (seconds * 1e6)) * 100);
      values['network-rx'] = round(rate(reading.rxBytes, before.reading.rxBytes, seconds));
      values['network-tx'] = round(rate(reading.txBytes, before.reading.txBytes, seconds));
      values['block-read'] = round(rate(reading.readBytes, before.reading.readBytes, seconds));
      values['block-write'] = round(rate(reading.writeBytes, before.reading.writeBytes, seconds));
      values['oom-kills'] = Math.max(0, reading.oomKills - before.reading.oomKills);
    }
    values.memory = reading.memoryUsed;
    values['memory-percent'] = reading.memoryLimit ? round((reading.memoryUsed / reading.memoryLimit) * 100) : null;
    // the cgroup's counter and the engine's events tell of the same kills: the larger count, not their sum
    values['oom-kills'] = Math.max(values['oom-kills'] ?? 0, this.#ooms.get(c.Id) ?? 0);
    this.#ooms.delete(c.Id);
    values.restarts = this.#restarts.get(c.Id) ?? 0;
    this.#restarts.delete(c.Id);
    values.unhealthy = /\(unhealthy\)/.test(c.Status ?? '') ? 1 : /\(healthy\)/.test(c.Status ?? '') ? 0 : null;
    return containerMetrics.map((m) => values[m]);
  }

  /** an OOM kill the engine reported (its event): counted in the next sample, beside the cgroup's own counter */
  noteOom(id: string): void {
    this.#ooms.set(id, (this.#ooms.get(id) ?? 0) + 1);
  }
}
