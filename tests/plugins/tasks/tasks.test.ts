// Scheduled tasks against the real engine: the API (scopes, access lists, bad input, revisions), exec and run tasks writing to a volume, manual runs, an overlap skipped with its reason, a timeout killing a sleep child, a failure alert delivered and resolved, a scheduled run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, eventually, startServer, type TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, createStack, docker, uniqueName, waitJob, act } from '../stacks/helpers.ts';
import { startReceiver, type Receiver } from '../alerts/helpers.ts';

let s: TestServer;
let rx: Receiver;
const stack = uniqueName('tk');

const compose = `services:
  app:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "sleep 3600"]
    environment:
      DB_PASSWORD: "\${DB_PASSWORD}"
    volumes: ["data:/data"]
  cli:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "exit 0"]
    restart: "no"
    volumes: ["data:/data"]
volumes:
  data: {}
`;

before(async () => {
  rx = await startReceiver();
  s = await startServer({
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } },
      stacks: {},
      alerts: { options: { retry: { attempts: 2, backoffMs: 20, maxBackoffMs: 100 } } },
      tasks: { options: { graceMs: 1000 } },
    },
    config: { rateLimit: { perMinute: 100_000 } },
  });
  const created = await createStack(s, stack, compose);
  const env = await s.api('PUT', `/api/v1/stacks/${stack}/env`, { body: { values: { DB_PASSWORD: 'hunter2-very-secret' }, revision: created.revision } });
  assert.ok(env.status < 300, env.text);
  await act(s, 'deploy', stack);
});
after(async () => {
  await s?.close();
  await rx?.close();
  await cleanupProjects(stack);
});

const tasks = `/api/v1/stacks/${stack}/tasks`;
const add = (body: Record<string, unknown>) => s.api('POST', tasks, { body });
async function runNow(task: string) {
  const res = await s.api('POST', `${tasks}/${task}/run`);
  assert.equal(res.status, 202, res.text);
  return res.body;
}
const runsOf = async (task: string) => (await s.api('GET', `${tasks}/${task}/runs`)).body as any[];

test('bad input is a problem and writes nothing; a duplicate name is 409', async () => {
  for (const [body, status] of [
    [{ name: 'x', service: 'app', command: ['true'], schedule: '* * * * * *' }, 400],
    [{ name: 'x', service: 'app', command: ['true'], schedule: '61 * * * *' }, 400],
    [{ name: 'x', service: 'app', command: ['true'], schedule: '* * * * *', timezone: 'Mars/Base' }, 400],
    [{ name: 'x', service: 'app', command: [], schedule: '* * * * *' }, 400],
    [{ name: 'x', service: 'app', command: ['true'], schedule: '* * * * *', timeout: '48h' }, 400],
    [{ name: 'x', service: 'app', command: ['true'], schedule: '* * * * *', mode: 'shell' }, 400],
    [{ name: 'X Y', service: 'app', command: ['true'], schedule: '* * * * *' }, 400],
    [{ name: 'x', service: 'nope', command: ['true'], schedule: '* * * * *' }, 422],
  ] as const) {
    const res = await add(body);
    assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
  }
  assert.deepEqual((await s.api('GET', tasks)).body, [], 'nothing half-written');
  assert.equal((await add({ name: 'dup', service: 'app', command: ['true'], schedule: '@daily' })).status, 201);
  assert.equal((await add({ name: 'dup', service: 'app', command: ['true'], schedule: '@hourly' })).status, 409);
  assert.equal((await s.api('DELETE', `${tasks}/dup`)).status, 204);
  const off = await add({ name: 'off', service: 'app', command: ['true'], schedule: '@hourly', enabled: false });
  assert.equal(off.status, 201, off.text);
  assert.equal(off.body.nextRunAt, null, 'a disabled task has no next run');
  assert.equal((await s.api('DELETE', `${tasks}/off`, { headers: { 'if-match': '"2"' } })).status, 412);
  assert.equal((await s.api('DELETE', `${tasks}/off`, { headers: { 'if-match': '"1"' } })).status, 204);
  assert.equal((await s.api('GET', `${tasks}/dup`)).status, 404);
});

