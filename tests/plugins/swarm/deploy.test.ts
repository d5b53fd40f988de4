// A stack on the swarm runtime, through the stacks API on the single-node test swarm: services with replicas, a published port, rolling image change, rollback of a broken image, scale, secrets and configs, task containers, stop and remove.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { startSwarmServer } from './helpers.ts';
import { docker, freePort, httpGet, uniqueName, until } from '../docker/helpers.ts';
import { act, createStack, waitJob } from '../stacks/helpers.ts';

let s: TestServer;
const name = uniqueName('sw');
const secretValue = `s3cret-${uniqueName()}`;
let port: number;

/** three services; short update delays and monitors keep rolling updates quick (the spec's advice for test stacks) */
const compose = (o: { workerImage?: string; replicas?: number } = {}) => `x-dockwright: { runtime: swarm }
services:
  web:
    image: dockwright-test/web:1
    ports: [{ target: 8080, published: ${port}, mode: host }]
    stop_grace_period: 1s
    deploy: { update_config: { delay: 0s, monitor: 1s } }
  worker:
    image: ${o.workerImage ?? 'dockwright-test/busybox:1'}
    command: ["sleep", "3600"]
    stop_grace_period: 1s
    x-dockwright-secrets: { api_key: API_KEY }
    deploy:
      replicas: ${o.replicas ?? 2}
      resources: { limits: { cpus: "0.5", memory: 64M } }
      update_config: { parallelism: 2, delay: 0s, monitor: 2s, failure_action: rollback }
      rollback_config: { parallelism: 2, delay: 0s, monitor: 1s }
  cache:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "echo cache-ready; sleep 3600"]
    stop_grace_period: 1s
    x-dockwright-configs: { /etc/app.conf: APP_CONF }
`;

const services = async () => (await docker.listServices({ filters: { label: [`dockwright.project=${name}`] } })) as any[];
const serviceOf = async (svc: string) => (await services()).find((x) => x.Spec.Labels['dockwright.service'] === svc);
const runningTasks = async (svc: string) => {
  const id = (await serviceOf(svc))?.ID;
  if (!id) return [];
  return ((await docker.listTasks({ filters: { service: [id], 'desired-state': ['running'] } })) as any[]).filter((t) => t.Status.State === 'running');
};

before(async () => {
  port = await freePort();
  s = await startSwarmServer();
});
after(async () => {
  for (const svc of await services().catch(() => [])) await docker.getService(svc.ID).remove().catch(() => undefined);
  for (const n of await docker.listNetworks({ filters: { label: [`dockwright.project=${name}`] } }).catch(() => [])) await docker.getNetwork(n.Id).remove().catch(() => undefined);
  for (const sec of await docker.listSecrets({ filters: { label: [`dockwright.project=${name}`] } }).catch(() => [])) await docker.getSecret(sec.ID).remove().catch(() => undefined);
  for (const conf of await docker.listConfigs({ filters: { label: [`dockwright.project=${name}`] } }).catch(() => [])) await docker.getConfig(conf.ID).remove().catch(() => undefined);
  await s.close();
});

test('build and long-form depends_on are refused for a swarm stack with 422, naming the rule', async () => {
  const res = await s.api('PUT', `/api/v1/stacks/${uniqueName('swb')}/compose`, {
    headers: { 'if-none-match': '*' },
    body: { content: `x-dockwright: { runtime: swarm }\nservices:\n  a:\n    image: x/a:1\n    build: .\n  b:\n    image: dockwright-test/busybox:1\n    depends_on: { a: { condition: service_started } }\n` },
  });
  assert.equal(res.status, 422, res.text);
  assert.match(res.text, /swarm-compatible/);
  assert.match(res.text, /cannot build/);
  assert.match(res.text, /long-form depends_on/);
});

