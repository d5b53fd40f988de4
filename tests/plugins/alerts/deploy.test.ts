// Alerts from a real failing deploy on the real Docker engine: one alert and one delivery per channel, ten failures one alert counted ten times, recovery resolves and notifies, a receiver that is down gets it by retries without holding up the deploy; container events from the engine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startServer, type TestServer } from '../../helpers/harness.ts';
import { act, busybox, cleanupProjects, createStack, uniqueName } from '../stacks/helpers.ts';
import { startReceiver, type Receiver } from './helpers.ts';

const registry = process.env.REGISTRY_OPEN ?? '127.0.0.1:5000';
const name = uniqueName('alrt');
const crashing = uniqueName('alrc');
const recovering = uniqueName('alrr');
const replaced = uniqueName('alrs');
let s: TestServer;
let rx: Receiver;

before(async () => {
  rx = await startReceiver();
  s = await startServer({
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false, restartLoopCount: 3, restartLoopWindowMs: 60_000, steadyAfterMs: 1500 } },
      containers: {},
      stacks: {},
      alerts: { options: { retry: { attempts: 20, backoffMs: 100, maxBackoffMs: 200 }, rateLimit: { perWindow: 1000, windowMs: 60_000 } } },
    },
    config: { rateLimit: { perMinute: 100_000 } },
  });
});
after(async () => {
  await cleanupProjects(name, crashing, recovering, replaced);
  await s.close();
  await rx.close();
});

const broken = `services:\n  app:\n    image: ${registry}/${uniqueName('dwt-missing')}/nothing:1\n`;
const openAlerts = async (stack: string) => (await s.api('GET', `/api/v1/alerts?status=all&resource=stack:${stack}`)).body as any[];

test('a failed deploy raises one alert, delivered once per channel; ten failures count on it; recovery resolves it and notifies, even through a receiver that was down', async () => {
  const hook = (await s.api('POST', '/api/v1/alerts/channels', { body: { name: 'hook', kind: 'webhook', config: { url: `${rx.url}/hook` } } })).body;
  assert.ok(hook.secret);
  await s.api('POST', '/api/v1/alerts/channels', { body: { name: 'slack', kind: 'slack', config: { url: `${rx.url}/slack/x` }, events: ['deploy-failed'] } });
  await createStack(s, name, broken);

  const failed = await act(s, 'deploy', name, 'failed');
  assert.ok(failed.error, 'the job has its error');
  const [alert] = await eventually(async () => {
    const list = await openAlerts(name);
    return list.length === 1 && rx.on('/hook').length === 1 && rx.on('/slack/x').length === 1 ? list : null;
  }, 20_000, 'one alert, one delivery per channel');
  assert.equal(alert.kind, 'deploy-failed');
  assert.equal(alert.severity, 'critical');
  assert.equal(alert.count, 1);
  assert.equal(alert.resolvedAt, null);
  const payload = JSON.parse(rx.on('/hook')[0].body);
  assert.equal(payload.alert.id, alert.id);
  // the message says why: the job's error, in every channel's text
  assert.ok(payload.text.includes(failed.error!), `the webhook text has the job's error: ${payload.text}`);
  assert.match(payload.text, /^the deploy of stack \S+ failed \(deploy-failed, stack:\S+\)\nreason: /);
  assert.ok(JSON.parse(rx.on('/slack/x')[0].body).text.includes(failed.error!), 'and the slack text');

  for (let i = 0; i < 9; i++) await act(s, 'deploy', name, 'failed');
  const counted = await eventually(async () => {
    const list = await openAlerts(name);
    return list.length === 1 && list[0].count === 10 ? list[0] : null;
  }, 20_000, 'count 10');
  assert.equal(counted.id, alert.id);
  assert.equal(rx.on('/hook').length, 1, 'repeats are not sent again');
  assert.equal(rx.on('/slack/x').length, 1);
  // the deploy failures have their own alert: no job-failed alert beside it
  assert.equal((await s.api('GET', '/api/v1/alerts?kind=job-failed')).body.length, 0);

  await rx.down();
  const current = (await s.api('GET', `/api/v1/stacks/${name}`)).body.revision;
  const fixed = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: busybox(), revision: current } });
  assert.equal(fixed.status, 200, fixed.text);
  const started = Date.now();
  await act(s, 'deploy', name);
  assert.ok(Date.now() - started < 60_000, 'the deploy is not held up by the receiver');
  const [resolved] = await eventually(async () => {
    const list = await openAlerts(name);
    return list[0]?.resolvedAt ? list : null;
  }, 20_000, 'resolved');
  assert.equal(resolved.id, alert.id);
  // the receiver is down: deliveries are retried; once it is back the resolution arrives
  const jobs = await eventually(async () => {
    const list = (await s.api('GET', '/api/v1/jobs?type=alerts.deliver&status=running')).body as any[];
    return list.some((j) => /attempt \d+ failed/.test(j.output)) ? list : null;
  }, 20_000, 'a retried delivery');
  assert.ok(jobs.length >= 1);
  await rx.up();
  await eventually(async () => rx.on('/hook').length === 2 && rx.on('/slack/x').length === 2, 20_000, 'the resolution delivered');
  assert.equal(JSON.parse(rx.on('/hook')[1].body).event, 'resolved');
  assert.match(JSON.parse(rx.on('/slack/x')[1].body).text, /resolved/);
});

