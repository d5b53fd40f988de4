// Claiming queued jobs into this instance's free slots, on a connection of its own: one claim at a time, the next gathered behind it, retried soon after a failure.
import type { Logger } from '../../sdk/index.ts';
import type { Session } from '../db/index.ts';
import type { JobRow, JobStore } from './store.ts';

export interface ClaimsOptions {
  store: JobStore;
  log: Logger;
  instance: string;
  leaseMs: number;
  connect(): Promise<Session>;
  /** the job types this instance runs */
  types(): string[];
  /** how many jobs it may take now (0 while it stops) */
  free(): number;
  stopping(): boolean;
  /** runs the jobs just claimed */
  claimed(rows: readonly JobRow[]): void;
}

const afterTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Claims {
  /** the claim under way, and the one asked for meanwhile */
  private claiming?: Promise<void>;
  private nextClaim?: Promise<void>;
  /** a claim again soon after one failed (the database was out of reach), not at the next poll */
  private retry?: NodeJS.Timeout;
  private session?: Session;

  constructor(private readonly opts: ClaimsOptions) {}

  /** claims now, or right after the claim under way */
  claim(): Promise<void> {
    if (this.claiming) return this.soon();
    return this.claiming = this.claimFree().finally(() => { this.claiming = undefined; });
  }

  /** a claim after the current turn and after the claim under way: jobs that end together free their slots for one claim, not one each */
  soon(): Promise<void> {
    return this.nextClaim ??= Promise.resolve(this.claiming).then(afterTurn).then(() => {
      this.nextClaim = undefined;
      return this.claim();
    });
  }

  /** the claim under way, if any */
  get underWay(): Promise<void> | undefined {
    return this.claiming;
  }

  /** no retry from now on */
  stop(): void {
    clearTimeout(this.retry);
  }

  release(): void {
    this.session?.release();
    this.session = undefined;
  }

  /** claims as many jobs as there are free slots, and has them run */
  private async claimFree(): Promise<void> {
    const free = this.opts.free();
    const types = this.opts.types();
    if (free <= 0 || !types.length) return;
    let claimed: JobRow[];
    try {
      this.session ??= await this.opts.connect();
      claimed = await this.opts.store.claim(this.session, types, this.opts.instance, this.opts.leaseMs, free);
    } catch (err) {
      this.session?.release(true);
      this.session = undefined;
      this.opts.log.error({ err }, 'claiming jobs failed');
      if (!this.opts.stopping()) this.retry ??= setTimeout(() => { this.retry = undefined; void this.claim(); }, 500).unref();
      return;
    }
    this.opts.claimed(claimed);
  }
}
