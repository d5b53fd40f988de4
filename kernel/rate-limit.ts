// Request rate limits: N requests per 60-second window per key (a token, an address, a webhook resource), counted synchronously.
/** one decision of a limit; its headers are written only when asked for (a request asks two limits and shows one) */
export class RateDecision {
  constructor(
    readonly allowed: boolean,
    readonly remaining: number,
    /** seconds until the window resets */
    readonly reset: number,
    private readonly policy: string,
    private readonly policyHeader: string,
  ) {}

  /** the headers added to a flat name, value list (what the HTTP server hands node:http); a refusal's Retry-After unless left out */
  addTo(head: string[], retryAfter = true): void {
    head.push('RateLimit-Policy', this.policyHeader, 'RateLimit', `"${this.policy}";r=${this.remaining};t=${this.reset}`);
    if (retryAfter && !this.allowed) head.push('Retry-After', String(this.reset));
  }

  /** the same headers as an object (a problem's own headers) */
  get headers(): Record<string, string> {
    const head: string[] = [];
    this.addTo(head);
    const headers: Record<string, string> = {};
    for (let i = 0; i < head.length; i += 2) headers[head[i]] = head[i + 1];
    return headers;
  }
}

const windowSeconds = 60;
/** past this many callers in one window, unknown keys share their address's budget: random tokens cannot grow memory */
const maxKeys = 50_000;

export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();
  private lastSweep = Date.now();

  /** the RateLimit-Policy header, the same for every answer */
  private readonly policyHeader: string;

  /** `policy` names the budget in the RateLimit headers */
  constructor(readonly limit: number, private readonly now: () => number = Date.now, readonly policy = 'default') {
    this.policyHeader = `"${policy}";q=${limit};w=${windowSeconds}`;
  }

  /** true when `key` has no request left in its window; unlike peek, it allocates nothing (every request asks) */
  spent(key: string): boolean {
    const w = this.windows.get(key);
    return (w !== undefined && this.now() - w.start < windowSeconds * 1000 ? w.count : 0) >= this.limit;
  }

  /** the decision a hit would get, without counting one */
  peek(key: string): RateDecision {
    const w = this.windows.get(key);
    const now = this.now();
    return this.decide(w && now - w.start < windowSeconds * 1000 ? w : { start: now, count: 0 }, now, true);
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
    return this.decide(w, now, false);
  }

  private decide(w: { start: number; count: number }, now: number, peek: boolean): RateDecision {
    const allowed = w.count < this.limit;
    if (allowed && !peek) w.count++;
    const reset = Math.max(1, Math.ceil((w.start + windowSeconds * 1000 - now) / 1000));
    return new RateDecision(allowed, Math.max(0, this.limit - w.count), reset, this.policy, this.policyHeader);
  }

  private sweep(now: number, force = false): void {
    if (!force && now - this.lastSweep < windowSeconds * 1000) return;
    this.lastSweep = now;
    for (const [key, w] of this.windows) if (now - w.start >= windowSeconds * 1000) this.windows.delete(key);
  }
}
