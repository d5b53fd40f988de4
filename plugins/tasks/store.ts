// The tasks tables: task definitions with their next slot (claimed by compare-and-swap), and every run with its status, reason and output.
import type { Db } from '../../sdk/index.ts';
import { intervalOf } from './schedule.ts';

export type Mode = 'exec' | 'run';
export type Overlap = 'forbid' | 'queue' | 'replace';
export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'timed-out';
export type Trigger = 'schedule' | 'manual';

export interface TaskDefinition {
  service: string;
  command: string[] | string;
  schedule: string;
  timezone: string;
  mode: Mode;
  overlap: Overlap;
  timeoutMs: number;
  enabled: boolean;
}

export interface TaskRow extends TaskDefinition {
  stack: string;
  name: string;
  declared: boolean;
  version: number;
  nextRunAt: string | null;
  lastSuccessAt: string | null;
  lastRunAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface RunRow {
  id: string;
  stack: string;
  task: string;
  job: string | null;
  trigger: Trigger;
  status: RunStatus;
  reason: string | null;
  exitCode: number | null;
  output: string;
  stopRequested: boolean;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
}

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v === null || v === undefined ? null : String(v));

function taskOf(r: Record<string, unknown>): TaskRow {
  return {
    stack: r.stack as string, name: r.name as string, service: r.service as string, command: r.command as string[] | string,
    schedule: r.schedule as string, timezone: r.timezone as string, mode: r.mode as Mode, overlap: r.overlap as Overlap,
    timeoutMs: r.timeout_ms as number, enabled: r.enabled as boolean, declared: r.declared as boolean, version: r.version as number,
    nextRunAt: iso(r.next_run_at), lastSuccessAt: iso(r.last_success_at), lastRunAt: iso(r.last_run_at),
    createdAt: iso(r.created_at)!, updatedAt: iso(r.updated_at)!,
  };
}

function runOf(r: Record<string, unknown>): RunRow {
  return {
    id: r.id as string, stack: r.stack as string, task: r.task as string, job: (r.job as string | null) ?? null, trigger: r.trigger as Trigger,
    status: r.status as RunStatus, reason: (r.reason as string | null) ?? null, exitCode: (r.exit_code as number | null) ?? null,
    output: (r.output as string | undefined) ?? '', stopRequested: r.stop_requested as boolean,
    createdAt: iso(r.created_at)!, startedAt: iso(r.started_at), endedAt: iso(r.ended_at),
  };
}

const defColumns = 'service, command, schedule, timezone, mode, overlap, timeout_ms, enabled, interval_ms';
const defValues = (d: TaskDefinition) => [d.service, JSON.stringify(d.command), d.schedule, d.timezone, d.mode, d.overlap, d.timeoutMs, d.enabled, intervalOf(d.schedule, d.timezone, new Date())];

/** the statements of the task_runs table */
class RunStore {
  constructor(protected readonly db: Db) {}

  /** many queued runs in one statement */
  async addQueued(runs: readonly { id: string; stack: string; task: string; trigger: Trigger; slot: Date | null }[]): Promise<void> {
    if (!runs.length) return;
    await this.db.query(
      `INSERT INTO task_runs (id, stack, task, trigger, status, slot)
       SELECT id, stack, task, trigger, 'queued', slot FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::timestamptz[]) AS v(id, stack, task, trigger, slot)`,
      [runs.map((r) => r.id), runs.map((r) => r.stack), runs.map((r) => r.task), runs.map((r) => r.trigger), runs.map((r) => r.slot)]);
  }

  async setJobs(pairs: readonly { id: string; job: string }[]): Promise<void> {
    if (!pairs.length) return;
    await this.db.query('UPDATE task_runs r SET job = v.job FROM unnest($1::uuid[], $2::uuid[]) AS v(id, job) WHERE r.id = v.id',
      [pairs.map((p) => p.id), pairs.map((p) => p.job)]);
  }

  async run(id: string): Promise<RunRow | null> {
    const { rows } = await this.db.query('SELECT * FROM task_runs WHERE id = $1', [id]);
    return rows[0] ? runOf(rows[0]) : null;
  }

