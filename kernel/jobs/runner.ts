// The job runner: defines job types, queues jobs, claims them into p-queue slots, runs them and writes their finishes in batches; the table is the store's, the leases the liveness'.
import { randomUUID } from 'node:crypto';
import PQueue from 'p-queue';
import { diskFull, type Actor, type ActivityApi, type Db, type EnqueueOptions, type HeldLock, type Job, type JobDef, type JobHandle, type JobsApi, type Logger } from '../../sdk/index.ts';
import type { ListenHandlers, Session } from '../db/index.ts';
import { compileStrict, type Check } from '../http/validate.ts';
import { Liveness } from './liveness.ts';
import { OutputBuffer, Redactor } from './output.ts';
import { JobStore, jobsCancelChannel, jobsDoneChannel, toJob, type FinishRecord, type JobFilter, type JobRow } from './store.ts';
import { Waits } from './waits.ts';
import type { TSchema } from '@sinclair/typebox';

export interface JobSettings {
  concurrency: number;
  outputLimit: number;
  /** how often a running job's output is saved */
  flushMs?: number;
  /** how long a claimed job is held without renewal before any instance may take it over */
  leaseMs?: number;
  /** how often this instance renews the leases of its running jobs and looks for expired ones */
  renewMs?: number;
  /** how often it looks for queued work it was not told about */
  pollMs?: number;
}

/** the database as the runner uses it: connections of its own for claims and finishes, the liveness lock and LISTEN, where offered */
export interface JobsDatabase extends Db {
  session?(): Promise<Session>;
  tryLock?(name: string): Promise<HeldLock | null>;
  listen?(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>>;
}

export interface RunnerOptions {
  db: JobsDatabase;
  log: Logger;
  activity: ActivityApi;
  settings: JobSettings;
  /** told of every job that failed, once its finish is committed (the `job.failed` event) */
  onFailed?(job: Job): void;
}

/** a finish waiting to be written, with the execution that waits for it */
interface PendingFinish { record: FinishRecord; tries: number; resolve(): void; reject(err: unknown): void }

/** what a job's run ends with: what its finish records */
type Outcome = Pick<FinishRecord, 'status' | 'output' | 'result' | 'error'>;

/** the strings of a JSON value with secrets hidden (redacting serialized JSON could cut into its syntax) */
function redactValue(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') return redactor.apply(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, redactor));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, redactor)]));
  return value;
}

const afterTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** resolves when `work` does or after `ms`, whichever comes first */
async function within(ms: number, work: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => { timer = setTimeout(resolve, ms); })]);
  clearTimeout(timer);
}

export class JobRunner implements JobsApi {
  /** this process: named on the jobs it runs */
  readonly instance = randomUUID();
  private readonly store: JobStore;
  private readonly waits: Waits;
  private readonly liveness: Liveness;
  private readonly defs = new Map<string, { def: JobDef<TSchema>; check: Check }>();
  private state: 'created' | 'running' | 'stopping' = 'created';
  /** the jobs running here, by id: what stops each */
  private readonly running = new Map<string, AbortController>();
  private readonly canceled = new Set<string>();
  /** jobs that ran here and whose finish is not written yet: their leases are renewed until it is */
  private readonly unwritten = new Set<string>();
  /** what runs or waits for its finish to be written */
  private readonly executions = new Set<Promise<void>>();
  /** the slots jobs run in: the design card's p-queue, as wide as jobs.concurrency (a claim takes only as many jobs as are free) */
  private readonly slots: PQueue;
  /** told of every job this instance finished, once its finish is committed (the metrics) */
  private readonly finishListeners: ((job: Job) => void)[] = [];
  private readonly finishing: PendingFinish[] = [];
  /** connections of their own for claims and for finishes (a burst of requests on the pool must not hold up the runner) */
  private claimSession?: Session;
  private finishSession?: Session;
  /** the claim under way, and the one asked for meanwhile */
  private claiming?: Promise<void>;
  private nextClaim?: Promise<void>;
  /** the batch of finishes being written */
  private writing?: Promise<void>;
  private poll?: NodeJS.Timeout;
  /** a claim again soon after one failed (the database was out of reach), not at the next poll */
  private claimRetry?: NodeJS.Timeout;
  private unlisten: (() => Promise<void>)[] = [];
  private readonly leaseMs: number;

