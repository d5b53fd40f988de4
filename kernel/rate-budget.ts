// The per-token request budget shared by every instance on one database: chunks of an aligned minute's budget are taken from PostgreSQL in batches and spent locally.
import type { Db, Logger } from '../sdk/index.ts';
import { RateDecision } from './rate-limit.ts';

const windowMs = 60_000;

interface Local {
  win: number;
  /** handed to this instance for this window */
  granted: number;
  spent: number;
  /** what the whole installation had handed out at the last grant */
  usedEverywhere: number;
  exhausted: boolean;
  pending?: Promise<void>;
}

export interface RateBudgetOptions {
  /** how many requests one grant covers: the most one instance can hold unspent (never more than the limit pass) */
  chunk: number;
  now?: () => number;
}

/**
 * Exact across instances in one direction: no more than `limit` requests of one token pass per aligned minute, however
 * many instances serve them; an instance's unspent chunk may make a few fewer pass. A grant costs one statement for every
 * token short of budget at that moment, so a burst of N requests costs about N / chunk round trips, not N.
 */
export class RateBudget {
  private readonly local = new Map<string, Local>();
  private queue = new Map<string, { win: number; want: number; done: Array<() => void> }>();
  private flushing = false;
  private lastSweep = 0;
  private readonly now: () => number;
  /** the RateLimit-Policy header, the same for every answer */
  private readonly policyHeader: string;

  constructor(private readonly db: Db, readonly limit: number, private readonly opts: RateBudgetOptions, private readonly log: Logger, readonly policy = 'default') {
    this.now = opts.now ?? Date.now;
    this.policyHeader = `"${policy}";q=${limit};w=${windowMs / 1000}`;
  }

  /** spends one request of `key`'s budget: synchronous while this instance holds some, else after one batched grant */
  take(key: string): RateDecision | Promise<RateDecision> {
    const now = this.now();
    const win = Math.floor(now / windowMs);
    let l = this.local.get(key);
    if (!l || l.win !== win) {
      if (this.local.size > 50_000) this.sweep(win);
      l = { win, granted: 0, spent: 0, usedEverywhere: 0, exhausted: false };
      this.local.set(key, l);
    }
    if (l.spent < l.granted) return this.decide(l, now, true);
    if (l.exhausted) return this.decide(l, now, false);
    const state = l;
    return (async () => {
      // requests arriving together wait for one grant; each then checks again, and asks again if the grant ran out
      while (state.spent >= state.granted && !state.exhausted && state.win === Math.floor(this.now() / windowMs)) {
        state.pending ??= this.grant(key, state).finally(() => { state.pending = undefined; });
        await state.pending;
      }
      const t = this.now();
      // the minute turned while this request waited: it belongs to the new window's budget, not the spent old one
      if (state.win !== Math.floor(t / windowMs)) return this.take(key);
      return this.decide(state, t, state.spent < state.granted);
    })();
  }

  private decide(l: Local, now: number, allowed: boolean): RateDecision {
    if (allowed) l.spent++;
    const remaining = Math.max(0, this.limit - l.usedEverywhere + (l.granted - l.spent));
    const reset = Math.max(1, Math.ceil(((l.win + 1) * windowMs - now) / 1000));
    return new RateDecision(allowed, allowed ? remaining : 0, reset, this.policy, this.policyHeader);
  }

  private grant(key: string, l: Local): Promise<void> {
    return new Promise((resolve) => {
      const queued = this.queue.get(key);
      if (queued && queued.win === l.win) queued.done.push(resolve);
      else this.queue.set(key, { win: l.win, want: this.opts.chunk, done: [resolve] });
      void this.flush();
    });
  }

  /** every token waiting for budget in one statement: while it runs, the next batch gathers */
  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.size) {
        const batch = this.queue;
        this.queue = new Map();
        const keys = [...batch.keys()];
        try {
          const granted = await this.db.query<{ key: string; granted: number; used: number }>(
            `INSERT INTO rate_budgets AS b (key, win, used, last_grant)
             SELECT key, win, least($3::int, $4::int), least($3::int, $4::int) FROM unnest($1::text[], $2::bigint[]) AS w(key, win)
             ON CONFLICT (key, win) DO UPDATE SET used = b.used + least($3::int, $4::int - b.used), last_grant = least($3::int, $4::int - b.used)
              WHERE b.used < $4::int
             RETURNING b.key, b.last_grant AS granted, b.used`,
            [keys, keys.map((k) => batch.get(k)!.win), this.opts.chunk, this.limit]);
          const byKey = new Map(granted.rows.map((r) => [r.key, r]));
          for (const key of keys) {
            const l = this.local.get(key);
            const g = byKey.get(key);
            if (l && l.win === batch.get(key)!.win) {
              if (g) { l.granted += g.granted; l.usedEverywhere = g.used; } else { l.exhausted = true; l.usedEverywhere = this.limit; }
            }
          }
        } catch (err) {
          // the database is away: this instance falls back to its own share of the window rather than refusing everyone
          this.log.warn({ err }, 'could not take request budget from the database; spending locally');
          for (const key of keys) {
            const l = this.local.get(key);
            if (!l) continue;
            const next = Math.min(this.limit, l.spent + this.opts.chunk);
            // this instance alone has spent the whole limit: refuse until the window turns, as one instance would
            if (next <= l.granted) l.exhausted = true;
            else l.granted = next;
          }
        }
        for (const b of batch.values()) for (const done of b.done) done();
        this.sweepDatabase();
      }
    } finally {
      this.flushing = false;
    }
  }

  private sweep(win: number): void {
    for (const [key, l] of this.local) if (l.win !== win) this.local.delete(key);
  }

  /** windows older than the previous one are of no use to anyone */
  private sweepDatabase(): void {
    const now = this.now();
    if (now - this.lastSweep < windowMs) return;
    this.lastSweep = now;
    this.db.query('DELETE FROM rate_budgets WHERE win < $1', [Math.floor(now / windowMs) - 1]).catch(() => undefined);
  }
}