  /** the runs of a task, newest first, without their output; `before`: the id of the last run of the previous page */
  async runs(stack: string, task: string, limit: number, before?: string): Promise<RunRow[]> {
    const { rows } = await this.db.query(
      `SELECT id, stack, task, job, trigger, status, reason, exit_code, stop_requested, created_at, started_at, ended_at FROM task_runs
       WHERE stack = $1 AND task = $2 AND ($4::uuid IS NULL OR (created_at, id) < (SELECT created_at, id FROM task_runs WHERE id = $4))
       ORDER BY created_at DESC, id DESC LIMIT $3`, [stack, task, limit, before ?? null]);
    return rows.map(runOf);
  }

  /** the run that is running for the task, if any */
  async running(stack: string, task: string): Promise<RunRow | null> {
    const { rows } = await this.db.query(`SELECT * FROM task_runs WHERE stack = $1 AND task = $2 AND status = 'running'`, [stack, task]);
    return rows[0] ? runOf(rows[0]) : null;
  }

  /** queued → running, unless another run of the task runs (the unique index decides across instances): false then */
  async start(id: string): Promise<boolean> {
    try {
      const { rowCount } = await this.db.query(`UPDATE task_runs SET status = 'running', started_at = now() WHERE id = $1 AND status = 'queued'`, [id]);
      return rowCount === 1;
    } catch (err) {
      if ((err as { code?: string }).code === '23505') return false;
      throw err;
    }
  }

  /** runs left running or queued whose job ended without ending them (its instance stopped): the caller checks their jobs */
  async unfinished(stack?: string, task?: string): Promise<RunRow[]> {
    const { rows } = await this.db.query(
      `SELECT id, stack, task, job, trigger, status, reason, exit_code, stop_requested, created_at, started_at, ended_at FROM task_runs
       WHERE status IN ('queued', 'running') AND job IS NOT NULL AND ($1::text IS NULL OR (stack = $1 AND task = $2))`, [stack ?? null, task ?? null]);
    return rows.map(runOf);
  }

  async skip(id: string, reason: string): Promise<void> {
    await this.db.query(`UPDATE task_runs SET status = 'skipped', reason = $2, started_at = coalesce(started_at, now()), ended_at = now() WHERE id = $1`, [id, reason]);
  }

  async requestStop(id: string): Promise<void> {
    await this.db.query('UPDATE task_runs SET stop_requested = true WHERE id = $1', [id]);
  }

  async stopRequested(id: string): Promise<boolean> {
    const { rows } = await this.db.query<{ stop_requested: boolean }>('SELECT stop_requested FROM task_runs WHERE id = $1', [id]);
    return rows[0]?.stop_requested ?? true;
  }

  async finish(run: RunRow, end: { status: RunStatus; exitCode: number | null; reason: string | null; output: string }): Promise<void> {
    await this.db.tx(async (tx) => {
      await tx.query('UPDATE task_runs SET status = $2, exit_code = $3, reason = $4, output = $5, ended_at = now() WHERE id = $1',
        [run.id, end.status, end.exitCode, end.reason, end.output]);
      await tx.query(`UPDATE tasks SET last_run_at = now(), last_success_at = CASE WHEN $3 = 'succeeded' THEN now() ELSE last_success_at END
        WHERE stack = $1 AND name = $2`, [run.stack, run.task, end.status]);
    });
  }

  /** keeps the newest `keep` ended runs of a task and none older than `maxAgeMs` */
  async prune(stack: string, task: string, keep: number, maxAgeMs: number): Promise<void> {
    await this.db.query(
      `DELETE FROM task_runs WHERE stack = $1 AND task = $2 AND status NOT IN ('queued', 'running') AND (
         created_at < now() - make_interval(secs => $4::double precision / 1000)
         OR id NOT IN (SELECT id FROM task_runs WHERE stack = $1 AND task = $2 ORDER BY created_at DESC LIMIT $3))`,
      [stack, task, keep, maxAgeMs]);
  }
}

/** the statements of the tasks table, and (inherited) of their runs */
export class TaskStore extends RunStore {

  async list(stack: string, db: Db = this.db): Promise<TaskRow[]> {
    return (await db.query('SELECT * FROM tasks WHERE stack = $1 ORDER BY name', [stack])).rows.map(taskOf);
  }

