// The scheduler's cron expressions: 5 fields or a nickname, minute-grained; a bad one, six fields, or one that never comes, fails at registration (the boot).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Scheduler } from '../../kernel/jobs/scheduler.ts';
import type { Db, Logger } from '../../sdk/index.ts';
import { startServer } from '../helpers/harness.ts';

const unusedDb = new Proxy({}, { get: () => { throw new Error('registration must not touch the database'); } }) as Db;
const quietLog = { child: () => quietLog, info() {}, warn() {}, error() {}, debug() {} } as unknown as Logger;
const noop = async () => {};

test('cron: 5 fields and nicknames are taken; a bad expression, 4, 6 (seconds) or 7 fields, and 30 February are refused by name', () => {
  const scheduler = new Scheduler(unusedDb, quietLog);
  scheduler.cron('nightly', '0 3 * * *', noop);
  scheduler.cron('named', '@daily', noop);
  assert.throws(() => scheduler.cron('often', '*/10 * * * * *', noop), /schedule often: "\*\/10 \* \* \* \* \*" has a seconds field: schedules are minute-grained: use 5 fields/);
  assert.throws(() => scheduler.cron('bad', 'every day', noop), /every day|configuration/);
  assert.throws(() => scheduler.cron('short', '* * * *', noop));
  assert.throws(() => scheduler.cron('long', '0 0 0 1 1 * 2030', noop));
  assert.throws(() => scheduler.cron('never', '0 0 30 2 *', noop), /schedule never: "0 0 30 2 \*" never comes/);
  assert.throws(() => scheduler.cron('nightly', '0 4 * * *', noop), /defined twice/);
});

test('a plugin\'s cron from config is read alike: six fields for the stacks\' autoupdate stop the boot, naming the schedule', async () => {
  const docker = { options: { socketPath: '/nonexistent/dockwright/docker.sock', reconcile: false } };
  await assert.rejects(startServer({ plugins: { docker, stacks: { options: { autoupdateCron: '*/5 * * * * *' } } } }),
    /schedule stacks\.autoupdate: "\*\/5 \* \* \* \* \*" has a seconds field: schedules are minute-grained: use 5 fields/);
});

test('trigger runs a schedule now, outside its slots; an unknown name is refused', async () => {
  const scheduler = new Scheduler(unusedDb, quietLog);
  let runs = 0;
  scheduler.cron('yearly', '@yearly', async () => { runs++; });
  await scheduler.trigger('yearly');
  assert.equal(runs, 1);
  await assert.rejects(scheduler.trigger('nope'), /no schedule "nope"/);
});