test('a 3-service stack deploys as swarm services: replicas run, the published port answers, secrets and configs are files, secrets not in the service spec', async () => {
  await createStack(s, name, compose());
  const env = await s.api('PUT', `/api/v1/stacks/${name}/env`, { body: { values: { API_KEY: secretValue, APP_CONF: 'listen = 8080' }, revision: 1 } });
  assert.equal(env.status, 200, env.text);
  const job = await act(s, 'deploy', name);
  assert.match(job.output, /on the swarm runtime/);
  assert.deepEqual((await services()).map((x) => x.Spec.Labels['dockwright.service']).sort(), ['cache', 'web', 'worker']);
  for (const svc of await services()) assert.equal(svc.Spec.Labels['dockwright.installation'], s.app.services.installationId);
  assert.equal((await runningTasks('worker')).length, 2);
  const worker = await serviceOf('worker');
  assert.equal(worker.Spec.TaskTemplate.Resources.Limits.NanoCPUs, 0.5e9);
  assert.equal(worker.Spec.UpdateConfig.FailureAction, 'rollback');
  const page = await until(async () => { const r = await httpGet(port, '/').catch(() => null); return r?.status === 200 ? r : null; }, 30_000, 'the web service to answer');
  assert.equal(page.status, 200);

  // the value is in the task's file, never in what the engine shows of the service
  assert.ok(!JSON.stringify(worker).includes(secretValue));
  const read = async (svc: string, file: string) => {
    const exec = await docker.getContainer((await runningTasks(svc))[0].Status.ContainerStatus.ContainerID).exec({ Cmd: ['cat', file], AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({ hijack: true, stdin: false });
    return new Promise<string>((resolve) => { let b = ''; stream.on('data', (c: Buffer) => { b += c.toString(); }); stream.on('end', () => resolve(b)); });
  };
  assert.ok((await read('worker', '/run/secrets/api_key')).includes(secretValue), 'the secret is a file in the task');
  assert.ok((await read('cache', '/etc/app.conf')).includes('listen = 8080'), 'the config is a file in the task');
  const job2 = await s.api('GET', `/api/v1/jobs/${job.id}`);
  assert.ok(!job2.text.includes(secretValue));

  const stack = await until(async () => { const r = await s.api('GET', `/api/v1/stacks/${name}`); return r.body.status === 'running' ? r : null; }, 30_000, 'the stack to show running');
  assert.equal(stack.status, 200);
});

test('a redeploy of the same file touches nothing; a changed image rolls out to that service only', async () => {
  const before = new Map((await services()).map((x) => [x.Spec.Labels['dockwright.service'], x.Version.Index]));
  const same = await act(s, 'deploy', name);
  assert.deepEqual(same.result.updated, []);
  assert.deepEqual(new Map((await services()).map((x) => [x.Spec.Labels['dockwright.service'], x.Version.Index])), before);

  const put = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: compose({ workerImage: 'dockwright-test/busybox:2' }), revision: 2 } });
  assert.equal(put.status, 200, put.text);
  const job = await act(s, 'deploy', name);
  assert.deepEqual(job.result.updated, ['worker']);
  const tasks = await runningTasks('worker');
  assert.equal(tasks.length, 2);
  for (const t of tasks) assert.match(t.Spec.ContainerSpec.Image, /busybox:2/);
  assert.equal((await serviceOf('web')).Version.Index, before.get('web'));
});

test('a broken image rolls back and fails the job with the tasks\' errors', async () => {
  // a tag the open test registry does not have: the outbound policy lets the nodes ask it (Docker Hub it would refuse at save)
  const put = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: compose({ workerImage: `${process.env.REGISTRY_OPEN ?? '127.0.0.1:5000'}/dockwright-test/busybox:no-such-tag` }), revision: 3 } });
  assert.equal(put.status, 200, put.text);
  const res = await s.api('POST', `/api/v1/stacks/${name}/deploy`);
  const job = await waitJob(s, res.body.id);
  assert.equal(job.status, 'failed', job.output);
  assert.match(job.error ?? '', /rolled back/);
  assert.match(job.error ?? '', /no-such-tag|No such image/i);
  const worker = await serviceOf('worker');
  assert.match(worker.Spec.TaskTemplate.ContainerSpec.Image, /busybox:2/, 'the previous image is back');
  await until(async () => (await runningTasks('worker')).length === 2, 60_000, 'two tasks of the previous image');
});

test('a scale change converges to the new replica count', async () => {
  const put = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: compose({ workerImage: 'dockwright-test/busybox:2', replicas: 3 }), revision: 4 } });
  assert.equal(put.status, 200, put.text);
  const job = await act(s, 'deploy', name);
  assert.deepEqual(job.result.updated, ['worker']);
  assert.equal((await runningTasks('worker')).length, 3);
});

