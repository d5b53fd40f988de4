// Pulls from a real registry with basic auth (127.0.0.1:5001 of test-env): credentials come from the hook, never reach the job; deploy pulls what is missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, deployOk, docker, run, startDockerServer, uniqueName } from './helpers.ts';

const registry = process.env.REGISTRY_AUTH;
const username = process.env.REGISTRY_AUTH_USER ?? '';
const password = process.env.REGISTRY_AUTH_PASSWORD ?? '';
const name = uniqueName('reg');
// tags of this run only: other test files use the same registry
const ref = `${registry}/dockwright-test/${name}:1`;
const refDeploy = `${registry}/dockwright-test/${name}:deploy`;
let s: TestServer;

function follow(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve, reject) => docker.modem.followProgress(stream, (err: unknown, out: { error?: string }[]) => {
    const failed = out?.find((e) => e.error);
    if (err || failed) reject(err ?? new Error(failed!.error)); else resolve();
  }));
}
async function pushAs(target: string) {
  const [repo, tag] = [target.slice(0, target.lastIndexOf(':')), target.slice(target.lastIndexOf(':') + 1)];
  await docker.getImage('dockwright-test/busybox:1').tag({ repo, tag });
  await follow(await docker.getImage(target).push({ authconfig: { username, password, serveraddress: registry } }));
  await docker.getImage(target).remove();
}

before(async () => {
  if (!registry) return;
  await pushAs(ref);
  await pushAs(refDeploy);
  s = await startDockerServer();
});
after(async () => {
  await s?.close();
  await cleanupProjects(name);
  for (const r of [ref, refDeploy]) await docker.getImage(r).remove({ force: true }).catch(() => undefined);
});

test('without credentials the pull is refused; with the hook it pulls, reports the change, and hides the password', { skip: !registry && 'test-env has no auth registry' }, async () => {
  const compose = `services:\n  a:\n    image: ${ref}\n`;
  const refused = await run(s, 'pull', name, { compose });
  assert.equal(refused.status, 'failed');
  assert.match(refused.error!, new RegExp(`^pulling failed for ${ref.replace(/[.]/g, '\\.')}: .*(auth|denied|unauthorized)`, 'i'));

  await s.api('POST', '/api/v1/driver/registry-auth', { body: { username, password } });
  const job = await run(s, 'pull', name, { compose });
  assert.equal(job.status, 'succeeded', job.error ?? '');
  const id = (await docker.getImage(ref).inspect()).Id;
  assert.deepEqual(job.result, { images: [{ image: ref, before: null, after: id, changed: true }] });
  assert.match(job.output, new RegExp(`\\(as ${username} on ${registry}\\)`));
  assert.ok(!job.output.includes(password), 'the registry password never reaches the job output');
  const again = await run(s, 'pull', name, { compose });
  assert.deepEqual(again.result, { images: [{ image: ref, before: id, after: id, changed: false }] });
  assert.ok((await s.api('GET', '/api/v1/driver/registry-auth')).body.asked.every((h: string) => h === registry));
});

test('a deploy pulls a missing image through the hook and runs it', { skip: !registry && 'test-env has no auth registry' }, async () => {
  await s.api('POST', '/api/v1/driver/registry-auth', { body: { username, password } });
  const job = await deployOk(s, name, `services:\n  a:\n    image: ${refDeploy}\n    command: sleep 3600\n`);
  assert.match(job.output, /pulling .+:deploy \(as /);
  assert.deepEqual(job.result.services, [{ service: 'a', action: 'created' }]);
  assert.equal((await docker.getContainer(`${name}-a-1`).inspect()).State.Running, true);
});
