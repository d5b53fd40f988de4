// GET /metrics/series: one metric of the host, a stack or a container over a time range, the tier chosen from the range; access lists apply.
import { defineRoute, problem, Type, type Principal } from '../../sdk/index.ts';
import type { MetricsStore } from './store.ts';
import { chooseTier, maxPoints } from './store.ts';
import { allMetrics, containerMetrics, hostMetrics, units } from './series.ts';

export interface SeriesDeps {
  store: MetricsStore;
  /** the stacks of these the caller may read (its access lists) */
  allowedStacks(principal: Principal, stacks: readonly string[]): Promise<Set<string>>;
  now?: () => Date;
}

const Series = Type.Object({
  scope: Type.String(), metric: Type.String(), unit: Type.String(),
  step: Type.Integer({ minimum: 1, description: 'seconds between points (a point is the average over its step; counts are summed)' }),
  from: Type.String({ format: 'date-time' }), to: Type.String({ format: 'date-time' }),
  points: Type.Array(Type.Tuple([Type.Integer({ description: 'unix seconds, the start of the step' }), Type.Number()]), { maxItems: maxPoints }),
});

const parseTime = (value: string | undefined, name: string, fallback: Date): Date => {
  if (value === undefined) return fallback;
  const t = new Date(value);
  if (Number.isNaN(t.getTime())) throw problem(400, `${name} is no date: give an ISO 8601 date and time`, { errors: [{ path: `/query/${name}`, message: 'not a date' }] });
  // the database keeps dates from 4713 BC on: a date outside these years is refused before it gets there
  if (t.getUTCFullYear() < 1970 || t.getUTCFullYear() > 9999) throw problem(400, `${name} must be between 1970 and 9999`, { errors: [{ path: `/query/${name}`, message: 'out of range' }] });
  return t;
};

export function seriesRoute(deps: SeriesDeps) {
  const now = deps.now ?? (() => new Date());
  return defineRoute({
    method: 'GET', path: '/metrics/series', scopes: ['metrics:read'], errors: [400, 404], activity: false,
    summary: 'One metric over a time range: the host, a stack (its containers summed) or a container; at most 1,000 points, the step chosen from the range and the retention tiers',
    description: 'Tiers: 10 s kept 24 h, 1 min kept 7 days, 15 min kept 90 days; the coarsest tier that still holds `from` and gives at least 500 points is read (1 h: 10 s steps, 24 h: 2 min, 7 d: 15 min, 90 d: 2 h 15 min). '
      + `Metrics: ${allMetrics.join(', ')} (host: ${hostMetrics.join(', ')}; stack and container: ${containerMetrics.join(', ')}). `
      + 'A stack or container hidden from the caller by its access list answers 404, as a missing one does.',
    query: Type.Object({
      scope: Type.String({ pattern: '^(host|stack:[a-z0-9][a-z0-9-]{0,62}|container:[a-f0-9]{6,64})$', description: 'host, stack:<name> or container:<id> (at least 6 characters of it)' }),
      metric: Type.String({ minLength: 1, maxLength: 40, description: allMetrics.join(', ') }),
      from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601; default an hour before `to`' })),
      to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601; default now' })),
    }),
    response: Series,
    handler: async ({ query, principal }) => {
      const to = parseTime(query.to, 'to', now());
      const from = parseTime(query.from, 'from', new Date(to.getTime() - 3_600_000));
      if (from >= to) throw problem(400, '`from` must be before `to`', { errors: [{ path: '/query/from', message: 'not before to' }] });
      const kind = query.scope === 'host' ? 'host' : 'container';
      const known: readonly string[] = kind === 'host' ? hostMetrics : containerMetrics;
      if (!known.includes(query.metric)) {
        throw problem(400, `no metric "${query.metric}" for ${kind === 'host' ? 'the host' : 'a stack or container'} (known: ${known.join(', ')})`, { errors: [{ path: '/query/metric', message: 'unknown metric' }] });
      }
      let sources = await deps.store.sources(query.scope);
      if (kind === 'container') {
        const stacks = [...new Set(sources.map((s) => s.stack).filter((s): s is string => !!s))];
        const allowed = await deps.allowedStacks(principal, stacks);
        sources = sources.filter((s) => s.stack && allowed.has(s.stack));
        // a stack hidden by its access list answers as one that never ran
        if (!sources.length) throw problem(404, query.scope.startsWith('stack:') ? `no metrics of stack "${query.scope.slice(6)}"` : `no metrics of container "${query.scope.slice(10)}"`);
      }
      const { tier, step } = chooseTier(from, to, now());
      const points = await deps.store.series(sources, kind, query.metric, from, to, tier, step);
      return { scope: query.scope, metric: query.metric, unit: units[query.metric] ?? '', step, from: from.toISOString(), to: to.toISOString(), points };
    },
  });
}
