// The open console sessions of this instance, counted per user and in all: one more than either limit is refused (429) before the upgrade.
import { problem } from '../../sdk/index.ts';

export class ConsoleSessions {
  readonly #perUser = new Map<string, number>();
  #total = 0;

  constructor(private readonly max: number, private readonly maxPerUser: number) {}

  /** counts a session of `user`, or throws the 429 that refuses it; the returned function ends it (once) */
  take(user: string): () => void {
    const mine = this.#perUser.get(user) ?? 0;
    if (mine >= this.maxPerUser) {
      throw problem(429, `you have ${mine} console sessions open, the most one user may: close one first`, { code: 'console-limit', extra: { limit: this.maxPerUser, scope: 'user' } });
    }
    if (this.#total >= this.max) {
      throw problem(429, `${this.#total} console sessions are open on this instance, the most it takes: retry when one has closed`, { code: 'console-limit', extra: { limit: this.max, scope: 'instance' }, headers: { 'Retry-After': '30' } });
    }
    this.#perUser.set(user, mine + 1);
    this.#total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total--;
      const left = (this.#perUser.get(user) ?? 1) - 1;
      if (left > 0) this.#perUser.set(user, left);
      else this.#perUser.delete(user);
    };
  }

  get open(): number {
    return this.#total;
  }
}