  /** jobs.concurrency changed through the settings: this instance runs as many jobs at once from now on */
  setConcurrency(concurrency: number): void {
    this.slots.concurrency = concurrency;
    if (this.state === 'running') void this.claim();
  }

  constructor(private readonly opts: RunnerOptions) {
    const { db, log, settings } = opts;
    this.store = new JobStore(db);
    this.waits = new Waits(this.store);
    this.slots = new PQueue({ concurrency: settings.concurrency });
    this.leaseMs = Math.max(1000, settings.leaseMs ?? 30_000);
    this.liveness = new Liveness({
      store: this.store, log, instance: this.instance, leaseMs: this.leaseMs,
      renewMs: Math.max(50, Math.min(settings.renewMs ?? 2000, Math.floor(this.leaseMs / 4))),
      tryLock: db.tryLock ? (name) => db.tryLock!(name) : undefined,
      jobs: {
        ids: () => [...this.running.keys(), ...this.unwritten],
        running: (id) => this.running.has(id),
        stop: (id, reason) => this.running.get(id)?.abort(reason),
      },
      tookOver: (jobs) => {
        for (const job of jobs) {
          this.waits.done(job);
          this.opts.onFailed?.(job);
        }
        void this.claimSoon();
      },
      requeued: () => void this.claimSoon(),
    });
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
    const job = { type, input, actor: options.actor, resource: options.resource ?? null, serialKey: options.serialKey ?? null };
    const { row, attached } = options.attachToQueued && options.serialKey
      ? await this.store.insertUnlessQueued({ ...job, serialKey: options.serialKey })
      : { row: await this.store.insert(job), attached: false };
    if (!attached) void this.claim();
    return { ...toJob(row), attached };
  }

  /** a job finished here, or read finished, lately is answered from memory (it never changes again); any other is read */
  get(id: string): Promise<Job | null> {
    return this.store.get(id);
  }

  latest(type: string, resource: string): Promise<Job | null> {
    return this.store.latest(type, resource);
  }

  getMany(ids: readonly string[], opts?: { output?: boolean }): Promise<Map<string, Job>> {
    return this.store.getMany(ids, opts);
  }

  open(resource: string): Promise<Job[]> {
    return this.store.open(resource);
  }

  /** the types defined as the service's own background work (alert deliveries) */
  internalTypes(): string[] {
    return [...this.defs.values()].filter((e) => e.def.internal).map((e) => e.def.type);
  }

  list(filter: JobFilter): Promise<(Job & { seq: number })[]> {
    return this.store.list(filter);
  }

  wait(id: string, timeoutMs: number): Promise<Job | null> {
    return this.waits.wait(id, timeoutMs);
  }

  /** cancels a queued job at once, and asks a running one to stop; null when there is no such job. */
  async cancel(id: string, actor: Actor): Promise<Job | null> {
    const row = await this.store.cancelQueued(id);
    if (row) {
      const job = toJob(row);
      await this.opts.activity.record({ actor, action: `job.cancel`, resource: job.resource, result: 'canceled', detail: { jobId: id, type: job.type } });
      this.waits.done(job);
      return job;
    }
    // running on another instance: it is asked through the database
    if (!this.abort(id)) await this.store.askToCancel(id);
    return this.store.get(id);
  }

  /** stops a job running here on request (its own or another instance's cancel); false when it does not run here */
  private abort(id: string): boolean {
    const controller = this.running.get(id);
    if (!controller) return false;
    this.canceled.add(id);
    controller.abort(new Error('canceled'));
    return true;
  }

