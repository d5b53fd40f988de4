// Backups of Dockwright's own database (pg_dump → restic → pg_restore into a fresh database that boots the service with the same stacks), and schedules: minute-grained, a due slot runs, a passed one is missed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createDatabase, eventually, type TestServer } from '../../helpers/harness.ts';
import { createStack, runJob, startBackupsServer, uniqueName } from './helpers.ts';

let s: TestServer;
const stack = uniqueName('dbk');
const events: { name: string; payload: Record<string, unknown> }[] = [];

async function rows(url: string, sql: string): Promise<unknown[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

before(async () => {
  s = await startBackupsServer({ backups: { scheduleTickMs: 1000, missedWindowMs: 60_000 } });
  for (const name of ['backup.missed', 'backup.succeeded']) s.app.services.events.on(name, (payload) => { events.push({ name, payload }); });
  await createStack(s, stack, 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n');
});
after(async () => { await s.close(); });

test("the database: a consistent dump, restored into a fresh database that boots the service with the same stacks", async () => {
  const put = await s.api('PUT', '/api/v1/backups/db', { body: { targets: { database: true } } });
  assert.equal(put.status, 201, put.text);
  const run = await runJob(s, '/api/v1/backups/db/run');
  assert.match(run.output, /dumping the database/);
  assert.equal(run.result.files, 1);
  const files = await s.api('GET', '/api/v1/backups/db/files?path=/database');
  assert.deepEqual(files.body.map((f: any) => f.path), ['/database/dockwright.dump']);
  assert.ok(files.body[0].size > 1000);

  const restored = await runJob(s, '/api/v1/backups/db/restore', { target: 'folder' });
  const dump = join(restored.result.folder, 'database', 'dockwright.dump');
  assert.ok(existsSync(dump), dump);

  const fresh = await createDatabase();
  try {
    execFileSync('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${fresh.url}`, dump], { stdio: 'pipe' });
    const query = 'SELECT name, revision, compose FROM stacks ORDER BY name';
    assert.deepEqual(await rows(fresh.url, query), await rows(s.databaseUrl, query));
    assert.deepEqual(await rows(fresh.url, 'SELECT name FROM backups ORDER BY name'), [{ name: 'db' }]);

    // the restored database (with the same DATA_DIR, hence secret key) serves the same stacks to the same tokens
    const twin = await startBackupsServer({ reuse: { databaseUrl: fresh.url, dataDir: s.dataDir } });
    try {
      const listed = await twin.api('GET', '/api/v1/stacks', { token: s.admin });
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(listed.body.map((x: any) => x.name), [stack]);
    } finally {
      await twin.stop();
    }
  } finally {
    await fresh.drop();
  }
});

test('a schedule runs the backup at its slots, which are whole minutes (six fields are refused); a slot that passed unrun is reported as missed', async () => {
  const seconds = await s.api('PUT', '/api/v1/backups/ticking', { body: { targets: { database: true }, schedule: '*/5 * * * * *' } });
  assert.equal(seconds.status, 400, 'a schedule every 5 s would be announced but run once a minute');
  assert.match(seconds.body.detail, /schedules are minute-grained: use 5 fields/);
  assert.equal((await s.api('GET', '/api/v1/backups/ticking')).status, 404, 'nothing was saved');

  const put = await s.api('PUT', '/api/v1/backups/ticking', { body: { targets: { database: true }, schedule: '* * * * *', retention: { last: 1 } } });
  assert.equal(put.status, 201, put.text);
  const nextRun = Date.parse(put.body.nextRun);
  assert.equal(nextRun % 60_000, 0, 'the next slot is a whole minute');
  assert.ok(nextRun > Date.now() - 1000 && nextRun <= Date.now() + 60_000, put.body.nextRun);
  // as if the last slot handled came just before this minute's: the tick runs this minute's slot now, not at the next
  await rows(s.databaseUrl, "UPDATE backups SET schedule_slot = date_trunc('minute', now()) - interval '1 second' WHERE name = 'ticking'");
  const ran = await eventually(async () => {
    const b = (await s.api('GET', '/api/v1/backups/ticking')).body;
    return b.lastRun?.scheduled && b.lastRun.status === 'succeeded' ? b : null;
  }, 30_000, 'a scheduled run');
  const jobOf = (await s.api('GET', `/api/v1/jobs/${ran.lastRun.jobId}`)).body;
  assert.deepEqual(jobOf.actor, { kind: 'system', name: 'schedule' });

  // hourly from now on, as if the service had been down for hours since the last slot it handled
  assert.equal((await s.api('PUT', '/api/v1/backups/ticking', { body: { targets: { database: true }, schedule: '0 * * * *' } })).status, 200);
  await rows(s.databaseUrl, "UPDATE backups SET schedule_slot = now() - interval '5 hours' WHERE name = 'ticking'");
  const missed = await eventually(async () => (await s.api('GET', '/api/v1/backups/ticking')).body.missed, 10_000, 'the missed slot');
  assert.ok(Date.parse(missed.slot) < Date.now() - 3 * 3600_000);
  assert.ok(events.some((e) => e.name === 'backup.missed' && e.payload.backup === 'ticking'));
  const attention = (await s.api('GET', '/api/v1/overview')).body.attention;
  assert.ok(attention.some((a: any) => a.kind === 'backup-missed' && a.resource === 'backup:ticking'), JSON.stringify(attention));
  const count = events.filter((e) => e.name === 'backup.missed').length;
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(events.filter((e) => e.name === 'backup.missed').length, count, 'a missed slot is reported once');

  // a successful run clears it
  await runJob(s, '/api/v1/backups/ticking/run');
  assert.equal((await s.api('GET', '/api/v1/backups/ticking')).body.missed, null);
  assert.equal((await s.api('DELETE', '/api/v1/backups/ticking')).status, 200);
});
