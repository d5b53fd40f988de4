// Host readings straight from /proc (CPU time, memory, load, network) and statfs (free disk): cumulative counters, turned into rates by the sampler.
import { readFile, statfs } from 'node:fs/promises';
import { join } from 'node:path';

/** cumulative counters and levels of the host at one moment */
export interface HostReading {
  /** CPU time busy and in all, in clock ticks, over every core */
  cpuBusy: number; cpuTotal: number; cores: number;
  memoryUsed: number; memoryTotal: number;
  load1: number;
  /** bytes since boot over every interface but loopback */
  rxBytes: number; txBytes: number;
}

export interface DiskReading { free: number; used: number; total: number }

/** /proc/stat: the first `cpu` line (user nice system idle iowait irq softirq steal …) and the count of `cpuN` lines */
export function parseStat(text: string): { busy: number; total: number; cores: number } {
  let busy = 0; let total = 0; let cores = 0;
  for (const line of text.split('\n')) {
    if (/^cpu\d+\s/.test(line)) cores++;
    else if (line.startsWith('cpu ')) {
      const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
      total = f.reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
      busy = total - (f[3] ?? 0) - (f[4] ?? 0);
    }
  }
  return { busy, total, cores: Math.max(cores, 1) };
}

/** /proc/meminfo: used is total minus available, as `free` counts it */
export function parseMeminfo(text: string): { used: number; total: number } {
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0) * 1024;
  const total = kb('MemTotal');
  const available = kb('MemAvailable') || kb('MemFree') + kb('Buffers') + kb('Cached');
  return { used: Math.max(0, total - available), total };
}

/** /proc/net/dev: received and sent bytes over every interface but loopback */
export function parseNetDev(text: string): { rx: number; tx: number } {
  let rx = 0; let tx = 0;
  for (const line of text.split('\n').slice(2)) {
    const cut = line.indexOf(':');
    if (cut < 0) continue;
    if (line.slice(0, cut).trim() === 'lo') continue;
    const f = line.slice(cut + 1).trim().split(/\s+/).map(Number);
    rx += f[0] || 0;
    tx += f[8] || 0;
  }
  return { rx, tx };
}

export async function readHost(procRoot: string): Promise<HostReading> {
  const [stat, meminfo, loadavg, netdev] = await Promise.all(['stat', 'meminfo', 'loadavg', 'net/dev'].map((f) => readFile(join(procRoot, f), 'utf8')));
  const cpu = parseStat(stat);
  const mem = parseMeminfo(meminfo);
  const net = parseNetDev(netdev);
  return {
    cpuBusy: cpu.busy, cpuTotal: cpu.total, cores: cpu.cores, memoryUsed: mem.used, memoryTotal: mem.total,
    load1: Number(loadavg.split(/\s+/)[0]) || 0, rxBytes: net.rx, txBytes: net.tx,
  };
}

/** free and used bytes of the file system holding path (free as an unprivileged writer sees it); null when it is missing */
export async function readDisk(path: string): Promise<DiskReading | null> {
  const s = await statfs(path).catch(() => null);
  if (!s || !s.blocks) return null;
  const total = Number(s.blocks) * Number(s.bsize);
  const free = Number(s.bavail) * Number(s.bsize);
  return { free, used: total - Number(s.bfree) * Number(s.bsize), total };
}
