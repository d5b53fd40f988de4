// Start-first deploys behind the edge (real engine, real Caddy, real HTTP): no failed request while a slow-booting service is redeployed, replicas roll one at a time, a version that never gets ready never takes traffic, host ports fall back to stop-first.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { docker, projectContainers } from '../docker/helpers.ts';
import { act, bootingCompose, cleanupProjects, createStack, edgeAnswers, edgeRunning, freePort, startEdgeServer, trafficReport, underTraffic, uniqueName, viaEdge, waitJob, type EdgeServer, type Traffic } from './helpers.ts';

let s: EdgeServer;
const projects: string[] = [];
before(async () => {
  s = await startEdgeServer({ plugins: { alerts: {} } });
  await edgeRunning(s);
});
after(async () => {
  await s?.close();
  await cleanupProjects(...projects);
});

const stackName = (prefix: string) => {
  const name = uniqueName(prefix);
  projects.push(name);
  return name;
};

async function redeploy(name: string, content: string) {
  const stack = (await s.api('GET', `/api/v1/stacks/${name}`)).body;
  const put = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content, revision: stack.revision } });
  assert.equal(put.status, 200, put.text);
  const res = await s.api('POST', `/api/v1/stacks/${name}/deploy`);
  assert.equal(res.status, 202, res.text);
  return waitJob(s, res.body.id);
}

const report = (what: string, traffic: Traffic, output: string) => trafficReport(s, what, traffic, output);

const containersOf = async (name: string) => (await projectContainers(name)).map((c) => ({ name: c.Names[0].slice(1), state: c.State, id: c.Id })).sort((a, b) => a.name.localeCompare(b.name));
const messageOf = async (container: string) => (await docker.getContainer(container).inspect()).Config.Env.find((e) => e.startsWith('MESSAGE='));

test('a redeploy of a service that boots in 4 s: no request fails, every slow request completes, each step is in the job output', async () => {
  const name = stackName('sf');
  const host = `${name}.app.test`;
  await createStack(s, name, bootingCompose(host, 'one'));
  await act(s, 'deploy', name);
  await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.status === 200 && a.body.includes('message=one'), 30_000);

  const started = Date.now();
  const { value: job, traffic } = await underTraffic(s.httpPort, host, async () => {
    const done = await redeploy(name, bootingCompose(host, 'two'));
    // the requests go on a little after the deploy, so the last switch is seen from outside too
    await new Promise((r) => setTimeout(r, 500));
    return done;
  }, { slowPath: '/cgi-bin/slow' });
  assert.equal(job.status, 'succeeded', `${job.error}\n${job.output}`);
  assert.deepEqual(traffic.failed, [], report('failed requests during the redeploy', traffic, job.output));
  assert.ok(traffic.sent >= 20 * 5, `at least 20 requests per second for the deploy's duration (${traffic.sent} in ${Date.now() - started} ms)`);
  assert.ok(traffic.slow.sent >= 5 && traffic.slow.failed.length === 0 && traffic.slow.ok === traffic.slow.sent, `every slow request completes: ${JSON.stringify(traffic.slow)}`);
  assert.deepEqual([...traffic.served].sort(), ['one', 'two'], 'the old version served until the switch, the new one after');

  const web = `${name}-web-1`;
  const lines = job.output.split('\n');
  const step = (re: RegExp) => { const i = lines.findIndex((l) => re.test(l)); assert.ok(i >= 0, `${re} in:\n${job.output}`); return i; };
  const order = [
    step(new RegExp(`${web}: configuration changed, starting the new container beside the old one as ${web}-dwnew-[0-9a-f]{12}`)),
    step(new RegExp(`${web}: started new \\(\\d+\\.\\d s\\)`)),
    step(new RegExp(`${web}: ready after (\\d+\\.\\d) s \\(healthy\\)`)),
    step(new RegExp(`${web}: switched: the edge routes new requests to the new container`)),
    // the drain ends when the edge has no request in flight to the old container (a slow one takes 2 s), before the 3 s stop_grace_period
    step(new RegExp(`${web}: drained the old container in [0-2]\\.\\d s: the edge has no request in flight to it`)),
    step(new RegExp(`${web}: removed old`)),
  ];
  assert.deepEqual([...order].sort((a, b) => a - b), order, 'the steps in their order');
  const ready = Number(new RegExp(`${web}: ready after (\\d+\\.\\d) s`).exec(job.output)![1]);
  assert.ok(ready >= 4 && ready < 30, `ready after the 4 s boot (${ready} s)`);
  assert.deepEqual((await containersOf(name)).map((c) => [c.name, c.state]), [[web, 'running']], 'one container, with the usual name');
  assert.equal(await messageOf(web), 'MESSAGE=two');
});