test('an exec task and a run task write to the volume; runs are recorded with output, secrets masked', async () => {
  const created = await add({ name: 'stamp', service: 'app', command: 'echo "exec $DB_PASSWORD" >> /data/log; echo wrote', schedule: '0 3 * * *', timezone: 'Europe/Berlin' });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.declared, false);
  assert.equal(created.body.mode, 'exec');
  assert.equal(created.body.overlap, 'forbid');
  assert.equal(created.body.timeout, '1h');
  assert.ok(created.body.nextRunAt, 'nextRunAt is set');
  assert.equal(new Date(created.body.nextRunAt).toLocaleTimeString('en-GB', { timeZone: 'Europe/Berlin' }), '03:00:00');
  assert.equal(created.headers.get('etag'), '"1"');

  const job = await waitJob(s, (await runNow('stamp')).id);
  assert.equal(job.status, 'succeeded', job.output + job.error);
  assert.ok(!job.output.includes('hunter2-very-secret'), 'the secret never shows in the job output');

  assert.equal((await add({ name: 'oneoff', service: 'cli', mode: 'run', command: ['sh', '-c', 'echo "run $(hostname)" >> /data/log; cat /data/log'], schedule: '@daily' })).status, 201);
  const job2 = await waitJob(s, (await runNow('oneoff')).id);
  assert.equal(job2.status, 'succeeded', job2.output + job2.error);
  const [run] = await runsOf('oneoff');
  assert.equal(run.status, 'succeeded');
  assert.equal(run.trigger, 'manual');
  assert.equal(run.exitCode, 0);
  assert.ok(run.startedAt && run.endedAt);
  assert.equal(run.job, job2.id);
  const full = (await s.api('GET', `${tasks}/oneoff/runs/${run.id}`)).body;
  assert.match(full.output, /exec \*\*\*\nrun [0-9a-f]{12}\n/, 'the one-off container saw the exec task\'s line in the shared volume');
  assert.ok(!full.output.includes('hunter2-very-secret'));
  const left = await docker.listContainers({ all: true, filters: { label: [`dockwright.task-run=${run.id}`] } });
  assert.equal(left.length, 0, 'the one-off container is removed');
  const task = (await s.api('GET', `${tasks}/oneoff`)).body;
  assert.ok(task.lastSuccessAt && task.lastRun.id === run.id);
});

test('forbid: a second run while one runs is recorded skipped with the reason; a timeout kills the sleep child', async () => {
  assert.equal((await add({ name: 'slow', service: 'app', command: 'sleep 30 & wait', schedule: '@daily', timeout: '3s' })).status, 201);
  const first = await runNow('slow');
  await eventually(async () => (await runsOf('slow'))[0]?.status === 'running', 20_000, 'the first run running');
  const second = await waitJob(s, (await runNow('slow')).id);
  assert.equal(second.status, 'succeeded');
  assert.equal(second.result.status, 'skipped');
  const done = await waitJob(s, first.id);
  assert.equal(done.status, 'failed');
  const runs = await runsOf('slow');
  const skipped = runs.find((r) => r.status === 'skipped');
  assert.match(skipped.reason, /^overlap: run .* is still running/);
  const timedOut = runs.find((r) => r.status === 'timed-out');
  assert.ok(timedOut, JSON.stringify(runs));
  assert.match(timedOut.reason, /timed out after 3 s/);
  const app = (await docker.listContainers({ filters: { label: [`dockwright.project=${stack}`, 'dockwright.service=app'] } }))[0];
  const exec = await docker.getContainer(app.Id).exec({ Cmd: ['sh', '-c', 'ps -o args | grep -c "^sleep 30" || true'], AttachStdout: true });
  const out = await new Promise<string>((resolve) => {
    void exec.start({}).then((stream: any) => { let t = ''; stream.on('data', (c: Buffer) => { t += c.toString(); }); stream.on('end', () => resolve(t)); });
  });
  assert.match(out.replace(/[^\x20-\x7e\n]/g, ''), /(^|\n)0\s*$/, `no sleep left in the container: ${out}`);
});

