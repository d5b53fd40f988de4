// The job runner: durable jobs in PostgreSQL, claimed and finished in batches, with serial keys, attach-to-queued, waits, cancel, and leases that let any instance recover a dead one's jobs.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { EventEmitter } from 'node:events';
import PQueue from 'p-queue';
import { compareText, diskFull, type Actor, type ActivityApi, type Db, type EnqueueOptions, type HeldLock, type Job, type JobDef, type JobHandle, type JobsApi, type Logger } from '../../sdk/index.ts';
import { compileStrict, type Check } from '../http/validate.ts';
import { Batcher } from './batch.ts';
import { OutputBuffer, Redactor } from './output.ts';
import type { TSchema } from '@sinclair/typebox';

interface JobRow {
  id: string; type: string; resource: string | null; serial_key: string | null; status: Job['status'];
  input: unknown; output: string; result: unknown; error: string | null; actor: Actor;
  created_at: string; started_at: string | null; finished_at: string | null;
}

const columns = 'id, type, resource, serial_key, status, input, output, result, error, actor, created_at, started_at, finished_at';
/** a deploy's output runs to kilobytes: a list of stacks shows none of it */
const withoutOutput = columns.replace('output', "'' AS output");
const doneStatuses = new Set(['succeeded', 'failed', 'canceled']);
/** how many finished jobs getMany keeps in memory: the last two jobs of 500 stacks, about 1.5 MB when full */
const settledKept = 1000;

/** a value and everything in it made read-only */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * The UPDATE of a claim, its values quoted in (it shares a round trip with the advisory lock, so it takes no parameters):
 * the oldest queued jobs of these types, read through an index of open jobs (jobs_queued or jobs_open, as the planner
 * chooses), whatever the history of the types.
 */
export function claimUpdate(types: readonly string[], instance: string, leaseMs: number, max: number): string {
  return `UPDATE jobs SET status = 'running', started_at = now(), instance = ${pg.escapeLiteral(instance)},
              lease_until = now() + make_interval(secs => ${leaseMs / 1000})
        WHERE id IN (
          SELECT j.id FROM jobs j
           WHERE j.status = 'queued' AND j.type IN (${types.map((t) => pg.escapeLiteral(t)).join(', ')})
             AND (j.serial_key IS NULL OR NOT EXISTS (
               SELECT 1 FROM jobs o WHERE o.serial_key = j.serial_key
                  AND (o.status = 'running' OR (o.status = 'queued' AND o.seq < j.seq))))
           ORDER BY j.seq LIMIT ${Math.floor(max)})
       RETURNING ${columns}`;
}

export function toJob(row: JobRow): Job {
  return {
    id: row.id, type: row.type, resource: row.resource, status: row.status, done: doneStatuses.has(row.status),
    output: row.output, result: row.result ?? null, error: row.error, actor: row.actor,
    createdAt: row.created_at, startedAt: row.started_at, finishedAt: row.finished_at,
  };
}

/** the strings of a JSON value with secrets hidden (redacting serialized JSON could cut into its syntax) */
function redactValue(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') return redactor.apply(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, redactor));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, redactor)]));
  return value;
}

type Lane = Db & { release(broken?: boolean): void };

interface Finish {
  row: JobRow; status: Job['status']; output: string; result: string; error: string | null; detail: string;
  tries: number; resolve(): void; reject(err: unknown): void;
}

/** the channel on which every instance announces the jobs it finished, so a wait on another instance answers at once */
export const jobsDoneChannel = 'dockwright_jobs_done';
/** the channel on which a cancel reaches the instance that runs the job */
export const jobsCancelChannel = 'dockwright_jobs_cancel';

/** the advisory lock an instance holds while it lives: a job whose instance no longer holds it is taken over at once */
export const instanceLockName = (instance: string) => `dockwright.instance:${instance}`;

