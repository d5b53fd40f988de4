// The metrics plugin: samples this installation's containers, the host and Dockwright every interval, keeps 90 days in tiers, answers series, and checks alert rules on each sample.
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { definePlugin, Type, type Principal } from '../../sdk/index.ts';
import { alertsPlugin } from '../alerts/api.ts';
import { dockerPlugin } from '../docker/api.ts';
import { Collector } from './collector.ts';
import { readEngineStats } from './engine-stats.ts';
import { ruleRoutes } from './rule-routes.ts';
import { RuleRunner } from './rule-runner.ts';
import { RuleStore } from './rule-store.ts';
import { RuleEngine } from './rules.ts';
import { Sampler } from './sampler.ts';
import { seriesRoute } from './series-routes.ts';
import { containerMetrics } from './series.ts';
import { MetricsStore } from './store.ts';
import { problems } from './problems.ts';

const Options = Type.Object({
  intervalMs: Type.Integer({ minimum: 200, default: 10_000, description: 'how often everything is sampled (the 10 s tier is written at this pace)' }),
  procRoot: Type.String({ pattern: '^/', default: '/proc', description: 'where the host\'s /proc is mounted' }),
  cgroupRoot: Type.String({ pattern: '^/', default: '/sys/fs/cgroup', description: 'the cgroup v2 root; where it is no unified hierarchy, the engine\'s one-shot stats are read instead' }),
  engineRoot: Type.String({ pattern: '^/', default: '/var/lib/docker', description: 'the engine\'s data root, whose free disk is sampled' }),
  concurrency: Type.Integer({ minimum: 1, maximum: 64, default: 8, description: 'engine stats calls at once when the cgroups are out of reach' }),
}, { additionalProperties: false });

export default definePlugin({
  name: 'metrics',
  problems,
  version: '1.0.0',
  services: ['db', 'events', 'locks'],
  requires: [dockerPlugin, alertsPlugin],
  description: 'Metrics history: CPU, memory, network, disk I/O, restarts and health of every container, the host and Dockwright, kept 90 days in tiers; alert rules and silences on them',
  options: Options,
  setup(ctx) {
    const o = ctx.options;
    const runtime = ctx.deps.docker;
    ctx.migrations.from(new URL('./migrations', import.meta.url));
    const store = new MetricsStore(ctx.db);
    const sampler = new Sampler({
      containers: () => runtime.containers(),
      ownerOf: (labels) => { const own = runtime.ownership(labels); return own.owner === 'this' ? { project: own.project, service: own.service } : null; },
      engineStats: (id) => readEngineStats(runtime.docker, id),
      procRoot: o.procRoot, cgroupRoot: o.cgroupRoot, engineRoot: o.engineRoot, dataDir: resolve(ctx.dataDir, '..', '..'), concurrency: o.concurrency,
    });
    const rules = new RuleStore(ctx.db);
    const runner = new RuleRunner({ rules, metrics: store, engine: new RuleEngine(Date.now), alerts: ctx.deps.alerts, log: ctx.log });
    ctx.deps.alerts.addKind({ kind: 'rule', family: true, severity: 'warning', description: 'an alert rule\'s condition held for its duration (kind rule:<id>; resolved past its recovery threshold)' });
    ctx.events.on('container.started', (p) => { if (typeof p.id === 'string') sampler.noteStart(p.id); });
    const collector = new Collector({
      sampler, store, log: ctx.log, intervalMs: o.intervalMs,
      lock: () => ctx.locks.try('metrics-sampler'),
      onSample: (sample) => runner.onSample(sample),
    });

    const allowedStacks = (principal: Principal, stacks: readonly string[]) => runtime.allowedProjects(principal, stacks, 'read');
    ctx.routes.add(seriesRoute({ store, allowedStacks }));
    for (const route of ruleRoutes({ rules, allowedStacks, changed: () => runner.changed() })) ctx.routes.add(route);

    // the newest sample of each container, for those who scrape
    for (const metric of ['cpu', 'memory', 'network-rx', 'network-tx', 'block-read', 'block-write'] as const) {
      const i = containerMetrics.indexOf(metric);
      ctx.metrics.add({
        name: `dockwright_container_${metric.replace('-', '_')}${metric === 'cpu' ? '_percent' : metric === 'memory' ? '_bytes' : '_bytes_per_second'}`,
        help: `the container's ${metric} at the last sample (${metric === 'cpu' ? 'percent of one core' : metric === 'memory' ? 'bytes, the inactive file cache left out' : 'bytes per second'})`,
        type: 'gauge',
        collect: () => (collector.last?.containers ?? []).flatMap((c) => (c.values[i] === null ? [] : [{ labels: { stack: c.stack, service: c.service ?? '', container: c.name }, value: c.values[i]! }])),
      });
    }
    ctx.metrics.add({
      name: 'dockwright_metrics_sample_seconds', help: 'how long the last metrics sample took to read and write', type: 'gauge',
      collect: () => (collector.last ? [{ value: collector.lastCostMs / 1000 }] : []),
    });

    let oomEvents: Readable | undefined;
    const followOoms = async () => {
      oomEvents = await runtime.docker.getEvents({ filters: { type: ['container'], event: ['oom'] } }) as unknown as Readable;
      oomEvents.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n')) {
          try { const e = JSON.parse(line) as { id?: string }; if (e.id) sampler.noteOom(e.id); } catch { /* a partial line */ }
        }
      });
      oomEvents.on('error', () => undefined);
    };
    ctx.onStart(async () => {
      await rules.seed();
      collector.start();
      followOoms().catch((err) => ctx.log.warn({ err }, 'the engine\'s OOM events cannot be followed'));
    });
    ctx.onStop(async () => {
      oomEvents?.destroy();
      await collector.stop();
    });
    return { store, collector, rules: runner };
  },
});