test('a container that keeps crashing raises exited and restart-loop alerts from the engine\'s events; the exited alert\'s text has the exit code and its last log lines, secrets masked', async () => {
  const secret = 'hunter2-very-secret-value';
  const script = 'echo starting app; echo connecting with password $$DB_PASSWORD; echo fatal: cannot open /data/db >&2; sleep 0.2; exit 3';
  await createStack(s, crashing, busybox({ app: script }, '').replace('    command:', `    restart: always\n    environment: { DB_PASSWORD: ${secret}, MODE: production }\n    command:`));
  await act(s, 'deploy', crashing).catch(() => undefined);
  const kinds = await eventually(async () => {
    const list = await openAlerts(crashing);
    const found = new Set(list.map((a) => a.kind));
    return found.has('container-exited') && found.has('container-restart-loop') ? list : null;
  }, 60_000, 'container alerts');
  const exited = kinds.find((a) => a.kind === 'container-exited');
  assert.equal(exited.subject, 'app');
  assert.match(exited.message, /exit code 3/);
  const sent = await eventually(async () => rx.on('/hook').map((r) => JSON.parse(r.body)).find((b) => b.alert?.id === exited.id && b.event === 'raised'), 20_000, 'the exited alert delivered');
  assert.match(sent.text, /exited unexpectedly \(exit code 3\)/);
  assert.match(sent.text, /last log lines:\n(.*\n)* {2}starting app\n/);
  assert.match(sent.text, /fatal: cannot open \/data\/db/);
  assert.match(sent.text, /connecting with password \[redacted\]/);
  assert.ok(!sent.text.includes(secret), 'the secret is masked');
  assert.ok(!JSON.stringify((await s.api('GET', `/api/v1/alerts?status=all&resource=stack:${crashing}`)).body).includes(secret), 'nor kept with the alert');
  await act(s, 'stop', crashing).catch(() => undefined);
});

test('a container that crash-loops and then stays up resolves its restart-loop alert, without a health check', async () => {
  // crashes three times (a marker per start in its volume), then runs
  const script = 'if [ -f /data/c3 ]; then exec sleep 3600; fi; if [ -f /data/c2 ]; then touch /data/c3; elif [ -f /data/c1 ]; then touch /data/c2; else touch /data/c1; fi; sleep 0.2; exit 3';
  await createStack(s, recovering, busybox({ app: script }, 'volumes:\n  state: {}\n').replace('    command:', '    restart: always\n    volumes: ["state:/data"]\n    command:'));
  await act(s, 'deploy', recovering).catch(() => undefined);
  const loop = await eventually(async () => (await openAlerts(recovering)).find((a) => a.kind === 'container-restart-loop'), 60_000, 'the restart-loop alert');
  assert.equal(loop.subject, 'app');
  const resolved = await eventually(async () => {
    const found = (await openAlerts(recovering)).find((a) => a.id === loop.id);
    return found?.status === 'resolved' ? found : null;
  }, 60_000, 'resolved once it stayed up');
  assert.ok(resolved.resolvedAt);
  assert.ok(Date.parse(resolved.resolvedAt) - Date.parse(resolved.lastSeen) >= 1000, 'not before it stayed up for steadyAfterMs');
  assert.equal((await openAlerts(recovering)).filter((a) => a.kind === 'container-restart-loop').length, 1, 'one alert, not raised again');
  await act(s, 'stop', recovering).catch(() => undefined);
});

test('a start-first successor that exits before it takes over raises no container-exited alert: the failed deploy says it, the old container keeps serving', async () => {
  const compose = (cmd: string) => busybox({ app: cmd }).replace('    command:', '    deploy:\n      update_config: { order: start-first }\n    command:');
  await createStack(s, replaced, compose('sleep 3600'));
  await act(s, 'deploy', replaced);
  const current = (await s.api('GET', `/api/v1/stacks/${replaced}/compose`)).body.revision;
  // a healthcheck that has not passed yet keeps the successor from counting as ready the moment it runs: it exits first
  const broken = compose('echo broken; exit 3').replace('    command:', '    healthcheck: { test: ["CMD", "true"], interval: 5s }\n    command:');
  const res = await s.api('PUT', `/api/v1/stacks/${replaced}/compose`, { body: { content: broken }, headers: { 'if-match': `"${current}"` } });
  assert.equal(res.status, 200, res.text);
  const failed = await act(s, 'deploy', replaced, 'failed');
  assert.match(failed.output, /starting the new container beside the old one/);
  await eventually(async () => (await openAlerts(replaced)).some((a) => a.kind === 'deploy-failed'), 20_000, 'the deploy-failed alert');
  // the engine's events of the successor (die, destroy) arrive within a moment of the job's end
  await new Promise((r) => setTimeout(r, 1500));
  const kinds = (await openAlerts(replaced)).map((a) => a.kind);
  assert.deepEqual(kinds.filter((k) => k === 'container-exited'), [], `no container-exited alert: ${kinds.join(', ')}`);
});
