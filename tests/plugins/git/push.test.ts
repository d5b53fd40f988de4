// The push receiver over real HTTP, signed the way GitHub signs: ping, 401s, a push to the branch deploys, other branches, tags and pins are ignored, duplicates once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, type TestServer } from '../../helpers/harness.ts';
import {
  appEnv, busybox, cleanupProjects, createStack, deployJobs, envCompose, pushCall, pushPayload, repoRoot, setSource, sign, startGitServer,
  TestRepo, uniqueName, waitJob,
} from './helpers.ts';

let s: TestServer;
const repos = repoRoot();
let repo: TestRepo;
const name = uniqueName('gitpush');
let secret: string;
let head: string;

before(async () => {
  s = await startGitServer([repos.root], { pollIntervalMs: 3_600_000 });
  repo = await TestRepo.create(repos.root, 'pushed');
  head = await repo.commit({ 'compose.yaml': envCompose(), 'app.env': 'MESSAGE=before\n' }, 'initial');
  await createStack(s, name, busybox());
  await setSource(s, name, { url: repo.bare, branch: 'main', autodeploy: false });
});
after(async () => {
  await cleanupProjects(name);
  await s.close();
  repos.rm();
});

const lastPush = async () => (await s.api('GET', `/api/v1/stacks/${name}`)).body.source.lastPush;

test('enable: the secret is shown once, with the receiver URL', async () => {
  assert.equal((await pushCall(s, name, pushPayload('refs/heads/main', head), { secret: 'anything' })).status, 401, 'not enabled yet');
  const enabled = await s.api('POST', `/api/v1/stacks/${name}/webhooks/push`);
  assert.equal(enabled.status, 200, enabled.text);
  secret = enabled.body.secret;
  assert.match(secret, /^dws_/);
  assert.match(enabled.body.url, new RegExp(`/api/stacks/${name}/github$`));
  assert.equal(enabled.body.contentType, 'application/json');
  const view = await s.api('GET', `/api/v1/stacks/${name}`);
  assert.equal(view.body.webhooks.push.enabled, true);
  assert.equal(view.body.webhooks.deploy.enabled, false, 'the push secret does not enable the deploy webhook');
  const listed = (await s.api('GET', '/api/v1/stacks')).body.find((x: { name: string }) => x.name === name);
  assert.deepEqual(listed.webhooks, { deploy: { enabled: false }, push: { enabled: true } });
  assert.ok(!view.text.includes(secret));
  assert.ok(!(await s.api('GET', `/api/v1/stacks/${name}/source`)).text.includes(secret));
});

test('a missing or bad signature is 401, whatever the stack; ping is acknowledged', async () => {
  const payload = pushPayload('refs/heads/main', head);
  const missing = await pushCall(s, name, payload);
  assert.equal(missing.status, 401);
  assert.equal(missing.headers.get('content-type'), 'application/problem+json');
  assert.equal((await pushCall(s, name, payload, { secret: 'dws_wrong' })).status, 401);
  assert.equal((await pushCall(s, name, payload, { signature: sign(secret, 'another body') })).status, 401);
  assert.equal((await pushCall(s, name, payload, { signature: sign(secret, JSON.stringify(payload)).replace('sha256=', 'sha1=') })).status, 401);
  assert.equal((await pushCall(s, name, payload, { signature: 'sha256=zz' })).status, 401);
  assert.equal((await pushCall(s, 'nosuchstack', payload, { secret })).status, 401, 'an unknown stack looks like a bad signature');
  assert.equal((await deployJobs(s, name)).length, 0);

  const ping = await pushCall(s, name, { zen: 'Keep it logically awesome.', hook_id: 1 }, { secret, event: 'ping' });
  assert.equal(ping.status, 200, ping.text);
  assert.equal(ping.body.acknowledged, true);
  assert.equal((await lastPush()).event, 'ping');
});

test('a push to the configured branch deploys the new commit, attributed to github', async () => {
  head = await repo.commit({ 'app.env': 'MESSAGE=pushed\n' }, 'pushed change');
  const delivery = `d-${head.slice(0, 8)}`;
  const t0 = Date.now();
  const res = await pushCall(s, name, pushPayload('refs/heads/main', head), { secret, delivery });
  assert.equal(res.status, 202, res.text);
  assert.equal(res.body.outcome, 'deployed');
  const job = await waitJob(s, res.body.jobId);
  console.log(`# push → deploy of the new commit done: ${Date.now() - t0} ms`);
  assert.equal(job.status, 'succeeded', job.output);
  assert.deepEqual(job.actor, { kind: 'github', name, address: '127.0.0.1' });
  assert.equal(job.result.commit, head);
  assert.match(job.output, new RegExp(`commit ${head}`));
  assert.equal((await appEnv(name)).MESSAGE, 'pushed');
  const view = await eventually(async () => {
    const v = (await s.api('GET', `/api/v1/stacks/${name}`)).body;
    return v.source.deployedCommit === head && v;
  }, 10_000, 'deployed commit on the stack');
  assert.equal(view.lastDeploy.actor.kind, 'github');
  assert.deepEqual(
    { deliveryId: view.source.lastPush.deliveryId, event: view.source.lastPush.event, outcome: view.source.lastPush.outcome, jobId: view.source.lastPush.jobId },
    { deliveryId: delivery, event: 'push', outcome: 'deployed', jobId: job.id });
  const activity = await s.api('GET', `/api/v1/activity?resource=stack:${name}&actor=github`);
  assert.ok(activity.body.some((a: any) => a.action === 'stack.push' && a.detail.jobId === job.id), JSON.stringify(activity.body));

  const again = await pushCall(s, name, pushPayload('refs/heads/main', head), { secret, delivery });
  assert.equal(again.status, 200, again.text);
  assert.deepEqual([again.body.duplicate, again.body.outcome, again.body.jobId], [true, 'deployed', job.id]);
  assert.equal((await deployJobs(s, name)).length, 1, 'a repeated delivery starts nothing');
});