test('a failure raises task-failed on the webhook channel, the next success resolves it', async () => {
  const channel = await s.api('POST', '/api/v1/alerts/channels', { body: { name: 'hook', kind: 'webhook', config: { url: `${rx.url}/hook` }, events: ['task-failed'] } });
  assert.equal(channel.status, 201, channel.text);
  assert.equal((await add({ name: 'flaky', service: 'app', command: 'test -f /data/ok', schedule: '@daily' })).status, 201);
  assert.equal((await waitJob(s, (await runNow('flaky')).id)).status, 'failed');
  await eventually(async () => rx.on('/hook').length >= 1, 15_000, 'the alert delivered');
  const raised = JSON.parse(rx.on('/hook')[0].body);
  assert.equal(raised.alert?.kind ?? raised.kind, 'task-failed', rx.on('/hook')[0].body);
  const [run] = await runsOf('flaky');
  assert.equal(run.exitCode, 1);

  const put = await s.api('PUT', `${tasks}/flaky`, { body: { service: 'app', command: 'touch /data/ok && test -f /data/ok', schedule: '@daily' }, headers: { 'if-match': '"1"' } });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.body.revision, 2);
  const stale = await s.api('PUT', `${tasks}/flaky`, { body: { service: 'app', command: 'true', schedule: '@daily' }, headers: { 'if-match': '"1"' } });
  assert.equal(stale.status, 412);
  assert.equal((await waitJob(s, (await runNow('flaky')).id)).status, 'succeeded');
  await eventually(async () => rx.on('/hook').length >= 2, 15_000, 'the resolution delivered');
  const open = (await s.api('GET', '/api/v1/alerts?kind=task-failed')).body.filter((a: any) => a.subject === 'flaky' && a.status !== 'resolved');
  assert.equal(open.length, 0);
});

test('exec in a service that is not running is recorded skipped with the reason', async () => {
  assert.equal((await add({ name: 'onexited', service: 'cli', command: ['true'], schedule: '@daily' })).status, 201);
  const job = await waitJob(s, (await runNow('onexited')).id);
  assert.equal(job.result.status, 'skipped');
  assert.match((await runsOf('onexited'))[0].reason, /service cli is not running/);
});

test('a scheduled slot runs once on its own, by the scheduler', async () => {
  await s.app.services.db.query(`INSERT INTO tasks (stack, name, service, command, schedule, mode, overlap, timeout_ms, next_run_at)
    VALUES ($1, 'tick', 'app', '["true"]', '* * * * *', 'exec', 'forbid', 60000, now() - interval '1 second')`, [stack]);
  const run = await eventually(async () => (await runsOf('tick')).find((r) => r.trigger === 'schedule' && r.status === 'succeeded'), 30_000, 'a scheduled run');
  assert.ok(run);
  const task = (await s.api('GET', `${tasks}/tick`)).body;
  assert.ok(new Date(task.nextRunAt).getTime() > Date.now(), 'nextRunAt moved on');
  assert.equal((await runsOf('tick')).filter((r) => r.trigger === 'schedule').length, 1);
});

test('scopes and access lists: a hidden stack answers as a missing one', async () => {
  const reader = await s.token('operator', ['tasks:read', 'stacks:read']);
  assert.equal((await call(s.url, 'GET', tasks, { token: reader })).status, 200);
  assert.equal((await call(s.url, 'POST', `${tasks}/stamp/run`, { token: reader })).status, 403);
  assert.equal((await call(s.url, 'POST', tasks, { token: reader, body: { name: 'y', service: 'app', command: ['true'], schedule: '@daily' } })).status, 403);
  const outsider = await s.token('operator', ['tasks:read', 'tasks:write', 'tasks:run'], { name: uniqueName('out') });
  assert.equal((await s.api('POST', `/api/v1/stacks/${stack}/access`, { body: { entries: [{ principal: 'user:somebody-else', role: 'manager' }] } })).status, 200);
  try {
    const hidden = await call(s.url, 'GET', `${tasks}/stamp`, { token: outsider });
    const missing = await call(s.url, 'GET', `/api/v1/stacks/nosuch${stack}/tasks/stamp`, { token: outsider });
    assert.equal(hidden.status, 404);
    assert.equal(missing.status, 404);
    assert.equal((await call(s.url, 'POST', `${tasks}/stamp/run`, { token: outsider })).status, 404);
    assert.equal((await call(s.url, 'GET', tasks, { token: outsider })).status, 404);
  } finally {
    assert.equal((await s.api('POST', `/api/v1/stacks/${stack}/access`, { body: { entries: [] } })).status, 200);
  }
});

