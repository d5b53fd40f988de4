// A swarm stack that builds: the image is built on the manager from the stack's git tree, pushed to the open local registry, and the service runs it by digest; a changed tree rolls out; an unreachable registry fails the job before any service changes; without a registry build is refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { docker, freePort, uniqueName, until } from '../docker/helpers.ts';
import { repoRoot, TestRepo } from '../git/helpers.ts';
import { act, createStack, waitJob } from '../stacks/helpers.ts';

const name = uniqueName('swbuild');
const registry = `127.0.0.1:5000/${uniqueName('dwt-swarm')}`;
const repos = repoRoot();
let repo: TestRepo;
let s: TestServer;
/** the server of the moment: restarted on the same database with other swarm options */
let current: TestServer;

const compose = `x-dockwright: { runtime: swarm }
services:
  app:
    build: ./image
    command: ["sh", "-c", "cat /msg.txt; sleep 3600"]
    stop_grace_period: 1s
    deploy: { update_config: { delay: 0s, monitor: 1s } }
`;
const dockerfile = 'FROM dockwright-test/busybox:1\nCOPY msg.txt /msg.txt\n';

const start = (swarm: Record<string, unknown>, reuse?: { databaseUrl: string; dataDir: string }, more: Record<string, unknown> = {}) => startServer({
  ...(reuse ? { reuse } : {}),
  config: { rateLimit: { perMinute: 100_000 } },
  plugins: {
    docker: { options: { stopTimeoutSeconds: 1, reconcile: false } }, containers: {}, stacks: {},
    git: { options: { allowedLocalRoots: [repos.root], pollIntervalMs: 3_600_000 } },
    swarm: { enabled: true, options: { pollMs: 250, convergeTimeoutMs: 120_000, ...swarm } },
    ...more,
  },
});
const restart = async (swarm: Record<string, unknown>, more: Record<string, unknown> = {}) => {
  await current.stop();
  current = await start(swarm, { databaseUrl: s.databaseUrl, dataDir: s.dataDir }, more);
};

const service = async () => ((await docker.listServices({ filters: { label: [`dockwright.project=${name}`] } })) as any[])[0];
const serviceLogs = async (text: string) => until(async () => {
  const r = await current.api('GET', `/api/v1/stacks/${name}/services/app/logs`);
  return r.status === 200 && r.text.includes(text) ? r.text : null;
}, 60_000, `the app service to log "${text}"`);

