// Backup schedules: each definition's cron checked on the kernel's tick; a slot not run within the window is a missed backup.
import { parseCron } from '../../sdk/index.ts';
import type { BackupStore } from './store.ts';

/** the first slot after `after`; null when the expression never comes again */
export const nextSlot = (expression: string, after: Date): Date | null => parseCron(expression).nextRun(after);

/** the latest slot at or before `now` (slots fall on whole seconds, and croner looks back from before a whole second) */
const lastSlot = (expression: string, now: Date): Date | null => parseCron(expression).previousRuns(1, new Date(Math.floor(now.getTime() / 1000) * 1000 + 1000))[0] ?? null;

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
    const due = lastSlot(row.schedule, now);
    if (!due || due <= from) continue;
    const first = nextSlot(row.schedule, from)!; // due comes after from
    const missed = now.getTime() - first.getTime() > deps.missedWindowMs ? first : null;
    const runNow = now.getTime() - due.getTime() <= deps.missedWindowMs;
    if (!(await deps.store.takeSlot(row.name, row.scheduleSlot, due, missed))) continue; // another instance took it
    if (missed) deps.emit('backup.missed', { backup: row.name, slot: missed.toISOString(), schedule: row.schedule });
    if (runNow) await deps.start(row.name);
  }
}
