// The platform rule outbound-registry: a compose file whose images would be fetched from a registry the outbound policy refuses is refused at save (422) and at deploy, before the engine is asked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { tgz } from '../git/archives.ts';
import { recordingServer, type RecordingServer } from '../docker/helpers.ts';
import { act, cleanupProjects, createStack, startStacksServer, uniqueName } from './helpers.ts';

let strict: TestServer;
let usual: TestServer;
let registry: RecordingServer;
let refused: string;
const absent = `dockwright-test/${uniqueName('absent')}:1`;
const names: string[] = [];

before(async () => {
  registry = await recordingServer();
  refused = `127.0.0.1:${registry.port}/dockwright-test/app:1`;
  // loopback outside outbound.allow: the stand-in registry is refused; names are not looked up (so Docker Hub is refused too)
  strict = await startServer({
    config: { outbound: { allow: [], allowHostnames: false }, rateLimit: { perMinute: 100_000 } },
    // git: stacks with a source tree (an upload)
    plugins: { docker: { options: { stopTimeoutSeconds: 1, reconcile: false } }, containers: {}, stacks: {}, git: {} },
  });
  usual = await startStacksServer();
});
after(async () => {
  await cleanupProjects(...names);
  await strict?.close();
  await usual?.close();
  await registry?.close();
});

const compose = () => `services:
  web:
    image: ${refused}
  hub:
    image: ${absent}
  local:
    image: dockwright-test/busybox:1
  never:
    image: ${refused}
    pull_policy: never
  always:
    image: dockwright-test/busybox:1
    pull_policy: always
`;
const ruleErrors = (body: { errors: { rule: string; path: string; message: string }[] }) => body.errors.filter((e) => e.rule === 'outbound-registry');

test('validate and PUT refuse images missing locally from a refused registry, one errors[] element each at its image; nothing is saved', async () => {
  const checked = await strict.api('POST', `/api/v1/stacks/${uniqueName('obr')}/validate`, { body: { content: compose() } });
  assert.equal(checked.status, 200, checked.text);
  const errors = ruleErrors(checked.body);
  assert.deepEqual(errors.map((e) => e.path), ['services.web.image', 'services.hub.image'],
    'an image present locally (local, always) and one never pulled (never) pass: the engine contacts no registry for them');
  assert.match(errors[0].message, new RegExp(`^the image ${refused.replace(/\./g, '\\.')} of service web is not present locally and cannot be pulled: the outbound policy refuses its registry 127\\.0\\.0\\.1:${registry.port} \\(connections to 127\\.0\\.0\\.1 are refused: it is a loopback address`));
  assert.match(errors[1].message, /the outbound policy refuses its registry docker\.io \(connections to docker\.io are refused: host names are not looked up/);

  const name = uniqueName('obr');
  const saved = await strict.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: compose(), revision: 0 } });
  assert.equal(saved.status, 422, saved.text);
  assert.deepEqual(saved.body.errors, errors);
  assert.equal((await strict.api('GET', `/api/v1/stacks/${name}`)).status, 404);
  assert.equal(registry.connections, 0, 'the registry was not asked anything');

  // the tests' usual policy allows loopback: the same registry passes there (Docker Hub stays refused: names are not looked up)
  const usually = await usual.api('POST', `/api/v1/stacks/${uniqueName('obr')}/validate`, { body: { content: compose() } });
  assert.deepEqual(ruleErrors(usually.body).map((e) => e.path), ['services.hub.image']);
});

test('a compose file from the source tree is judged at deploy, base images of its builds included: the job fails naming the rule, the engine never pulls', async () => {
  const name = uniqueName('obrsrc');
  names.push(name);
  await createStack(strict, name, 'services:\n  app:\n    image: dockwright-test/busybox:1\n');
  const archive = tgz([
    { name: 'compose.yaml', content: 'services:\n  app:\n    build: .\n    command: ["sleep", "3600"]\n' },
    { name: 'Dockerfile', content: `FROM 127.0.0.1:${registry.port}/dockwright-test/app:base\nRUN true\n` },
  ]);
  const uploaded = await strict.api('PUT', `/api/v1/stacks/${name}/source/upload`, { raw: new Uint8Array(archive), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(uploaded.status, 200, uploaded.text);
  const job = await act(strict, 'deploy', name, 'failed');
  assert.match(job.error!, new RegExp(`is refused: services\\.app\\.build: the base image 127\\.0\\.0\\.1:${registry.port}/dockwright-test/app:base of service app's build is not present locally and cannot be pulled: the outbound policy refuses .* \\(outbound-registry\\)`));
  assert.equal(registry.connections, 0, 'the registry was not asked anything');
});
