// The metrics rows: samples written at 10 s, rolled up to 1 min and 15 min, cut at their retention, and read back as one series of at most 1,000 points.
import type { Db } from '../../sdk/index.ts';
import { containerIndex, containerMetrics, hostIndex, stackAggregate, stackRow, type ContainerSample, type Sample } from './series.ts';

export interface Tier { table: string; stepSeconds: number; keepSeconds: number }
export const tiers: readonly Tier[] = [
  { table: 'metric_points_10s', stepSeconds: 10, keepSeconds: 86_400 },
  { table: 'metric_points_1m', stepSeconds: 60, keepSeconds: 7 * 86_400 },
  { table: 'metric_points_15m', stepSeconds: 900, keepSeconds: 90 * 86_400 },
];
export const maxPoints = 1000;

/** fewer points than this are read from a finer tier when it still holds `from` */
export const minPoints = 500;

/**
 * The coarsest tier that still holds `from` and gives at least minPoints between from and to (the finest that holds
 * it when none does), and a step of it giving at most maxPoints: 7 days read 672 rows of 15 min, not 10,080 of 1 min.
 */
export function chooseTier(from: Date, to: Date, now: Date): { tier: Tier; step: number } {
  const age = (now.getTime() - from.getTime()) / 1000;
  const range = Math.max(1, (to.getTime() - from.getTime()) / 1000);
  const holding = tiers.filter((t) => age <= t.keepSeconds + t.stepSeconds);
  const tier = [...holding].reverse().find((t) => range / t.stepSeconds >= minPoints) ?? holding[0] ?? tiers.at(-1)!;
  const step = Math.max(tier.stepSeconds, Math.ceil(range / maxPoints / tier.stepSeconds) * tier.stepSeconds);
  return { tier, step };
}

/** counts add up within a bucket; levels and rates are averaged */
const summed = new Set(['restarts', 'oom-kills']);
/** the 1-based array positions of a container row summed in a rollup */
const summedPositions = containerMetrics.flatMap((m, i) => (summed.has(m) ? [i + 1] : []));

export interface SourceInfo { id: number; scope: string; stack: string | null }

export class MetricsStore {
  readonly #db: Db;
  readonly #ids = new Map<string, number>();
  #writes = 0;

  constructor(db: Db) { this.#db = db; }

  async #sourceIds(sources: { scope: string; stack: string | null; service: string | null; name: string | null }[]): Promise<number[]> {
    const missing = sources.filter((s) => !this.#ids.has(s.scope));
    if (missing.length) {
      const { rows } = await this.#db.query<{ id: number; scope: string }>(
        `INSERT INTO metric_sources (scope, stack, service, name) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
         ON CONFLICT (scope) DO UPDATE SET last_seen = now(), name = EXCLUDED.name RETURNING id, scope`,
        [missing.map((s) => s.scope), missing.map((s) => s.stack), missing.map((s) => s.service), missing.map((s) => s.name)]);
      for (const r of rows) this.#ids.set(r.scope, r.id);
    }
    return sources.map((s) => this.#ids.get(s.scope)!);
  }

  /** one sample: one row for the host, one per container and one per stack (its containers summed, so a stack's series reads one source), in one statement */
  async write(sample: Sample): Promise<void> {
    const byStack = new Map<string, ContainerSample[]>();
    for (const c of sample.containers) byStack.set(c.stack, [...(byStack.get(c.stack) ?? []), c]);
    const sources = [
      { scope: 'host', stack: null, service: null, name: null },
      ...sample.containers.map((c) => ({ scope: `container:${c.id}`, stack: c.stack, service: c.service, name: c.name })),
      ...[...byStack.keys()].map((stack) => ({ scope: `stack:${stack}`, stack, service: null, name: null })),
    ];
    const ids = await this.#sourceIds(sources);
    const rows = [sample.host, ...sample.containers.map((c) => c.values), ...[...byStack.values()].map(stackRow)];
    await this.#db.query(
      `INSERT INTO metric_points_10s (source, t, v) SELECT s, $2, string_to_array(v, ',', '')::real[] FROM unnest($1::int[], $3::text[]) AS u(s, v)
       ON CONFLICT (source, t) DO NOTHING`,
      [ids, sample.at, rows.map((r) => r.map((x) => (x === null || !Number.isFinite(x) ? '' : String(x))).join(','))]);
    // a source's last sighting, for the stacks and containers the portal lists: once a minute is enough
    if (++this.#writes % 6 === 1) await this.#db.query('UPDATE metric_sources SET last_seen = now() WHERE id = ANY($1)', [ids]);
  }

  /**
   * Averages the rows of one tier into buckets of the next (counts summed), over the last `windowSeconds`: complete
   * buckets only, written again when they already are (idempotent, so every instance or a retried run may do it).
   */
  async rollup(from: Tier, to: Tier, now: Date, windowSeconds: number): Promise<number> {
    const end = Math.floor(now.getTime() / 1000 / to.stepSeconds) * to.stepSeconds;
    const start = end - Math.ceil(windowSeconds / to.stepSeconds) * to.stepSeconds;
    const { rowCount } = await this.#db.query(
      `INSERT INTO ${to.table} (source, t, v)
       SELECT source, b, array_agg(a ORDER BY i) FROM (
         SELECT p.source, date_bin(make_interval(secs => $3), p.t, 'epoch'::timestamptz) AS b, u.i,
                CASE WHEN s.scope <> 'host' AND u.i = ANY($4::int[]) THEN sum(u.x) ELSE avg(u.x) END::real AS a
         FROM ${from.table} p JOIN metric_sources s ON s.id = p.source, unnest(p.v) WITH ORDINALITY AS u(x, i)
         WHERE p.t >= to_timestamp($1) AND p.t < to_timestamp($2)
         GROUP BY p.source, s.scope, b, u.i) g
       GROUP BY source, b
       ON CONFLICT (source, t) DO UPDATE SET v = EXCLUDED.v`,
      [start, end, to.stepSeconds, summedPositions]);
    return rowCount;
  }

