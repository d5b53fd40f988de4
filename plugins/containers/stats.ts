// A container's resource use: the engine's stats as one snapshot (CPU %, memory, network, block I/O), and a stream of them, one line a second.
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Dockerode from 'dockerode';
import { Type, type Static } from '../../sdk/index.ts';

export const StatsSchema = Type.Object({
  id: Type.String({ description: 'full container id' }),
  name: Type.String(),
  at: Type.String({ format: 'date-time', description: 'when the engine read it' }),
  cpuPercent: Type.Number({ minimum: 0, description: 'CPU use since the previous reading: 100 is one whole CPU (so up to 100 × cpus)' }),
  cpus: Type.Integer({ minimum: 0, description: 'the CPUs the container can see' }),
  memory: Type.Object({
    used: Type.Integer({ minimum: 0, description: 'bytes, the page cache left out (as `docker stats` counts)' }),
    limit: Type.Integer({ minimum: 0, description: 'bytes: the container\'s limit, or the host\'s memory' }),
    percent: Type.Number({ minimum: 0 }),
  }),
  network: Type.Object({ rxBytes: Type.Integer({ minimum: 0 }), txBytes: Type.Integer({ minimum: 0 }) }, { description: 'since the container started, all interfaces' }),
  blockIo: Type.Object({ readBytes: Type.Integer({ minimum: 0 }), writeBytes: Type.Integer({ minimum: 0 }) }, { description: 'since the container started' }),
  pids: Type.Integer({ minimum: 0 }),
});
export type Stats = Static<typeof StatsSchema>;

/** the engine's stats document, the fields read here (cgroup v1 and v2) */
export interface EngineStats {
  read?: string;
  name?: string;
  id?: string;
  cpu_stats?: { cpu_usage?: { total_usage?: number; percpu_usage?: number[] }; system_cpu_usage?: number; online_cpus?: number };
  precpu_stats?: { cpu_usage?: { total_usage?: number }; system_cpu_usage?: number };
  memory_stats?: { usage?: number; limit?: number; stats?: Record<string, number> };
  networks?: Record<string, { rx_bytes?: number; tx_bytes?: number }>;
  blkio_stats?: { io_service_bytes_recursive?: { op: string; value: number }[] | null };
  pids_stats?: { current?: number };
}

const round = (n: number) => Math.round(n * 100) / 100;

/** one reading as `docker stats` shows it */
export function snapshotOf(s: EngineStats, id: string, name: string): Stats {
  const cpu = s.cpu_stats ?? {};
  const pre = s.precpu_stats ?? {};
  const cpus = cpu.online_cpus || cpu.cpu_usage?.percpu_usage?.length || 0;
  const cpuDelta = (cpu.cpu_usage?.total_usage ?? 0) - (pre.cpu_usage?.total_usage ?? 0);
  const systemDelta = (cpu.system_cpu_usage ?? 0) - (pre.system_cpu_usage ?? 0);
  const cpuPercent = pre.system_cpu_usage && systemDelta > 0 && cpuDelta > 0 ? round((cpuDelta / systemDelta) * cpus * 100) : 0;
  const mem = s.memory_stats ?? {};
  const detail = mem.stats ?? {};
  // cgroup v1 counts the page cache in usage (total_inactive_file), v2 as inactive_file
  const cache = detail.total_inactive_file ?? detail.inactive_file ?? 0;
  const used = Math.max(0, (mem.usage ?? 0) - (cache < (mem.usage ?? 0) ? cache : 0));
  const limit = mem.limit ?? 0;
  let rxBytes = 0;
  let txBytes = 0;
  for (const n of Object.values(s.networks ?? {})) { rxBytes += n.rx_bytes ?? 0; txBytes += n.tx_bytes ?? 0; }
  let readBytes = 0;
  let writeBytes = 0;
  for (const e of s.blkio_stats?.io_service_bytes_recursive ?? []) {
    const op = e.op.toLowerCase();
    if (op === 'read') readBytes += e.value;
    else if (op === 'write') writeBytes += e.value;
  }
  const at = s.read && !s.read.startsWith('0001-') ? new Date(s.read).toISOString() : new Date().toISOString();
  return {
    id, name, at, cpuPercent, cpus,
    memory: { used, limit, percent: limit > 0 ? round((used / limit) * 100) : 0 },
    network: { rxBytes, txBytes },
    blockIo: { readBytes, writeBytes },
    pids: s.pids_stats?.current ?? 0,
  };
}

/** one reading: the engine takes two samples a second apart, so the CPU use is that second's */
export async function statsOnce(docker: Dockerode, id: string, name: string): Promise<Stats> {
  const raw = await docker.getContainer(id).stats({ stream: false }) as unknown as EngineStats;
  return snapshotOf(raw, id, name);
}

/** the engine's stream of readings (one a second) as newline-delimited snapshots; the first, without a previous sample, is left out */
class Snapshots extends Transform {
  #pending = '';
  #first = true;

  constructor(private readonly id: string, private readonly name: string) { super({ readableObjectMode: false }); }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.#pending += chunk.toString('utf8');
    let cut: number;
    while ((cut = this.#pending.indexOf('\n')) >= 0) {
      const line = this.#pending.slice(0, cut).trim();
      this.#pending = this.#pending.slice(cut + 1);
      if (!line) continue;
      let raw: EngineStats;
      try { raw = JSON.parse(line) as EngineStats; } catch { continue; }
      const skip = this.#first && !raw.precpu_stats?.system_cpu_usage;
      this.#first = false;
      if (!skip) this.push(`${JSON.stringify(snapshotOf(raw, this.id, this.name))}\n`);
    }
    done();
  }
}

export async function statsStream(docker: Dockerode, id: string, name: string): Promise<Readable> {
  const source = await docker.getContainer(id).stats({ stream: true }) as unknown as Readable;
  const out = new Snapshots(id, name);
  pipeline(source, out).catch(() => undefined); // closing `out` (the client left) ends the engine call
  return out;
}
