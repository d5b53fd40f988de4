// Waits for jobs to finish: woken by the finishes this instance writes and by those other instances announce on the done channel, not by polling.
import { EventEmitter } from 'node:events';
import type { Job } from '../../sdk/index.ts';
import { Batcher } from './batch.ts';
import type { JobStore } from './store.ts';

export class Waits {
  private readonly finished = new EventEmitter().setMaxListeners(0);
  /** the jobs whose finish is being written here: this instance wakes their waits itself once committed */
  private readonly writing = new Set<string>();
  /** a wait's first look at its job (null for a malformed or unknown id): the waits begun together read their jobs in one query */
  private readonly firstLooks: Batcher<string, Job | null>;

  constructor(private readonly store: JobStore) {
    this.firstLooks = new Batcher(async (ids) => {
      const jobs = await store.getMany(ids);
      return ids.map((id) => jobs.get(id) ?? null);
    });
  }

  /** the listener is in place before the state is read, so no finish is missed */
  async wait(id: string, timeoutMs: number): Promise<Job | null> {
    let listener!: (job: Job) => void;
    let timer!: NodeJS.Timeout;
    const finished = new Promise<Job | null>((resolve) => {
      listener = resolve;
      timer = setTimeout(() => resolve(null), timeoutMs);
      this.finished.once(id, listener);
    });
    try {
      const now = this.store.finished.get(id, true) ?? await this.firstLooks.add(id);
      if (!now || now.done) return now;
      return (await finished) ?? (await this.store.get(id));
    } finally {
      clearTimeout(timer);
      this.finished.off(id, listener);
    }
  }

  /** a job is done: its waits here answer */
  done(job: Job): void {
    this.finished.emit(job.id, job);
  }

  /** a job this instance finished: its waits here answer, and the cache of finished jobs keeps it for those that come later */
  finishedHere(job: Job): void {
    this.done(job);
    this.store.finished.add(job, true);
  }

  /** the finishes of these jobs are being written here (their announcement is this instance's own) */
  writingFinishes(ids: readonly string[]): void {
    for (const id of ids) this.writing.add(id);
  }

  finishesWritten(ids: readonly string[]): void {
    for (const id of ids) this.writing.delete(id);
  }

  /**
   * Finished jobs were announced (by any instance, this one too): the waits here for them answer now. While that channel
   * is down (and once when it is back) every wait re-reads its job instead. What this instance is finishing it announces
   * itself once its commit returns.
   */
  async announced(payload?: string): Promise<void> {
    const ids = payload === undefined
      ? this.finished.eventNames().map(String)
      : payload.split(',').filter((id) => !this.writing.has(id) && this.finished.listenerCount(id) > 0);
    if (!ids.length) return;
    const jobs = await this.store.getMany(ids).catch(() => new Map<string, Job>());
    for (const job of jobs.values()) if (job.done) this.done(job);
  }
}
