// What a release says changed, on the real engine: a rebuilt image by its image id (it has no digest), the compose services and the variable names that changed, never a value.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { tgz } from '../git/archives.ts';
import { cleanupProjects, docker, startReleasesServer, uniqueName, waitJob } from './helpers.ts';

const stack = uniqueName('relchg');
let s: TestServer;

before(async () => {
  s = await startReleasesServer({ config: { rateLimit: { perMinute: 100_000 } }, plugins: { git: {} } });
});
after(async () => {
  await cleanupProjects(stack);
  await docker.getImage(`${stack}-web`).remove({ force: true }).catch(() => undefined);
  await s?.close();
});

const dockerfile = 'FROM dockwright-test/busybox:1\nCOPY message.txt /message.txt\nCMD ["sh", "-c", "cat /message.txt; sleep 3600"]\n';
const compose = (extra = '') => `services:\n  web:\n    build: .\n    stop_grace_period: 1s\n${extra}  side:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n    stop_grace_period: 1s\n`;
const archive = (message: string, extra = '') => tgz([{ name: 'compose.yaml', content: compose(extra) }, { name: 'Dockerfile', content: dockerfile }, { name: 'message.txt', content: `${message}\n` }]);

async function upload(body: Buffer, create = false) {
  const res = await s.api('PUT', `/api/v1/stacks/${stack}/source/upload?deploy=1`, {
    raw: new Uint8Array(body), headers: { 'content-type': 'application/octet-stream', ...(create ? { 'if-none-match': '*' } : {}) },
  });
  assert.equal(res.status, 202, res.text);
  const job = await waitJob(s, res.body.jobId);
  assert.equal(job.status, 'succeeded', job.output);
}
const releases = async () => (await s.api('GET', `/api/v1/stacks/${stack}/releases`)).body as any[];

test('a rebuilt image shows as changed by its image id; compose services and variable names that changed are named, values never', async () => {
  await upload(archive('one'), true);
  await upload(archive('two'));
  const [second, first] = await releases();
  const web = (r: any) => r.services.find((x: any) => x.service === 'web');
  assert.equal(web(first).digest, null, 'a built image has no digest');
  assert.match(web(first).imageId, /^sha256:[0-9a-f]{64}$/);
  assert.notEqual(web(second).imageId, web(first).imageId, 'another build, another id');
  assert.deepEqual(second.changes.changed, [{ service: 'web', from: { image: web(first).image, digest: null, imageId: web(first).imageId }, to: { image: web(second).image, digest: null, imageId: web(second).imageId } }]);
  assert.deepEqual(second.changes.compose, { changed: false, services: [] });
  assert.deepEqual(second.changes.variables, []);

  const secret = 'a-very-secret-token-value';
  const env = await s.api('PUT', `/api/v1/stacks/${stack}/env`, { body: { values: { API_TOKEN: secret, MODE: 'blue' } }, headers: { 'if-match': '"1"' } });
  assert.equal(env.status, 200, env.text);
  await upload(archive('two', '    environment: { API_TOKEN: "${API_TOKEN}", MODE: "${MODE}" }\n'));
  const env2 = await s.api('PUT', `/api/v1/stacks/${stack}/env`, { body: { values: { API_TOKEN: secret, MODE: 'green' } }, headers: { 'if-match': '"2"' } });
  assert.equal(env2.status, 200, env2.text);
  const deployed = await s.api('POST', `/api/v1/stacks/${stack}/deploy`);
  assert.equal((await waitJob(s, deployed.body.id)).status, 'succeeded');

  const [fourth, third] = await releases();
  assert.deepEqual(third.changes.compose, { changed: true, services: ['web'] }, 'web gained an environment; side did not change');
  assert.deepEqual(third.changes.variables, ['API_TOKEN', 'MODE']);
  assert.deepEqual(fourth.changes.compose, { changed: false, services: [] });
  assert.deepEqual(fourth.changes.variables, ['MODE'], 'only the variable whose value changed');
  const text = JSON.stringify(await releases());
  assert.ok(!text.includes(secret) && !text.includes('green') && !text.includes('blue'), 'no value is ever answered');
});