export interface RunnerOptions {
  concurrency: number;
  outputLimit: number;
  flushMs?: number;
  /** how long a claimed job is held without renewal before any instance may take it over */
  leaseMs?: number;
  /** how often this instance renews the leases of its running jobs and looks for expired ones */
  renewMs?: number;
  /** how often it looks for queued work it was not told about */
  pollMs?: number;
}

export interface JobFilter { status?: string; type?: string; resource?: string; before?: number; limit: number }

export class JobRunner implements JobsApi {
  private readonly defs = new Map<string, { def: JobDef<TSchema>; check: Check }>();
  private readonly finished = new EventEmitter().setMaxListeners(0);
  private readonly running = new Map<string, AbortController>();
  /**
   * Finished jobs without their output, the latest thousand asked for. A finished job never changes again (every
   * update of a job is conditioned on it being queued or running), so what is kept here is never stale: lists that show
   * each resource's last jobs (a page of stacks) ask the database only about the jobs still under way.
   */
  private readonly settled = new Map<string, Job>();
  private readonly canceled = new Set<string>();
  /** told of every job this instance finished, once its finish is committed (the metrics) */
  private readonly finishListeners: ((job: Job) => void)[] = [];
  private readonly finishing: Finish[] = [];
  /** jobs that ran here and whose finish is not written yet: their leases are renewed until it is */
  private readonly unwritten = new Set<string>();
  /** inserts of jobs: while one batch is written the next gathers */
  private readonly inserts = new Batcher<unknown[], JobRow>(async (values) => {
    const rows = await this.insertMany(values);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return values.map((v) => byId.get(v[0] as string)!);
  });
  /** a wait's first look at its job (null for a malformed or unknown id): the waits begun together read their jobs in one query */
  private readonly firstLooks = new Batcher<string, Job | null>(async (ids) => {
    const jobs = await this.getMany(ids);
    return ids.map((id) => jobs.get(id) ?? null);
  });
  /** the jobs whose finish is being written here: this instance announces them itself once committed */
  private readonly announcing = new Set<string>();
  private claimLane?: Lane;
  private finishLane?: Lane;
  /** what runs or waits for its finish to be written */
  private readonly executions = new Set<Promise<void>>();
  /** the slots jobs run in: the design card's p-queue, as wide as jobs.concurrency (a claim takes only as many jobs as are free) */
  private readonly slots: PQueue;
  private claiming = false;
  private pumpQueued = false;
  private claimAgain = false;
  private flushing = false;
  private stopping = false;
  private tick?: NodeJS.Timeout;
  /** a claim again soon after one failed (the database was out of reach), not at the next poll */
  private claimRetry?: NodeJS.Timeout;
  private renewTimer?: NodeJS.Timeout;
  private alive?: HeldLock | null;
  /** taking the liveness lock again after its connection dropped: the renewals go on meanwhile */
  private relocking = false;
  private renewing = false;
  /** this process: named on the jobs it runs */
  readonly instance = randomUUID();
  private readonly leaseMs: number;
  private readonly renewMs: number;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly activity: ActivityApi,
    private readonly opts: RunnerOptions,
    /** a connection of its own for claims and finishes, when the database offers one */
    private readonly session?: () => Promise<Lane>,
    /** told of every job that failed, once its finish is committed (the `job.failed` event) */
    private readonly onFailed?: (job: Job) => void,
    /** holds this instance's liveness lock (a session advisory lock), when the database offers one */
    private readonly holdLock?: (name: string) => Promise<HeldLock | null>,
  ) {
    this.slots = new PQueue({ concurrency: opts.concurrency });
    this.leaseMs = Math.max(1000, opts.leaseMs ?? 30_000);
    this.renewMs = Math.max(50, Math.min(opts.renewMs ?? 2000, Math.floor(this.leaseMs / 4)));
  }

  onFinish(listener: (job: Job) => void): void {
    this.finishListeners.push(listener);
  }

  define<I extends TSchema>(def: JobDef<I>): JobHandle<never> {
    if (this.defs.has(def.type)) throw new Error(`job type "${def.type}" is defined twice`);
    this.defs.set(def.type, { def: def as unknown as JobDef<TSchema>, check: compileStrict(def.input) });
    return { type: def.type, enqueue: (input: unknown, options: EnqueueOptions) => this.enqueue(def.type, input, options) } as JobHandle<never>;
  }

  async enqueue(type: string, input: unknown, options: EnqueueOptions): Promise<Job & { attached: boolean }> {
    const entry = this.defs.get(type);
    if (!entry) throw new Error(`unknown job type "${type}"`);
    const errors = entry.check(input);
    if (errors) throw new Error(`job ${type}: invalid input: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`);
    const insert = (db: Db) => db.query<JobRow>(
      `INSERT INTO jobs (id, type, resource, serial_key, status, input, actor) VALUES ($1, $2, $3, $4, 'queued', $5, $6) RETURNING ${columns}`,
      [randomUUID(), type, options.resource ?? null, options.serialKey ?? null, JSON.stringify(input ?? null), JSON.stringify(options.actor)]);
    let job: Job & { attached: boolean };
    if (options.attachToQueued && options.serialKey) {
      job = await this.db.tx(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`dockwright.jobs:${options.serialKey}`]);
        const { rows } = await tx.query<JobRow>(
          `SELECT ${columns} FROM jobs WHERE type = $1 AND serial_key = $2 AND status = 'queued' ORDER BY seq LIMIT 1`, [type, options.serialKey]);
        if (rows[0]) return { ...toJob(rows[0]), attached: true };
        return { ...toJob((await insert(tx)).rows[0]), attached: false };
      });
    } else {
      job = { ...toJob(await this.inserts.add([randomUUID(), type, options.resource ?? null, options.serialKey ?? null, JSON.stringify(input ?? null), JSON.stringify(options.actor)])), attached: false };
    }
    if (!job.attached) void this.pump();
    return job;
  }

  private async insertMany(values: unknown[][]): Promise<JobRow[]> {
    const column = (i: number) => values.map((v) => v[i]);
    const { rows } = await this.db.query<JobRow>(
      `INSERT INTO jobs (id, type, resource, serial_key, status, input, actor)
       SELECT id, type, resource, serial_key, 'queued', input, actor
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::jsonb[]) WITH ORDINALITY AS v(id, type, resource, serial_key, input, actor, n)
        ORDER BY n
       RETURNING ${columns}`,
      [column(0), column(1), column(2), column(3), column(4), column(5)]);
    return rows;
  }

  async get(id: string): Promise<Job | null> {
    return (await this.getMany([id])).get(id) ?? null;
  }

  async latest(type: string, resource: string): Promise<Job | null> {
    const { rows } = await this.db.query<JobRow>(`SELECT ${columns} FROM jobs WHERE resource = $1 AND type = $2 ORDER BY seq DESC LIMIT 1`, [resource, type]);
    return rows[0] ? toJob(rows[0]) : null;
  }

  /** without output, finished jobs come from memory (see `settled`): only those still under way, or not seen lately, are read */
  async getMany(ids: readonly string[], opts: { output?: boolean } = {}): Promise<Map<string, Job>> {
    const found = new Map<string, Job>();
    const valid = ids.filter((id) => /^[0-9a-f-]{36}$/i.test(id));
    const output = opts.output !== false;
    const asked = output ? valid : valid.filter((id) => {
      const job = this.settled.get(id);
      if (job) found.set(id, job);
      return !job;
    });
    if (!asked.length) return found;
    const { rows } = await this.db.query<JobRow>(`SELECT ${output ? columns : withoutOutput} FROM jobs WHERE id = ANY($1::uuid[])`, [asked]);
    for (const row of rows) {
      const job = toJob(row);
      if (!output && job.done) this.settle(job);
      found.set(job.id, job);
    }
    return found;
  }

  /** keeps a finished job (frozen: every caller shares it), forgetting the oldest kept past the bound */
  private settle(job: Job): void {
    if (this.settled.size >= settledKept) this.settled.delete(this.settled.keys().next().value!);
    this.settled.set(job.id, deepFreeze(job));
  }

  async open(resource: string): Promise<Job[]> {
    const { rows } = await this.db.query<JobRow>(`SELECT ${columns} FROM jobs WHERE resource = $1 AND status IN ('queued', 'running') ORDER BY seq`, [resource]);
    return rows.map(toJob);
  }

  async list(filter: JobFilter): Promise<(Job & { seq: number })[]> {
    // a list answer carries the last 2 KiB of each output; GET /jobs/{id} has all of it
    const { rows } = await this.db.query<JobRow & { seq: number }>(
      `SELECT seq, ${columns.replace('output', 'right(output, 2048) AS output')} FROM jobs
        WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR type = $2) AND ($3::text IS NULL OR resource = $3)
          AND ($4::bigint IS NULL OR seq < $4)
        ORDER BY seq DESC LIMIT $5`,
      [filter.status ?? null, filter.type ?? null, filter.resource ?? null, filter.before ?? null, filter.limit]);
    return rows.map((r) => ({ ...toJob(r), seq: r.seq }));
  }

  /** waits for the finish event, not by polling: the listener is in place before the state is read, so no finish is missed. */
  async wait(id: string, timeoutMs: number): Promise<Job | null> {
    let listener!: (job: Job) => void;
    let timer!: NodeJS.Timeout;
    const finished = new Promise<Job | null>((resolve) => {
      listener = resolve;
      timer = setTimeout(() => resolve(null), timeoutMs);
      this.finished.once(id, listener);
    });
    try {
      const now = await this.firstLooks.add(id);
      if (!now || now.done) return now;
      return (await finished) ?? (await this.get(id));
    } finally {
      clearTimeout(timer);
      this.finished.off(id, listener);
    }
  }

  /** cancels a queued job at once, and asks a running one to stop; null when there is no such job. */
  async cancel(id: string, actor: Actor): Promise<Job | null> {
    const { rows } = await this.db.query<JobRow>(
      `WITH c AS (UPDATE jobs SET status = 'canceled', finished_at = now(), error = 'canceled' WHERE id = $1 AND status = 'queued' RETURNING ${columns}),
            announced AS (SELECT pg_notify('${jobsDoneChannel}', string_agg(id::text, ',')) FROM c HAVING count(*) > 0)
       SELECT c.* FROM c LEFT JOIN announced ON true`, [id]);
    if (rows[0]) {
      const job = toJob(rows[0]);
      await this.activity.record({ actor, action: `job.cancel`, resource: job.resource, result: 'canceled', detail: { jobId: id, type: job.type } });
      this.finished.emit(id, job);
      return job;
    }
    if (!this.abortHere(id)) {
      // running on another instance: it is asked through the database
      await this.db.query(`SELECT pg_notify('${jobsCancelChannel}', id::text) FROM jobs WHERE id = $1 AND status = 'running'`, [id]);
    }
    return this.get(id);
  }

  /** stops a job running here on request (its own or another instance's cancel); false when it does not run here */
  abortHere(id: string): boolean {
    const controller = this.running.get(id);
    if (!controller) return false;
    this.canceled.add(id);
    controller.abort(new Error('canceled'));
    return true;
  }

  /**
   * Finished jobs were announced (by any instance, this one too): the waits here for them answer now. While that channel
   * is down (and once when it is back) every wait re-reads its job instead. What this instance is finishing it announces
   * itself once its commit returns.
   */
  async announced(payload?: string): Promise<void> {
    const ids = payload === undefined
      ? this.finished.eventNames().map(String)
      : payload.split(',').filter((id) => !this.announcing.has(id) && this.finished.listenerCount(id) > 0);
    if (!ids.length) return;
    const jobs = await this.getMany(ids).catch(() => new Map<string, Job>());
    for (const job of jobs.values()) if (job.done) this.finished.emit(job.id, job);
  }

  /**
   * Marks failed ("interrupted by restart") every running job whose instance is gone: its lease expired, or its instance
   * no longer holds its liveness lock (a killed process's connection closes) and missed two renewals, so a crash is seen
   * within a few seconds rather than a whole lease. With one instance this is the recovery at start.
   */
  private async takeOver(): Promise<void> {
    await this.requeueLostClaims();
    const { rows } = await this.db.query<JobRow>(
      `WITH gone AS (
         SELECT j.id FROM jobs j
          WHERE j.status = 'running' AND j.instance IS DISTINCT FROM $1
            AND (j.instance IS NULL OR j.lease_until IS NULL OR j.lease_until < now()
              -- without its lock, an instance that also missed two renewals is gone (a live one whose lock connection
              -- dropped, say in a database restart, takes the lock again and renews before that)
              OR (j.lease_until < now() + make_interval(secs => $2) AND NOT EXISTS (
                SELECT 1 FROM pg_locks l
                 WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted
                   AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                   AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtext('dockwright.instance:' || j.instance::text)::bigint)))
          FOR UPDATE SKIP LOCKED
       ), failed AS (
         UPDATE jobs SET status = 'failed', error = 'interrupted by restart', finished_at = now(), lease_until = NULL
          WHERE id IN (SELECT id FROM gone) AND status = 'running' RETURNING ${columns}
       ), recorded AS (
         INSERT INTO activity (actor, action, resource, result, detail)
         SELECT '{"kind":"system","name":"restart"}'::jsonb, 'job.' || type, resource, 'failed', jsonb_build_object('jobId', id, 'error', 'interrupted by restart') FROM failed
       ), announced AS (
         SELECT pg_notify('${jobsDoneChannel}', string_agg(id::text, ',')) FROM failed HAVING count(*) > 0
       ) SELECT failed.* FROM failed LEFT JOIN announced ON true`, [this.instance, Math.max(0, this.leaseMs - 2 * this.renewMs) / 1000]);
    if (!rows.length) return;
    this.log.warn({ jobs: rows.map((r) => r.id) }, 'jobs of a stopped instance marked failed (interrupted)');
    for (const row of rows) {
      const job = toJob(row);
      this.finished.emit(row.id, job);
      this.onFailed?.(job);
    }
    this.pumpSoon();
  }

  /**
   * Queues again the jobs this instance claimed without knowing it: a claim committed whose answer was lost with its
   * connection (a database restart). They never ran here; their leases, renewed by no one, tell them apart.
   */
  private async requeueLostClaims(): Promise<void> {
    const { rows } = await this.db.query<{ id: string }>(
      `UPDATE jobs SET status = 'queued', instance = NULL, started_at = NULL, lease_until = NULL
        WHERE status = 'running' AND instance = $1 AND lease_until < now() AND NOT (id = ANY($2::uuid[])) RETURNING id`,
      [this.instance, [...this.running.keys(), ...this.unwritten]]);
    if (!rows.length) return;
    this.log.warn({ jobs: rows.map((r) => r.id) }, 'jobs claimed here with the answer lost are queued again');
    this.pumpSoon();
  }

  /** renews the leases of the jobs running here; a job whose lease was taken over meanwhile is stopped here */
  private async renew(): Promise<void> {
    if (this.renewing) return;
    this.renewing = true;
    try {
      // a new connection can take a while (a database that restarts, a busy host): the leases are renewed meanwhile,
      // so that missing the lock alone never makes this live instance look gone to the others
      if (!this.alive && !this.relocking) {
        this.relocking = true;
        void this.holdLiveness().catch(() => undefined).finally(() => { this.relocking = false; });
      }
      const ids = [...this.running.keys(), ...this.unwritten];
      if (ids.length) {
        const { rows } = await this.db.query<{ id: string }>(
          `UPDATE jobs SET lease_until = now() + make_interval(secs => $3) WHERE id = ANY($1::uuid[]) AND status = 'running' AND instance = $2 RETURNING id`,
          [ids, this.instance, this.leaseMs / 1000]);
        const kept = new Set(rows.map((r) => r.id));
        for (const id of ids) {
          // a job claimed meanwhile is not in this answer's snapshot: only one that is still here and not kept was lost
          if (!kept.has(id) && this.running.has(id) && !(await this.ownsJob(id))) {
            this.log.error({ job: id }, 'lost the lease of a running job (another instance took it over): stopping it here');
            this.running.get(id)?.abort(new Error('lease lost'));
          }
        }
      }
      await this.takeOver();
    } catch (err) {
      this.log.error({ err }, 'renewing job leases failed');
    } finally {
      this.renewing = false;
    }
  }

  private async ownsJob(id: string): Promise<boolean> {
    const { rows } = await this.db.query(`SELECT 1 FROM jobs WHERE id = $1 AND status = 'running' AND instance = $2`, [id, this.instance]);
    return rows.length > 0;
  }

  /** takes this instance's liveness lock; when its connection drops, the next renewal takes it again */
  private async holdLiveness(): Promise<void> {
    if (!this.holdLock) return;
    const held = await this.holdLock(instanceLockName(this.instance));
    // taken again while the runner stopped (stop does not wait for a slow connection): not kept
    if (this.stopping) { await held?.release(); return; }
    this.alive = held;
    void held?.lost.then(() => {
      if (this.stopping || this.alive !== held) return;
      this.log.error('lost the instance liveness lock: taking it again with the next renewal');
      this.alive = undefined;
    });
  }

  /** holds this instance's liveness lock, recovers the jobs of instances that are gone, then starts claiming. */
  async start(): Promise<void> {
    await this.holdLiveness();
    await this.takeOver();
    const orphans = await this.db.query<{ id: string }>(
      `UPDATE jobs SET status = 'failed', error = 'no enabled plugin runs jobs of type ' || type, finished_at = now()
        WHERE status = 'queued' AND NOT (type = ANY($1)) RETURNING id`, [[...this.defs.keys()]]);
    if (orphans.rowCount) this.log.warn({ jobs: orphans.rows.map((r) => r.id) }, 'queued jobs of unknown types failed');
    this.tick = setInterval(() => void this.pump(), this.opts.pollMs ?? 5000).unref();
    this.renewTimer = setInterval(() => void this.renew(), this.renewMs).unref();
    await this.pump();
  }

  /** stops claiming and waits (up to drainMs) for running jobs; what is still running then is marked failed at the next start. */
  async stop(drainMs = 30_000): Promise<void> {
    this.stopping = true;
    clearInterval(this.tick);
    clearInterval(this.renewTimer);
    clearTimeout(this.claimRetry);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.idle(), new Promise((r) => { timer = setTimeout(r, drainMs); })]);
    clearTimeout(timer);
    for (const c of this.running.values()) c.abort(new Error('shutting down'));
    // the aborted jobs record their end before the database goes away
    const until = Date.now() + 5000;
    await Promise.race([this.idle(), new Promise((r) => setTimeout(r, 5000).unref())]);
    while ((this.claiming || this.flushing || this.finishing.length) && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    for (const lane of [this.claimLane, this.finishLane]) lane?.release();
    this.claimLane = this.finishLane = undefined;
    await this.alive?.release();
    this.alive = undefined;
  }

  /**
   * Claims as many jobs as there are free slots, on a connection of its own (a burst of requests on the pool must not
   * hold up the runner), one claim at a time; a claim asked for meanwhile runs right after.
   * The claim's commit does not wait for the disk: were PostgreSQL itself to crash before it is written, the job is
   * queued again and runs after the restart (its finish, which is durable, always comes after its claim in the log).
   */
  private async pump(): Promise<void> {
    if (this.claiming) { this.claimAgain = true; return; }
    this.claiming = true;
    this.claimAgain = false;
    try {
      const free = this.stopping ? 0 : this.opts.concurrency - this.running.size;
      if (free <= 0) return;
      let claimed: JobRow[];
      try {
        this.claimLane ??= await this.openLane();
        claimed = await this.claim(this.claimLane, free);
      } catch (err) {
        this.claimLane?.release(true);
        this.claimLane = undefined;
        this.log.error({ err }, 'claiming jobs failed');
        if (!this.stopping) this.claimRetry ??= setTimeout(() => { this.claimRetry = undefined; void this.pump(); }, 500).unref();
        return;
      }
      for (const row of claimed) {
        const controller = new AbortController();
        this.running.set(row.id, controller);
        const execution = this.execute(row, controller)
          .catch((err) => this.log.error({ err, job: row.id }, 'a job could not be finished; the next start marks it failed'))
          .finally(() => this.executions.delete(execution));
        this.executions.add(execution);
      }
    } finally {
      this.claiming = false;
      // asked for meanwhile: after this turn, so that the jobs just started and already over free their slots first
      if (this.claimAgain) this.pumpSoon();
    }
  }

  /**
   * Writes the finishes collected meanwhile in one statement and one durable commit, on a connection of its own: while one
   * batch is written the next gathers, so short jobs are finished in batches.
   */
  private async flushFinishes(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.finishing.length) {
        const done = this.finishing.splice(0);
        const ids = done.map((d) => d.row.id);
        for (const id of ids) this.announcing.add(id);
        let rows: JobRow[];
        try {
          rows = await this.finish(done).finally(() => { for (const id of ids) this.announcing.delete(id); });
        } catch (err) {
          this.finishLane?.release(true);
          this.finishLane = undefined;
          // the commit may have happened with only its answer lost: the waits read their jobs again
          void this.announced(ids.join(','));
          this.retryFinishes(done, err);
          continue;
        }
        for (const row of rows) {
          const job = toJob(row);
          this.finished.emit(row.id, job);
          if (job.status === 'failed') this.onFailed?.(job);
          for (const listener of this.finishListeners) listener(job);
        }
        for (const d of done) d.resolve();
        // a job of a serial key waits until its predecessor's finish is committed: claim again now that it is
        this.pumpSoon();
      }
    } finally {
      this.flushing = false;
    }
  }

  /** a claim after the current turn: jobs that end together free their slots for one claim, not one claim each */
  private pumpSoon(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    setImmediate(() => { this.pumpQueued = false; void this.pump(); });
  }

  private async idle(): Promise<void> {
    while (this.executions.size) await Promise.all([...this.executions]);
  }

  private async openLane(): Promise<Lane> {
    return this.session ? this.session() : Object.assign(Object.create(this.db) as Db, { release: () => undefined });
  }

  /**
   * A database out of reach must not lose a finish: it is tried again, waiting longer each time (up to 5 s), for as long
   * as this instance runs, its lease renewed meanwhile. Only a stop gives up (after two tries): the next start marks the job
   * failed.
   */
  private retryFinishes(done: Finish[], err: unknown): void {
    for (const d of done) {
      if (this.stopping && d.tries >= 2) { d.reject(err); continue; }
      d.tries++;
      setTimeout(() => { this.finishing.push(d); void this.flushFinishes(); }, Math.min(250 * 2 ** (d.tries - 1), 5000));
    }
  }

  /**
   * Claims up to `max` of the oldest queued jobs whose serial key has nothing running and nothing older queued (so a batch
   * never holds two jobs of one key). The advisory lock makes one claimer at a time across processes; the UPDATE runs after
   * it with a snapshot of its own. Both go in one round trip (one implicit transaction), so no value is a parameter: the
   * job types are quoted literals.
   */
  private async claim(lane: Db, max: number): Promise<JobRow[]> {
    if (!this.defs.size) return [];
    const { rows } = await lane.query<JobRow>(
      `SELECT set_config('synchronous_commit', 'off', true), pg_advisory_xact_lock(hashtext('dockwright.jobs.claim'));
       ${claimUpdate([...this.defs.keys()], this.instance, this.leaseMs, max)}`);
    return rows.sort((a, b) => compareText(a.created_at, b.created_at));
  }

  /**
   * The finishes of a round and their activity entries in one statement, so in one transaction of its own (one round trip,
   * no BEGIN and COMMIT around it): a job is never done without its record.
   */
  private async finish(done: Finish[]): Promise<JobRow[]> {
    const lane = this.finishLane ??= await this.openLane();
    const { rows } = await lane.query<JobRow>(
      `WITH f AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $5::text[], $6::jsonb[]) AS f(id, status, output, result, error, detail)
       ), done AS (
         UPDATE jobs j SET status = f.status, output = f.output, result = f.result, error = f.error, finished_at = now(), lease_until = NULL
           FROM f WHERE j.id = f.id AND j.status = 'running' AND j.instance = $7 RETURNING ${columns.split(', ').map((c) => `j.${c}`).join(', ')}
       ), recorded AS (
         INSERT INTO activity (actor, action, resource, result, detail)
         SELECT done.actor, 'job.' || done.type, done.resource, done.status, f.detail FROM done JOIN f ON f.id = done.id
       ), announced AS (
         SELECT pg_notify('${jobsDoneChannel}', string_agg(id::text, ',')) FROM done HAVING count(*) > 0
       ) SELECT done.* FROM done LEFT JOIN announced ON true`,
      [done.map((d) => d.row.id), done.map((d) => d.status), done.map((d) => d.output), done.map((d) => d.result), done.map((d) => d.error), done.map((d) => d.detail), this.instance]);
    return rows;
  }

  /** runs the job in one of the runner's slots (p-queue bounds how many run at once), then has its finish written */
  private async execute(row: JobRow, controller: AbortController): Promise<void> {
    const { status, output, result, error } = (await this.slots.add(() => this.run(row, controller), { throwOnTimeout: true }));
    // the slot is free now; the job counts as done once its finish is committed, with the next batch
    this.unwritten.add(row.id);
    this.running.delete(row.id);
    this.pumpSoon();
    await new Promise<void>((resolve, reject) => {
      this.finishing.push({
        row, status, output, result, error, tries: 0, resolve, reject,
        detail: JSON.stringify({ jobId: row.id, ...(error ? { error } : {}) }),
      });
      void this.flushFinishes();
    }).finally(() => this.unwritten.delete(row.id));
  }

  /** the job's own work, its output flushed as it goes: what its finish will record */
  private async run(row: JobRow, controller: AbortController): Promise<{ status: Job['status']; output: string; result: string; error: string | null }> {
    const { def } = this.defs.get(row.type)!;
    const redactor = new Redactor();
    const output = new OutputBuffer(this.opts.outputLimit, redactor);
    const flush = setInterval(() => {
      if (!output.dirty) return;
      output.dirty = false;
      this.db.query(`UPDATE jobs SET output = $2 WHERE id = $1 AND status = 'running'`, [row.id, output.toString()]).catch(() => undefined);
    }, this.opts.flushMs ?? 250);
    let status: Job['status'] = 'succeeded';
    let result: unknown = null;
    let error: string | null = null;
    try {
      result = await def.run({
        id: row.id, input: row.input, resource: row.resource, actor: row.actor, signal: controller.signal,
        log: (line) => output.append(line),
        redact: (secret) => redactor.add(secret),
      });
    } catch (err) {
      status = this.canceled.has(row.id) ? 'canceled' : 'failed';
      error = redactor.apply(diskFull(err)?.detail ?? (err instanceof Error ? err.message : String(err)));
      if (status === 'failed') this.log.warn({ job: row.id, type: row.type, error }, 'job failed');
    } finally {
      clearInterval(flush);
      this.canceled.delete(row.id);
    }
    return { status, output: output.toString(), result: JSON.stringify(redactValue(result ?? null, redactor)), error };
  }
}
