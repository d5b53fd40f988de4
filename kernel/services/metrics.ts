// The service's measurements: kept as plain numbers where they happen (a request costs a few increments), and written in Prometheus' text format by prom-client only when scraped.
import type { MetricFamily, MetricSample } from '../../sdk/index.ts';

/** seconds: from a fast read to a slow upload */
const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** seconds: from a no-op job to a long build */
const jobBuckets = [0.01, 0.1, 0.5, 1, 5, 15, 30, 60, 300, 900, 3600];

/** a histogram as counts per bucket (not cumulative until it is written) */
class Histogram {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(readonly bounds: readonly number[]) { this.counts = new Float64Array(bounds.length + 1); }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }

  samples(name: string, labels: Record<string, string>): MetricSample[] {
    const out: MetricSample[] = [];
    let cumulative = 0;
    this.bounds.forEach((le, i) => {
      cumulative += this.counts[i];
      out.push({ metricName: `${name}_bucket`, labels: { ...labels, le: String(le) }, value: cumulative });
    });
    out.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: this.count });
    out.push({ metricName: `${name}_sum`, labels, value: this.sum });
    out.push({ metricName: `${name}_count`, labels, value: this.count });
    return out;
  }
}

/** the requests of one route (method and path template): answers by status, and their latency */
export class RouteMeter {
  private readonly statuses = new Map<number, number>();
  private readonly latency = new Histogram(latencyBuckets);
  constructor(readonly method: string, readonly route: string) {}

  observe(status: number, seconds: number): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    this.latency.observe(seconds);
  }

  counts(): MetricSample[] {
    return [...this.statuses].map(([status, value]) => ({ labels: { method: this.method, route: this.route, status: String(status) }, value }));
  }

  latencies(): MetricSample[] {
    return this.latency.count ? this.latency.samples('dockwright_http_request_duration_seconds', { method: this.method, route: this.route }) : [];
  }
}

export class Metrics {
  private readonly routes: RouteMeter[] = [];
  /** requests no route matched (404, 405, the portal's files) */
  readonly unmatched = new RouteMeter('any', '(unmatched)');
  private readonly jobs = new Map<string, { statuses: Map<string, number>; duration: Histogram }>();
  private readonly families: MetricFamily[] = [];

  /** a meter for one route, made once at boot */
  route(method: string, route: string): RouteMeter {
    const meter = new RouteMeter(method, route);
    this.routes.push(meter);
    return meter;
  }

  job(type: string, status: string, seconds: number | null): void {
    let entry = this.jobs.get(type);
    if (!entry) this.jobs.set(type, entry = { statuses: new Map(), duration: new Histogram(jobBuckets) });
    entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1);
    if (seconds !== null) entry.duration.observe(seconds);
  }

  /** a family measured when scraped (queue depth, containers by state, open alerts…): kernel parts and plugins add theirs */
  add(family: MetricFamily): void {
    if (!/^dockwright_[a-z0-9_]+$/.test(family.name)) throw new Error(`metric "${family.name}": names start with dockwright_ and hold a-z, 0-9 and _`);
    if (this.families.some((f) => f.name === family.name)) throw new Error(`metric "${family.name}" is added twice`);
    this.families.push(family);
  }

  private own(): MetricFamily[] {
    const meters = [...this.routes, this.unmatched];
    return [
      { name: 'dockwright_http_requests_total', help: 'requests answered, by route template and status', type: 'counter', collect: () => meters.flatMap((m) => m.counts()) },
      { name: 'dockwright_http_request_duration_seconds', help: 'time from a request to its answer, by route template', type: 'histogram', collect: () => meters.flatMap((m) => m.latencies()) },
      {
        name: 'dockwright_jobs_finished_total', help: 'jobs this instance finished, by type and status', type: 'counter',
        collect: () => [...this.jobs].flatMap(([type, e]) => [...e.statuses].map(([status, value]) => ({ labels: { type, status }, value }))),
      },
      {
        name: 'dockwright_job_duration_seconds', help: 'time from a job\'s start to its end, by type', type: 'histogram',
        collect: () => [...this.jobs].flatMap(([type, e]) => (e.duration.count ? e.duration.samples('dockwright_job_duration_seconds', { type }) : [])),
      },
    ];
  }

  /** the text Prometheus scrapes: these families, then the process's own (memory, event loop lag, GC) from prom-client */
  async render(): Promise<{ text: string; contentType: string }> {
    const registry = await (this.registry ??= this.makeRegistry());
    return { text: await registry.metrics(), contentType: registry.contentType };
  }

  private registry?: Promise<import('prom-client').Registry>;

  private async makeRegistry(): Promise<import('prom-client').Registry> {
    // loaded at the first scrape: an instance nobody scrapes does not pay for prom-client
    const { Registry, collectDefaultMetrics } = await import('prom-client');
    const registry = new Registry();
    collectDefaultMetrics({ register: registry, prefix: 'dockwright_' });
    for (const family of [...this.own(), ...this.families]) {
      // a metric of prom-client's shape whose values are read from here at each scrape
      registry.registerMetric({
        name: family.name, help: family.help, type: family.type,
        get: async () => ({ name: family.name, help: family.help, type: family.type, aggregator: 'sum', values: await family.collect() }),
      } as never);
    }
    return registry;
  }
}
