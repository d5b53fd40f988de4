// Swarm services behind the edge (real swarm, real Caddy, real HTTP): the edge follows a routed service's tasks, and a redeploy updates it start-first, health-gated, without a failed request.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../../helpers/harness.ts';
import { docker } from '../docker/helpers.ts';
import { act, createStack, edgeAnswers, edgeRunning, startEdgeServer, uniqueName, viaEdge, type EdgeServer } from './helpers.ts';

let s: EdgeServer;
const name = uniqueName('swedge');
const host = `${name}.test`;

const compose = (message: string, replicas = 2) => `x-dockwright: { runtime: swarm }
services:
  web:
    image: dockwright-test/web:1
    environment: { MESSAGE: "${message}" }
    command: ["sh", "-c", "sleep 3; exec httpd -f -p 8080 -h /www"]
    # busybox httpd, PID 1, ignores SIGTERM: it serves until killed at the end of the grace, long after the edge stopped
    # sending it requests (at the stop signal), even on a busy machine
    stop_grace_period: 10s
    healthcheck: { test: ["CMD", "wget", "-q", "-O", "-", "http://127.0.0.1:8080/"], interval: 500ms, timeout: 2s, retries: 3, start_period: 30s }
    labels:
      dockwright.http.host: "${host}"
      dockwright.http.port: "8080"
    deploy: { replicas: ${replicas}, update_config: { delay: 0s, monitor: 1s } }
`;

const services = async () => (await docker.listServices({ filters: { label: [`dockwright.project=${name}`] } })) as any[];

before(async () => {
  s = await startEdgeServer({ plugins: { swarm: { enabled: true, options: { pollMs: 250, convergeTimeoutMs: 120_000 } } } });
  await edgeRunning(s);
});
after(async () => {
  await s?.close();
  for (const svc of await services().catch(() => [])) await docker.getService(svc.ID).remove().catch(() => undefined);
  for (const n of await docker.listNetworks({ filters: { label: [`dockwright.project=${name}`] } }).catch(() => [])) await docker.getNetwork(n.Id).remove().catch(() => undefined);
});

test('a routed swarm service is served by the edge from its tasks, and its redeploy is start-first with no failed request', async () => {
  await createStack(s, name, compose('one'));
  await act(s, 'deploy', name);
  await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.status === 200 && /message=one/.test(a.body), 60_000);
  const [svc] = await services();
  assert.equal(svc.Spec.UpdateConfig.Order, 'start-first', 'a routed service updates start-first by default');

  const failed: string[] = [];
  const seen = new Set<string>();
  let sent = 0;
  let stop = false;
  const traffic = (async () => {
    while (!stop) {
      sent++;
      await viaEdge(s.httpPort, host, '/cgi-bin/env').then((a) => {
        if (a.status !== 200) failed.push(`${new Date().toISOString()} ${a.status} ${a.body.slice(0, 80)}`);
        else seen.add(/message=(\S*)/.exec(a.body)?.[1] ?? '?');
      }, (err: Error) => failed.push(`${new Date().toISOString()} ${err.message}`));
      await new Promise((r) => setTimeout(r, 40));
    }
  })();
  try {
    const stack = (await s.api('GET', `/api/v1/stacks/${name}`)).body;
    assert.equal((await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: compose('two'), revision: stack.revision } })).status, 200);
    await act(s, 'deploy', name);
    await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.status === 200 && /message=two/.test(a.body), 60_000);
    // the old tasks drain and go: only the new version answers
    await eventually(async () => {
      const answers = await Promise.all([1, 2, 3, 4].map(() => viaEdge(s.httpPort, host, '/cgi-bin/env')));
      return answers.every((a) => /message=two/.test(a.body));
    }, 60_000, 'only the new version to answer', 200);
  } finally {
    stop = true;
    await traffic;
  }
  assert.deepEqual(failed, [], `failed requests through the edge during the update (of ${sent}): ${failed.slice(0, 5).join('; ')}`);
  assert.ok(seen.has('one') && seen.has('two'), `both versions served: ${[...seen]}`);
});
