// The sampling loop: one instance of those sharing the database (its lock) samples every interval, writes the sample, rolls up and prunes once a minute, and hands each sample on (the rules).
import type { HeldLock, Logger } from '../../sdk/index.ts';
import type { Sampler } from './sampler.ts';
import { tiers, type MetricsStore } from './store.ts';
import type { Sample } from './series.ts';

export interface CollectorDeps {
  sampler: Sampler;
  store: MetricsStore;
  log: Logger;
  intervalMs: number;
  lock(): Promise<HeldLock | null>;
  onSample(sample: Sample): Promise<void>;
}

export class Collector {
  readonly #deps: CollectorDeps;
  #timer: NodeJS.Timeout | undefined;
  #held: HeldLock | null = null;
  #stopped = false;
  #lastMaintenance = 0;
  /** the newest sample, for /metrics */
  last: Sample | undefined;
  /** how long the last sample took to read and write, in ms */
  lastCostMs = 0;

  constructor(deps: CollectorDeps) { this.#deps = deps; }

  start(): void {
    this.#deps.sampler.start();
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#deps.sampler.stop();
    await this.#held?.release().catch(() => undefined);
    this.#held = null;
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => { this.#tick().finally(() => this.#schedule(this.#deps.intervalMs)); }, ms);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    try {
      if (!this.#held) {
        this.#held = await this.#deps.lock();
        if (!this.#held) return; // another instance samples
        this.#held.lost.then(() => { this.#held = null; }, () => { this.#held = null; });
      }
      const started = performance.now();
      const sample = await this.#deps.sampler.sample();
      await this.#deps.store.write(sample);
      this.lastCostMs = performance.now() - started;
      this.last = sample;
      await this.#deps.onSample(sample);
      if (Date.now() - this.#lastMaintenance >= 60_000) {
        this.#lastMaintenance = Date.now();
        await this.maintain(new Date());
      }
    } catch (err) {
      this.#deps.log.warn({ err }, 'a metrics sample failed');
    }
  }

  /** the rollups (10 s → 1 min over the last 10 min, 1 min → 15 min over the last hour) and the retention */
  async maintain(now: Date): Promise<void> {
    await this.#deps.store.rollup(tiers[0], tiers[1], now, 600);
    await this.#deps.store.rollup(tiers[1], tiers[2], now, 3600);
    await this.#deps.store.prune(now);
  }
}
