// The task scheduler on a fake clock against the real database: daylight-saving nights in Europe/Berlin and America/New_York ticked minute by minute, and the catch-up after a pause, within the window or none.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { tick } from '../../../plugins/tasks/scheduler.ts';
import { TaskStore, type TaskRow } from '../../../plugins/tasks/store.ts';
import { nextSlot } from '../../../plugins/tasks/schedule.ts';

let s: TestServer;
let store: TaskStore;
const quiet = { info() {}, warn() {}, error() {}, debug() {}, child() { return quiet; } };

before(async () => {
  // the live scheduler ticks too, with the real clock: every slot here lies after it (2027), so it never takes one
  s = await startServer({ plugins: { docker: { options: { reconcile: false } }, stacks: {}, alerts: {}, tasks: {} } });
  store = new TaskStore(s.app.services.db);
});
after(async () => { await s?.close(); });

async function addTask(name: string, schedule: string, timezone: string, from: Date) {
  const def = { service: 'app', command: ['true'], schedule, timezone, mode: 'exec' as const, overlap: 'forbid' as const, timeoutMs: 60_000, enabled: true };
  assert.ok(await store.create('clock', name, def, false, nextSlot(schedule, timezone, from)));
}

/** ticks a fake clock from `from` to `to` every `stepMs`; answers the slots started for the task */
async function drive(name: string, from: string, to: string, stepMs = 60_000, catchUpMs = 3_600_000): Promise<string[]> {
  const started: string[] = [];
  for (let t = new Date(from).getTime(); t <= new Date(to).getTime(); t += stepMs) {
    await tick({
      store, now: () => new Date(t), catchUpMs, lagMs: 60_000, log: quiet,
      start: async (runs: readonly { task: TaskRow; slot: Date }[]) => { for (const r of runs) if (r.task.name === name) started.push(new Date(t).toISOString()); },
      lagging: async () => undefined,
    });
  }
  return started;
}

test('Europe/Berlin: 02:30 on the spring-forward night runs once at 03:30, on the fall-back night once', async () => {
  await addTask('berlin-spring', '30 2 * * *', 'Europe/Berlin', new Date('2027-03-27T22:00:00Z'));
  assert.deepEqual(await drive('berlin-spring', '2027-03-27T23:00:00Z', '2027-03-28T03:00:00Z'), ['2027-03-28T01:30:00.000Z']);
  await addTask('berlin-fall', '30 2 * * *', 'Europe/Berlin', new Date('2027-10-30T22:00:00Z'));
  assert.deepEqual(await drive('berlin-fall', '2027-10-30T23:00:00Z', '2027-10-31T03:00:00Z'), ['2027-10-31T00:30:00.000Z']);
});

test('America/New_York: 02:30 on the spring-forward night runs once at 03:30 EDT, 01:30 on the fall-back night once', async () => {
  await addTask('ny-spring', '30 2 * * *', 'America/New_York', new Date('2027-03-14T04:00:00Z'));
  assert.deepEqual(await drive('ny-spring', '2027-03-14T05:00:00Z', '2027-03-14T09:00:00Z'), ['2027-03-14T07:30:00.000Z']);
  await addTask('ny-fall', '30 1 * * *', 'America/New_York', new Date('2027-11-07T03:00:00Z'));
  assert.deepEqual(await drive('ny-fall', '2027-11-07T04:00:00Z', '2027-11-07T08:00:00Z'), ['2027-11-07T05:30:00.000Z']);
});

test('after a pause: one catch-up run for the missed slots within the window, none past it, and the next slot after now', async () => {
  await addTask('paused', '0 * * * *', 'UTC', new Date('2027-06-01T09:30:00Z')); // next slot 10:00
  // down from 09:30 to 12:20: the slots of 10:00, 11:00 and 12:00 passed; one run, for 12:00
  assert.deepEqual(await drive('paused', '2027-06-01T12:20:00Z', '2027-06-01T12:25:00Z'), ['2027-06-01T12:20:00.000Z']);
  assert.equal((await store.get('clock', 'paused'))!.nextRunAt, '2027-06-01T13:00:00.000Z');

  await addTask('no-catch-up', '0 * * * *', 'UTC', new Date('2027-06-01T09:30:00Z'));
  assert.deepEqual(await drive('no-catch-up', '2027-06-01T12:20:00Z', '2027-06-01T12:25:00Z', 60_000, 0), []);
  assert.equal((await store.get('clock', 'no-catch-up'))!.nextRunAt, '2027-06-01T13:00:00.000Z');

  await addTask('daily', '0 3 * * *', 'UTC', new Date('2027-06-01T00:00:00Z'));
  assert.deepEqual(await drive('daily', '2027-06-02T01:00:00Z', '2027-06-02T01:01:00Z'), [], 'a slot 22 hours old is past the window');
  assert.equal((await store.get('clock', 'daily'))!.nextRunAt, '2027-06-02T03:00:00.000Z');
});

test('retention: the newest runs up to the count, none older than the age; queued and running ones stay', async () => {
  const db = s.app.services.db;
  const add = (id: number, status: string, age: string) => db.query(
    `INSERT INTO task_runs (id, stack, task, trigger, status, created_at) VALUES ($1, 'clock', 'kept', 'manual', $2, now() - $3::interval)`,
    [`00000000-0000-4000-8000-${String(id).padStart(12, '0')}`, status, age]);
  for (let i = 1; i <= 5; i++) await add(i, 'succeeded', `${10 - i} minutes`);
  await add(6, 'failed', '40 days');
  await add(7, 'running', '50 days');
  await store.prune('clock', 'kept', 3, 30 * 86_400_000);
  const left = (await db.query<{ id: string }>(`SELECT id FROM task_runs WHERE task = 'kept' ORDER BY id`)).rows.map((r) => Number(r.id.slice(-2)));
  assert.deepEqual(left, [3, 4, 5, 7]);
});
