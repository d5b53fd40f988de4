// A container's counters from its cgroup v2 folder (cpu.stat, memory.current/.stat/.events, io.stat) and its network from /proc/<pid>/net/dev.
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseNetDev } from './proc.ts';

/** cumulative counters and levels of one container at one moment */
export interface ContainerReading {
  /** CPU time in microseconds since it started */
  cpuUsec: number;
  /** bytes in use, the inactive file cache left out (as `docker stats` counts) */
  memoryUsed: number;
  /** bytes it may use (its limit, or the host's memory) */
  memoryLimit: number;
  rxBytes: number; txBytes: number;
  readBytes: number; writeBytes: number;
  /** OOM kills since it started */
  oomKills: number;
}

const keyed = (text: string) => new Map(text.split('\n').filter(Boolean).map((l) => { const [k, v] = l.trim().split(/\s+/); return [k, Number(v)] as const; }));

/** io.stat: `<maj:min> rbytes=… wbytes=… …`, one line per device */
export function parseIoStat(text: string): { read: number; write: number } {
  let read = 0; let write = 0;
  for (const m of text.matchAll(/\brbytes=(\d+)/g)) read += Number(m[1]);
  for (const m of text.matchAll(/\bwbytes=(\d+)/g)) write += Number(m[1]);
  return { read, write };
}

/** where the engine puts a container's cgroup under the cgroup v2 root: systemd driver, then cgroupfs driver */
export async function cgroupDirOf(cgroupRoot: string, id: string): Promise<string | null> {
  for (const dir of [join(cgroupRoot, 'system.slice', `docker-${id}.scope`), join(cgroupRoot, 'docker', id)]) {
    if (await access(join(dir, 'cpu.stat')).then(() => true, () => false)) return dir;
  }
  return null;
}

/** true when the cgroup root is a unified (v2) hierarchy this process can read */
export async function isCgroupV2(cgroupRoot: string): Promise<boolean> {
  return access(join(cgroupRoot, 'cgroup.controllers')).then(() => true, () => false);
}

export async function readCgroup(dir: string, procRoot: string, hostMemory: number): Promise<ContainerReading> {
  const read = (f: string) => readFile(join(dir, f), 'utf8').catch(() => '');
  const [cpuStat, current, memStat, max, events, io, procs] = await Promise.all(['cpu.stat', 'memory.current', 'memory.stat', 'memory.max', 'memory.events', 'io.stat', 'cgroup.procs'].map(read));
  const stats = keyed(memStat);
  const usage = Number(current.trim()) || 0;
  const inactive = stats.get('inactive_file') ?? 0;
  const limit = /^\d+$/.test(max.trim()) ? Number(max.trim()) : hostMemory;
  const ioBytes = parseIoStat(io);
  // a process of the container shows its network namespace's interfaces
  const pid = procs.split('\n').find((l) => /^\d+$/.test(l.trim()))?.trim();
  const net = pid ? parseNetDev(await readFile(join(procRoot, pid, 'net/dev'), 'utf8').catch(() => '')) : { rx: 0, tx: 0 };
  return {
    cpuUsec: keyed(cpuStat).get('usage_usec') ?? 0,
    memoryUsed: Math.max(0, usage - (inactive < usage ? inactive : 0)), memoryLimit: Math.min(limit, hostMemory || limit),
    rxBytes: net.rx, txBytes: net.tx, readBytes: ioBytes.read, writeBytes: ioBytes.write,
    oomKills: keyed(events).get('oom_kill') ?? 0,
  };
}

/** the controllers of a cgroup v1 hierarchy read here */
const v1Controllers = ['cpuacct', 'memory', 'blkio'] as const;

/** true when the root holds the cgroup v1 controllers read here */
export async function isCgroupV1(cgroupRoot: string): Promise<boolean> {
  const found = await Promise.all(v1Controllers.slice(0, 2).map((c) => access(join(cgroupRoot, c)).then(() => true, () => false)));
  return found.every(Boolean);
}

/** a container's folder in each v1 controller (cgroupfs driver, then systemd driver); null when its cpuacct folder is missing */
export async function cgroupV1DirsOf(cgroupRoot: string, id: string): Promise<Record<typeof v1Controllers[number], string> | null> {
  for (const rel of [join('docker', id), join('system.slice', `docker-${id}.scope`)]) {
    if (await access(join(cgroupRoot, 'cpuacct', rel, 'cpuacct.usage')).then(() => true, () => false)) {
      return { cpuacct: join(cgroupRoot, 'cpuacct', rel), memory: join(cgroupRoot, 'memory', rel), blkio: join(cgroupRoot, 'blkio', rel) };
    }
  }
  return null;
}

/** blkio.throttle.io_service_bytes: `<maj:min> Read|Write|… <bytes>` per device, and a Total line */
export function parseBlkio(text: string): { read: number; write: number } {
  let read = 0; let write = 0;
  for (const line of text.split('\n')) {
    const [, op, value] = line.trim().split(/\s+/);
    if (op === 'Read') read += Number(value) || 0;
    else if (op === 'Write') write += Number(value) || 0;
  }
  return { read, write };
}

export async function readCgroupV1(dirs: Record<typeof v1Controllers[number], string>, procRoot: string, hostMemory: number): Promise<ContainerReading> {
  const read = (dir: string, f: string) => readFile(join(dir, f), 'utf8').catch(() => '');
  const [usage, current, memStat, limit, oom, io, procs] = await Promise.all([
    read(dirs.cpuacct, 'cpuacct.usage'), read(dirs.memory, 'memory.usage_in_bytes'), read(dirs.memory, 'memory.stat'), read(dirs.memory, 'memory.limit_in_bytes'),
    read(dirs.memory, 'memory.oom_control'), read(dirs.blkio, 'blkio.throttle.io_service_bytes'), read(dirs.cpuacct, 'cgroup.procs'),
  ]);
  const used = Number(current.trim()) || 0;
  const inactive = keyed(memStat).get('total_inactive_file') ?? 0;
  const max = Number(limit.trim()) || 0;
  const ioBytes = parseBlkio(io);
  const pid = procs.split('\n').find((l) => /^\d+$/.test(l.trim()))?.trim();
  const net = pid ? parseNetDev(await readFile(join(procRoot, pid, 'net/dev'), 'utf8').catch(() => '')) : { rx: 0, tx: 0 };
  return {
    cpuUsec: (Number(usage.trim()) || 0) / 1000,
    memoryUsed: Math.max(0, used - (inactive < used ? inactive : 0)),
    // no limit is a huge number in v1: the host's memory is the limit then
    memoryLimit: hostMemory && (!max || max > hostMemory) ? hostMemory : max,
    rxBytes: net.rx, txBytes: net.tx, readBytes: ioBytes.read, writeBytes: ioBytes.write,
    oomKills: keyed(oom).get('oom_kill') ?? 0,
  };
}
