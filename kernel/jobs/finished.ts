// The one cache of finished jobs, output included where it was read: a finished job never changes again, so reads and waits that come after it need no query.
import type { Job } from '../../sdk/index.ts';

/** how many finished jobs are kept (the last two jobs of 500 stacks), and how much of their output */
const jobsKept = 1000;
const outputKept = 1 << 20;
/** a job with more output than this is kept without it: one deploy's log does not push out a hundred others */
const outputKeptPerJob = outputKept / 16;

interface Kept {
  /** frozen: readers without output share it */
  job: Job;
  /** whether `job.output` is the whole output (else it is '': the job was read without it, or its output is too long) */
  whole: boolean;
  /** the job without its output, frozen, made at the first read without output of a whole job */
  bare?: Job;
}

/** a value and everything in it made read-only */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Finished jobs as they were last written or read, the oldest forgotten past a thousand jobs or 1 MiB of output. A job
 * read without its output is kept without it, and answers only reads without output until it is read whole.
 */
export class FinishedJobs {
  private readonly kept = new Map<string, Kept>();
  private output = 0;

  /**
   * The finished job, if kept: with `output`, a copy of its own for the caller (only if its whole output is kept);
   * without, a shared frozen job whose output is ''.
   */
  get(id: string, output: boolean): Job | undefined {
    const kept = this.kept.get(id);
    if (!kept) return undefined;
    if (output) return kept.whole ? structuredClone(kept.job) : undefined;
    return kept.whole ? (kept.bare ??= Object.freeze({ ...kept.job, output: '' })) : kept.job;
  }

  /**
   * Keeps a frozen copy of a finished job (`whole`: its output is all there; one longer than the bound is kept without
   * it); the caller's own job stays as it is.
   */
  add(job: Job, whole: boolean): void {
    if (!job.done) return;
    const fits = whole && job.output.length <= outputKeptPerJob;
    const known = this.kept.get(job.id);
    if (known && (known.whole || !fits)) return;
    this.delete(job.id);
    this.kept.set(job.id, { job: deepFreeze(structuredClone(fits ? job : { ...job, output: '' })), whole: fits });
    if (fits) this.output += job.output.length;
    for (const id of this.kept.keys()) {
      if (this.kept.size <= jobsKept && this.output <= outputKept) break;
      this.delete(id);
    }
  }

  private delete(id: string): void {
    const kept = this.kept.get(id);
    if (!kept) return;
    if (kept.whole) this.output -= kept.job.output.length;
    this.kept.delete(id);
  }
}