test('pushes to another branch, tags, deleted branches and other events are acknowledged and ignored', async () => {
  const featureHead = await repo.commit({ 'app.env': 'MESSAGE=feature\n' }, 'feature work', 'feature');
  const cases: [string, unknown, RegExp][] = [
    ['push', pushPayload('refs/heads/feature', featureHead), /refs\/heads\/feature; the stack follows the branch main/],
    ['push', pushPayload('refs/tags/v1', head), /is a tag/],
    ['push', { ...pushPayload('refs/heads/main', '0'.repeat(40)), deleted: true }, /deleted/],
    ['issues', { action: 'opened' }, /only push/],
    ['pull_request', { action: 'opened' }, /previews are not enabled/],
  ];
  for (const [event, payload, reason] of cases) {
    const res = await pushCall(s, name, payload, { secret, event });
    assert.equal(res.status, 202, `${event}: ${res.text}`);
    assert.equal(res.body.ignored, true);
    assert.match(res.body.reason, reason);
  }
  assert.equal((await lastPush()).outcome, 'ignored');
  assert.equal((await deployJobs(s, name)).length, 1);
  const list = await s.api('GET', `/api/v1/stacks/${name}/webhooks/push/deliveries?limit=3`);
  assert.deepEqual(list.body.map((d: any) => d.event), ['pull_request', 'issues', 'push']);
});

test('while pinned, a push to the branch is ignored', async () => {
  const pinned = await s.api('POST', `/api/v1/stacks/${name}/source/pin`, { body: { commit: head } });
  assert.equal(pinned.status, 200, pinned.text);
  const next = await repo.commit({ 'app.env': 'MESSAGE=while-pinned\n' }, 'while pinned');
  const res = await pushCall(s, name, pushPayload('refs/heads/main', next), { secret });
  assert.equal(res.status, 202);
  assert.equal(res.body.ignored, true);
  assert.match(res.body.reason, new RegExp(`pinned to ${head}`));
  assert.equal((await deployJobs(s, name)).length, 1);
  await s.api('POST', `/api/v1/stacks/${name}/source/unpin`);
});

test('Gitea and Forgejo signatures are accepted; a signed form-encoded body gets a clear 415', async () => {
  const body = JSON.stringify(pushPayload('refs/heads/other', head));
  for (const who of ['gitea', 'forgejo']) {
    const hex = sign(secret, body).slice('sha256='.length);
    const res = await pushCall(s, name, null, { body, headers: { [`x-${who}-event`]: 'push', [`x-${who}-delivery`]: `${who}-1`, [`x-${who}-signature`]: hex } });
    assert.equal(res.status, 202, `${who}: ${res.text}`);
    assert.equal(res.body.ignored, true);
    const found = (await s.api('GET', `/api/v1/stacks/${name}/webhooks/push/deliveries?limit=1`)).body[0];
    assert.deepEqual([found.provider, found.deliveryId], [who, `${who}-1`]);
    const wrong = await pushCall(s, name, null, { body, headers: { [`x-${who}-event`]: 'push', [`x-${who}-signature`]: hex.replace(/^./, (c) => (c === '0' ? '1' : '0')) } });
    assert.equal(wrong.status, 401);
  }
  const form = `payload=${encodeURIComponent(body)}`;
  const res = await pushCall(s, name, null, { body: form, secret, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(res.status, 415, res.text);
  assert.match(res.body.detail, /application\/json/);
});

test('rotating replaces the secret at once; disabling stops the receiver', async () => {
  const payload = { zen: 'ping' };
  const rotated = (await s.api('POST', `/api/v1/stacks/${name}/webhooks/push`)).body.secret;
  assert.notEqual(rotated, secret);
  assert.equal((await pushCall(s, name, payload, { secret, event: 'ping' })).status, 401);
  assert.equal((await pushCall(s, name, payload, { secret: rotated, event: 'ping' })).status, 200);
  assert.equal((await s.api('DELETE', `/api/v1/stacks/${name}/webhooks/push`)).status, 200);
  assert.equal((await pushCall(s, name, payload, { secret: rotated, event: 'ping' })).status, 401);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}`)).body.webhooks.push.enabled, false);
});