test('queue: a second run waits for the first; replace: a second run stops the first', async () => {
  assert.equal((await add({ name: 'queued', service: 'app', command: 'sleep 2', schedule: '@daily', overlap: 'queue' })).status, 201);
  const [a, b] = [await runNow('queued'), await runNow('queued')];
  assert.equal((await waitJob(s, a.id)).status, 'succeeded');
  assert.equal((await waitJob(s, b.id)).status, 'succeeded');
  const [second, first] = await runsOf('queued');
  assert.ok(new Date(second.startedAt).getTime() >= new Date(first.endedAt).getTime(), JSON.stringify([first, second]));

  assert.equal((await add({ name: 'replacer', service: 'app', overlap: 'replace', schedule: '@daily', timeout: '1m',
    command: 'if [ -f /data/replaced ]; then rm /data/replaced; echo second; else touch /data/replaced; sleep 30 & wait; fi' })).status, 201);
  const old = await runNow('replacer');
  await eventually(async () => (await runsOf('replacer'))[0]?.status === 'running', 20_000, 'the first run running');
  const started = Date.now();
  const fresh = await waitJob(s, (await runNow('replacer')).id);
  assert.equal(fresh.status, 'succeeded', fresh.output + fresh.error);
  assert.ok(Date.now() - started < 20_000, 'the first run was stopped, not waited for');
  assert.equal((await waitJob(s, old.id)).status, 'failed');
  const stopped = (await runsOf('replacer')).find((r) => r.status === 'failed');
  assert.equal(stopped.reason, 'stopped: replaced by a newer run');
});

test('a run left running by a job that ended (its instance stopped) is recorded interrupted and does not block the next', async () => {
  const ghost = '00000000-0000-4000-8000-000000000001';
  await s.app.services.db.query(`INSERT INTO task_runs (id, stack, task, job, trigger, status, started_at) VALUES ($1, $2, 'stamp', $1, 'schedule', 'running', now())`, [ghost, stack]);
  // the one-off container such a run left behind
  const leftover = await docker.createContainer({ Image: 'dockwright-test/busybox:1', Cmd: ['sleep', '600'], Labels: { 'dockwright.task-run': ghost }, HostConfig: { NetworkMode: 'none' } });
  await leftover.start();
  const job = await waitJob(s, (await runNow('stamp')).id);
  assert.equal(job.status, 'succeeded', job.output);
  assert.equal(job.result.status, 'succeeded');
  const runs = await runsOf('stamp');
  const reaped = runs.find((r) => r.id === ghost);
  assert.equal(reaped.status, 'failed');
  assert.match(reaped.reason, /^interrupted/);
  assert.equal((await docker.listContainers({ all: true, filters: { label: [`dockwright.task-run=${ghost}`] } })).length, 0, 'the left-over one-off container is removed');
  const page = await s.api('GET', `${tasks}/stamp/runs?limit=1`);
  assert.equal(page.body.length, 1);
  const next = /cursor=([^&>]+)/.exec(page.headers.get('link') ?? '')?.[1];
  assert.ok(next, 'a next page');
  const rest = (await s.api('GET', `${tasks}/stamp/runs?limit=100&cursor=${next}`)).body;
  assert.equal(rest.length, runs.length - 1);
  assert.ok(!rest.some((r: any) => r.id === page.body[0].id));
});

test('a run task past its timeout: its one-off container stopped and removed, the run timed-out', async () => {
  assert.equal((await add({ name: 'slowrun', service: 'cli', mode: 'run', command: ['sh', '-c', 'sleep 30 & wait'], schedule: '@daily', timeout: '2s' })).status, 201);
  const started = Date.now();
  const job = await waitJob(s, (await runNow('slowrun')).id);
  assert.equal(job.status, 'failed');
  assert.ok(Date.now() - started < 20_000, 'ended at the timeout and grace, not after the sleep');
  const [run] = await runsOf('slowrun');
  assert.equal(run.status, 'timed-out');
  assert.equal((await docker.listContainers({ all: true, filters: { label: [`dockwright.task-run=${run.id}`] } })).length, 0);
});
