// Cron expressions as every schedule reads them (the kernel's, a backup's): five fields or a nickname, server time, minute-grained.
import { Cron } from 'croner';

/**
 * A schedule's expression: five fields (`minute hour day-of-month month day-of-week`) or a nickname (`@daily`), in server
 * time. Six fields (seconds first) are refused by name: schedules are looked at once a minute, so a slot every few
 * seconds would be announced but not run. Throws on a bad expression; one that never comes (30 February) is the
 * caller's to refuse (`nextRun()` is null).
 */
export function parseCron(expression: string): Cron {
  const fields = expression.trim().split(/\s+/).length;
  if (fields === 6) throw new Error(`"${expression}" has a seconds field: schedules are minute-grained: use 5 fields`);
  return new Cron(expression, { mode: '5-part' });
}