test('a task container is acted on through its stack (409 naming it); its logs, the service\'s logs and the stack\'s containers are read', async () => {
  const [task] = await runningTasks('web');
  const id = task.Status.ContainerStatus.ContainerID;
  for (const verb of ['start', 'stop', 'restart']) {
    const res = await s.api('POST', `/api/v1/containers/${id}/${verb}`);
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.stack, name);
    assert.match(res.body.detail, new RegExp(`stack "${name}"`));
  }
  const listed = await s.api('GET', `/api/v1/containers?stack=${name}`);
  assert.equal(listed.status, 200);
  assert.ok(listed.body.length >= 5, `${listed.body.length} containers`);
  const logs = await s.api('GET', `/api/v1/containers/${id}/logs`);
  assert.equal(logs.status, 200);

  // the service's logs, as the manager gathers them from every node
  const serviceLogs = await until(async () => {
    const r = await s.api('GET', `/api/v1/stacks/${name}/services/cache/logs?tail=10`);
    return r.status === 200 && r.text.includes('cache-ready') ? r : null;
  }, 20_000, 'the cache service to log');
  assert.match(serviceLogs.headers.get('content-type') ?? '', /^text\/plain/);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}/services/nope/logs`)).status, 404);
  assert.equal((await s.api('GET', `/api/v1/stacks/${uniqueName('none')}/services/cache/logs`)).status, 404);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}/services/cache/logs?tail=x`)).status, 400);
  const viewer = await s.token('viewer', ['stacks:read']);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}/services/cache/logs`, { token: viewer })).status, 403);
});

test('stop removes the services; remove takes the networks, secrets and configs too', async () => {
  await act(s, 'stop', name);
  assert.equal((await services()).length, 0);
  const stack = (await s.api('GET', `/api/v1/stacks/${name}`)).body;
  const del = await s.api('DELETE', `/api/v1/stacks/${name}`, { headers: { 'if-match': `"${stack.revision}"` } });
  assert.ok([200, 202].includes(del.status), del.text);
  if (del.body?.id) await waitJob(s, del.body.id);
  await until(async () => (await docker.listNetworks({ filters: { label: [`dockwright.project=${name}`] } })).length === 0, 60_000, 'the overlay network to go');
  assert.equal((await docker.listSecrets({ filters: { label: [`dockwright.project=${name}`] } })).length, 0);
  assert.equal((await docker.listConfigs({ filters: { label: [`dockwright.project=${name}`] } })).length, 0);
});

test('a stack moved between the compose and the swarm runtime leaves nothing behind on the other', async () => {
  const moved = uniqueName('swm');
  const file = (swarm: boolean) => `${swarm ? 'x-dockwright: { runtime: swarm }\n' : ''}services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n    stop_grace_period: 1s\n`;
  const containers = async () => (await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${moved}`] } }));
  const movedServices = async () => docker.listServices({ filters: { label: [`dockwright.project=${moved}`] } });
  try {
    await createStack(s, moved, file(false));
    await act(s, 'deploy', moved);
    assert.equal((await containers()).length, 1);
    assert.equal((await movedServices()).length, 0);

    assert.equal((await s.api('PUT', `/api/v1/stacks/${moved}/compose`, { body: { content: file(true), revision: 1 } })).status, 200);
    const toSwarm = await act(s, 'deploy', moved);
    assert.match(toSwarm.output, /of the compose runtime/);
    assert.equal((await movedServices()).length, 1);
    const tasks = await containers();
    assert.ok(tasks.every((c) => c.Labels['com.docker.swarm.task.id']), 'only swarm tasks are left');

    assert.equal((await s.api('PUT', `/api/v1/stacks/${moved}/compose`, { body: { content: file(false), revision: 2 } })).status, 200);
    await act(s, 'deploy', moved);
    assert.equal((await movedServices()).length, 0);
    await until(async () => (await containers()).every((c) => !c.Labels['com.docker.swarm.task.id']), 60_000, 'the task containers to go');
    assert.equal((await containers()).filter((c) => c.State === 'running').length, 1);
    // a compose stack's redeploy does not wait for swarm tasks it never had
    const began = Date.now();
    await act(s, 'deploy', moved);
    assert.ok(Date.now() - began < 30_000, `redeploy took ${Date.now() - began} ms`);
    assert.equal((await containers()).filter((c) => c.State === 'running').length, 1);
  } finally {
    for (const svc of await movedServices().catch(() => [])) await docker.getService(svc.ID).remove().catch(() => undefined);
    for (const c of await containers().catch(() => [])) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
    for (const n of await docker.listNetworks({ filters: { label: [`dockwright.project=${moved}`] } }).catch(() => [])) await docker.getNetwork(n.Id).remove().catch(() => undefined);
  }
});

test('pull works for a swarm stack through the same API: the images of its services, from their registry', async () => {
  const pulled = uniqueName('swp');
  const image = `${process.env.REGISTRY_OPEN ?? '127.0.0.1:5000'}/dockwright-test/busybox:1`;
  try {
    await createStack(s, pulled, `x-dockwright: { runtime: swarm }\nservices:\n  app:\n    image: ${image}\n    command: ["sleep", "3600"]\n    stop_grace_period: 1s\n`);
    await act(s, 'deploy', pulled);
    const job = await act(s, 'pull', pulled);
    assert.deepEqual(job.result.images.map((i: { image: string }) => i.image), [image]);
    const stack = await until(async () => { const r = await s.api('GET', `/api/v1/stacks/${pulled}`); return r.body.status === 'running' ? r.body : null; }, 30_000, 'the stack to run');
    assert.equal(stack.services.length, 1);
  } finally {
    for (const svc of await docker.listServices({ filters: { label: [`dockwright.project=${pulled}`] } }).catch(() => [])) await docker.getService(svc.ID).remove().catch(() => undefined);
    // the network is free once the removed service's tasks are gone
    await until(async () => {
      const left = await docker.listNetworks({ filters: { label: [`dockwright.project=${pulled}`] } });
      for (const n of left) await docker.getNetwork(n.Id).remove().catch(() => undefined);
      return left.length === 0;
    }, 60_000, 'the overlay network to be removed').catch(() => undefined);
  }
});