  /**
   * Listens for other instances' finishes (a wait here answers at once) and cancels (a job running here stops), holds
   * this instance's liveness, recovers the jobs of instances that are gone, fails queued jobs no plugin runs, then claims.
   */
  async start(): Promise<void> {
    await this.listen();
    this.state = 'running';
    await this.liveness.start();
    const orphans = await this.store.failUnknownTypes([...this.defs.keys()]);
    if (orphans.length) this.opts.log.warn({ jobs: orphans }, 'queued jobs of unknown types failed');
    this.poll = setInterval(() => void this.claim(), this.opts.settings.pollMs ?? 5000).unref();
    await this.claim();
  }

  private async listen(): Promise<void> {
    const { db } = this.opts;
    if (!db.listen) return;
    this.unlisten.push(await db.listen(jobsDoneChannel, {
      notify: (payload) => void this.waits.announced(payload ?? ''),
      down: () => undefined,
      up: () => void this.waits.announced(),
    }));
    this.unlisten.push(await db.listen(jobsCancelChannel, {
      notify: (payload) => { if (payload) this.abort(payload); },
      down: () => undefined, up: () => undefined,
    }));
  }

  /** stops claiming and waits (up to drainMs) for running jobs; what is still running then is marked failed at the next start. */
  async stop(drainMs = 30_000): Promise<void> {
    this.state = 'stopping';
    clearInterval(this.poll);
    clearTimeout(this.claimRetry);
    this.liveness.stop();
    // a claim under way when the stop came runs its jobs here: they are drained (and aborted) like the others, never
    // left running unwatched while this instance lets its lock go
    await within(drainMs, this.settled().then(() => this.idle()));
    for (const c of this.running.values()) c.abort(new Error('shutting down'));
    // the aborted jobs record their end before the database goes away
    await within(5000, this.idle().then(() => this.settled()));
    for (const session of [this.claimSession, this.finishSession]) session?.release();
    this.claimSession = this.finishSession = undefined;
    await Promise.all(this.unlisten.splice(0).map((unlisten) => unlisten()));
    await this.liveness.release();
  }

  private async idle(): Promise<void> {
    while (this.executions.size) await Promise.all([...this.executions]);
  }

  /** no claim and no finish under way */
  private async settled(): Promise<void> {
    while (this.claiming || this.writing) await Promise.all([this.claiming, this.writing]);
  }

  /** claims now, or right after the claim under way */
  private claim(): Promise<void> {
    if (this.claiming) return this.claimSoon();
    return this.claiming = this.claimFree().finally(() => { this.claiming = undefined; });
  }

  /** a claim after the current turn and after the claim under way: jobs that end together free their slots for one claim, not one each */
  private claimSoon(): Promise<void> {
    return this.nextClaim ??= Promise.resolve(this.claiming).then(afterTurn).then(() => {
      this.nextClaim = undefined;
      return this.claim();
    });
  }

  /** claims as many jobs as there are free slots, on the claim connection, and runs them */
  private async claimFree(): Promise<void> {
    const free = this.state === 'stopping' ? 0 : this.slots.concurrency - this.running.size;
    if (free <= 0 || !this.defs.size) return;
    let claimed: JobRow[];
    try {
      this.claimSession ??= await this.connect();
      claimed = await this.store.claim(this.claimSession, [...this.defs.keys()], this.instance, this.leaseMs, free);
    } catch (err) {
      this.claimSession?.release(true);
      this.claimSession = undefined;
      this.opts.log.error({ err }, 'claiming jobs failed');
      if (this.state !== 'stopping') this.claimRetry ??= setTimeout(() => { this.claimRetry = undefined; void this.claim(); }, 500).unref();
      return;
    }
    for (const row of claimed) {
      const controller = new AbortController();
      this.running.set(row.id, controller);
      const execution = this.execute(row, controller)
        .catch((err) => this.opts.log.error({ err, job: row.id }, 'a job could not be finished; the next start marks it failed'))
        .finally(() => this.executions.delete(execution));
      this.executions.add(execution);
    }
  }

  private async connect(): Promise<Session> {
    const { db } = this.opts;
    return db.session ? db.session() : Object.assign(Object.create(db) as Db, { release: () => undefined });
  }