test('a version whose healthcheck never passes never takes traffic: the deploy fails saying why, the old container keeps serving under its name, the alert is raised', async () => {
  const name = stackName('sfbad');
  const host = `${name}.app.test`;
  await createStack(s, name, bootingCompose(host, 'one', { bootSeconds: 0 }));
  await act(s, 'deploy', name);
  await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.status === 200 && a.body.includes('message=one'), 30_000);
  const before = (await containersOf(name))[0];

  const sick = bootingCompose(host, 'broken', { bootSeconds: 0, service: '    healthcheck: { test: ["CMD-SHELL", "echo probe says no; exit 1"], interval: 500ms, timeout: 2s, retries: 2 }\n' });
  const { value: job, traffic } = await underTraffic(s.httpPort, host, () => redeploy(name, sick), { slowPath: '/cgi-bin/slow' });
  assert.equal(job.status, 'failed', job.output);
  assert.deepEqual(traffic.failed, [], report('no request failed', traffic, job.output));
  assert.deepEqual([...traffic.served], ['one'], 'only the old version answered');
  assert.deepEqual(traffic.slow.failed, [], report('failed slow requests', traffic, job.output));
  assert.match(job.error!, new RegExp(`${name}-web-1: the new container did not become ready, so the old one keeps serving: it is unhealthy; last health probe \\(exit code 1\\): probe says no`));
  assert.match(job.output, /its last log lines:\n {2}booting broken/, 'the container\'s last log lines are in the output');
  assert.match(job.output, /removed the new container; the old one keeps serving/);

  assert.deepEqual(await containersOf(name), [before], 'the old container is untouched: same id, same name, still running');
  assert.equal(await messageOf(`${name}-web-1`), 'MESSAGE=one');
  assert.match((await viaEdge(s.httpPort, host, '/cgi-bin/env')).body, /message=one/);
  const alerts = (await s.api('GET', '/api/v1/alerts?kind=deploy-failed')).body as any[];
  assert.ok(alerts.some((a) => a.resource === `stack:${name}` && a.status === 'open'), JSON.stringify(alerts));
});

test('three replicas roll one at a time behind the edge (HTTP readiness path): no request fails, the edge balances across the ready ones', async () => {
  const name = stackName('sfrep');
  const host = `${name}.app.test`;
  const file = (message: string) => bootingCompose(host, message, {
    bootSeconds: 2,
    labels: '      dockwright.http.ready: /index.html\n      dockwright.http.readyTimeout: "30"\n',
    service: '    healthcheck: { disable: true }\n    deploy: { replicas: 3 }\n',
  });
  await createStack(s, name, file('one'));
  await act(s, 'deploy', name);
  const hostnames = new Set<string>();
  await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => { if (a.status === 200) hostnames.add(/hostname=(\S+)/.exec(a.body)![1]); return hostnames.size === 3; }, 30_000);

  const { value: job, traffic } = await underTraffic(s.httpPort, host, () => redeploy(name, file('two')), { slowPath: '/cgi-bin/slow' });
  assert.equal(job.status, 'succeeded', `${job.error}\n${job.output}`);
  assert.deepEqual(traffic.failed, [], report('failed requests', traffic, job.output));
  assert.deepEqual(traffic.slow.failed, [], report('failed slow requests', traffic, job.output));
  assert.match(job.output, /ready means healthy if the image has a healthcheck, else GET \/index\.html on port 8080 answers 2xx or 3xx, within 30\.0 s/);
  // one at a time: each replica is removed before the next one starts
  const events = job.output.split('\n').flatMap((l) => { const m = /-web-(\d): (started new|removed old)/.exec(l); return m ? [`${m[2]} ${m[1]}`] : []; });
  assert.deepEqual(events, ['started new 1', 'removed old 1', 'started new 2', 'removed old 2', 'started new 3', 'removed old 3']);
  assert.match(job.output, /ready after \d+\.\d s \(GET \/index\.html answered 200\)/);
  assert.deepEqual((await containersOf(name)).map((c) => c.name), [1, 2, 3].map((n) => `${name}-web-${n}`));
  for (const n of [1, 2, 3]) assert.equal(await messageOf(`${name}-web-${n}`), 'MESSAGE=two');
});

test('a service with a published host port cannot run twice: the job says so and replaces it stop-first', async () => {
  const name = stackName('sfport');
  const host = `${name}.app.test`;
  const port = await freePort();
  const file = (message: string) => bootingCompose(host, message, { bootSeconds: 0, service: `    ports: ["127.0.0.1:${port}:8080"]\n` });
  await createStack(s, name, file('one'));
  await act(s, 'deploy', name);
  const job = await redeploy(name, file('two'));
  assert.equal(job.status, 'succeeded', `${job.error}\n${job.output}`);
  assert.match(job.output, new RegExp(`web: its published host port ${port} cannot exist twice, so it is replaced stop-first instead of start-first`));
  assert.match(job.output, new RegExp(`${name}-web-1: recreated and started`));
  assert.doesNotMatch(job.output, /dwnew/);
  await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.status === 200 && a.body.includes('message=two'), 30_000);
});

