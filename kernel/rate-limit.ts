// The request rate limit: N requests per 60-second window per token (or per address without one), counted synchronously.
export interface RateDecision {
  allowed: boolean;
  remaining: number;
  /** seconds until the window resets */
  reset: number;
  headers: Record<string, string>;
}

const windowSeconds = 60;
/** past this many callers in one window, unknown keys share their address's budget: random tokens cannot grow memory */
const maxKeys = 50_000;

export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();
  private lastSweep = Date.now();

  private readonly policy: string;

  constructor(readonly limit: number, private readonly now: () => number = Date.now) {
    this.policy = `"default";q=${limit};w=${windowSeconds}`;
  }

  /** counts one request for `key`; the check and the increment happen in one synchronous step, so concurrent requests cannot overshoot. */
  hit(wanted: string, fallback = wanted): RateDecision {
    const now = this.now();
    this.sweep(now);
    if (this.windows.size >= maxKeys && !this.windows.has(wanted)) this.sweep(now, true);
    const key = this.windows.size >= maxKeys && !this.windows.has(wanted) ? fallback : wanted;
    let w = this.windows.get(key);
    if (!w || now - w.start >= windowSeconds * 1000) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    const allowed = w.count < this.limit;
    if (allowed) w.count++;
    const remaining = Math.max(0, this.limit - w.count);
    const reset = Math.max(1, Math.ceil((w.start + windowSeconds * 1000 - now) / 1000));
    const headers: Record<string, string> = {
      'RateLimit-Policy': this.policy,
      RateLimit: `"default";r=${remaining};t=${reset}`,
    };
    if (!allowed) headers['Retry-After'] = String(reset);
    return { allowed, remaining, reset, headers };
  }

  private sweep(now: number, force = false): void {
    if (!force && now - this.lastSweep < windowSeconds * 1000) return;
    this.lastSweep = now;
    for (const [key, w] of this.windows) if (now - w.start >= windowSeconds * 1000) this.windows.delete(key);
  }
}
