// Backup schedules: each definition's cron checked on the kernel's tick; a slot not run within the window is a missed backup.
import { CronExpressionParser } from 'cron-parser';
import type { BackupStore } from './store.ts';

/** the latest slot at or before `now`, and the next one after it */
export function slots(expression: string, now: Date): { due: Date; next: Date } {
  const at = CronExpressionParser.parse(expression, { currentDate: new Date(now.getTime() + 1) });
  const due = at.prev().toDate();
  return { due, next: CronExpressionParser.parse(expression, { currentDate: now }).next().toDate() };
}

export const nextSlot = (expression: string, after: Date): Date => CronExpressionParser.parse(expression, { currentDate: after }).next().toDate();

export interface TickDeps {
  store: BackupStore;
  missedWindowMs: number;
  start(backup: string): Promise<unknown>;
  emit(event: string, payload: Record<string, unknown>): void;
  now?: () => Date;
}

/**
 * One look at every schedule. A definition remembers the last slot it handled; a due slot within the window starts a
 * run, and a slot that passed the window unrun (the service was down, say) is reported as missed, once.
 */
export async function tick(deps: TickDeps): Promise<void> {
  const now = deps.now?.() ?? new Date();
  for (const row of await deps.store.all()) {
    if (!row.schedule) continue;
    const from = new Date(row.scheduleSlot ?? row.createdAt);
    const { due } = slots(row.schedule, now);
    if (due <= from) continue;
    const first = nextSlot(row.schedule, from);
    const missed = now.getTime() - first.getTime() > deps.missedWindowMs ? first : null;
    const runNow = now.getTime() - due.getTime() <= deps.missedWindowMs;
    if (!(await deps.store.takeSlot(row.name, row.scheduleSlot, due, missed))) continue; // another instance took it
    if (missed) deps.emit('backup.missed', { backup: row.name, slot: missed.toISOString(), schedule: row.schedule });
    if (runNow) await deps.start(row.name);
  }
}
