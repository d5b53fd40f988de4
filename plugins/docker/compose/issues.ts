// How the compose loader reports a problem: errors and warnings collected with their paths; a limit passed stops the load with one LimitExceeded.
import { composeLimits, LimitExceeded, type ComposeLimit } from './limits.ts';
import type { ComposeIssue } from './model.ts';

/** a file broken in every one of its thousands of lines is told about its first ones, not answered with megabytes: at most 100 of each kind, the last one saying how many more */
const shownIssues = 99;

const count = (n: number) => n.toLocaleString('en-US');

/**
 * One per load. `error` and `warn` collect, and loading goes on to find the rest. Only a limit of compose/limits.ts stops
 * it (`atMost`, `take`, `stop`): going on is exactly the work the limit prevents, so loadCompose answers that one error alone.
 */
export class Issues {
  readonly errors: ComposeIssue[] = [];
  readonly warnings: ComposeIssue[] = [];
  readonly #more = { errors: 0, warnings: 0 };
  /** what this load has used of the limits shared by the whole file */
  readonly #used = new Map<ComposeLimit, number>();

  error(path: string, message: string): void { this.#add('errors', { path, message }); }
  warn(path: string, message: string): void { this.#add('warnings', { path, message }); }

  /** the load stops here: `limit` is passed at `path` */
  stop(limit: ComposeLimit, path: string, message: string): never {
    throw new LimitExceeded(limit, path, message);
  }

  /** stops the load when one collection holds more entries than `limit` allows */
  atMost(limit: ComposeLimit, n: number, path: string, what: string): void {
    if (n > composeLimits[limit]) this.stop(limit, path, `${count(n)} ${what}: at most ${count(composeLimits[limit])} are allowed`);
  }

  /** takes `amount` of a limit shared by the whole file; past it, stops the load naming `what` at `path` */
  take(limit: ComposeLimit, amount: number, path: string, what: string): void {
    const total = (this.#used.get(limit) ?? 0) + amount;
    if (total > composeLimits[limit]) this.stop(limit, path, `${what}: more than ${count(composeLimits[limit])} in one compose file`);
    this.#used.set(limit, total);
  }

  /** what is left of a shared limit (reads are bounded by it) */
  left(limit: ComposeLimit): number {
    return composeLimits[limit] - (this.#used.get(limit) ?? 0);
  }

  /** the issues, with one closing line for those not shown */
  done(): { errors: ComposeIssue[]; warnings: ComposeIssue[] } {
    for (const kind of ['errors', 'warnings'] as const) {
      if (this.#more[kind]) this[kind].push({ path: '', message: `… and ${this.#more[kind]} more ${kind === 'errors' ? 'errors' : 'warnings'}` });
      this.#more[kind] = 0;
    }
    return { errors: this.errors, warnings: this.warnings };
  }

  #add(kind: 'errors' | 'warnings', issue: ComposeIssue): void {
    if (this[kind].length < shownIssues) this[kind].push(issue);
    else this.#more[kind]++;
  }
}
