// The failed sign-in limit, held in the database for every instance: an attempt reserves a failure before its guess is checked and gives it back when the guess was right.
import type { Db } from '../../sdk/index.ts';
import { problem } from '../../sdk/index.ts';

const windowMs = 60_000;
/** the database's clock in milliseconds: every instance counts windows by the same clock */
const nowMs = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

/**
 * a failed attempt counted before its guess is checked: released when the guess was right, kept when it was wrong. A
 * release that cannot reach the database leaves the failure counted (the limit errs on the safe side): it never rejects.
 */
export interface Reservation {
  release(): Promise<void>;
}

/**
 * N failed attempts per account and per address in a minute from the first, across every instance on the database.
 * An attempt takes one of the N before its password or code is checked, in one statement (concurrent attempts cannot
 * all see room), so however many arrive at once, at most N guesses are checked; a right guess gives its place back.
 */
export class SignInLimit {
  private lastSweep = 0;

  constructor(private readonly db: Db, readonly limit: number) {}

  /** one failure reserved for the account and one for the address; 429 (nothing kept) when either has none left */
  async reserve(username: string, address: string, what: string): Promise<Reservation> {
    const account = `u:${username.toLowerCase()}`;
    const from = `a:${address}`;
    const { rows } = await this.db.query<{ key: string; started: string }>(
      `WITH clock AS (SELECT ${nowMs} AS now)
       INSERT INTO sign_in_failures AS f (key, started, used) SELECT k, clock.now, 1 FROM unnest($1::text[]) AS k, clock
       ON CONFLICT (key) DO UPDATE SET
         started = CASE WHEN f.started <= EXCLUDED.started - $2 THEN EXCLUDED.started ELSE f.started END,
         used = CASE WHEN f.started <= EXCLUDED.started - $2 THEN 1 ELSE f.used + 1 END
       WHERE f.started <= EXCLUDED.started - $2 OR f.used < $3
       RETURNING f.key, f.started`, [[account, from], windowMs, this.limit]);
    const release = () => this.give(rows);
    if (rows.length < 2) {
      await release();
      const refused = rows.some((r) => r.key === account) ? from : account;
      const { rows: [left] } = await this.db.query<{ ms: string }>(`SELECT started + $2 - ${nowMs} AS ms FROM sign_in_failures WHERE key = $1`, [refused, windowMs]);
      const reset = Math.max(1, Math.ceil(Number(left?.ms ?? windowMs) / 1000));
      const who = refused === account ? 'this account' : 'this address';
      throw problem(429, `too many ${what} for ${who}; retry after ${reset} s`, { code: 'sign-in-rate-limited', headers: { 'Retry-After': String(reset) } });
    }
    this.sweep();
    return { release: () => release().catch(() => undefined) };
  }

  /** gives reserved failures back, to the windows they were taken from */
  private async give(taken: { key: string; started: string }[]): Promise<void> {
    if (!taken.length) return;
    await this.db.query(
      `UPDATE sign_in_failures f SET used = f.used - 1 FROM unnest($1::text[], $2::bigint[]) AS r(key, started)
        WHERE f.key = r.key AND f.started = r.started AND f.used > 0`, [taken.map((t) => t.key), taken.map((t) => t.started)]);
  }

  /** windows that ended are of no use: once a minute, one statement */
  private sweep(): void {
    const now = Date.now();
    if (now - this.lastSweep < windowMs) return;
    this.lastSweep = now;
    this.db.query(`DELETE FROM sign_in_failures WHERE started < ${nowMs} - $1`, [windowMs]).catch(() => undefined);
  }
}