  /** runs the job in one of the runner's slots (p-queue bounds how many run at once), then has its finish written */
  private async execute(row: JobRow, controller: AbortController): Promise<void> {
    const outcome = await this.slots.add(() => this.run(row, controller), { throwOnTimeout: true });
    // the slot is free now; the job counts as done once its finish is committed, with the next batch
    this.unwritten.add(row.id);
    this.running.delete(row.id);
    void this.claimSoon();
    const detail = JSON.stringify({ jobId: row.id, ...(outcome.error ? { error: outcome.error } : {}) });
    await new Promise<void>((resolve, reject) => this.writeFinish({ record: { id: row.id, ...outcome, detail }, tries: 0, resolve, reject }))
      .finally(() => this.unwritten.delete(row.id));
  }

  /** the job's own work, its output saved as it goes: what its finish will record */
  private async run(row: JobRow, controller: AbortController): Promise<Outcome> {
    const { def } = this.defs.get(row.type)!;
    const redactor = new Redactor();
    const output = new OutputBuffer(this.opts.settings.outputLimit, redactor);
    const save = setInterval(() => {
      if (!output.dirty) return;
      output.dirty = false;
      this.store.saveOutput(row.id, output.toString()).catch(() => undefined);
    }, this.opts.settings.flushMs ?? 250);
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
      if (status === 'failed') this.opts.log.warn({ job: row.id, type: row.type, error }, 'job failed');
    } finally {
      clearInterval(save);
      this.canceled.delete(row.id);
    }
    return { status, output: output.toString(), result: JSON.stringify(redactValue(result ?? null, redactor)), error };
  }

  /** queues a finish for the next batch, and starts writing unless a batch is being written */
  private writeFinish(finish: PendingFinish): void {
    this.finishing.push(finish);
    this.writing ??= this.writeFinishes();
  }

  /**
   * Writes the finishes collected meanwhile in one statement and one durable commit, on the finish connection: while one
   * batch is written the next gathers, so short jobs are finished in batches.
   */
  private async writeFinishes(): Promise<void> {
    await null; // `writing` is set before this ends
    try {
      while (this.finishing.length) {
        const batch = this.finishing.splice(0);
        const ids = batch.map((f) => f.record.id);
        this.waits.writingFinishes(ids);
        let rows: JobRow[];
        try {
          rows = await this.writeBatch(batch.map((f) => f.record)).finally(() => this.waits.finishesWritten(ids));
        } catch (err) {
          this.finishSession?.release(true);
          this.finishSession = undefined;
          // the commit may have happened with only its answer lost: the waits read their jobs again
          void this.waits.announced(ids.join(','));
          this.retryFinishes(batch, err);
          continue;
        }
        for (const row of rows) {
          const job = toJob(row);
          this.waits.finishedHere(job);
          if (job.status === 'failed') this.opts.onFailed?.(job);
          for (const listener of this.finishListeners) listener(job);
        }
        for (const f of batch) f.resolve();
        // a job of a serial key waits until its predecessor's finish is committed: claim again now that it is
        void this.claimSoon();
      }
    } finally {
      this.writing = undefined;
    }
  }

  private async writeBatch(records: FinishRecord[]): Promise<JobRow[]> {
    this.finishSession ??= await this.connect();
    return this.store.finish(this.finishSession, records, this.instance);
  }

  /**
   * A database out of reach must not lose a finish: it is tried again, waiting longer each time (up to 5 s), for as long
   * as this instance runs, its lease renewed meanwhile. Only a stop gives up (after two tries): the next start marks the job
   * failed.
   */
  private retryFinishes(batch: PendingFinish[], err: unknown): void {
    for (const f of batch) {
      if (this.state === 'stopping' && f.tries >= 2) { f.reject(err); continue; }
      f.tries++;
      setTimeout(() => this.writeFinish(f), Math.min(250 * 2 ** (f.tries - 1), 5000));
    }
  }
}
