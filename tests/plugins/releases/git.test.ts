// A rollback of a stack deployed from a git repository deploys the tree of the release's commit, not the branch as it is now.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { appEnv, envCompose, repoRoot, setSource, TestRepo } from '../git/helpers.ts';
import { act, cleanupProjects, createStack, startReleasesServer, uniqueName, waitJob } from './helpers.ts';

const repos = repoRoot();
const stack = uniqueName('relgit');
let s: TestServer;
let repo: TestRepo;

before(async () => {
  s = await startReleasesServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: { git: { options: { allowedLocalRoots: [repos.root], pollIntervalMs: 3_600_000 } } },
  });
  repo = await TestRepo.create(repos.root, 'app');
});
after(async () => {
  await cleanupProjects(stack);
  await s?.close();
  repos.rm();
});

test('a rollback of a git-sourced stack deploys the release\'s commit: its compose file and env file as they were then', async () => {
  const first = await repo.commit({ 'compose.yaml': envCompose(), 'app.env': 'MESSAGE=one\n' }, 'first');
  await createStack(s, stack, 'services:\n  placeholder:\n    image: dockwright-test/busybox:1\n');
  await setSource(s, stack, { url: repo.bare, branch: 'main' });
  await act(s, 'deploy', stack);
  assert.equal((await appEnv(stack)).MESSAGE, 'one');

  // the branch moves on: the env file and the compose file change (a second service)
  const second = await repo.commit({
    'compose.yaml': `${envCompose()}    labels: { dockwright.update: none }\n  side:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n`,
    'app.env': 'MESSAGE=two\n',
  }, 'second');
  await act(s, 'deploy', stack);
  assert.equal((await appEnv(stack)).MESSAGE, 'two');
  let list = (await s.api('GET', `/api/v1/stacks/${stack}/releases`)).body as any[];
  assert.deepEqual(list.map((r) => [r.number, r.commit]), [[2, second], [1, first]]);

  const res = await s.api('POST', `/api/v1/stacks/${stack}/rollback`, { body: { release: 1 } });
  assert.equal(res.status, 202, res.text);
  const job = await waitJob(s, res.body.id);
  assert.equal(job.status, 'succeeded', `${job.error}\n${job.output}`);
  assert.match(job.output, new RegExp(`at ${first}, the commit asked for`));
  assert.equal((await appEnv(stack)).MESSAGE, 'one', 'the env file of the release\'s commit, not of the branch head');
  list = (await s.api('GET', `/api/v1/stacks/${stack}/releases`)).body as any[];
  assert.deepEqual([list[0].number, list[0].kind, list[0].rolledBackTo, list[0].commit], [3, 'rollback', 1, first]);
  assert.deepEqual(list[0].services.map((x: any) => x.service), ['app'], 'the services of the release\'s compose file');
  assert.equal((await s.api('GET', `/api/v1/stacks/${stack}/source`)).body.remoteHead, second, 'the branch head is still what it was');

  // the next plain deploy follows the branch again
  await act(s, 'deploy', stack);
  assert.equal((await appEnv(stack)).MESSAGE, 'two');
});
