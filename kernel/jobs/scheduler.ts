// The scheduler: interval and cron tasks; each slot runs once across all instances (the first to record the slot runs it).
import type { Db, Logger } from '../../sdk/index.ts';
import { parseCron } from '../../sdk/index.ts';

interface Task { name: string; next(after: number): number; run(): Promise<void> }

// setTimeout cannot wait longer than ~24.8 days; longer waits re-arm.
const maxDelay = 2 ** 31 - 1;
const keepSlotsMs = 3_600_000;
const pruneEveryMs = 600_000;

export class Scheduler {
  private readonly tasks: Task[] = [];
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly active = new Set<Promise<void>>();
  private started = false;
  /** when each schedule last pruned its recorded slots */
  private readonly prunedAt = new Map<string, number>();

  constructor(private readonly db: Db, private readonly log: Logger) {}

  every(name: string, intervalMs: number, run: () => Promise<void>): void {
    if (!(intervalMs >= 1000)) throw new Error(`schedule ${name}: interval must be at least 1000 ms`);
    this.add({ name, run, next: (after) => (Math.floor(after / intervalMs) + 1) * intervalMs });
  }

  /** 5 fields or a nickname, in server time (parseCron); a bad expression, six fields, or one that never comes (30 February), fails the boot */
  cron(name: string, expression: string, run: () => Promise<void>): void {
    let pattern: ReturnType<typeof parseCron>;
    try {
      pattern = parseCron(expression);
    } catch (err) {
      throw new Error(`schedule ${name}: ${(err as Error).message}`);
    }
    if (!pattern.nextRun()) throw new Error(`schedule ${name}: "${expression}" never comes`);
    this.add({ name, run, next: (after) => pattern.nextRun(new Date(after))?.getTime() ?? Infinity });
  }

  /** runs a task now, outside its slots (croner's trigger): tests cannot wait for the next minute of a schedule */
  async trigger(name: string): Promise<void> {
    const task = this.tasks.find((t) => t.name === name);
    if (!task) throw new Error(`no schedule "${name}"`);
    const run = task.run().finally(() => this.active.delete(run));
    this.active.add(run);
    await run;
  }

  private add(task: Task): void {
    if (this.tasks.some((t) => t.name === task.name)) throw new Error(`schedule "${task.name}" is defined twice`);
    this.tasks.push(task);
    if (this.started) this.arm(task);
  }

  start(): void {
    this.started = true;
    for (const task of this.tasks) this.arm(task);
  }

  async stop(): Promise<void> {
    this.started = false;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.active]);
  }

  private arm(task: Task, after = Date.now()): void {
    const slot = task.next(after);
    if (slot === Infinity) return; // a cron that never comes again
    const delay = slot - Date.now();
    const timer = setTimeout(() => {
      if (!this.started) return;
      if (delay > maxDelay) return this.arm(task, after);
      const run = this.fire(task, slot).finally(() => this.active.delete(run));
      this.active.add(run);
      this.arm(task, slot);
    }, Math.max(0, Math.min(delay, maxDelay)));
    timer.unref();
    this.timers.set(task.name, timer);
  }

  private async fire(task: Task, slot: number): Promise<void> {
    try {
      const { rowCount } = await this.db.query('INSERT INTO schedule_runs (name, slot) VALUES ($1, $2) ON CONFLICT DO NOTHING', [task.name, new Date(slot)]);
      if (!rowCount) return; // another instance has this slot
      await this.prune(task.name, slot);
      await task.run();
    } catch (err) {
      this.log.error({ err, schedule: task.name }, 'scheduled task failed');
    }
  }

  /** a recorded slot only matters while another instance may still fire it: an hour is kept, pruned at most every 10 minutes
   * (a schedule of every second recorded 604,800 slots in the 7 days kept before, and deleted on each of them) */
  private async prune(name: string, slot: number): Promise<void> {
    if (slot - (this.prunedAt.get(name) ?? 0) < pruneEveryMs) return;
    this.prunedAt.set(name, slot);
    await this.db.query('DELETE FROM schedule_runs WHERE name = $1 AND slot < $2', [name, new Date(slot - keepSlotsMs)]);
  }
}
