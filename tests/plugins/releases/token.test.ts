// A registry with Bearer token auth (Debian's docker-registry, auth: token; the tests' own token service): update checks and a rollback's pull by digest with the login from POST /registries.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { TestServer } from '../../helpers/harness.ts';
import { act, cleanupProjects, containerOf, createStack, docker, publishVariant, runningDigests, startReleasesServer, uniqueName, waitJob } from './helpers.ts';
import { startTokenServer, tokenRegistry, type TokenServer } from './token-server.ts';

const login = { username: 'dwtoken', password: randomBytes(12).toString('hex') };
const repository = `${uniqueName('dwt-tok')}/app`;
const app = `${tokenRegistry}/${repository}`;
const stack = uniqueName('reltok');
const digests: Record<string, string> = {};
let s: TestServer;
let tokens: TokenServer;

before(async () => {
  tokens = await startTokenServer({ [login.username]: login.password });
  for (const v of ['1.0.0', '1.1.0', '2.0.0']) digests[v] = await publishVariant(`${app}:${v}`, v, undefined, undefined, login);
  s = await startReleasesServer({ config: { rateLimit: { perMinute: 100_000 } } });
});
after(async () => {
  await cleanupProjects(stack);
  await s?.close();
  await tokens?.close();
  for (const i of await docker.listImages({ filters: { reference: [`${app}`] } })) await docker.getImage(i.Id).remove({ force: true }).catch(() => undefined);
});

const job = async (path: string, body: unknown = {}) => {
  const res = await s.api('POST', path, { body });
  assert.equal(res.status, 202, res.text);
  return waitJob(s, res.body.id);
};
const updates = async () => (await s.api('GET', `/api/v1/stacks/${stack}/updates`)).body.services[0];

test('a Bearer-token registry: the check gets a pull token for the repository with the saved login; a rollback pulls the old digest with it', async () => {
  const saved = await s.api('POST', '/api/v1/registries', { body: { host: tokenRegistry, ...login } });
  assert.ok([200, 201].includes(saved.status), saved.text);
  assert.ok(tokens.asked.some((a) => a.account === login.username && a.issued), 'the engine logged in through the token service');

  await createStack(s, stack, `services:\n  app:\n    image: ${app}:1.0.0\n    command: ["sleep", "3600"]\n    labels: { dockwright.update: minor, dockwright.update.monitor: "1" }\n`);
  await act(s, 'deploy', stack);

  const before = tokens.asked.length;
  const t0 = performance.now();
  const check = await job(`/api/v1/stacks/${stack}/updates/check`);
  const ms = Math.round(performance.now() - t0);
  assert.equal(check.status, 'succeeded', `${check.error}\n${check.output}`);
  const svc = await updates();
  assert.equal(svc.error, null, check.output);
  assert.deepEqual([svc.digest, svc.candidate, svc.available], [digests['1.0.0'], { tag: '1.1.0', digest: digests['1.1.0'] }, true]);
  const asked = tokens.asked.slice(before);
  assert.deepEqual(asked.map((a) => [a.account, a.scopes, a.issued]), [[login.username, [`repository:${repository}:pull`], true]], 'one pull token for the repository, asked once for the tags and the digest');
  assert.ok(!check.output.includes(login.password), 'the password never shows');
  console.log(`update check through the token registry: ${ms} ms (job round trip)`);

  // a wrong password: the token service refuses it, and the check says so for the service (no crash, no partial state)
  const wrong = await s.api('POST', '/api/v1/registries', { body: { host: tokenRegistry, username: login.username, password: 'not-the-password' } });
  assert.equal(wrong.status, 422, wrong.text);
  assert.equal(wrong.headers.get('content-type'), 'application/problem+json');

  const updated = await job(`/api/v1/stacks/${stack}/update`);
  assert.equal(updated.status, 'succeeded', `${updated.error}\n${updated.output}`);
  let running = await runningDigests((await containerOf(stack, 'app'))!.Id);
  assert.ok(running.some((d) => d.endsWith(digests['1.1.0'])), running.join(', '));

  // the old version is gone from the engine: the rollback pulls it by digest, with a token from the saved login
  for (const i of await docker.listImages({ filters: { reference: [`${app}`] } })) {
    if ((i.RepoDigests ?? []).some((d) => d.endsWith(digests['1.0.0']))) await docker.getImage(i.Id).remove({ force: true });
  }
  const pulls = tokens.asked.length;
  const rollback = await job(`/api/v1/stacks/${stack}/rollback`, { release: 1 });
  assert.equal(rollback.status, 'succeeded', `${rollback.error}\n${rollback.output}`);
  assert.ok(rollback.output.includes(`pulling ${app}@${digests['1.0.0']} (as ${login.username} on ${tokenRegistry})`), rollback.output);
  assert.ok(tokens.asked.slice(pulls).some((a) => a.account === login.username && a.issued && a.scopes.includes(`repository:${repository}:pull`)), 'the pull asked the token service with the login');
  running = await runningDigests((await containerOf(stack, 'app'))!.Id);
  assert.ok(running.some((d) => d.endsWith(digests['1.0.0'])), running.join(', '));
});
