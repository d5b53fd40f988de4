// The full life of a stack through the API on a real engine: create → env → deploy → edit → redeploy → restore → stop → delete.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { act, cleanupProjects, containerOf, createStack, freePort, httpGet, projectContainers, startStacksServer, uniqueName } from './helpers.ts';

let s: TestServer;
const name = uniqueName('life');
before(async () => { s = await startStacksServer(); });
after(async () => { await cleanupProjects(name); await s.close(); });

const compose = (workerCommand: string, withWorker = true) => `
services:
  web:
    image: dockwright-test/web:1
    ports: ["127.0.0.1:\${PORT}:8080"]
    environment:
      MESSAGE: \${MESSAGE}
      DB_PASSWORD: \${DB_PASSWORD}
    volumes: ["data:/data"]
${withWorker ? `  worker:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "${workerCommand}"]
` : ''}volumes:
  data: {}
`;

test('a stack from creation to deletion', async () => {
  const port = await freePort();
  const created = await createStack(s, name, compose('sleep 3600'));
  assert.equal(created.revision, 1);
  assert.equal(created.status, 'never-deployed');
  assert.deepEqual(created.services.map((x: any) => x.name).sort(), ['web', 'worker']);

  const env = await s.api('PUT', `/api/v1/stacks/${name}/env`, { body: { values: { PORT: String(port), MESSAGE: 'hello-stack', DB_PASSWORD: 'sup3r-s3cret-pw' } }, headers: { 'if-match': '"1"' } });
  assert.equal(env.status, 200, env.text);
  assert.equal(env.body.revision, 2);

  const deployed = await act(s, 'deploy', name);
  assert.match(deployed.output, /deploying .* at revision 2/);
  assert.doesNotMatch(deployed.output + JSON.stringify(deployed.result), /sup3r-s3cret-pw/);
  const page = await httpGet(port, '/cgi-bin/env');
  assert.match(page.body, /message=hello-stack/);
  const running = (await s.api('GET', `/api/v1/stacks/${name}`)).body;
  assert.equal(running.status, 'running');
  assert.equal(running.deployedRevision, 2);
  assert.equal(running.lastDeploy.status, 'succeeded');
  assert.deepEqual(running.services.map((x: any) => [x.name, x.containers[0].state]).sort(), [['web', 'running'], ['worker', 'running']]);
  const webId = (await containerOf(name, 'web'))!.Id;
  const workerId = (await containerOf(name, 'worker'))!.Id;

  const edit = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: compose('sleep 7200'), revision: 2, message: 'longer sleep' } });
  assert.equal(edit.status, 200, edit.text);
  assert.equal(edit.body.revision, 3);
  await act(s, 'deploy', name);
  assert.equal((await containerOf(name, 'web'))!.Id, webId, 'the unchanged service keeps its container');
  assert.notEqual((await containerOf(name, 'worker'))!.Id, workerId, 'the changed service is recreated');

  await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: compose('', false), revision: 3 } });
  await act(s, 'deploy', name);
  assert.equal(await containerOf(name, 'worker'), undefined, 'the removed service is gone');

  const restored = await s.api('POST', `/api/v1/stacks/${name}/revisions/3/restore`);
  assert.equal(restored.status, 200, restored.text);
  assert.equal(restored.body.revision, 5);
  const composeNow = await s.api('GET', `/api/v1/stacks/${name}/compose`);
  assert.equal(composeNow.body.content, compose('sleep 7200'));
  assert.equal(composeNow.headers.get('etag'), '"5"');
  await act(s, 'deploy', name);
  assert.ok(await containerOf(name, 'worker'), 'the restored revision brings the worker back');
  const history = await s.api('GET', `/api/v1/stacks/${name}/revisions`);
  assert.deepEqual(history.body.map((r: any) => r.revision), [5, 4, 3, 2, 1]);
  assert.equal(history.body[0].message, 'restore of revision 3');
  const rev3 = await s.api('GET', `/api/v1/stacks/${name}/revisions/3`);
  assert.equal(rev3.body.message, 'longer sleep');
  assert.equal(rev3.body.values.MESSAGE, 'hello-stack');

  await act(s, 'stop', name);
  const stopped = (await s.api('GET', `/api/v1/stacks/${name}`)).body;
  assert.equal(stopped.status, 'stopped');
  assert.deepEqual(await projectContainers(name), []);

  assert.equal((await s.api('DELETE', `/api/v1/stacks/${name}`)).status, 428);
  assert.equal((await s.api('DELETE', `/api/v1/stacks/${name}`, { headers: { 'if-match': '"4"' } })).status, 412);
  const removed = await s.api('DELETE', `/api/v1/stacks/${name}`, { headers: { 'if-match': '"5"' } });
  assert.equal(removed.status, 200, removed.text);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}`)).status, 404);
  assert.deepEqual((await s.api('GET', `/api/v1/stacks/${name}/revisions`)).status, 404);

  const activity = await s.api('GET', `/api/v1/activity?resource=stack:${name}&limit=50`);
  const actions = activity.body.map((a: any) => a.action);
  for (const a of ['stack.compose.write', 'stack.env.write', 'stack.deploy', 'stack.restore', 'stack.stop', 'stack.delete', 'job.stacks.deploy', 'job.stacks.remove']) {
    assert.ok(actions.includes(a), `activity has ${a}`);
  }
  assert.doesNotMatch(activity.text, /sup3r-s3cret-pw/);
});
