// The job runner: defines job types, queues jobs and runs those it claims in p-queue slots; claiming is claims.ts', running execution.ts', writing finishes finishes.ts', the table the store's, the leases the liveness'.
import { randomUUID } from 'node:crypto';
import type { Actor, ActivityApi, Db, EnqueueOptions, HeldLock, Job, JobDef, JobHandle, JobsApi, Logger } from '../../sdk/index.ts';
import type { ListenHandlers, Session } from '../db/index.ts';
import { compileStrict, type Check } from '../http/validate.ts';
import { Liveness } from './liveness.ts';
import { Claims } from './claims.ts';
import { RunningJobs } from './execution.ts';
import { FinishWriter } from './finishes.ts';
import { JobStore, jobsCancelChannel, jobsDoneChannel, toJob, type JobFilter, type JobRow } from './store.ts';
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

/** resolves when `work` does or after `ms`, whichever comes first */
async function within(ms: number, work: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => { timer = setTimeout(resolve, ms); })]);
  clearTimeout(timer);
}

/** a connection of its own for claims or finishes (a burst of requests on the pool must not hold up the runner), where the database offers one */
const connectTo = (db: JobsDatabase) => async (): Promise<Session> => (db.session ? db.session() : Object.assign(Object.create(db) as Db, { release: () => undefined }));

/** listens for other instances' finishes (a wait here answers at once) and cancels (`abort` stops a job running here) */
async function listenToOthers(db: JobsDatabase, waits: Waits, abort: (id: string) => void): Promise<(() => Promise<void>)[]> {
  if (!db.listen) return [];
  return [
    await db.listen(jobsDoneChannel, {
      notify: (payload) => void waits.announced(payload ?? ''),
      down: () => undefined,
      up: () => void waits.announced(),
    }),
    await db.listen(jobsCancelChannel, {
      notify: (payload) => { if (payload) abort(payload); },
      down: () => undefined, up: () => undefined,
    }),
  ];
}

/** the reads of the jobs API: the store's queries and the waits */
class JobReads {
  constructor(protected readonly store: JobStore, protected readonly waits: Waits) {}

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

  list(filter: JobFilter): Promise<(Job & { seq: number })[]> {
    return this.store.list(filter);
  }

  wait(id: string, timeoutMs: number): Promise<Job | null> {
    return this.waits.wait(id, timeoutMs);
  }
}

export class JobRunner extends JobReads implements JobsApi {
  /** this process: named on the jobs it runs */
  readonly instance = randomUUID();
  private readonly liveness: Liveness;
  private readonly claims: Claims;
  private readonly finishes: FinishWriter;
  private readonly defs = new Map<string, { def: JobDef<TSchema>; check: Check }>();
  private state: 'created' | 'running' | 'stopping' = 'created';
  private readonly jobs: RunningJobs;
  /** told of every job this instance finished, once its finish is committed (the metrics) */
  private readonly finishListeners: ((job: Job) => void)[] = [];
  private poll?: NodeJS.Timeout;
  private unlisten: (() => Promise<void>)[] = [];

  /** how many jobs this instance runs at once (jobs.concurrency) */
  get concurrency(): number {
    return this.jobs.concurrency;
  }

  /** jobs.concurrency changed through the settings: this instance runs as many jobs at once from now on */
  setConcurrency(concurrency: number): void {
    this.jobs.concurrency = concurrency;
    if (this.state === 'running') void this.claims.claim();
  }

  constructor(private readonly opts: RunnerOptions) {
    const store = new JobStore(opts.db);
    super(store, new Waits(store));
    const { db, log, settings } = opts;
    const leaseMs = Math.max(1000, settings.leaseMs ?? 30_000);
    const stopping = () => this.state === 'stopping';
    this.claims = new Claims({
      store, log, instance: this.instance, leaseMs, connect: connectTo(db), stopping, types: () => [...this.defs.keys()],
      free: () => (stopping() ? 0 : this.jobs.free), claimed: (rows) => this.jobs.start(rows),
    });
    this.finishes = new FinishWriter({ store, waits: this.waits, instance: this.instance, connect: connectTo(db), stopping, committed: (rows) => this.committed(rows) });
    this.jobs = new RunningJobs({
      store, log, finishes: this.finishes, concurrency: settings.concurrency, outputLimit: settings.outputLimit, flushMs: settings.flushMs ?? 250,
      def: (type) => this.defs.get(type)!.def, freed: () => void this.claims.soon(),
    });
    this.liveness = new Liveness({
      store, log, instance: this.instance, leaseMs,
      renewMs: Math.max(50, Math.min(settings.renewMs ?? 2000, Math.floor(leaseMs / 4))),
      tryLock: db.tryLock ? (name) => db.tryLock!(name) : undefined,
      jobs: { ids: () => this.jobs.ids(), running: (id) => this.jobs.has(id), stop: (id, reason) => this.jobs.stop(id, reason) },
      tookOver: (jobs) => {
        for (const job of jobs) {
          this.waits.done(job);
          this.opts.onFailed?.(job);
        }
        void this.claims.soon();
      },
      requeued: () => void this.claims.soon(),
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
    if (!attached) void this.claims.claim();
    return { ...toJob(row), attached };
  }

  /** the types defined as the service's own background work (alert deliveries) */
  internalTypes(): string[] {
    return [...this.defs.values()].filter((e) => e.def.internal).map((e) => e.def.type);
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
    if (!this.jobs.cancel(id)) await this.store.askToCancel(id);
    return this.store.get(id);
  }

  /**
   * Listens for other instances' finishes and cancels, holds this instance's liveness, recovers the jobs of instances
   * that are gone, fails queued jobs no plugin runs, then claims.
   */
  async start(): Promise<void> {
    this.unlisten.push(...await listenToOthers(this.opts.db, this.waits, (id) => this.jobs.cancel(id)));
    this.state = 'running';
    await this.liveness.start();
    const orphans = await this.store.failUnknownTypes([...this.defs.keys()]);
    if (orphans.length) this.opts.log.warn({ jobs: orphans }, 'queued jobs of unknown types failed');
    this.poll = setInterval(() => void this.claims.claim(), this.opts.settings.pollMs ?? 5000).unref();
    await this.claims.claim();
  }

  /** stops claiming and waits (up to drainMs) for running jobs; what is still running then is marked failed at the next start. */
  async stop(drainMs = 30_000): Promise<void> {
    this.state = 'stopping';
    clearInterval(this.poll);
    this.claims.stop();
    this.liveness.stop();
    // a claim under way when the stop came runs its jobs here: they are drained (and aborted) like the others, never
    // left running unwatched while this instance lets its lock go
    await within(drainMs, this.settled().then(() => this.jobs.idle()));
    this.jobs.stopAll(new Error('shutting down'));
    // the aborted jobs record their end before the database goes away
    await within(5000, this.jobs.idle().then(() => this.settled()));
    this.claims.release();
    this.finishes.release();
    await Promise.all(this.unlisten.splice(0).map((unlisten) => unlisten()));
    await this.liveness.release();
  }

  /** no claim and no finish under way */
  private async settled(): Promise<void> {
    while (this.claims.underWay || this.finishes.underWay) await Promise.all([this.claims.underWay, this.finishes.underWay]);
  }

  /** a batch of finishes is committed: waits answer, failures are told, and a job of a serial key behind one of them may run now */
  private committed(rows: readonly JobRow[]): void {
    for (const row of rows) {
      const job = toJob(row);
      this.waits.finishedHere(job);
      if (job.status === 'failed') this.opts.onFailed?.(job);
      for (const listener of this.finishListeners) listener(job);
    }
    void this.claims.soon();
  }
}
