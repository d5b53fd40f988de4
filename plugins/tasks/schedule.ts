// Task schedules: a 5-field cron in a time zone (croner), the next slot after a moment, and what a scheduler does with a slot that came.
import { Cron } from 'croner';

/** a schedule that cannot be used, with why (a 400 for the caller) */
export class ScheduleError extends Error {}

/**
 * The schedule of a task: five fields (`minute hour day-of-month month day-of-week`) or a nickname (`@daily`), read as
 * wall-clock time in `timezone` (an IANA name; default UTC). Slots are wall-clock times: one that a daylight-saving change
 * skips runs once, at the first moment after the gap (02:30 on a spring-forward night runs at 03:30); one that the
 * autumn change repeats runs once, on its first occurrence.
 */
export function compileSchedule(expression: string, timezone = 'UTC'): Cron {
  const key = `${expression}\0${timezone}`;
  const known = compiled.get(key);
  if (known) return known;
  const cron = compile(expression, timezone);
  if (compiled.size >= 2000) compiled.clear();
  compiled.set(key, cron);
  return cron;
}

/** schedules read before: a tick over many tasks reads few distinct ones (a Cron only computes from the dates it is given) */
const compiled = new Map<string, Cron>();

function compile(expression: string, timezone: string): Cron {
  const fields = expression.trim().split(/\s+/).length;
  if (!expression.trim().startsWith('@') && fields !== 5) throw new ScheduleError(`"${expression}" has ${fields} fields: a schedule has 5 (minute hour day-of-month month day-of-week) or is a nickname such as @daily`);
  if (!validZone(timezone)) throw new ScheduleError(`"${timezone}" is not a time zone (an IANA name such as Europe/Berlin)`);
  if (impossibleDate(expression)) throw new ScheduleError(`"${expression}" never comes`);
  let cron: Cron;
  try {
    cron = new Cron(expression, { mode: '5-part', timezone });
  } catch (err) {
    throw new ScheduleError(`"${expression}" is not a cron expression: ${(err as Error).message}`);
  }
  if (!cron.nextRun()) throw new ScheduleError(`"${expression}" never comes`);
  return cron;
}

/** the values of a numeric cron field (`5`, `1-5`, `1-12/2`, `1,15`, a star); null for anything else (names, L, W, #), left to croner */
function expand(field: string, min: number, max: number): number[] | null {
  const out: number[] = [];
  for (const part of field.split(',')) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!m) return null;
    const from = m[1] === '*' ? min : Number(m[2]);
    const to = m[1] === '*' ? max : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? max : from;
    const step = m[4] !== undefined ? Number(m[4]) : 1;
    if (step < 1 || from < min || to > max) return null;
    for (let v = from; v <= to; v += step) out.push(v);
  }
  return out;
}

const longestMonth = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/**
 * A day of month that no month of the expression has (30 February) with any day of the week: croner would search for
 * years before it says so, holding the event loop for a tenth of a second and more; this answers at once.
 */
function impossibleDate(expression: string): boolean {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5 || !['*', '?'].includes(fields[4])) return false;
  const days = expand(fields[2], 1, 31);
  const months = expand(fields[3], 1, 12);
  if (!days || !months) return false;
  return !months.some((m) => days.some((d) => d <= longestMonth[m - 1]));
}

const zones = new Map<string, boolean>();
/** whether Intl knows the zone (croner converts through it) */
function validZone(zone: string): boolean {
  let known = zones.get(zone);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      known = zone.length <= 64;
    } catch {
      known = false;
    }
    if (zones.size < 1000) zones.set(zone, known);
  }
  return known;
}

/** the first slot strictly after `after`; null when the schedule never comes again */
export function nextSlot(expression: string, timezone: string, after: Date): Date | null {
  return compileSchedule(expression, timezone).nextRun(after);
}

/** the usual gap between two slots (the dead-man's switch waits twice this), from the next few slots after `from` */
export function intervalOf(expression: string, timezone: string, from: Date): number | null {
  const runs = compileSchedule(expression, timezone).nextRuns(4, from);
  if (runs.length < 2) return null;
  let longest = 0;
  for (let i = 1; i < runs.length; i++) longest = Math.max(longest, runs[i].getTime() - runs[i - 1].getTime());
  return longest;
}

/** what to do with a task whose next slot is `due`, looked at `now` */
export type SlotDecision =
  | { action: 'wait' }
  /** run it (`late`: how long after its slot), then wait for `next` */
  | { action: 'run'; late: number; next: Date | null }
  /** the slot (and any after it up to now) passed longer ago than the catch-up window: none of them runs, wait for `next` */
  | { action: 'missed'; next: Date | null };

/**
 * A slot that came: run it when it is at most `catchUpMs` old, else skip it. Either way the next slot is the first after
 * `now`, so slots missed while the service was down give one catch-up run (the latest due one within the window) or none.
 */
export function decide(expression: string, timezone: string, due: Date, now: Date, catchUpMs: number): SlotDecision {
  if (due.getTime() > now.getTime()) return { action: 'wait' };
  const cron = compileSchedule(expression, timezone);
  const next = cron.nextRun(now);
  // the latest slot at or before now: several missed slots give one run, at most catchUpMs after that slot
  const latest = cron.previousRuns(1, new Date(Math.floor(now.getTime() / 1000) * 1000 + 1000))[0] ?? due;
  const slot = latest.getTime() >= due.getTime() ? latest : due;
  const late = now.getTime() - slot.getTime();
  return late <= catchUpMs ? { action: 'run', late, next } : { action: 'missed', next };
}
