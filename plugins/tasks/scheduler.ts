// The task scheduler: on each tick (an injected clock), the tasks whose slot came are claimed in one statement (one instance per slot) and started together, missed ones skipped past the catch-up window, late starts reported.
import type { Logger } from '../../sdk/index.ts';
import { decide } from './schedule.ts';
import type { TaskRow, TaskStore } from './store.ts';

export interface SchedulerDeps {
  store: TaskStore;
  now(): Date;
  catchUpMs: number;
  /** a start later than this after its slot: the scheduler lags */
  lagMs: number;
  /** starts the runs of these claimed slots */
  start(runs: readonly { task: TaskRow; slot: Date }[]): Promise<void>;
  lagging(task: TaskRow, lateMs: number): Promise<void>;
  log: Logger;
}

/** one look at the due tasks; answers how many runs it started */
export async function tick(deps: SchedulerDeps): Promise<number> {
  const now = deps.now();
  const due = await deps.store.due(now, 5000);
  if (!due.length) return 0;
  const plans: { task: TaskRow; next: Date | null; run: { slot: Date; late: number } | null }[] = [];
  for (const task of due) {
    try {
      const d = decide(task.schedule, task.timezone, new Date(task.nextRunAt!), now, deps.catchUpMs);
      if (d.action === 'wait') continue;
      plans.push({ task, next: d.next, run: d.action === 'run' ? { slot: new Date(now.getTime() - d.late), late: d.late } : null });
      if (d.action === 'missed') deps.log.warn({ stack: task.stack, task: task.name, slot: task.nextRunAt }, 'a task slot passed the catch-up window unrun: skipped');
    } catch (err) {
      deps.log.error({ err, stack: task.stack, task: task.name }, 'a task schedule no longer reads: the task is not scheduled');
      plans.push({ task, next: null, run: null });
    }
  }
  // the compare-and-swap on each slot: of several instances, one moves it on and runs it
  const claimed = await deps.store.claimMany(plans.map((p) => ({ stack: p.task.stack, name: p.task.name, due: p.task.nextRunAt!, next: p.next })));
  const runs = plans.filter((p) => p.run && claimed.has(`${p.task.stack}/${p.task.name}`));
  if (!runs.length) return 0;
  await deps.start(runs.map((p) => ({ task: p.task, slot: p.run!.slot })));
  for (const p of runs) if (p.run!.late > deps.lagMs) await deps.lagging(p.task, p.run!.late);
  return runs.length;
}