test('update_config failure_action rollback: when the second replica\'s new container fails, the first one gets its old container back; no request fails', async () => {
  const name = stackName('sfroll');
  const host = `${name}.app.test`;
  // the new version runs once: its second container finds the mark the first one left on the shared volume and exits
  const file = (message: string, once: boolean) => `services:
  web:
    image: dockwright-test/web:1
    environment: { MESSAGE: "${message}" }
    stop_grace_period: 1s
    command: ["sh", "-c", "${once ? 'if [ -f /shared/mark ]; then echo second start refused; exit 1; fi; touch /shared/mark; ' : ''}exec httpd -f -p 8080 -h /www"]
    volumes: ["shared:/shared"]
    healthcheck: { disable: true }
    labels:
      dockwright.http.host: "${host}"
      dockwright.http.port: "8080"
    deploy:
      replicas: 2
      update_config: { parallelism: 1, failure_action: rollback }
volumes:
  shared: {}
`;
  await createStack(s, name, file('one', false));
  await act(s, 'deploy', name);
  await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.status === 200 && a.body.includes('message=one'), 30_000);
  const before = await containersOf(name);

  const { value: job, traffic } = await underTraffic(s.httpPort, host, () => redeploy(name, file('two', true)), { slowPath: '/cgi-bin/slow' });
  assert.equal(job.status, 'failed', job.output);
  assert.deepEqual(traffic.failed, [], report('failed requests', traffic, job.output));
  assert.match(job.output, new RegExp(`${name}-web-1: removed old|${name}-web-1: stopped the old container, kept until the service is replaced`));
  assert.match(job.output, new RegExp(`${name}-web-2: the new container did not become ready: it stopped \\(exit code 1\\)`));
  assert.match(job.output, /second start refused/);
  assert.match(job.output, /web: rolling back the 1 container this deploy replaced \(update_config.failure_action: rollback\)/);
  assert.match(job.output, new RegExp(`${name}-web-1: rolled back to the old container`));
  assert.deepEqual(await containersOf(name), before, 'both old containers serve again, under their names');
  for (const n of [1, 2]) assert.equal(await messageOf(`${name}-web-${n}`), 'MESSAGE=one');
  await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.status === 200 && a.body.includes('message=one'));
});

test('the old container drains until the edge has no request in flight to it, then goes: a 6 s request in flight at the switch completes, and nothing waits for the 20 s stop_grace_period', async () => {
  const name = stackName('sfdrain');
  const host = `${name}.app.test`;
  const compose = (message: string) => `services:
  web:
    image: dockwright-test/web:1
    environment: { MESSAGE: "${message}" }
    init: true
    stop_grace_period: 20s
    command:
      - sh
      - -c
      - |
        printf '#!/bin/sh\\nsleep 6\\necho "Content-Type: text/plain"\\necho\\necho "slow $$MESSAGE"\\n' > /www/cgi-bin/slow
        chmod 755 /www/cgi-bin/slow
        exec httpd -f -p 8080 -h /www
    healthcheck: { test: ["CMD", "wget", "-q", "-O", "-", "http://127.0.0.1:8080/"], interval: 200ms, timeout: 2s, retries: 3, start_period: 30s }
    labels:
      dockwright.http.host: "${host}"
      dockwright.http.port: "8080"
`;
  await createStack(s, name, compose('one'));
  await act(s, 'deploy', name);
  await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.status === 200 && a.body.includes('message=one'), 30_000);
  const started = Date.now();
  const slow = viaEdge(s.httpPort, host, '/cgi-bin/slow');
  await new Promise((r) => setTimeout(r, 300));
  const job = await redeploy(name, compose('two'));
  const took = Date.now() - started;
  assert.equal(job.status, 'succeeded', `${job.error}\n${job.output}`);
  const answer = await slow;
  assert.equal(answer.status, 200);
  assert.match(answer.body, /slow one/, 'the request in flight on the old container completed');
  const drained = new RegExp(`${name}-web-1: drained the old container in (\\d+\\.\\d) s: the edge has no request in flight to it`).exec(job.output);
  assert.ok(drained, job.output);
  assert.ok(Number(drained[1]) > 0.2, `the drain waited for the request in flight (${drained[1]} s)`);
  assert.ok(took < 15_000, `the deploy ended ${took} ms after the slow request began: the drain did not wait for the 20 s stop_grace_period`);
});
