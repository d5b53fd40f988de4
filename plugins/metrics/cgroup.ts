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
