// Tasks declared in compose (x-dockwright.tasks) changing with the revision and read-only through the API; the dead-man's switch; two instances on one database running a due slot once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, startServer, type TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, createStack, uniqueName, act } from '../stacks/helpers.ts';
import { TaskStore } from '../../../plugins/tasks/store.ts';

let s: TestServer;
let other: TestServer | undefined;
const stack = uniqueName('td');
const plugins = {
  docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } },
  stacks: {},
  alerts: {},
  tasks: { options: { graceMs: 1000, overdueCheckMs: 1000 } },
};
const otherDir = mkdtempSync(join(tmpdir(), 'dw-tasks-other-'));

const composeWith = (tasks: string) => `services:
  app:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "sleep 3600"]
x-dockwright:
${tasks}`;

before(async () => {
  s = await startServer({ plugins, config: { rateLimit: { perMinute: 100_000 } } });
});
after(async () => {
  await other?.stop();
  await s?.close();
  rmSync(otherDir, { recursive: true, force: true });
  await cleanupProjects(stack);
});

const tasks = `/api/v1/stacks/${stack}/tasks`;
const compose = (content: string, revision: number) => s.api('PUT', `/api/v1/stacks/${stack}/compose`, { body: { content, revision } });

test('a task declared in compose appears, changes with the revision, is read-only through the API and goes with the file', async () => {
  const created = await createStack(s, stack, composeWith(`  tasks:
    vacuum:
      service: app
      command: ["sh", "-c", "echo v1"]
      schedule: "0 4 * * *"
      timezone: America/New_York
`));
  let [task] = (await s.api('GET', tasks)).body;
  assert.equal(task.name, 'vacuum');
  assert.equal(task.declared, true);
  assert.deepEqual(task.command, ['sh', '-c', 'echo v1']);
  assert.equal(new Date(task.nextRunAt).toLocaleTimeString('en-GB', { timeZone: 'America/New_York' }), '04:00:00');

  assert.equal((await s.api('PUT', `${tasks}/vacuum`, { body: { service: 'app', command: ['true'], schedule: '@daily' } })).status, 409);
  assert.equal((await s.api('DELETE', `${tasks}/vacuum`)).status, 409);

  const bad = await compose(composeWith(`  tasks:
    vacuum:
      service: nope
      command: ["true"]
      schedule: "0 4 * * *"
`), created.revision);
  assert.equal(bad.status, 422, bad.text);
  assert.match(bad.text, /x-dockwright\.tasks/);
  assert.deepEqual((await s.api('GET', tasks)).body[0].command, ['sh', '-c', 'echo v1'], 'nothing saved');

  const v2 = await compose(composeWith(`  tasks:
    vacuum:
      service: app
      command: ["sh", "-c", "echo v2"]
      schedule: "0 4 * * *"
      timezone: America/New_York
    report:
      service: app
      command: echo report $$HOSTNAME
      schedule: "@hourly"
`), created.revision);
  assert.equal(v2.status, 200, v2.text);
  const list = (await s.api('GET', tasks)).body;
  assert.deepEqual(list.map((t: any) => t.name), ['report', 'vacuum']);
  assert.equal(list[0].command, 'echo report $HOSTNAME', '$$ leaves the variable to the container');
  task = list[1];
  assert.deepEqual(task.command, ['sh', '-c', 'echo v2']);
  assert.equal(task.revision, 2);

  // an API-made task cannot take a declared name, and the file cannot take an API-made one
  assert.equal((await s.api('POST', tasks, { body: { name: 'report', service: 'app', command: ['true'], schedule: '@daily' } })).status, 409);
  assert.equal((await s.api('POST', tasks, { body: { name: 'mine', service: 'app', command: ['true'], schedule: '@daily' } })).status, 201);
  const clash = await compose(composeWith(`  tasks:
    mine:
      service: app
      command: ["true"]
      schedule: "@daily"
`), v2.body.revision);
  assert.equal(clash.status, 422, clash.text);

  const v3 = await compose(composeWith('  {}\n'), v2.body.revision);
  assert.equal(v3.status, 200, v3.text);
  assert.deepEqual((await s.api('GET', tasks)).body.map((t: any) => t.name), ['mine'], 'declared tasks go with the file; API-made ones stay');
});

test('no success for twice the interval: task-overdue alert and an attention item, resolved by a success', async () => {
  await act(s, 'deploy', stack);
  await s.app.services.db.query(`INSERT INTO tasks (stack, name, service, command, schedule, mode, overlap, timeout_ms, interval_ms, next_run_at, created_at)
    VALUES ($1, 'quiet', 'app', '["true"]', '*/5 * * * *', 'exec', 'forbid', 60000, 300000, now() + interval '1 day', now() - interval '11 minutes')`, [stack]);
  const alert = await eventually(async () => (await s.api('GET', '/api/v1/alerts?kind=task-overdue')).body.find((a: any) => a.subject === 'quiet' && a.status === 'open'), 15_000, 'the overdue alert');
  assert.equal(alert.resource, `stack:${stack}`);
  const overview = (await s.api('GET', '/api/v1/overview')).body;
  assert.ok(overview.attention.some((i: any) => i.kind === 'task-overdue' && /quiet/.test(i.message)), JSON.stringify(overview.attention));
  const run = await s.api('POST', `${tasks}/quiet/run`);
  assert.equal(run.status, 202);
  await eventually(async () => !(await s.api('GET', '/api/v1/alerts?kind=task-overdue')).body.some((a: any) => a.subject === 'quiet' && a.status === 'open'), 30_000, 'resolved');
});

test('two instances on one database: a due slot runs once; a slot is claimed by one of two racing claims', async () => {
  other = await startServer({ plugins, reuse: { databaseUrl: s.databaseUrl, dataDir: otherDir } });
  for (let i = 0; i < 5; i++) {
    await s.app.services.db.query(`INSERT INTO tasks (stack, name, service, command, schedule, mode, overlap, timeout_ms, next_run_at)
      VALUES ($1, $2, 'app', '["true"]', '* * * * *', 'exec', 'queue', 60000, now())`, [stack, `twice${i}`]);
  }
  const count = async () => (await s.app.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM task_runs WHERE stack = $1 AND task LIKE 'twice%' AND trigger = 'schedule'`, [stack])).rows[0].n;
  await eventually(async () => (await count()) >= 5, 30_000, 'the five slots run');
  await new Promise((r) => setTimeout(r, 2500));
  assert.equal(await count(), 5, 'each slot once');

  const a = new TaskStore(s.app.services.db);
  const b = new TaskStore(other.app.services.db);
  await s.app.services.db.query(`UPDATE tasks SET next_run_at = '2030-01-01T00:00:00Z', enabled = false WHERE stack = $1 AND name = 'twice0'`, [stack]);
  const slot = [{ stack, name: 'twice0', due: '2030-01-01T00:00:00.000Z', next: new Date('2030-01-01T00:01:00Z') }];
  const claims = (await Promise.all([a.claimMany(slot), b.claimMany(slot)])).map((won) => won.size === 1);
  assert.deepEqual(claims.sort(), [false, true]);
});
