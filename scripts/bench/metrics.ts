// Benchmark (not a test): the metrics sampler's cost with 100 running containers (CPU of one core, RSS over an hour's samples), GET /metrics/series p50 over 7 and 90 days of seeded history, and database bytes per container per 90 days.
// Run with `npm run bench:metrics` after `npm test` has prepared PostgreSQL and dockerd (it reads .test-env). BENCH_CONTAINERS (100) and BENCH_SAMPLES (360: an hour at 10 s) change the sizes.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import Dockerode from 'dockerode';
import { startServer } from '../../tests/helpers/harness.ts';
import type { DockerRuntime } from '../../plugins/docker/api.ts';
import { readEngineStats } from '../../plugins/metrics/engine-stats.ts';
import { Sampler } from '../../plugins/metrics/sampler.ts';
import { containerMetrics, hostMetrics } from '../../plugins/metrics/series.ts';
import type { MetricsStore } from '../../plugins/metrics/store.ts';
import { median, standalone, type Figure } from './common.ts';

const count = Number(process.env.BENCH_CONTAINERS ?? 100);
const samples = Number(process.env.BENCH_SAMPLES ?? 360);
const project = `benchmetrics${process.pid}`;

/** CPU ticks (user + system) of a process, from /proc; null when it cannot be read */
const ticksOf = (pid: number | null) => {
  if (!pid) return null;
  try { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return Number(f[11]) + Number(f[12]); } catch { return null; }
};
const dockerdPid = () => { try { return Number(execFileSync('pidof', ['dockerd'], { encoding: 'utf8' }).trim().split(' ')[0]) || null; } catch { return null; } };

