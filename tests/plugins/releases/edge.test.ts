// Through the edge, no request fails while a bad update is deployed and rolled back to the previous release by digest (one that never gets ready, one that serves then crashes), nor while a good one is applied.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../helpers/harness.ts';
import { edgeAnswers, edgeRunning, freePort, trafficReport, underTraffic, type EdgeServer } from '../edge/helpers.ts';
import { act, cleanupProjects, containerOf, createStack, docker, publishVariant, registry, runningDigests, uniqueName, waitJob } from './helpers.ts';

const repo = `${registry}/${uniqueName('dwt-reledge')}/web`;
const stack = uniqueName('reledge');
const host = `${stack}.test`;
const crashing = { stack: uniqueName('relcrash'), host: '' };
crashing.host = `${crashing.stack}.test`;
const digests: Record<string, string> = {};
let s: EdgeServer;

before(async () => {
  digests.good = await publishVariant(`${repo}:1.0.0`, 'good', ['httpd', '-f', '-p', '8080', '-h', '/www'], 'dockwright-test/web:1');
  // a version that dies after 3 s, before it is ever ready
  digests.bad = await publishVariant(`${repo}:1.0.1`, 'bad', ['sh', '-c', 'echo bad version up; sleep 3; echo bad version dies; exit 4'], 'dockwright-test/web:1');
  // a version that gets ready (healthy), takes traffic for a few seconds, then dies
  digests.crash = await publishVariant(`${repo}:1.1.0`, 'crash', ['sh', '-c', 'export MESSAGE=crash; httpd -p 8080 -h /www; echo crash version serving; sleep 5; echo crash version dies; exit 5'], 'dockwright-test/web:1');
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const server = await startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } },
      containers: {}, stacks: {}, alerts: {}, registries: {}, releases: {},
      edge: { options: { httpPort, httpsPort, pollIntervalMs: 100, resyncIntervalMs: 60_000, drainMs: 1000 } },
    },
  });
  s = Object.assign(server, { httpPort, httpsPort });
  await edgeRunning(s);
});
after(async () => {
  await cleanupProjects(stack, crashing.stack);
  await s?.close();
  for (const i of await docker.listImages({ filters: { reference: [repo] } })) await docker.getImage(i.Id).remove({ force: true }).catch(() => undefined);
});

test('behind the edge: a bad update is rolled back, and a good one applied, with no failed request', async () => {
  await createStack(s, stack, `services:
  web:
    image: ${repo}:1.0.0
    environment: { MESSAGE: "hello" }
    labels:
      dockwright.http.host: "${host}"
      dockwright.http.port: "8080"
      dockwright.update: patch
      dockwright.update.monitor: "3"
`);
  await act(s, 'deploy', stack);
  await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.status === 200);

  const bad = await underTraffic(s.httpPort, host, () => job(stack));
  assert.equal(bad.value.status, 'failed', bad.value.output);
  assert.match(bad.value.error ?? '', /went back to release 1/);
  assert.match(bad.value.error ?? '', /did not become ready/);
  assert.match(bad.value.error ?? '', /last log lines:\n(.*\n)*.*bad version dies/, 'the new version\'s last log lines');
  assert.deepEqual(bad.traffic.failed, [], trafficReport(s, 'the bad update', bad.traffic, bad.value.output));
  assert.ok(bad.traffic.sent > 30, `traffic ran through the update and the rollback (${bad.traffic.sent} requests)`);
  const running = await runningDigests((await containerOf(stack, 'web'))!.Id);
  assert.ok(running.some((d) => d.endsWith(digests.good)), running.join(', '));
  const alerts = ((await s.api('GET', '/api/v1/alerts?kind=update-rolled-back')).body as any[]).filter((a) => a.resource === `stack:${stack}`);
  assert.equal(alerts.length, 1);

  // a good version: the update goes through, watched, with no failed request
  digests.fixed = await publishVariant(`${repo}:1.0.2`, 'fixed', ['httpd', '-f', '-p', '8080', '-h', '/www'], 'dockwright-test/web:1');
  const good = await underTraffic(s.httpPort, host, () => job(stack));
  assert.equal(good.value.status, 'succeeded', `${good.value.error}\n${good.value.output}`);
  assert.deepEqual(good.traffic.failed, [], trafficReport(s, 'the good update', good.traffic, good.value.output));
  const now = await runningDigests((await containerOf(stack, 'web'))!.Id);
  assert.ok(now.some((d) => d.endsWith(digests.fixed)), now.join(', '));
});

test('behind the edge: a version that serves, then crashes in its monitor window, is rolled back with no failed request', async () => {
  await createStack(s, crashing.stack, `services:
  web:
    image: ${repo}:1.0.0
    environment: { MESSAGE: "hello" }
    labels:
      dockwright.http.host: "${crashing.host}"
      dockwright.http.port: "8080"
      dockwright.update: minor
      dockwright.update.monitor: "15"
`);
  await act(s, 'deploy', crashing.stack);
  await edgeAnswers(s.httpPort, crashing.host, '/cgi-bin/env', (a) => a.status === 200);

  const { value: crash, traffic } = await underTraffic(s.httpPort, crashing.host, () => job(crashing.stack));
  console.log(`update to a version that crashes, and its rollback, through the edge: ${traffic.sent} requests sent, ${traffic.failed.length} failed`);
  assert.deepEqual(traffic.failed, [], trafficReport(s, 'the update that crashes', traffic, crash.output));
  assert.ok(traffic.sent > 100, `traffic ran through the update and the rollback (${traffic.sent} requests)`);
  assert.equal(crash.status, 'failed', crash.output);
  assert.match(crash.output, /web-1: ready after/, 'the new version got ready and took over');
  assert.match(crash.error ?? '', /exit code 5/);
  assert.match(crash.error ?? '', /went back to release 1/);
  assert.match(crash.error ?? '', /last log lines:\n(.*\n)*.*crash version dies/, 'the new version\'s last log lines');
  assert.doesNotMatch(((await s.api('GET', '/api/v1/alerts?kind=update-rolled-back')).body as any[]).find((a) => a.resource === `stack:${crashing.stack}`)?.message ?? '', /\n/, 'the alert says why in one line');
  assert.ok(traffic.served.has('crash'), 'the crashing version answered requests before it died');
  const running = await runningDigests((await containerOf(crashing.stack, 'web'))!.Id);
  assert.ok(running.some((d) => d.endsWith(digests.good)), running.join(', '));
  const alerts = ((await s.api('GET', '/api/v1/alerts?kind=update-rolled-back')).body as any[]).filter((a) => a.resource === `stack:${crashing.stack}`);
  assert.equal(alerts.length, 1);
});

async function job(name: string) {
  const res = await s.api('POST', `/api/v1/stacks/${name}/update`, { body: {} });
  assert.equal(res.status, 202, res.text);
  return waitJob(s, res.body.id);
}
