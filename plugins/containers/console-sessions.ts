// The open console sessions of every instance serving the database, counted per user and in all: one more than either cap is refused (429) before the upgrade.
import { randomUUID } from 'node:crypto';
import type { Db, Logger } from '../../sdk/index.ts';
import { problem } from '../../sdk/index.ts';

/** reservations are taken one at a time across instances: a statement's snapshot cannot see a row another inserts meanwhile */
const reservationLock = `SELECT pg_advisory_xact_lock(hashtext('dockwright.containers.console-sessions'))`;

export interface ConsoleCaps {
  /** open sessions in the whole installation at most */
  max: number;
  /** open sessions of one user at most */
  maxPerUser: number;
  /** a session whose instance renewed it no longer than this ago still counts */
  leaseMs: number;
}

/**
 * One row per open session in `containers_console_sessions`, held by this instance: its heartbeat renewed every third of
 * the lease while it is open, deleted when it ends. A row whose instance stopped renewing (killed) stops counting after
 * the lease and is deleted by the next reservation.
 */
export class ConsoleSessions {
  /** this process: a restarted instance is a new one, and the rows of the old one run out with their lease */
  readonly instance = randomUUID();
  readonly #held = new Map<string, string>();
  #timer?: NodeJS.Timeout;
  #renewing?: Promise<void>;

  constructor(private readonly db: Db, private readonly caps: ConsoleCaps, private readonly log: Logger) {}

  /** renews the heartbeat of this instance's sessions from now on */
  start(): void {
    this.#timer = setInterval(() => void this.renew(), Math.max(500, Math.floor(this.caps.leaseMs / 3))).unref();
  }

  /** no more renewals; this instance's rows are deleted (its sessions are closing with it) */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#renewing;
    await this.db.query('DELETE FROM containers_console_sessions WHERE instance = $1', [this.instance]).catch(() => undefined);
    this.#held.clear();
  }

  /**
   * Reserves a place for a session of `user`, or throws the 429 that refuses it. One statement deletes the rows out of
   * their lease, counts the live ones and inserts only under both caps; the returned function ends the session (once).
   */
  async take(user: string): Promise<() => Promise<void>> {
    const id = randomUUID();
    const counted = await this.db.tx(async (tx) => {
      await tx.query(reservationLock);
      const { rows: [row] } = await tx.query<{ total: number; mine: number; added: number }>(
        `WITH stale AS (DELETE FROM containers_console_sessions WHERE heartbeat < clock_timestamp() - $5 * interval '1 millisecond'),
              live AS (SELECT username FROM containers_console_sessions WHERE heartbeat >= clock_timestamp() - $5 * interval '1 millisecond'),
              counts AS (SELECT count(*)::int AS total, (count(*) FILTER (WHERE username = $3))::int AS mine FROM live),
              added AS (INSERT INTO containers_console_sessions (id, instance, username)
                          SELECT $1, $2, $3 FROM counts WHERE mine < $4 AND total < $6 RETURNING id)
         SELECT total, mine, (SELECT count(*)::int FROM added) AS added FROM counts`,
        [id, this.instance, user, this.caps.maxPerUser, this.caps.leaseMs, this.caps.max]);
      return row;
    });
    if (counted.added !== 1) {
      if (counted.mine >= this.caps.maxPerUser) {
        throw problem(429, `you have ${counted.mine} console sessions open, the most one user may: close one first`, { code: 'console-limit', extra: { limit: this.caps.maxPerUser, scope: 'user' } });
      }
      throw problem(429, `${counted.total} console sessions are open in this installation, the most it takes: retry when one has closed`, { code: 'console-limit', extra: { limit: this.caps.max, scope: 'installation' }, headers: { 'Retry-After': '30' } });
    }
    this.#held.set(id, user);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      this.#held.delete(id);
      // not deleted (the database is away): no longer renewed, it stops counting after the lease
      await this.db.query('DELETE FROM containers_console_sessions WHERE id = $1', [id])
        .catch((err) => this.log.warn({ err }, 'a closed console session could not be deleted: its place frees after the lease'));
    };
  }

  /** one renewal at a time; a row swept meanwhile (this instance stalled past the lease) is written again while its session is open */
  private renew(): Promise<void> {
    if (this.#renewing || this.#held.size === 0) return this.#renewing ?? Promise.resolve();
    const ids = [...this.#held.keys()];
    const users = ids.map((id) => this.#held.get(id)!);
    this.#renewing = this.db.query(
      `INSERT INTO containers_console_sessions (id, instance, username) SELECT * FROM unnest($1::uuid[], array_fill($2::text, ARRAY[cardinality($1::uuid[])]), $3::text[])
       ON CONFLICT (id) DO UPDATE SET heartbeat = clock_timestamp()`, [ids, this.instance, users])
      // a session that ended while this ran may have been written again: deleted once more
      .then(async () => {
        const ended = ids.filter((id) => !this.#held.has(id));
        if (ended.length) await this.db.query('DELETE FROM containers_console_sessions WHERE id = ANY($1::uuid[])', [ended]);
      })
      .catch((err) => { this.log.warn({ err }, 'renewing the console sessions\' heartbeat failed'); })
      .finally(() => { this.#renewing = undefined; });
    return this.#renewing;
  }
}