before(async () => {
  s = await start({ registry });
  current = s;
  repo = await TestRepo.create(repos.root, 'swarm-build');
});
after(async () => {
  const svc = await service().catch(() => undefined);
  if (svc) await docker.getService(svc.ID).remove().catch(() => undefined);
  await until(async () => (await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${name}`] } })).length === 0, 30_000, 'the tasks to go').catch(() => undefined);
  for (const n of await docker.listNetworks({ filters: { label: [`dockwright.project=${name}`] } }).catch(() => [])) await docker.getNetwork(n.Id).remove().catch(() => undefined);
  for (const image of await docker.listImages({ filters: { reference: [`${name}-app`, `*/*/${name}_app`] } }).catch(() => [])) await docker.getImage(image.Id).remove({ force: true }).catch(() => undefined);
  await current?.stop();
  await s?.close();
  repos.rm();
});

test('a build context is built on the manager, pushed to the registry, and the service runs the pushed image by digest', async () => {
  await repo.commit({ 'compose.yaml': compose, 'image/Dockerfile': dockerfile, 'image/msg.txt': 'first build\n' }, 'first');
  await createStack(s, name, 'x-dockwright: { runtime: swarm }\nservices:\n  app:\n    image: dockwright-test/busybox:1\n');
  const put = await s.api('PUT', `/api/v1/stacks/${name}/source`, { body: { url: repo.bare } });
  assert.equal(put.status, 200, put.text);
  const job = await act(s, 'deploy', name);
  assert.match(job.output, /on the swarm runtime/);
  assert.match(job.output, new RegExp(`app: building ${name}-app`));
  const repository = `${registry}/${name}_app`;
  assert.match(job.output, new RegExp(`pushing ${repository}:[0-9a-f]{16}`));
  assert.match(job.output, /pushed, digest sha256:[0-9a-f]{64}/);
  assert.ok(job.output.indexOf('pushed, digest') < job.output.indexOf('creating service app'), 'pushed before the service is created');

  const svc = await service();
  const image: string = svc.Spec.TaskTemplate.ContainerSpec.Image;
  assert.match(image, new RegExp(`^${repository.replace(/[.]/g, '\\.')}:[0-9a-f]{16}@sha256:[0-9a-f]{64}$`), 'the service names the registry\'s image by digest');
  const [, tag, digest] = /:([0-9a-f]{16})@(sha256:[0-9a-f]{64})$/.exec(image)!;
  // the registry itself has it (loopback)
  const tags = await (await fetch(`http://${registry.split('/')[0]}/v2/${repository.slice(repository.indexOf('/') + 1)}/tags/list`)).json() as { tags: string[] };
  assert.ok(tags.tags.includes(tag), JSON.stringify(tags));
  const manifest = await fetch(`http://${registry.split('/')[0]}/v2/${repository.slice(repository.indexOf('/') + 1)}/manifests/${tag}`, { method: 'HEAD', headers: { accept: 'application/vnd.docker.distribution.manifest.v2+json' } });
  assert.equal(manifest.headers.get('docker-content-digest'), digest);
  assert.match(await serviceLogs('first build'), /first build/);

  const again = await act(s, 'deploy', name);
  assert.deepEqual(again.result.updated, [], 'an unchanged tree builds the same image: the service is left alone');
  assert.equal((await service()).Version.Index, svc.Version.Index);
});

test('a changed file in the build context is rebuilt, pushed under a new tag and rolled out', async () => {
  const before = (await service()).Spec.TaskTemplate.ContainerSpec.Image as string;
  await repo.commit({ 'image/msg.txt': 'second build\n' }, 'second');
  const job = await act(s, 'deploy', name);
  assert.deepEqual(job.result.updated, ['app']);
  assert.match(job.output, /updating service app/);
  const after = (await service()).Spec.TaskTemplate.ContainerSpec.Image as string;
  assert.notEqual(after, before);
  assert.ok(after.startsWith(`${registry}/${name}_app:`), after);
  // the deploy waits for the rolling update to complete: the new task already runs when the job ends
  const tasks = (await docker.listTasks({ filters: { service: [(await service()).ID], 'desired-state': ['running'] } })) as any[];
  assert.equal(tasks.length, 1);
  assert.equal(tasks[0].Status.State, 'running');
  assert.equal(tasks[0].Spec.ContainerSpec.Image, after);
  assert.match(await serviceLogs('second build'), /second build/);
});

test('an unreachable registry fails the job with its reason, and the service is left as it was', async () => {
  const closed = await freePort();
  await restart({ registry: `127.0.0.1:${closed}/dw` });
  const before = await service();
  await repo.commit({ 'image/msg.txt': 'third build\n' }, 'third');
  const res = await current.api('POST', `/api/v1/stacks/${name}/deploy`);
  assert.equal(res.status, 202, res.text);
  const job = await waitJob(current, res.body.id);
  assert.equal(job.status, 'failed', job.output);
  console.log(`# the failed push: ${job.error}`);
  assert.match(job.output, /app: building/);
  assert.match(job.output, new RegExp(`pushing 127\\.0\\.0\\.1:${closed}/dw/${name}_app:`));
  assert.match(job.error ?? '', new RegExp(`127\\.0\\.0\\.1:${closed}`));
  assert.match(job.error ?? '', /connection refused/i, 'the registry\'s reason');
  assert.match(job.error ?? '', /no service was changed/);
  const after = await service();
  assert.equal(after.Version.Index, before.Version.Index);
  assert.equal(after.Spec.TaskTemplate.ContainerSpec.Image, before.Spec.TaskTemplate.ContainerSpec.Image);
});

test('a registry that wants a login: refused until one is saved under /registries, then pushed with it and handed to the swarm, never shown', async () => {
  const authRegistry = `${process.env.REGISTRY_AUTH ?? '127.0.0.1:5001'}/${uniqueName('dwt-swarm')}`;
  const [username, password] = [process.env.REGISTRY_AUTH_USER ?? '', process.env.REGISTRY_AUTH_PASSWORD ?? ''];
  await restart({ registry: authRegistry }, { registries: {} });
  const before = await service();
  const refused = await act(current, 'deploy', name, 'failed');
  assert.match(refused.error ?? '', /refused the push/);
  assert.match(refused.error ?? '', /no login for it is saved; add or replace it with POST \/api\/v1\/registries/);
  assert.match(refused.error ?? '', /no service was changed/);
  assert.equal((await service()).Version.Index, before.Version.Index);

  const saved = await current.api('POST', '/api/v1/registries', { body: { host: authRegistry.split('/')[0], username, password } });
  assert.ok([200, 201].includes(saved.status), saved.text);
  const job = await act(current, 'deploy', name);
  assert.match(job.output, new RegExp(`pushing ${authRegistry.replace(/[.]/g, '\\.')}/${name}_app:[0-9a-f]{16} \\(as ${username} on `));
  assert.deepEqual(job.result.updated, ['app']);
  const svc = await service();
  assert.ok(svc.Spec.TaskTemplate.ContainerSpec.Image.startsWith(`${authRegistry}/${name}_app:`));
  assert.ok(!JSON.stringify(svc).includes(password), 'the login is not in what docker service inspect shows');
  assert.ok(!job.output.includes(password));
  assert.match(await serviceLogs('third build'), /third build/);
});

test('without a registry a swarm stack with build is refused with 422 naming the option', async () => {
  await restart({});
  const res = await current.api('PUT', `/api/v1/stacks/${uniqueName('swnoreg')}/compose`, {
    headers: { 'if-none-match': '*' },
    body: { content: 'x-dockwright: { runtime: swarm }\nservices:\n  a:\n    image: x/a:1\n    build: .\n' },
  });
  assert.equal(res.status, 422, res.text);
  assert.match(res.text, /swarm-compatible/);
  assert.match(res.text, /plugins\.swarm\.options\.registry/);
  // the stack with a source tree is refused at deploy, before anything is built
  const job = await act(current, 'deploy', name, 'failed');
  assert.match(job.error ?? '', /swarm-compatible/);
  assert.doesNotMatch(job.output, /building/);
});

test('a registry option that is no registry path refuses the boot, naming the option', async () => {
  for (const bad of ['https://registry.example.com/team', 'Registry.Example.com', '127.0.0.1:5000/team/', 'host/a__-b']) {
    await assert.rejects(startServer({ plugins: { docker: { options: { reconcile: false } }, stacks: {}, swarm: { enabled: true, options: { registry: bad } } } }), /registry/, bad);
  }
});
