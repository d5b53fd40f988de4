// The task scheduler: on each tick (an injected clock), the tasks whose slot came are claimed (one instance per slot) and run, missed ones skipped past the catch-up window, late starts reported.
import type { Logger } from '../../sdk/index.ts';
import { decide, intervalOf } from './schedule.ts';
import type { TaskRow, TaskStore } from './store.ts';

export interface SchedulerDeps {
  store: TaskStore;
  now(): Date;
  catchUpMs: number;
  /** a start later than this after its slot: the scheduler lags */
  lagMs: number;
  start(task: TaskRow, slot: Date): Promise<unknown>;
  lagging(task: TaskRow, lateMs: number): Promise<void>;
  log: Logger;
}

/** one look at the due tasks; answers the delays (due → started) of the runs it started, for measurements */
export async function tick(deps: SchedulerDeps): Promise<number[]> {
  const now = deps.now();
  const delays: number[] = [];
  for (const task of await deps.store.due(now, 5000)) {
    const due = new Date(task.nextRunAt!);
    let decision;
    try {
      decision = decide(task.schedule, task.timezone, due, now, deps.catchUpMs);
    } catch (err) {
      deps.log.error({ err, stack: task.stack, task: task.name }, 'a task schedule no longer reads: the task is not scheduled');
      await deps.store.claim(task.stack, task.name, task.nextRunAt!, null);
      continue;
    }
    if (decision.action === 'wait') continue;
    // the compare-and-swap on the slot: of several instances, one moves it on and runs it
    if (!(await deps.store.claim(task.stack, task.name, task.nextRunAt!, decision.next))) continue;
    if (decision.action === 'missed') {
      deps.log.warn({ stack: task.stack, task: task.name, slot: task.nextRunAt }, 'a task slot passed the catch-up window unrun: skipped');
      continue;
    }
    const slot = new Date(now.getTime() - decision.late);
    try {
      await deps.start(task, slot);
      delays.push(deps.now().getTime() - slot.getTime());
      if (decision.late > deps.lagMs) await deps.lagging(task, decision.late);
    } catch (err) {
      deps.log.error({ err, stack: task.stack, task: task.name }, 'starting a scheduled task run failed');
    }
  }
  return delays;
}

/** the enabled tasks with no success for twice their interval (since they were made, when they never succeeded) */
export async function overdue(store: TaskStore, now: Date): Promise<{ task: TaskRow; since: Date; intervalMs: number }[]> {
  const found: { task: TaskRow; since: Date; intervalMs: number }[] = [];
  for (const task of await store.enabledTasks()) {
    const since = new Date(task.lastSuccessAt ?? task.createdAt);
    let interval: number | null;
    try { interval = intervalOf(task.schedule, task.timezone, since); } catch { continue; }
    if (interval !== null && now.getTime() - since.getTime() > 2 * interval) found.push({ task, since, intervalMs: interval });
  }
  return found;
}
