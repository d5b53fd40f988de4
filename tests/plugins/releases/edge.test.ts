// Through the edge, no request fails while a bad update is deployed and rolled back to the previous release by digest (one that never gets ready, one that serves then crashes), nor while a good one is applied.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../helpers/harness.ts';
import { edgeAnswers, edgeComplaints, edgeRunning, freePort, viaEdge, type EdgeServer } from '../edge/helpers.ts';
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

  const bad = await underTraffic(host, () => job(stack));
  assert.equal(bad.job.status, 'failed', bad.job.output);
  assert.match(bad.job.error ?? '', /went back to release 1/);
  assert.match(bad.job.error ?? '', /did not become ready/);
  assert.match(bad.job.error ?? '', /last log lines:\n(.*\n)*.*bad version dies/, 'the new version\'s last log lines');
  assert.deepEqual(bad.failed, [], report(bad));
  assert.ok(bad.sent > 30, `traffic ran through the update and the rollback (${bad.sent} requests)`);
  const running = await runningDigests((await containerOf(stack, 'web'))!.Id);
  assert.ok(running.some((d) => d.endsWith(digests.good)), running.join(', '));
  const alerts = ((await s.api('GET', '/api/v1/alerts?kind=update-rolled-back')).body as any[]).filter((a) => a.resource === `stack:${stack}`);
  assert.equal(alerts.length, 1);

  // a good version: the update goes through, watched, with no failed request
  digests.fixed = await publishVariant(`${repo}:1.0.2`, 'fixed', ['httpd', '-f', '-p', '8080', '-h', '/www'], 'dockwright-test/web:1');
  const good = await underTraffic(host, () => job(stack));
  assert.equal(good.job.status, 'succeeded', `${good.job.error}\n${good.job.output}`);
  assert.deepEqual(good.failed, [], report(good));
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

  const crash = await underTraffic(crashing.host, () => job(crashing.stack));
  console.log(`update to a version that crashes, and its rollback, through the edge: ${crash.sent} requests sent, ${crash.failed.length} failed`);
  assert.deepEqual(crash.failed, [], report(crash));
  assert.ok(crash.sent > 100, `traffic ran through the update and the rollback (${crash.sent} requests)`);
  assert.equal(crash.job.status, 'failed', crash.job.output);
  assert.match(crash.job.output, /web-1: ready after/, 'the new version got ready and took over');
  assert.match(crash.job.error ?? '', /exit code 5/);
  assert.match(crash.job.error ?? '', /went back to release 1/);
  assert.match(crash.job.error ?? '', /last log lines:\n(.*\n)*.*crash version dies/, 'the new version\'s last log lines');
  assert.doesNotMatch(((await s.api('GET', '/api/v1/alerts?kind=update-rolled-back')).body as any[]).find((a) => a.resource === `stack:${crashing.stack}`)?.message ?? '', /\n/, 'the alert says why in one line');
  assert.ok(crash.served.has('crash'), 'the crashing version answered requests before it died');
  const running = await runningDigests((await containerOf(crashing.stack, 'web'))!.Id);
  assert.ok(running.some((d) => d.endsWith(digests.good)), running.join(', '));
  const alerts = ((await s.api('GET', '/api/v1/alerts?kind=update-rolled-back')).body as any[]).filter((a) => a.resource === `stack:${crashing.stack}`);
  assert.equal(alerts.length, 1);
});

/** a failed traffic check's message: the job's output lines beside the failed requests' times, and what Caddy complained of */
const report = (t: { job: { output: string }; since: number; sent: number; failed: string[] }) =>
  `${t.failed.length} of ${t.sent} requests failed; the job's output:\n${t.job.output}\nthe edge's Caddy said:\n${edgeComplaints(s.dataDir, t.since)}`;

async function job(name: string) {
  const res = await s.api('POST', `/api/v1/stacks/${name}/update`, { body: {} });
  assert.equal(res.status, 202, res.text);
  return waitJob(s, res.body.id);
}

/**
 * A GET through the edge every 30 ms (each on a new connection, not waiting for the one before) while `during` runs:
 * what did not answer 200, and the messages the answers carried (which version answered)
 */
async function underTraffic<T>(to: string, during: () => Promise<T>): Promise<{ job: T; since: number; sent: number; failed: string[]; served: Set<string> }> {
  const since = Date.now();
  let sent = 0;
  let stop = false;
  const failed: string[] = [];
  const served = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  const traffic = (async () => {
    while (!stop) {
      sent++;
      const p = viaEdge(s.httpPort, to, '/cgi-bin/env').then((a) => {
        // when it failed, to set beside the job's output lines (their times) when it does
        if (a.status !== 200) failed.push(`${new Date().toISOString()} ${a.status} ${a.body.slice(0, 80)}`);
        else served.add(/^message=(\S*)/m.exec(a.body)?.[1] ?? '?');
      }, (err: Error) => { failed.push(`${new Date().toISOString()} ${err.message}`); }).finally(() => inFlight.delete(p));
      inFlight.add(p);
      await new Promise((r) => setTimeout(r, 30));
    }
  })();
  try {
    return { job: await during(), since, sent, failed, served };
  } finally {
    stop = true;
    await traffic;
    await Promise.all([...inFlight]);
  }
}
