// The finishes of the jobs run here, written in batches on a connection of their own: while one batch is written the next gathers, and a batch the database did not take is tried again.
import type { Session } from '../db/index.ts';
import type { FinishRecord, JobRow, JobStore } from './store.ts';
import type { Waits } from './waits.ts';

/** a finish waiting to be written, with the execution that waits for it */
interface PendingFinish { record: FinishRecord; tries: number; resolve(): void; reject(err: unknown): void }

export interface FinishWriterOptions {
  store: JobStore;
  waits: Waits;
  /** this process, named on the jobs it runs */
  instance: string;
  connect(): Promise<Session>;
  /** true once the runner stops: a finish is then tried twice at most */
  stopping(): boolean;
  /** a batch is committed: these are its jobs as written */
  committed(rows: readonly JobRow[]): void;
}

export class FinishWriter {
  private readonly finishing: PendingFinish[] = [];
  private session?: Session;
  /** the batch being written */
  private writing?: Promise<void>;

  constructor(private readonly opts: FinishWriterOptions) {}

  /** resolves once the finish is committed (rejects only when the runner stops and the database is out of reach) */
  write(record: FinishRecord): Promise<void> {
    return new Promise<void>((resolve, reject) => this.queue({ record, tries: 0, resolve, reject }));
  }

  /** the batch being written, if any */
  get underWay(): Promise<void> | undefined {
    return this.writing;
  }

  release(): void {
    this.session?.release();
    this.session = undefined;
  }

  /** queues a finish for the next batch, and starts writing unless a batch is being written */
  private queue(finish: PendingFinish): void {
    this.finishing.push(finish);
    this.writing ??= this.writeAll();
  }

  /** writes the finishes collected meanwhile in one statement and one durable commit, batch after batch */
  private async writeAll(): Promise<void> {
    await null; // `writing` is set before this ends
    try {
      while (this.finishing.length) {
        const batch = this.finishing.splice(0);
        const ids = batch.map((f) => f.record.id);
        this.opts.waits.writingFinishes(ids);
        let rows: JobRow[];
        try {
          rows = await this.writeBatch(batch.map((f) => f.record)).finally(() => this.opts.waits.finishesWritten(ids));
        } catch (err) {
          this.session?.release(true);
          this.session = undefined;
          // the commit may have happened with only its answer lost: the waits read their jobs again
          void this.opts.waits.announced(ids.join(','));
          this.retry(batch, err);
          continue;
        }
        this.opts.committed(rows);
        for (const f of batch) f.resolve();
      }
    } finally {
      this.writing = undefined;
    }
  }

  private async writeBatch(records: FinishRecord[]): Promise<JobRow[]> {
    this.session ??= await this.opts.connect();
    return this.opts.store.finish(this.session, records, this.opts.instance);
  }

  /**
   * A database out of reach must not lose a finish: it is tried again, waiting longer each time (up to 5 s), for as long
   * as this instance runs, its lease renewed meanwhile. Only a stop gives up (after two tries): the next start marks the job
   * failed.
   */
  private retry(batch: PendingFinish[], err: unknown): void {
    for (const f of batch) {
      if (this.opts.stopping() && f.tries >= 2) { f.reject(err); continue; }
      f.tries++;
      setTimeout(() => this.queue(f), Math.min(250 * 2 ** (f.tries - 1), 5000));
    }
  }
}
