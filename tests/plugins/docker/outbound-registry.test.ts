// Pulls, builds and pushes meet the outbound policy before the engine is asked: with loopback outside outbound.allow, a stand-in registry on 127.0.0.1 sees no connection at all.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Dockerode from 'dockerode';
import { createOutbound } from '../../../kernel/services/outbound.ts';
import { pushImage } from '../../../plugins/docker/images.ts';
import type { TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, deployOk, projectContainers, recordingServer, run, startDockerServer, uniqueName, type RecordingServer } from './helpers.ts';

const name = uniqueName('obreg');
const local = 'dockwright-test/busybox:1';
let strict: TestServer;
let registry: RecordingServer;
let ref: string;
let tree: string;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

before(async () => {
  // a registry that has nothing: whoever reaches it is recorded
  registry = await recordingServer();
  ref = `127.0.0.1:${registry.port}/dockwright-test/${name}:1`;
  tree = mkdtempSync(join(tmpdir(), 'dw-obreg-'));
  // the tests' own policy without loopback: the stand-in registry is refused, names are not looked up
  strict = await startDockerServer({ config: { outbound: { allow: [], allowHostnames: false } } });
});
after(async () => {
  await strict?.close();
  await registry?.close();
  await cleanupProjects(name);
  rmSync(tree, { recursive: true, force: true });
});

test('a pull from a refused registry fails naming the policy, and the engine never contacts the registry', async () => {
  const pulled = await run(strict, 'pull', name, { compose: `services:\n  a:\n    image: ${ref}\n` });
  assert.equal(pulled.status, 'failed');
  assert.match(pulled.error!, new RegExp(`^pulling failed for ${escape(ref)}: the outbound policy refuses its registry 127\\.0\\.0\\.1:${registry.port} \\(connections to 127\\.0\\.0\\.1 are refused: it is a loopback address`));
  assert.match(pulled.error!, /outbound\.allow/, 'says how an admin allows it');

  const deployed = await run(strict, 'deploy', name, { compose: `services:\n  a:\n    image: ${ref}\n    command: sleep 3600\n` });
  assert.equal(deployed.status, 'failed');
  assert.match(deployed.error!, new RegExp(`image "${escape(ref)}" not found locally and could not be pulled: the outbound policy refuses its registry`));
  assert.deepEqual(await projectContainers(name), [], 'nothing was created');
  assert.equal(registry.connections, 0, `the engine reached the registry: ${registry.requests.join(', ')}`);
});

test('a build whose base image is missing locally and lives in a refused registry fails before the engine builds', async () => {
  writeFileSync(join(tree, 'Dockerfile'), `ARG BASE=${ref}\nFROM \${BASE} AS base\nFROM base\nRUN true\n`);
  const built = await run(strict, 'deploy', name, { compose: 'services:\n  app:\n    build: .\n    command: sleep 3600\n', workdir: tree });
  assert.equal(built.status, 'failed');
  assert.match(built.error!, new RegExp(`building the image of "app" failed: its base image ${escape(ref)} is not present locally and is not pulled: the outbound policy refuses its registry 127\\.0\\.0\\.1:${registry.port}`));
  assert.doesNotMatch(built.output, /Step \d/, 'the engine never started the build');
  assert.equal(registry.connections, 0, `the engine reached the registry: ${registry.requests.join(', ')}`);
});

test('Docker Hub is a host name like any other: a local image runs and builds, a pull of it is refused when names are not looked up', async () => {
  // present locally and never pulled: the engine contacts no registry, whatever the policy says
  const job = await deployOk(strict, name, `services:\n  a:\n    image: ${local}\n    command: sleep 3600\n`);
  assert.doesNotMatch(job.output, /pulling/);
  writeFileSync(join(tree, 'Dockerfile'), `FROM ${local}\nRUN true\n`);
  await deployOk(strict, name, 'services:\n  app:\n    build: .\n    command: sleep 3600\n', { workdir: tree });

  // pull_policy always asks for a pull at every deploy: refused, the local image is used as when a registry is down
  const always = await deployOk(strict, name, `services:\n  a:\n    image: ${local}\n    pull_policy: always\n    command: sleep 3600\n`);
  assert.match(always.output, new RegExp(`${escape(local)}: pulling failed \\(the outbound policy refuses its registry docker\\.io \\(connections to docker\\.io are refused: host names are not looked up on this install`));
  assert.match(always.output, /using the local image/);

  const pulled = await run(strict, 'pull', name, { compose: `services:\n  a:\n    image: ${local}\n` });
  assert.equal(pulled.status, 'failed');
  assert.match(pulled.error!, new RegExp(`^pulling failed for ${escape(local)}: the outbound policy refuses its registry docker\\.io`));
  await run(strict, 'remove', name);
});

test('with loopback in outbound.allow (the tests\' usual policy) the engine does go to that registry: what the refusals above are measured against', async () => {
  const open = await startDockerServer();
  try {
    const before = registry.connections;
    const pulled = await run(open, 'pull', name, { compose: `services:\n  a:\n    image: ${ref}\n` });
    assert.equal(pulled.status, 'failed', 'the stand-in registry has no image');
    assert.doesNotMatch(pulled.error!, /outbound policy/);
    assert.ok(registry.connections > before, 'the engine connected to the registry');
  } finally {
    await open.close();
  }
});

test('a push to a refused registry (a swarm stack\'s builds) is refused before the image is even tagged', async () => {
  const asked: string[] = [];
  // an engine that records what it is asked and has nothing to answer
  const engine = new Proxy({}, { get: (_, method) => (...args: unknown[]) => { asked.push(`${String(method)} ${JSON.stringify(args)}`); throw new Error('the engine was asked'); } }) as Dockerode;
  const deps = { docker: engine, auth: () => null, pullTimeoutMs: 10_000, builder: 'auto' as const, outbound: createOutbound({ allow: [], allowHostnames: false }), gitContexts: () => null };
  await assert.rejects(pushImage(deps, 'built-image', { repository: `127.0.0.1:${registry.port}/team/app`, tag: '1' }, { log: () => undefined }),
    new RegExp(`^Error: 127\\.0\\.0\\.1:${registry.port}/team/app:1 is not pushed: the outbound policy refuses its registry 127\\.0\\.0\\.1:${registry.port} \\(connections to 127\\.0\\.0\\.1 are refused: it is a loopback address`));
  await assert.rejects(pushImage(deps, 'built-image', { repository: 'registry.example.com/team/app', tag: '1' }, { log: () => undefined }),
    /is not pushed: the outbound policy refuses its registry registry\.example\.com \(connections to registry\.example\.com are refused: host names are not looked up/);
  assert.deepEqual(asked, []);
});
