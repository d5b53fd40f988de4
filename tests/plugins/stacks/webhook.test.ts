// The deploy webhook: token shown once, wait or async, 502 on a failed deploy, the 30 s window, attach to a queued deploy, rotate, wrong stack.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, type TestServer } from '../../helpers/harness.ts';
import { busybox, cleanupProjects, createStack, slowCompose, startStacksServer, uniqueName, waitJob } from './helpers.ts';

let s: TestServer;
const slow = uniqueName('whslow');
const fast = uniqueName('whfast');
const broken = uniqueName('whbad');
before(async () => { s = await startStacksServer(); });
after(async () => { await cleanupProjects(slow, fast, broken); await s.close(); });

const hook = (name: string, token: string | undefined, query = '') => call(s.url, 'POST', `/api/stacks/${name}/deploy${query}`, { token });

test('enable: the token is shown once and only its hash is kept', async () => {
  await createStack(s, fast, busybox());
  const enabled = await s.api('POST', `/api/v1/stacks/${fast}/webhooks/deploy`);
  assert.equal(enabled.status, 200);
  assert.match(enabled.body.token, /^dwh_/);
  assert.match(enabled.body.url, new RegExp(`/api/stacks/${fast}/deploy$`));
  const view = (await s.api('GET', `/api/v1/stacks/${fast}`)).body;
  assert.equal(view.webhooks.deploy.enabled, true);
  assert.doesNotMatch(JSON.stringify(view), new RegExp(enabled.body.token));
});

test('a synchronous call waits for the deploy and answers the job; it is recorded as webhook with the caller address', async () => {
  const token = (await s.api('POST', `/api/v1/stacks/${fast}/webhooks/deploy`)).body.token;
  const res = await hook(fast, token);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.status, 'succeeded');
  assert.equal(res.body.actor.kind, 'webhook');
  assert.equal(res.body.actor.address, '127.0.0.1');
  const follow = await call(s.url, 'GET', `/api/stacks/${fast}/jobs/${res.body.id}`, { token });
  assert.equal(follow.body.status, 'succeeded');
  const view = (await s.api('GET', `/api/v1/stacks/${fast}`)).body;
  assert.equal(view.status, 'running');
  assert.equal(view.webhooks.deploy.recent[0].address, '127.0.0.1');
  assert.equal(view.webhooks.deploy.recent[0].jobId, res.body.id);
  const activity = await s.api('GET', `/api/v1/activity?resource=stack:${fast}&actor=webhook`);
  assert.ok(activity.body.some((a: any) => a.action === 'stack.deploy' && a.actor.address === '127.0.0.1' && a.result === 'ok'));

  const again = await hook(fast, token, '?async=1');
  assert.equal(again.status, 429, 'a second call within 30 s with nothing queued');
  const retry = Number(again.headers.get('retry-after'));
  assert.ok(retry > 0 && retry <= 30, `Retry-After ${retry}`);
  assert.equal((await s.api('GET', `/api/v1/stacks/${fast}`)).body.webhooks.deploy.recent[0].outcome, 'refused: within the window');

  const rotated = (await s.api('POST', `/api/v1/stacks/${fast}/webhooks/deploy`)).body.token;
  assert.equal((await hook(fast, token)).status, 401, 'the old token fails at once after rotate');
  assert.equal((await hook(fast, rotated, '?async=1')).status, 429, 'the new one is accepted (and meets the window)');
  assert.equal((await call(s.url, 'GET', `/api/stacks/${fast}/jobs/${res.body.id}`, { token })).status, 401);
  assert.equal((await s.api('DELETE', `/api/v1/stacks/${fast}/webhooks/deploy`)).status, 200);
  assert.equal((await hook(fast, rotated)).status, 401, 'disabled');
});

test('a failed deploy answers 502 naming the job', async () => {
  // never pulled (a pull from Docker Hub is refused by the tests' outbound policy, and at save already): the deploy fails
  await createStack(s, broken, 'services:\n  app:\n    image: dockwright-test/missing:404\n    pull_policy: never\n');
  const token = (await s.api('POST', `/api/v1/stacks/${broken}/webhooks/deploy`)).body.token;
  const res = await hook(broken, token);
  assert.equal(res.status, 502, res.text);
  assert.equal(res.headers.get('content-type'), 'application/problem+json');
  assert.match(res.body.jobId, /^[0-9a-f-]{36}$/);
  assert.match(res.body.detail, /missing:404/);
  assert.equal((await s.api('GET', `/api/v1/stacks/${broken}`)).body.status, 'failed');
  const overview = await s.api('GET', '/api/v1/overview');
  assert.ok(overview.body.attention.some((a: any) => a.kind === 'deploy-failed' && a.resource === `stack:${broken}`));
});

test('calls during a queued deploy attach to it, concurrently; a token for one stack does nothing for another', async () => {
  await createStack(s, slow, slowCompose(4));
  const token = (await s.api('POST', `/api/v1/stacks/${slow}/webhooks/deploy`)).body.token;
  const first = await hook(slow, token, '?async=1');
  assert.equal(first.status, 202);
  assert.equal(first.body.attached, false);
  const queued = await s.api('POST', `/api/v1/stacks/${slow}/deploy`);
  assert.equal(queued.status, 202);
  const calls = await Promise.all(Array.from({ length: 5 }, () => hook(slow, token, '?async=1')));
  const ids = new Set(calls.map((c) => c.body.id));
  assert.deepEqual(calls.map((c) => c.status), [202, 202, 202, 202, 202]);
  assert.equal(ids.size, 1, 'every call attached to the same deploy');
  assert.ok(calls.every((c) => c.body.attached));
  assert.ok([first.body.id, queued.body.id].includes([...ids][0]));
  const waited = await hook(slow, token); // attaches too while one is queued, or meets the window
  assert.ok([200, 429].includes(waited.status), `${waited.status} ${waited.text}`);
  for (const id of [first.body.id, queued.body.id]) assert.equal((await waitJob(s, id)).status, 'succeeded');
  const jobs = await s.api('GET', `/api/v1/jobs?resource=stack:${slow}&type=stacks.deploy`);
  assert.equal(jobs.body.length, 2, 'no deploy beyond the accepted and the queued one');

  const fastToken = (await s.api('POST', `/api/v1/stacks/${fast}/webhooks/deploy`)).body.token;
  assert.equal((await hook(slow, fastToken)).status, 401, 'a token for one stack does nothing for another');
  assert.equal((await call(s.url, 'GET', `/api/stacks/${fast}/jobs/${first.body.id}`, { token: fastToken })).status, 404, 'nor reads its jobs');
  assert.equal((await call(s.url, 'GET', '/api/v1/stacks', { token })).status, 401, 'a webhook token is no API token');
});

test('the webhook URL uses the configured public URL when there is one, else the Host the caller used', async () => {
  assert.match((await s.api('POST', `/api/v1/stacks/${fast}/webhooks/deploy`)).body.url, new RegExp(`^http://127\\.0\\.0\\.1:\\d+/api/stacks/${fast}/deploy$`));
  const behindProxy = await startStacksServer({ config: { publicUrl: 'https://deploy.example.test/' } });
  try {
    const name = uniqueName('whurl');
    await createStack(behindProxy, name, busybox());
    const enabled = await behindProxy.api('POST', `/api/v1/stacks/${name}/webhooks/deploy`);
    assert.equal(enabled.body.url, `https://deploy.example.test/api/stacks/${name}/deploy`);
  } finally {
    await behindProxy.close();
  }
});
