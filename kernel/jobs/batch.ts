// Batches of database calls: calls made while one batch is under way gather into the next, so a burst costs a few round trips, not one each.

interface Pending<I, O> { input: I; resolve(out: O): void; reject(err: unknown): void }

export class Batcher<I, O> {
  private waiting: Pending<I, O>[] = [];
  private busy = false;

  /** `run` answers a batch's inputs in their order; when a batch fails, each of its calls is tried alone, so one bad input fails only itself */
  constructor(private readonly run: (inputs: I[]) => Promise<O[]>, private readonly max = 1000) {}

  add(input: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.waiting.length) {
        const batch = this.waiting.splice(0, this.max);
        try {
          const out = await this.run(batch.map((p) => p.input));
          batch.forEach((p, i) => p.resolve(out[i]));
        } catch (err) {
          if (batch.length === 1) { batch[0].reject(err); continue; }
          for (const p of batch) await this.run([p.input]).then(([out]) => p.resolve(out), p.reject);
        }
      }
    } finally {
      this.busy = false;
    }
  }
}
