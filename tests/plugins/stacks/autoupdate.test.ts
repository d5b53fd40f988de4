// Autoupdate against a real local registry: on schedule, pull; redeploy only when an image changed, and only the services that use it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/harness.ts';
import { act, cleanupProjects, containerOf, createStack, docker, startStacksServer, uniqueName } from './helpers.ts';

const registry = process.env.REGISTRY_OPEN ?? '127.0.0.1:5000';
const repo = `${registry}/${uniqueName('dwt-auto')}`;
const app = `${repo}/app:1`;
const other = `${repo}/other:1`;
const name = uniqueName('auto');
const manual = uniqueName('manual');
let s: TestServer;

async function follow(stream: NodeJS.ReadableStream): Promise<void> {
  await new Promise((resolve, reject) => docker.modem.followProgress(stream, (err) => (err ? reject(err) : resolve(null))));
}
/** pushes a local image to the registry under ref, and drops the local tag so a deploy has to pull */
async function publish(local: string, ref: string): Promise<void> {
  const [repository, tag] = [ref.slice(0, ref.lastIndexOf(':')), ref.slice(ref.lastIndexOf(':') + 1)];
  await docker.getImage(local).tag({ repo: repository, tag });
  await follow(await docker.getImage(ref).push({ authconfig: { serveraddress: registry } } as Record<string, unknown>) as unknown as NodeJS.ReadableStream);
  await docker.getImage(ref).remove().catch(() => undefined);
}

before(async () => {
  await publish('dockwright-test/busybox:1', app);
  await publish('dockwright-test/busybox:1', other);
  s = await startStacksServer({ config: { rateLimit: { perMinute: 100_000 } } });
});
after(async () => {
  await cleanupProjects(name, manual);
  await s.close();
  for (const ref of [app, other]) await docker.getImage(ref).remove({ force: true }).catch(() => undefined);
});

const compose = `services:
  app:
    image: ${app}
    command: ["sleep", "3600"]
  other:
    image: ${other}
    command: ["sleep", "3600"]
`;

async function autoupdateJobs(stack: string) {
  return (await s.api('GET', `/api/v1/jobs?resource=stack:${stack}&type=stacks.autoupdate&status=succeeded`)).body as any[];
}

test('nightly autoupdate pulls, redeploys only a changed image, and leaves stacks without autoupdate alone', async () => {
  await createStack(s, name, compose);
  await createStack(s, manual, compose);
  await act(s, 'deploy', name);
  await act(s, 'deploy', manual);
  const before = { app: (await containerOf(name, 'app'))!.Id, other: (await containerOf(name, 'other'))!.Id, manual: (await containerOf(manual, 'app'))!.Id };

  const on = await s.api('PUT', `/api/v1/stacks/${name}/autoupdate`, { body: { enabled: true } });
  assert.deepEqual(on.body, { name, autoupdate: true, schedule: '0 3 * * *' });
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}`)).body.autoupdate, true);
  // the nightly slot, now: schedules are minute-grained, and a test does not wait for 3 a.m.
  await s.app.services.scheduler.trigger('stacks.autoupdate');

  const quiet = await eventually(async () => (await autoupdateJobs(name))[0], 20_000, 'a first autoupdate run');
  assert.equal(quiet.result.redeployed, false);
  assert.match(quiet.output, /up to date/);
  assert.equal(quiet.actor.kind, 'system');
  assert.equal((await containerOf(name, 'app'))!.Id, before.app);

  await publish('dockwright-test/busybox:2', app);
  await s.app.services.scheduler.trigger('stacks.autoupdate');
  const updated = await eventually(async () => (await autoupdateJobs(name)).find((j) => j.result?.redeployed), 30_000, 'an autoupdate that redeploys');
  assert.deepEqual(updated.result.changed, [app]);
  const after = { app: (await containerOf(name, 'app'))!, other: (await containerOf(name, 'other'))! };
  assert.notEqual(after.app.Id, before.app, 'the service whose image changed is recreated');
  assert.equal(after.other.Id, before.other, 'the other service keeps its container');
  assert.equal((await containerOf(manual, 'app'))!.Id, before.manual, 'a stack without autoupdate is not touched');
  assert.deepEqual(await autoupdateJobs(manual), []);
  const activity = await s.api('GET', `/api/v1/activity?resource=stack:${name}&action=job.stacks.autoupdate`);
  assert.ok(activity.body.length >= 2);

  await s.api('PUT', `/api/v1/stacks/${name}/autoupdate`, { body: { enabled: false } });
});
