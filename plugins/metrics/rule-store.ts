// The rows of alert rules (built-in ones seeded, disabled but never deleted) and silences, and their specs as the rule engine takes them.
import { randomUUID } from 'node:crypto';
import type { Actor, Db } from '../../sdk/index.ts';
import type { Op, Rule, Severity, Silence } from './rules.ts';

export interface RuleSpec {
  scope: string; metric: string; op: Op; threshold: number; for: string; recover?: number;
  severity: Severity; cooldown?: string; channels?: string[];
}
export interface RuleRow extends RuleSpec { id: string; builtIn: boolean; enabled: boolean; createdAt: string; updatedAt: string }
export interface SilenceRow { id: string; scope: string; until: string; reason: string; createdBy: Actor; createdAt: string }

/** `<n>s`, `<n>m` or `<n>h` in milliseconds */
export function durationMs(text: string): number {
  const m = /^(\d{1,7})(s|m|h)$/.exec(text);
  if (!m) throw new Error(`"${text}" is no duration`);
  return Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 's' | 'm' | 'h'];
}

export const builtInRules: readonly (RuleSpec & { id: string; description: string })[] = [
  { id: 'disk-high', scope: 'host', metric: 'disk-used-percent', op: '>', threshold: 85, for: '5m', recover: 80, severity: 'warning', cooldown: '15m', description: 'the data folder\'s disk is more than 85 % full for 5 minutes' },
  { id: 'memory-high', scope: 'host', metric: 'memory-percent', op: '>', threshold: 90, for: '10m', recover: 85, severity: 'warning', cooldown: '15m', description: 'the host\'s memory is more than 90 % used for 10 minutes' },
  { id: 'cpu-high', scope: 'host', metric: 'cpu-percent', op: '>', threshold: 95, for: '15m', recover: 85, severity: 'warning', cooldown: '15m', description: 'the host\'s CPUs are more than 95 % busy for 15 minutes' },
  { id: 'restarts', scope: 'container:*', metric: 'restarts-10m', op: '>', threshold: 3, for: '0s', recover: 0, severity: 'critical', cooldown: '0s', description: 'a container restarted more than 3 times in 10 minutes (resolved after 10 minutes without one)' },
  { id: 'oom-kill', scope: 'container:*', metric: 'oom-kills-10m', op: '>', threshold: 0, for: '0s', severity: 'critical', cooldown: '0s', description: 'a process of a container was killed for lack of memory (resolved after 10 minutes without another)' },
  { id: 'unhealthy', scope: 'container:*', metric: 'unhealthy', op: '>', threshold: 0, for: '2m', severity: 'warning', cooldown: '0s', description: 'a container\'s health check fails for more than 2 minutes' },
  { id: 'disk-full-forecast', scope: 'host', metric: 'disk-hours-left', op: '<', threshold: 48, for: '0s', recover: 72, severity: 'warning', cooldown: '1h', description: 'at the pace of the last 24 hours, the data folder\'s disk is full in less than 48 hours' },
];

interface Row { id: string; builtin: boolean; spec: RuleSpec; enabled: boolean; created_at: Date; updated_at: Date }
const iso = (d: Date | string) => new Date(d).toISOString();
const rowOf = (r: Row): RuleRow => ({ id: r.id, ...r.spec, builtIn: r.builtin, enabled: r.enabled, createdAt: iso(r.created_at), updatedAt: iso(r.updated_at) });

interface SilenceDbRow { id: string; scope: string; until: Date; reason: string; created_by: Actor; created_at: Date }
const silenceOf = (r: SilenceDbRow): SilenceRow => ({ id: r.id, scope: r.scope, until: iso(r.until), reason: r.reason, createdBy: r.created_by, createdAt: iso(r.created_at) });

export function ruleOf(r: RuleRow): Rule {
  return {
    id: r.id, scope: r.scope, metric: r.metric, op: r.op, threshold: r.threshold, forMs: durationMs(r.for), recover: r.recover,
    cooldownMs: r.cooldown ? durationMs(r.cooldown) : 0, severity: r.severity,
  };
}

export class RuleStore {
  readonly #db: Db;
  constructor(db: Db) { this.#db = db; }

  /** the built-in rules, added once (an admin's changes to them are kept) */
  async seed(): Promise<void> {
    await this.#db.query(
      `INSERT INTO metric_rules (id, builtin, spec) SELECT id, true, spec FROM unnest($1::text[], $2::jsonb[]) AS u(id, spec) ON CONFLICT (id) DO NOTHING`,
      [builtInRules.map((r) => r.id), builtInRules.map(({ id: _id, description: _d, ...spec }) => JSON.stringify(spec))]);
  }

  async list(): Promise<RuleRow[]> {
    return (await this.#db.query<Row>('SELECT * FROM metric_rules ORDER BY builtin DESC, created_at, id')).rows.map(rowOf);
  }

  async get(id: string): Promise<RuleRow | null> {
    const { rows } = await this.#db.query<Row>('SELECT * FROM metric_rules WHERE id = $1', [id]);
    return rows[0] ? rowOf(rows[0]) : null;
  }

  async create(spec: RuleSpec, enabled: boolean): Promise<RuleRow> {
    const { rows } = await this.#db.query<Row>('INSERT INTO metric_rules (id, spec, enabled) VALUES ($1, $2, $3) RETURNING *', [randomUUID(), JSON.stringify(spec), enabled]);
    return rowOf(rows[0]);
  }

  async update(id: string, spec: RuleSpec, enabled: boolean): Promise<RuleRow | null> {
    const { rows } = await this.#db.query<Row>('UPDATE metric_rules SET spec = $2, enabled = $3, updated_at = now() WHERE id = $1 RETURNING *', [id, JSON.stringify(spec), enabled]);
    return rows[0] ? rowOf(rows[0]) : null;
  }

  async remove(id: string): Promise<boolean> {
    return (await this.#db.query('DELETE FROM metric_rules WHERE id = $1 AND NOT builtin', [id])).rowCount > 0;
  }

  async silences(now = new Date()): Promise<SilenceRow[]> {
    return (await this.#db.query<SilenceDbRow>('SELECT * FROM metric_silences WHERE until > $1 ORDER BY until', [now])).rows.map(silenceOf);
  }

  async addSilence(s: { scope: string; until: Date; reason: string; createdBy: Actor }): Promise<SilenceRow> {
    const { rows } = await this.#db.query<SilenceDbRow>('INSERT INTO metric_silences (id, scope, until, reason, created_by) VALUES ($1, $2, $3, $4, $5) RETURNING *',
      [randomUUID(), s.scope, s.until, s.reason, s.createdBy]);
    return silenceOf(rows[0]);
  }

  async removeSilence(id: string): Promise<boolean> {
    return (await this.#db.query('DELETE FROM metric_silences WHERE id = $1', [id])).rowCount > 0;
  }

  /** silences still running, as the engine takes them; ended ones are deleted */
  async activeSilences(now: Date): Promise<Silence[]> {
    await this.#db.query('DELETE FROM metric_silences WHERE until < $1', [new Date(now.getTime() - 86_400_000)]);
    return (await this.silences(now)).map((s) => ({ id: s.id, scope: s.scope, until: new Date(s.until).getTime() }));
  }
}