export async function metricsBench(): Promise<Figure[]> {
  const s = await startServer({
    config: { rateLimit: { perMinute: 100_000_000 } },
    plugins: { docker: { options: { reconcile: false, stopTimeoutSeconds: 1 } }, containers: {}, stacks: {}, alerts: {}, metrics: { options: { intervalMs: 3_600_000 } } },
  });
  const docker = new Dockerode({ socketPath: (process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock').replace(/^unix:\/\//, '') });
  const runtime = s.app.apis.docker as DockerRuntime;
  const store = (s.app.apis.metrics as { store: MetricsStore }).store;
  const ids: string[] = [];
  const figures: Figure[] = [];
  try {
    // containers of this installation as a deploy labels them, made straight on the engine (a deploy of 100 would measure the deploy)
    for (let i = 0; i < count; i++) {
      const c = await docker.createContainer({
        Image: 'dockwright-test/busybox:1', Cmd: ['sleep', '36000'], name: `${project}-app-${i + 1}`,
        Labels: { 'dockwright.managed': 'true', 'dockwright.project': project, 'dockwright.service': 'app', 'dockwright.installation': runtime.installationId },
        HostConfig: { Memory: 16 * 2 ** 20 },
      });
      await c.start();
      ids.push(c.id);
    }
    const sampler = new Sampler({
      containers: () => runtime.containers(), engineStats: (id) => readEngineStats(runtime.docker, id),
      ownerOf: (labels) => { const o = runtime.ownership(labels); return o.owner === 'this' ? { project: o.project, service: o.service } : null; },
      procRoot: '/proc', cgroupRoot: '/sys/fs/cgroup', engineRoot: '/var/lib/docker', dataDir: s.dataDir,
    });
    sampler.start();
    for (let i = 0; i < 5; i++) await store.write(await sampler.sample());
    global.gc?.();
    const rssStart = process.memoryUsage.rss();
    const engine = dockerdPid();
    const engineBefore = ticksOf(engine);
    const cpu = process.cpuUsage();
    const wall = performance.now();
    const rss: number[] = [];
    const heap: number[] = [];
    const heapStart = process.memoryUsage().heapUsed;
    for (let i = 0; i < samples; i++) {
      const sample = await sampler.sample();
      if (sample.containers.length !== count) throw new Error(`sampled ${sample.containers.length} containers, not ${count}`);
      await store.write(sample);
      if (i % 60 === 59) { global.gc?.(); rss.push(process.memoryUsage.rss()); heap.push(process.memoryUsage().heapUsed); }
    }
    const used = process.cpuUsage(cpu);
    const cpuMsPerSample = (used.user + used.system) / 1000 / samples;
    const engineTicks = engineBefore !== null ? (ticksOf(engine)! - engineBefore) : null;
    sampler.stop();
    figures.push({ figure: `sampling ${count} containers every 10 s (${sampler.source} reads): Dockwright's CPU`, value: (cpuMsPerSample / 10_000) * 100, unit: '% of one core', target: { below: 2 }, note: `${cpuMsPerSample.toFixed(1)} ms CPU a sample, ${((performance.now() - wall) / samples).toFixed(0)} ms wall (a loaded, shared machine)` });
    if (engineTicks !== null) figures.push({ figure: `the engine's CPU for those reads (dockerd, one-shot stats)`, value: ((engineTicks * 10) / samples / 10_000) * 100, unit: '% of one core', target: { below: 100 }, note: 'cgroup reads skip the engine' });
    figures.push({ figure: `RSS growth over ${samples} samples (${(samples / 360).toFixed(1)} h at 10 s), after GC`, value: (Math.max(...rss) - rssStart) / 2 ** 20, unit: 'MiB', target: { below: 20 }, note: `RSS ${(rssStart / 2 ** 20).toFixed(0)} MiB at start; per 60 samples: ${rss.map((r) => (r / 2 ** 20).toFixed(0)).join(', ')} MiB` });
    figures.push({ figure: `JS heap growth over ${samples} samples, after GC`, value: (heap.at(-1)! - heapStart) / 2 ** 20, unit: 'MiB', target: { below: 5 }, note: `heap ${(heapStart / 2 ** 20).toFixed(1)} MiB at start; per 60 samples: ${heap.map((r) => (r / 2 ** 20).toFixed(1)).join(', ')} MiB` });

    // 90 days of history for every container: every tier full, as retention keeps it
    const db = s.app.db;
    const wave = (n: number) => `${n} + ${n / 2} * sin(extract(epoch FROM t) / 3600)`;
    const containerRow = `ARRAY[${containerMetrics.map((m) => (m === 'cpu' ? wave(20) : m === 'memory' ? wave(5e7) : m.startsWith('network') || m.startsWith('block') ? wave(1e4) : m === 'memory-percent' ? wave(30) : '0')).join(', ')}]::real[]`;
    const tiers = [['metric_points_10s', '10 s', '24 hours'], ['metric_points_1m', '1 min', '7 days'], ['metric_points_15m', '15 min', '90 days']] as const;
    await db.query('DELETE FROM metric_points_10s');
    for (const [table, step, keep] of tiers) {
      await db.query(`INSERT INTO ${table} (source, t, v) SELECT s.id, t, ${containerRow} FROM metric_sources s,
        generate_series(date_bin('${step}', now() - interval '${keep}', 'epoch'::timestamptz), now(), interval '${step}') t WHERE s.stack = $1 ON CONFLICT DO NOTHING`, [project]);
      await db.query(`VACUUM ANALYZE ${table}`);
    }
    const { rows: [size] } = await db.query<{ bytes: string }>(
      `SELECT sum(pg_total_relation_size(c))::bigint AS bytes FROM unnest(ARRAY['metric_points_10s', 'metric_points_1m', 'metric_points_15m']::regclass[]) c`);
    const { rows: [rowCount] } = await db.query<{ n: string }>(`SELECT (SELECT count(*) FROM metric_points_10s) + (SELECT count(*) FROM metric_points_1m) + (SELECT count(*) FROM metric_points_15m) AS n`);
    figures.push({ figure: 'database bytes per container per 90 days (three tiers, indexes included)', value: Number(size.bytes) / count / 2 ** 20, unit: 'MiB', target: { below: 10 }, note: `${Math.round(Number(rowCount.n) / count)} rows (its stack's share included) of ${containerMetrics.length} metrics each (host row: ${hostMetrics.length})` });

    const timed = async (query: string, n = 30) => {
      const times: number[] = [];
      for (let i = 0; i < n + 3; i++) {
        const t0 = performance.now();
        const res = await s.api('GET', `/api/v1/metrics/series?${query}`, { unchecked: true });
        if (res.status !== 200 || !res.body.points.length) throw new Error(`${query}: ${res.status} ${res.text.slice(0, 200)}`);
        if (i >= 3) times.push(performance.now() - t0);
      }
      return median(times);
    };
    const range = (days: number) => `from=${new Date(Date.now() - days * 86_400_000).toISOString()}&to=${new Date().toISOString()}`;
    const one = `container:${ids[0]}`;
    figures.push({ figure: 'GET /metrics/series, one container, 7 days (p50)', value: await timed(`scope=${one}&metric=cpu&${range(7)}`), unit: 'ms', target: { below: 20 } });
    figures.push({ figure: 'GET /metrics/series, one container, 90 days (p50)', value: await timed(`scope=${one}&metric=cpu&${range(90)}`), unit: 'ms', target: { below: 50 } });
    figures.push({ figure: `GET /metrics/series, a stack of ${count} containers, 7 days (p50)`, value: await timed(`scope=stack:${project}&metric=memory&${range(7)}`, 10), unit: 'ms', target: { below: 1000 } });
    figures.push({ figure: `GET /metrics/series, a stack of ${count} containers, 90 days (p50)`, value: await timed(`scope=stack:${project}&metric=memory&${range(90)}`, 10), unit: 'ms', target: { below: 1000 } });
  } finally {
    await Promise.all(ids.map((id) => docker.getContainer(id).remove({ force: true }).catch(() => undefined)));
    await s.close();
  }
  return figures;
}

await standalone(import.meta.url, metricsBench);