  /** rows past their tier's retention, and sources with no rows left, are deleted */
  async prune(now: Date): Promise<number> {
    let deleted = 0;
    for (const tier of tiers) {
      deleted += (await this.#db.query(`DELETE FROM ${tier.table} WHERE t < $1`, [new Date(now.getTime() - tier.keepSeconds * 1000)])).rowCount;
    }
    const gone = await this.#db.query<{ scope: string }>(
      `DELETE FROM metric_sources s WHERE s.scope <> 'host' AND s.last_seen < $1 AND NOT EXISTS (SELECT 1 FROM metric_points_15m p WHERE p.source = s.id) RETURNING scope`,
      [new Date(now.getTime() - 86_400_000)]);
    for (const r of gone.rows) this.#ids.delete(r.scope);
    return deleted;
  }

  /** the sources of a scope: `host`, `stack:<name>` (its own rows, its containers summed at each sample), `container:<id or its start>` */
  async sources(scope: string): Promise<SourceInfo[]> {
    if (scope === 'host') return (await this.#db.query<SourceInfo>(`SELECT id, scope, stack FROM metric_sources WHERE scope = 'host'`)).rows;
    if (scope.startsWith('stack:')) return (await this.#db.query<SourceInfo>('SELECT id, scope, stack FROM metric_sources WHERE scope = $1', [scope])).rows;
    const id = scope.slice('container:'.length);
    const { rows } = await this.#db.query<SourceInfo>(`SELECT id, scope, stack FROM metric_sources WHERE scope LIKE $1 LIMIT 2`, [`container:${id.replace(/[%_\\]/g, '')}%`]);
    return rows.length === 1 ? rows : [];
  }

  /** one series: per step, each source's average (a count: its sum), then the sources summed (percentages: their highest) */
  async series(sources: readonly SourceInfo[], kind: 'host' | 'container', metric: string, from: Date, to: Date, tier: Tier, step: number): Promise<[number, number][]> {
    const position = (kind === 'host' ? hostIndex(metric) : containerIndex(metric)) + 1;
    if (position < 1 || !sources.length) return [];
    const inner = summed.has(metric) ? 'sum' : 'avg';
    const bucket = `extract(epoch FROM date_bin(make_interval(secs => $4), t, 'epoch'::timestamptz))::bigint`;
    // one source (the host, a stack's own rows, a container): one aggregation; several: each source's, then theirs
    const sql = sources.length === 1
      ? `SELECT ${bucket} AS b, ${inner}(v[$5]) AS v FROM ${tier.table} WHERE source = $1 AND t >= $2 AND t < $3 AND v[$5] IS NOT NULL GROUP BY 1 ORDER BY 1 LIMIT ${maxPoints + 1}`
      : `SELECT b, ${stackAggregate(metric)}(v) AS v FROM (
           SELECT source, ${bucket} AS b, ${inner}(v[$5]) AS v FROM ${tier.table} WHERE source = ANY($1) AND t >= $2 AND t < $3 GROUP BY 1, 2) per_source
         WHERE v IS NOT NULL GROUP BY b ORDER BY b LIMIT ${maxPoints + 1}`;
    const { rows } = await this.#db.query<{ b: string; v: number | null }>(sql, [sources.length === 1 ? sources[0].id : sources.map((s) => s.id), from, to, step, position]);
    return rows.slice(0, maxPoints).map((r) => [Number(r.b), Math.round(Number(r.v) * 100) / 100]);
  }

  /** the points of one host metric over the last seconds, raw (the disk forecast's linear fit) */
  async recent(metric: string, seconds: number, now: Date): Promise<[number, number][]> {
    const position = hostIndex(metric) + 1;
    const { rows } = await this.#db.query<{ t: string; v: number }>(
      `SELECT extract(epoch FROM p.t)::float8 AS t, p.v[$1] AS v FROM metric_points_1m p JOIN metric_sources s ON s.id = p.source
       WHERE s.scope = 'host' AND p.t >= $2 AND p.v[$1] IS NOT NULL ORDER BY p.t`,
      [position, new Date(now.getTime() - seconds * 1000)]);
    return rows.map((r) => [Number(r.t), Number(r.v)]);
  }
}