  async get(stack: string, name: string, db: Db = this.db): Promise<TaskRow | null> {
    const { rows } = await db.query('SELECT * FROM tasks WHERE stack = $1 AND name = $2', [stack, name]);
    return rows[0] ? taskOf(rows[0]) : null;
  }

  /** false when the name is taken */
  async create(stack: string, name: string, def: TaskDefinition, declared: boolean, nextRunAt: Date | null, db: Db = this.db): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO tasks (stack, name, ${defColumns}, declared, next_run_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT DO NOTHING`, [stack, name, ...defValues(def), declared, nextRunAt]);
    return rowCount === 1;
  }

  /** a new definition when its version is `expected` (any when undefined): false when it changed meanwhile */
  async update(stack: string, name: string, def: TaskDefinition, nextRunAt: Date | null, expected: number | undefined, db: Db = this.db): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE tasks SET service = $3, command = $4, schedule = $5, timezone = $6, mode = $7, overlap = $8, timeout_ms = $9, enabled = $10,
       interval_ms = $11, next_run_at = $12, version = version + 1, updated_at = now() WHERE stack = $1 AND name = $2 AND ($13::int IS NULL OR version = $13)`,
      [stack, name, ...defValues(def), nextRunAt, expected ?? null]);
    return rowCount === 1;
  }

  async remove(stack: string, name: string, expected: number | undefined, db: Db = this.db): Promise<boolean> {
    const { rowCount } = await db.query('DELETE FROM tasks WHERE stack = $1 AND name = $2 AND ($3::int IS NULL OR version = $3)', [stack, name, expected ?? null]);
    if (rowCount) await db.query('DELETE FROM task_runs WHERE stack = $1 AND task = $2 AND status NOT IN ($3, $4)', [stack, name, 'queued', 'running']);
    return rowCount === 1;
  }

  async removeStack(stack: string, db: Db = this.db): Promise<void> {
    await db.query('DELETE FROM tasks WHERE stack = $1', [stack]);
    await db.query('DELETE FROM task_runs WHERE stack = $1 AND status NOT IN ($2, $3)', [stack, 'queued', 'running']);
  }

  /** enabled tasks whose slot came, oldest slot first */
  async due(now: Date, limit: number): Promise<TaskRow[]> {
    return (await this.db.query('SELECT * FROM tasks WHERE enabled AND next_run_at <= $1 ORDER BY next_run_at LIMIT $2', [now, limit])).rows.map(taskOf);
  }

  /** the earliest slot of an enabled task, for the scheduler's next wake */
  async earliest(): Promise<Date | null> {
    const { rows } = await this.db.query<{ at: Date | null }>('SELECT min(next_run_at) AS at FROM tasks WHERE enabled');
    return rows[0]?.at ?? null;
  }

  /** moves each slot on when it is still `due` (a compare-and-swap, one statement for all): the keys (`stack/name`) of those this instance moved on, which it runs */
  async claimMany(slots: readonly { stack: string; name: string; due: string; next: Date | null }[]): Promise<Set<string>> {
    if (!slots.length) return new Set();
    const { rows } = await this.db.query<{ stack: string; name: string }>(
      `UPDATE tasks t SET next_run_at = v.next FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[]) AS v(stack, name, due, next)
       WHERE t.stack = v.stack AND t.name = v.name AND date_trunc('milliseconds', t.next_run_at) = v.due RETURNING t.stack, t.name`,
      [slots.map((x) => x.stack), slots.map((x) => x.name), slots.map((x) => x.due), slots.map((x) => x.next)]);
    return new Set(rows.map((r) => `${r.stack}/${r.name}`));
  }

  /** enabled tasks with no success (since they were made) for twice their interval, oldest first */
  async overdue(now: Date): Promise<(TaskRow & { since: string; intervalMs: number })[]> {
    const { rows } = await this.db.query(
      `SELECT *, coalesce(last_success_at, created_at) AS since FROM tasks
       WHERE enabled AND interval_ms IS NOT NULL AND coalesce(last_success_at, created_at) < $1::timestamptz - make_interval(secs => interval_ms * 2 / 1000.0)
       ORDER BY since LIMIT 1000`, [now]);
    return rows.map((r) => ({ ...taskOf(r), since: iso(r.since)!, intervalMs: Number(r.interval_ms) }));
  }
}
