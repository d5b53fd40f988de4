// A container's counters from the engine's one-shot stats (GET /containers/{id}/stats?stream=false&one-shot=true), where its cgroup cannot be read.
import type Dockerode from 'dockerode';
import type { ContainerReading } from './cgroup.ts';

/** the fields of the engine's stats document read here (cgroup v1 and v2) */
export interface EngineStats {
  cpu_stats?: { cpu_usage?: { total_usage?: number } };
  memory_stats?: { usage?: number; limit?: number; stats?: Record<string, number> };
  networks?: Record<string, { rx_bytes?: number; tx_bytes?: number }>;
  blkio_stats?: { io_service_bytes_recursive?: { op: string; value: number }[] | null };
}

export function readingOf(s: EngineStats): ContainerReading {
  const mem = s.memory_stats ?? {};
  const detail = mem.stats ?? {};
  const usage = mem.usage ?? 0;
  // cgroup v1 names the page cache total_inactive_file, v2 inactive_file
  const cache = detail.total_inactive_file ?? detail.inactive_file ?? 0;
  let rxBytes = 0; let txBytes = 0; let readBytes = 0; let writeBytes = 0;
  for (const n of Object.values(s.networks ?? {})) { rxBytes += n.rx_bytes ?? 0; txBytes += n.tx_bytes ?? 0; }
  for (const e of s.blkio_stats?.io_service_bytes_recursive ?? []) {
    const op = e.op.toLowerCase();
    if (op === 'read') readBytes += e.value;
    else if (op === 'write') writeBytes += e.value;
  }
  return {
    cpuUsec: (s.cpu_stats?.cpu_usage?.total_usage ?? 0) / 1000,
    memoryUsed: Math.max(0, usage - (cache < usage ? cache : 0)), memoryLimit: mem.limit ?? 0,
    rxBytes, txBytes, readBytes, writeBytes, oomKills: 0,
  };
}

/** one reading without the engine's one-second wait (one-shot): the rates come from the previous reading */
export async function readEngineStats(docker: Dockerode, id: string): Promise<ContainerReading> {
  const raw = await docker.getContainer(id).stats({ stream: false, 'one-shot': true } as { stream: false }) as unknown as EngineStats;
  return readingOf(raw);
}
