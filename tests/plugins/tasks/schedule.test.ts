// Task schedules on a fake clock: cron in a time zone across daylight-saving changes (Europe/Berlin, America/New_York), next slots, and one catch-up run or none after a pause.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileSchedule, decide, intervalOf, nextSlot, ScheduleError } from '../../../plugins/tasks/schedule.ts';

/**
 * A scheduler driven by a fake clock: from `from` to `to` in steps of `stepMs`, each slot that came is decided as the
 * tasks scheduler does (run, or missed past the window) and the next slot taken from there. Answers the runs (UTC ISO).
 */
function simulate(expression: string, zone: string, from: string, to: string, stepMs = 60_000, catchUpMs = 3_600_000): string[] {
  const runs: string[] = [];
  let now = new Date(from);
  let due = nextSlot(expression, zone, now);
  while (due && now.getTime() <= new Date(to).getTime()) {
    const d = decide(expression, zone, due, now, catchUpMs);
    if (d.action === 'run') runs.push(now.toISOString());
    if (d.action !== 'wait') due = d.next;
    now = new Date(now.getTime() + stepMs);
  }
  return runs;
}

test('Europe/Berlin, spring forward: 02:30 does not exist on 29 March 2026 and runs once, at 03:30 CEST', () => {
  assert.deepEqual(simulate('30 2 * * *', 'Europe/Berlin', '2026-03-27T12:00:00Z', '2026-03-30T12:00:00Z'), [
    '2026-03-28T01:30:00.000Z', // 02:30 CET
    '2026-03-29T01:30:00.000Z', // 03:30 CEST: the first moment after the gap
    '2026-03-30T00:30:00.000Z', // 02:30 CEST
  ]);
});

test('Europe/Berlin, fall back: 02:30 comes twice on 25 October 2026 and runs once, on its first occurrence', () => {
  assert.deepEqual(simulate('30 2 * * *', 'Europe/Berlin', '2026-10-23T12:00:00Z', '2026-10-26T12:00:00Z'), [
    '2026-10-24T00:30:00.000Z', // 02:30 CEST
    '2026-10-25T00:30:00.000Z', // 02:30 CEST, not again at 02:30 CET (01:30Z)
    '2026-10-26T01:30:00.000Z', // 02:30 CET
  ]);
});

test('America/New_York, spring forward: 02:30 does not exist on 8 March 2026 and runs once, at 03:30 EDT', () => {
  assert.deepEqual(simulate('30 2 * * *', 'America/New_York', '2026-03-06T12:00:00Z', '2026-03-09T12:00:00Z'), [
    '2026-03-07T07:30:00.000Z', // 02:30 EST
    '2026-03-08T07:30:00.000Z', // 03:30 EDT
    '2026-03-09T06:30:00.000Z', // 02:30 EDT
  ]);
});

test('America/New_York, fall back: 01:30 comes twice on 1 November 2026 and runs once', () => {
  assert.deepEqual(simulate('30 1 * * *', 'America/New_York', '2026-10-31T12:00:00Z', '2026-11-02T12:00:00Z'), [
    '2026-11-01T05:30:00.000Z', // 01:30 EDT, not again at 01:30 EST (06:30Z)
    '2026-11-02T06:30:00.000Z', // 01:30 EST
  ]);
});

test('an hourly task on the fall-back night in Berlin runs each wall-clock hour once', () => {
  const runs = simulate('0 * * * *', 'Europe/Berlin', '2026-10-24T22:30:00Z', '2026-10-25T03:30:00Z');
  const local = runs.map((r) => new Date(r).toLocaleTimeString('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' }));
  assert.deepEqual(local, ['01:00', '02:00', '03:00', '04:00']);
  assert.equal(new Set(local).size, local.length, 'no wall-clock hour twice');
});

test('nextSlot follows the zone; UTC is the default; intervalOf is the gap between slots', () => {
  assert.equal(nextSlot('0 9 * * *', 'Europe/Berlin', new Date('2026-07-01T00:00:00Z'))?.toISOString(), '2026-07-01T07:00:00.000Z');
  assert.equal(nextSlot('0 9 * * *', 'UTC', new Date('2026-07-01T00:00:00Z'))?.toISOString(), '2026-07-01T09:00:00.000Z');
  assert.equal(nextSlot('@daily', 'America/New_York', new Date('2026-07-01T00:00:00Z'))?.toISOString(), '2026-07-01T04:00:00.000Z');
  assert.equal(intervalOf('*/5 * * * *', 'UTC', new Date('2026-07-01T00:00:00Z')), 300_000);
  assert.equal(intervalOf('0 3 * * *', 'Europe/Berlin', new Date('2026-07-01T00:00:00Z')), 86_400_000);
});

test('a bad schedule or zone is refused by name', () => {
  assert.throws(() => compileSchedule('* * * * * *'), (e: unknown) => e instanceof ScheduleError && /6 fields/.test(e.message));
  assert.throws(() => compileSchedule('* * *'), ScheduleError);
  assert.throws(() => compileSchedule('61 * * * *'), ScheduleError);
  for (const never of ['0 0 30 2 *', '0 0 30-31 2 *', '0 0 31 4,6,9,11 *', '0 12 31 2-4/2 ?']) {
    const started = performance.now();
    assert.throws(() => compileSchedule(never), /never comes/, never);
    assert.ok(performance.now() - started < 50, `${never} is refused at once, not after croner searched for years`);
  }
  assert.ok(compileSchedule('0 0 29 2 *').nextRun(), '29 February comes (in a leap year)');
  assert.ok(compileSchedule('0 0 31 1-12/2 *').nextRun(), '31 January comes');
  assert.ok(compileSchedule('0 0 30 2 1').nextRun(), 'a day of the week makes it come (croner ORs the day fields)');
  assert.throws(() => compileSchedule('* * * * *', 'Mars/Olympus'), /not a time zone/);
});

test('down for three hours: the missed hourly slots give one catch-up run within the window, none outside it', () => {
  const due = new Date('2026-07-01T10:00:00Z');
  const back = new Date('2026-07-01T12:20:00Z'); // 10:00, 11:00 and 12:00 passed while down
  const within = decide('0 * * * *', 'UTC', due, back, 3_600_000);
  assert.equal(within.action, 'run');
  assert.equal(within.action === 'run' && within.late, 20 * 60_000, 'the catch-up stands for the 12:00 slot');
  assert.equal(within.action === 'run' && within.next?.toISOString(), '2026-07-01T13:00:00.000Z');

  const daily = decide('0 3 * * *', 'UTC', new Date('2026-07-01T03:00:00Z'), new Date('2026-07-02T01:00:00Z'), 3_600_000);
  assert.equal(daily.action, 'missed', 'a slot 22 hours old is past the window');
  assert.equal(daily.action === 'missed' && daily.next?.toISOString(), '2026-07-02T03:00:00.000Z');

  const none = decide('0 * * * *', 'UTC', due, back, 0);
  assert.equal(none.action, 'missed', 'a window of 0: no catch-up at all');
  assert.deepEqual(decide('0 * * * *', 'UTC', due, new Date('2026-07-01T09:59:59Z'), 0), { action: 'wait' });
});
