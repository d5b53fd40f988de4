// Polling: a git stack with autodeploy deploys a new head by itself (as system), a pinned or autodeploy-off stack does not.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, type TestServer } from '../../helpers/harness.ts';
import { act, appEnv, busybox, cleanupProjects, createStack, deployJobs, envCompose, repoRoot, setSource, startGitServer, TestRepo, uniqueName, waitJob } from './helpers.ts';

let s: TestServer;
const repos = repoRoot();
const polled = uniqueName('gitpoll');
const manual = uniqueName('gitman');

before(async () => {
  s = await startGitServer([repos.root], { pollIntervalMs: 1000 });
});
after(async () => {
  await cleanupProjects(polled, manual);
  await s.close();
  repos.rm();
});

test('a new commit on the branch is deployed by polling, attributed to system; pinned and autodeploy-off stacks wait', async () => {
  const repo = await TestRepo.create(repos.root, 'polled');
  await repo.commit({ 'compose.yaml': envCompose(), 'app.env': 'MESSAGE=v1\n' }, 'v1');
  for (const [stack, autodeploy] of [[polled, true], [manual, false]] as const) {
    await createStack(s, stack, busybox());
    await setSource(s, stack, { url: repo.bare, autodeploy });
    await act(s, 'deploy', stack);
  }
  const v2 = await repo.commit({ 'app.env': 'MESSAGE=v2\n' }, 'v2');
  const t0 = Date.now();
  const job = await eventually(async () => (await deployJobs(s, polled)).find((j) => j.actor.kind === 'system'), 20_000, 'a deploy started by polling');
  assert.deepEqual(job.actor, { kind: 'system', name: 'git-poll' });
  const done = await waitJob(s, job.id);
  console.log(`# commit → deployed by polling (interval 1 s): ${Date.now() - t0} ms`);
  assert.equal(done.status, 'succeeded', done.output);
  assert.equal(done.result.commit, v2);
  assert.equal((await appEnv(polled)).MESSAGE, 'v2');
  await eventually(async () => (await s.api('GET', `/api/v1/stacks/${polled}/source`)).body.deployedCommit === v2, 10_000, 'deployed commit');

  const pin = await s.api('POST', `/api/v1/stacks/${polled}/source/pin`, { body: { commit: v2 } });
  assert.equal(pin.status, 200, pin.text);
  await repo.commit({ 'app.env': 'MESSAGE=v3\n' }, 'v3');
  await new Promise((r) => setTimeout(r, 3500));
  assert.equal((await deployJobs(s, polled)).length, 2, 'pinned: polling deploys nothing');
  assert.equal((await deployJobs(s, manual)).length, 1, 'autodeploy off: polling deploys nothing');
  assert.equal((await appEnv(manual)).MESSAGE, 'v1');
  // the manual stack's source still learns about the new head when checked
  const checked = await s.api('POST', `/api/v1/stacks/${manual}/source/check`);
  assert.equal(checked.body.changed, true);
});
