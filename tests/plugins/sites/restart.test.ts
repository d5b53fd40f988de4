// A restart in the middle of a sync: the job ends failed, the served version is intact, the next sync publishes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../../helpers/harness.ts';
import { repoRoot, TestRepo, waitJob } from '../git/helpers.ts';
import { edgeAnswers, edgeRunning, startSitesServer, viaEdge } from './helpers.ts';

const repos = repoRoot();
after(() => repos.rm());

test('restart during a sync: the job is failed (not running forever), the served version stays, a new check publishes', async () => {
  const repo = await TestRepo.create(repos.root, 'restart');
  await repo.commit({ 'index.html': 'before' }, 'first');
  const opts = { git: { allowedLocalRoots: [repos.root] } };
  const s = await startSitesServer(opts);
  let again: Awaited<ReturnType<typeof startSitesServer>> | null = null;
  try {
    await edgeRunning(s);
    const created = await s.api('PUT', '/api/v1/sites/rs', { body: { hostnames: ['rs.restart.test'], source: { url: repo.bare } } });
    assert.equal((await waitJob(s, created.body.jobId)).status, 'succeeded');
    await edgeAnswers(s.httpPort, 'rs.restart.test', '/', (a) => a.body === 'before');

    await s.api('PUT', '/api/v1/sites/rs', { body: { hostnames: ['rs.restart.test'], source: { url: repo.bare, build: { image: 'dockwright-test/busybox:1', command: ['sh', '-c', 'sleep 30'] } } } });
    await repo.commit({ 'index.html': 'after' }, 'second');
    const started = await s.api('POST', '/api/v1/sites/rs/check');
    await eventually(async () => (await s.api('GET', `/api/v1/jobs/${started.body.id}`)).body.output.includes('building'), 30_000, 'the build to start');
    await s.stop();

    again = await startSitesServer({ ...opts, reuse: { databaseUrl: s.databaseUrl, dataDir: s.dataDir } });
    await edgeRunning(again);
    const job = (await again.api('GET', `/api/v1/jobs/${started.body.id}`)).body;
    assert.equal(job.done, true);
    assert.notEqual(job.status, 'succeeded');
    assert.equal((await edgeAnswers(again.httpPort, 'rs.restart.test', '/', (a) => a.status === 200)).body, 'before', 'the served version is intact');
    assert.equal((await again.api('GET', '/api/v1/sites/rs')).body.version, 1);

    await again.api('PUT', '/api/v1/sites/rs', { body: { hostnames: ['rs.restart.test'], source: { url: repo.bare } } });
    const next = await again.api('POST', '/api/v1/sites/rs/check');
    assert.equal((await waitJob(again, next.body.id)).status, 'succeeded');
    assert.equal((await viaEdge(again.httpPort, 'rs.restart.test', '/')).body, 'after');
  } finally {
    if (again) await again.stop();
    await s.close();
  }
});
