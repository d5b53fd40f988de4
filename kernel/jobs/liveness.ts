// Liveness between instances: this instance's lock, the renewal of the leases of its jobs, and the takeover of the jobs of instances that are gone.
import type { HeldLock, Job, Logger } from '../../sdk/index.ts';
import { toJob, type JobStore } from './store.ts';

/** the advisory lock an instance holds while it lives: a job whose instance no longer holds it is taken over at once */
export const instanceLockName = (instance: string) => `dockwright.instance:${instance}`;

/** the jobs this instance holds a lease on, as the runner sees them */
export interface LeasedJobs {
  /** running here, or run here with their finish not written yet */
  ids(): string[];
  running(id: string): boolean;
  /** stops a job running here whose lease another instance took over */
  stop(id: string, reason: Error): void;
}

export interface LivenessOptions {
  store: JobStore;
  log: Logger;
  instance: string;
  /** how long a claimed job is held without renewal before any instance may take it over */
  leaseMs: number;
  /** how often the leases are renewed and gone instances looked for */
  renewMs: number;
  jobs: LeasedJobs;
  /** holds a session advisory lock, when the database offers one */
  tryLock?: (name: string) => Promise<HeldLock | null>;
  /** jobs of a gone instance, now failed */
  tookOver(jobs: Job[]): void;
  /** jobs claimed here with the answer lost, now queued again */
  requeued(): void;
}

export class Liveness {
  private state: 'created' | 'live' | 'stopped' = 'created';
  /** held; null or undefined while it is to be taken (again) */
  private lock?: HeldLock | null;
  /** the lock being taken again after its connection dropped: the renewals go on meanwhile */
  private locking?: Promise<void>;
  private renewal?: Promise<void>;
  private timer?: NodeJS.Timeout;

  constructor(private readonly opts: LivenessOptions) {}

  /** holds this instance's lock, takes over the jobs of instances that are gone, then renews every renewMs */
  async start(): Promise<void> {
    this.state = 'live';
    await this.holdLock();
    await this.takeOver();
    this.timer = setInterval(() => void this.renew(), this.opts.renewMs).unref();
  }

  /** no more renewals (the jobs still running drain meanwhile) */
  stop(): void {
    this.state = 'stopped';
    clearInterval(this.timer);
  }

  /** lets the lock go once the jobs are drained: what still runs here is taken over by the others */
  async release(): Promise<void> {
    await this.lock?.release();
    this.lock = undefined;
  }

  /** takes this instance's lock; when its connection drops, the next renewal takes it again */
  private async holdLock(): Promise<void> {
    if (!this.opts.tryLock) return;
    const held = await this.opts.tryLock(instanceLockName(this.opts.instance));
    // taken again while stopping (a stop does not wait for a slow connection): not kept
    if (this.state === 'stopped') { await held?.release(); return; }
    this.lock = held;
    void held?.lost.then(() => {
      if (this.state === 'stopped' || this.lock !== held) return;
      this.opts.log.error('lost the instance liveness lock: taking it again with the next renewal');
      this.lock = undefined;
    });
  }

  /** one renewal at a time: a tick while one is under way is skipped */
  private renew(): Promise<void> {
    return this.renewal ??= this.renewOnce().finally(() => { this.renewal = undefined; });
  }

  /** renews the leases of the jobs held here; a job whose lease was taken over meanwhile is stopped here */
  private async renewOnce(): Promise<void> {
    const { store, instance, leaseMs, jobs, log } = this.opts;
    try {
      // a new connection can take a while (a database that restarts, a busy host): the leases are renewed meanwhile,
      // so that missing the lock alone never makes this live instance look gone to the others
      if (!this.lock) this.locking ??= this.holdLock().catch(() => undefined).finally(() => { this.locking = undefined; });
      const ids = jobs.ids();
      if (ids.length) {
        const kept = await store.renewLeases(ids, instance, leaseMs);
        for (const id of ids) {
          // a job claimed meanwhile is not in this answer's snapshot: only one that is still here and not kept was lost
          if (!kept.has(id) && jobs.running(id) && !(await store.runsOn(id, instance))) {
            log.error({ job: id }, 'lost the lease of a running job (another instance took it over): stopping it here');
            jobs.stop(id, new Error('lease lost'));
          }
        }
      }
      await this.takeOver();
    } catch (err) {
      log.error({ err }, 'renewing job leases failed');
    }
  }

  /**
   * Marks failed ("interrupted by restart") every running job whose instance is gone: its lease expired, or its instance
   * no longer holds its liveness lock (a killed process's connection closes) and missed two renewals, so a crash is seen
   * within a few seconds rather than a whole lease. With one instance this is the recovery at start.
   */
  private async takeOver(): Promise<void> {
    const { store, instance, leaseMs, renewMs, log } = this.opts;
    await this.requeueLostClaims();
    const rows = await store.failGone(instance, Math.max(0, leaseMs - 2 * renewMs) / 1000);
    if (!rows.length) return;
    log.warn({ jobs: rows.map((r) => r.id) }, 'jobs of a stopped instance marked failed (interrupted)');
    this.opts.tookOver(rows.map(toJob));
  }

  /**
   * Queues again the jobs this instance claimed without knowing it: a claim committed whose answer was lost with its
   * connection (a database restart). They never ran here; their leases, renewed by no one, tell them apart.
   */
  private async requeueLostClaims(): Promise<void> {
    const ids = await this.opts.store.requeueExpired(this.opts.instance, this.opts.jobs.ids());
    if (!ids.length) return;
    this.opts.log.warn({ jobs: ids }, 'jobs claimed here with the answer lost are queued again');
    this.opts.requeued();
  }
}
