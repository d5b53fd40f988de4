// Sites with a source check it on their own (the interval is an option): a pushed commit is published without any call.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../../helpers/harness.ts';
import { repoRoot, TestRepo, waitJob } from '../git/helpers.ts';
import { edgeAnswers, edgeRunning, startSitesServer } from './helpers.ts';

const repos = repoRoot();
after(() => repos.rm());

test('the periodic check publishes a pushed commit; jobs are attributed to the system', async () => {
  const repo = await TestRepo.create(repos.root, 'poll');
  await repo.commit({ 'index.html': 'first' }, 'first');
  const s = await startSitesServer({ git: { allowedLocalRoots: [repos.root] }, sites: { checkIntervalMs: 1000 } });
  try {
    await edgeRunning(s);
    const created = await s.api('PUT', '/api/v1/sites/polled', { body: { hostnames: ['polled.poll.test'], source: { url: repo.bare } } });
    assert.equal((await waitJob(s, created.body.jobId)).status, 'succeeded');
    const commit = await repo.commit({ 'index.html': 'second' }, 'second');
    await edgeAnswers(s.httpPort, 'polled.poll.test', '/', (a) => a.body === 'second', 30_000);
    const site = (await s.api('GET', '/api/v1/sites/polled')).body;
    assert.equal(site.lastDeploy.commit, commit);
    const jobs = (await s.api('GET', '/api/v1/jobs?limit=50')).body.filter((j: any) => j.resource === 'site:polled' && j.actor.kind === 'system');
    assert.ok(jobs.length >= 1);
    // an upload-only site is never checked
    await s.api('PUT', '/api/v1/sites/static', { body: { hostnames: [] } });
    await eventually(async () => (await s.api('GET', '/api/v1/jobs?limit=50')).body.filter((j: any) => j.resource === 'site:polled').length >= 3, 15_000, 'more periodic checks');
    assert.equal((await s.api('GET', '/api/v1/jobs?limit=100')).body.filter((j: any) => j.resource === 'site:static').length, 0);
  } finally {
    await s.close();
  }
});
