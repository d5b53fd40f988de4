// Each sample through the rules: what each rule looks at (the host, a stack's sum, each matching container; windowed counts; the disk forecast), and the engine's transitions raised and resolved as alerts `rule:<id>`.
import type { Logger } from '../../sdk/index.ts';
import type { AlertsApi } from '../alerts/api.ts';
import { ruleOf, type RuleRow, type RuleStore } from './rule-store.ts';
import { globMatch, type Observation, type Rule, type RuleEngine, type Silence, type Transition } from './rules.ts';
import { containerIndex, containerMetrics, hostIndex, hostMetrics, stackAggregate, type ContainerSample, type Sample } from './series.ts';
import type { MetricsStore } from './store.ts';

/** what rules may look at: the stored metrics and a few derived ones */
export const ruleMetrics = {
  host: [...hostMetrics, 'disk-hours-left'] as string[],
  container: [...containerMetrics, 'restarts-10m', 'oom-kills-10m'] as string[],
};
const windowMs = 600_000;

/** hours until `free` reaches 0 at the pace of a least-squares line through the points; null without a shrinking trend */
export function hoursLeft(points: readonly [number, number][]): number | null {
  if (points.length < 10 || points.at(-1)![0] - points[0][0] < 3600) return null;
  const n = points.length;
  const mx = points.reduce((a, [t]) => a + t, 0) / n;
  const my = points.reduce((a, [, v]) => a + v, 0) / n;
  let num = 0; let den = 0;
  for (const [t, v] of points) { num += (t - mx) * (v - my); den += (t - mx) ** 2; }
  const slope = den ? num / den : 0; // bytes per second
  if (slope >= 0) return 1e6;
  const [lastT] = points.at(-1)!;
  const freeNow = my + slope * (lastT - mx);
  return Math.max(0, freeNow / -slope / 3600);
}

export interface RunnerDeps {
  rules: RuleStore;
  metrics: MetricsStore;
  engine: RuleEngine;
  alerts: Pick<AlertsApi, 'raise' | 'resolve'>;
  log: Logger;
  now?: () => number;
}

export class RuleRunner {
  readonly #deps: RunnerDeps;
  readonly #now: () => number;
  /** per container: its restarts and OOM kills of the last 10 minutes, by sample time */
  readonly #windows = new Map<string, { t: number; restarts: number; ooms: number }[]>();
  #rules: { rows: RuleRow[]; silences: Silence[]; at: number } | undefined;
  #forecast: { hours: number | null; at: number } | undefined;

  constructor(deps: RunnerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** the rules or silences changed: read them again at the next sample */
  changed(): void { this.#rules = undefined; }

  async onSample(sample: Sample): Promise<void> {
    const now = this.#now();
    if (!this.#rules || now - this.#rules.at > 30_000) {
      this.#rules = { rows: (await this.#deps.rules.list()).filter((r) => r.enabled), silences: await this.#deps.rules.activeSilences(new Date(now)), at: now };
    }
    this.#track(sample, now);
    const forecastNeeded = this.#rules.rows.some((r) => r.metric === 'disk-hours-left');
    if (forecastNeeded && (!this.#forecast || now - this.#forecast.at > 300_000)) {
      this.#forecast = { hours: hoursLeft(await this.#deps.metrics.recent('disk-free', 86_400, new Date(now))), at: now };
    }
    const rounds = this.#rules.rows.map((row) => { const rule = ruleOf(row); return { rule, observations: this.#observe(rule, sample) }; });
    const transitions = this.#deps.engine.evaluate(rounds, this.#rules.silences);
    // no channels named (or an empty list): every channel that wants the alert
    const channels = new Map(this.#rules.rows.map((r) => [r.id, r.channels?.length ? r.channels : undefined]));
    for (const t of transitions) await this.#send(t, channels.get(t.rule.id)).catch((err) => this.#deps.log.error({ err, rule: t.rule.id }, 'an alert of a rule could not be raised or resolved'));
  }

  #track(sample: Sample, now: number): void {
    const r = containerIndex('restarts');
    const o = containerIndex('oom-kills');
    const seen = new Set<string>();
    for (const c of sample.containers) {
      seen.add(c.id);
      const list = [...(this.#windows.get(c.id) ?? []), { t: now, restarts: c.values[r] ?? 0, ooms: c.values[o] ?? 0 }].filter((e) => now - e.t < windowMs);
      this.#windows.set(c.id, list);
    }
    for (const id of this.#windows.keys()) if (!seen.has(id)) this.#windows.delete(id);
  }

  #containerValue(c: ContainerSample, metric: string): number | null {
    if (metric === 'restarts-10m' || metric === 'oom-kills-10m') {
      return (this.#windows.get(c.id) ?? []).reduce((a, e) => a + (metric === 'restarts-10m' ? e.restarts : e.ooms), 0);
    }
    return c.values[containerIndex(metric)] ?? null;
  }

  #observe(rule: Rule, sample: Sample): Observation[] {
    if (rule.scope === 'host') {
      const value = rule.metric === 'disk-hours-left' ? this.#forecast?.hours ?? null : sample.host[hostIndex(rule.metric)] ?? null;
      return [{ subject: 'host', stack: null, value }];
    }
    if (rule.scope.startsWith('stack:')) {
      const stack = rule.scope.slice(6);
      const values = sample.containers.filter((c) => c.stack === stack).map((c) => this.#containerValue(c, rule.metric)).filter((v): v is number => v !== null);
      if (!values.length) return [];
      const value = stackAggregate(rule.metric) === 'max' ? Math.max(...values) : values.reduce((a, b) => a + b, 0);
      return [{ subject: rule.scope, stack, value }];
    }
    const glob = rule.scope.slice('container:'.length);
    return sample.containers
      .filter((c) => globMatch(glob, c.name) || globMatch(glob, `${c.stack}/${c.service ?? ''}`))
      .map((c) => ({ subject: `container:${c.name}`, stack: c.stack, value: this.#containerValue(c, rule.metric) }));
  }

  async #send(t: Transition, channels: readonly string[] | undefined): Promise<void> {
    const kind = `rule:${t.rule.id}`;
    const resource = t.stack ? `stack:${t.stack}` : 'host';
    const subject = t.subject === resource ? undefined : t.subject;
    if (t.type === 'resolve') {
      await this.#deps.alerts.resolve(kind, { resource, subject, channels });
      return;
    }
    const r = t.rule;
    const what = t.subject === 'host' ? 'the host' : t.subject.replace(':', ' ');
    const held = Math.round((this.#now() - t.since) / 1000);
    const message = `${r.metric} of ${what} is ${t.value} (${r.op} ${r.threshold} for ${held} s)`;
    await this.#deps.alerts.raise(kind, {
      resource, subject, message, severity: r.severity, channels,
      details: {
        rule: r.id, scope: r.scope, metric: r.metric, op: r.op, threshold: r.threshold, recover: r.recover ?? r.threshold, value: t.value, values: t.values,
        since: new Date(t.since).toISOString(), reason: `values since it began: ${t.values.join(', ')}; it resolves ${r.op === '>' ? 'at or below' : 'at or above'} ${r.recover ?? r.threshold}`,
      },
    });
  }
}
