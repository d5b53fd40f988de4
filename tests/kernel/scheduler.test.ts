// The scheduler's cron expressions: 5 fields or 6 with seconds first; a bad one, or one that never comes, fails at registration (the boot).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Scheduler } from '../../kernel/jobs/scheduler.ts';
import type { Db, Logger } from '../../sdk/index.ts';

const unusedDb = new Proxy({}, { get: () => { throw new Error('registration must not touch the database'); } }) as Db;
const quietLog = { child: () => quietLog, info() {}, warn() {}, error() {}, debug() {} } as unknown as Logger;
const noop = async () => {};

test('cron: 5 and 6 fields are taken; a bad expression, 4 or 7 fields, and 30 February are refused by name', () => {
  const scheduler = new Scheduler(unusedDb, quietLog);
  scheduler.cron('nightly', '0 3 * * *', noop);
  scheduler.cron('often', '*/10 * * * * *', noop);
  scheduler.cron('named', '@daily', noop);
  assert.throws(() => scheduler.cron('bad', 'every day', noop), /every day|configuration/);
  assert.throws(() => scheduler.cron('short', '* * * *', noop));
  assert.throws(() => scheduler.cron('long', '0 0 0 1 1 * 2030', noop));
  assert.throws(() => scheduler.cron('never', '0 0 30 2 *', noop), /schedule never: "0 0 30 2 \*" never comes/);
  assert.throws(() => scheduler.cron('nightly', '0 4 * * *', noop), /defined twice/);
});
