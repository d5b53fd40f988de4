// A site's build image missing locally is pulled as a deploy pulls: its registry's token service is checked right before the engine is asked, and one the outbound policy refuses is never contacted.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { repoRoot, TestRepo, waitJob } from '../git/helpers.ts';
import { recordingServer } from '../docker/helpers.ts';
import { startSitesServer, type SitesServer } from './helpers.ts';

const repos = repoRoot();
let s: SitesServer;
before(async () => {
  // 127.0.0.1 is allowed, the rest of loopback is not: 127.0.0.2 stands for a private address behind a public registry
  s = await startSitesServer({ config: { outbound: { allow: ['127.0.0.1'], allowHostnames: false } }, git: { allowedLocalRoots: [repos.root] } });
});
after(async () => {
  await s?.close();
  repos.rm();
});

test('a build image from a registry whose token service the policy refuses: the build fails naming it, the engine is not asked, the token service never reached', async () => {
  const tokens = await recordingServer(undefined, '127.0.0.2');
  const registry = await recordingServer((_req, res) => {
    res.writeHead(401, { 'docker-distribution-api-version': 'registry/2.0', 'www-authenticate': `Bearer realm="http://127.0.0.2:${tokens.port}/token",service="x"` }).end();
  });
  try {
    const repo = await TestRepo.create(repos.root, 'pulled');
    await repo.commit({ 'src/page.txt': 'from source' }, 'first');
    const image = `127.0.0.1:${registry.port}/team/builder:1`;
    const created = await s.api('PUT', '/api/v1/sites/pulled', { body: { hostnames: [], source: { url: repo.bare, build: { image, command: ['true'], output: 'dist' } } } });
    assert.equal(created.status, 201, created.text);
    const job = await waitJob(s, created.body.jobId, 120_000);
    assert.equal(job.status, 'failed', job.output);
    assert.match(job.error ?? '', new RegExp(`connections to 127\\.0\\.0\\.2:${tokens.port} are refused: it is a loopback address.*The registry 127\\.0\\.0\\.1:${registry.port} sends logins there.*so the engine was not asked`));
    assert.equal(tokens.connections, 0, `the token service was reached: ${tokens.requests.join(', ')}`);
    assert.ok(registry.requests.every((r) => r === 'GET /v2/'), `only Dockwright's probes reached the registry, the engine did not: ${registry.requests.join(', ')}`);
  } finally {
    await tokens.close();
    await registry.close();
  }
});
