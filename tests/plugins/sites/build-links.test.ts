// A site build's output read only inside its workspace: an output folder the build container turns into a link out of it (to /etc, the data folder, /, through a nested folder) fails the build naming the link and publishes nothing; links inside the output that lead out are left out.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { docker, repoRoot, TestRepo, waitJob } from '../git/helpers.ts';
import { edgeAnswers, edgeRunning, startSitesServer, viaEdge, type SitesServer } from './helpers.ts';

const repos = repoRoot();
let s: SitesServer;
let repo: TestRepo;
before(async () => {
  s = await startSitesServer({ git: { allowedLocalRoots: [repos.root] } });
  await edgeRunning(s);
  repo = await TestRepo.create(repos.root, 'links');
  await repo.commit({ 'src/index.html': 'from the source' }, 'first');
});
after(async () => {
  await s.close();
  repos.rm();
});

/** defines the site with this build and answers its first sync */
async function built(name: string, script: string, output: string) {
  const res = await s.api('PUT', `/api/v1/sites/${name}`, { body: { hostnames: [`${name}.links.test`], source: { url: repo.bare, build: { image: 'dockwright-test/busybox:1', command: ['sh', '-c', script], output } } } });
  assert.equal(res.status, 201, res.text);
  return waitJob(s, res.body.jobId, 120_000);
}

/** the site was refused whole: no version, no file through the API or the edge, no build container or workspace left */
async function nothingPublished(name: string, file: string) {
  const site = (await s.api('GET', `/api/v1/sites/${name}`)).body;
  assert.equal(site.version, 0);
  assert.deepEqual((await s.api('GET', `/api/v1/sites/${name}/versions`)).body, []);
  const read = await s.api('GET', `/api/v1/sites/${name}/file?path=${encodeURIComponent(file)}`);
  assert.equal(read.status, 404, read.text);
  assert.doesNotMatch(read.text, /root:/);
  const edge = await viaEdge(s.httpPort, `${name}.links.test`, `/${file}`);
  assert.notEqual(edge.status, 200);
  assert.doesNotMatch(edge.body, /root:/);
  assert.deepEqual(await docker.listContainers({ all: true, filters: { label: [`dockwright.site=${name}`] } }), [], 'the build container is removed');
  assert.deepEqual(readdirSync(join(s.dataDir, 'plugins', 'sites', 'staging')), [], 'the workspace is removed');
  return site;
}

test('an output folder made a link to /etc fails the build, naming the link; /etc/shadow is served nowhere', async () => {
  const job = await built('etc', 'ln -s /etc out', 'out');
  assert.equal(job.status, 'failed', job.output);
  assert.match(job.error ?? job.output, /out: out is a symbolic link to \/etc, which leads out of the build's workspace/);
  const site = await nothingPublished('etc', 'shadow');
  assert.match(site.lastError, /out is a symbolic link to \/etc/);
});

test('an output folder made a link to the data folder or to / fails the build: no sealing key, no token, no host root', async () => {
  const data = await built('data', `ln -s ${s.dataDir} out`, 'out');
  assert.equal(data.status, 'failed', data.output);
  assert.match((await s.api('GET', '/api/v1/sites/data')).body.lastError, new RegExp(`out is a symbolic link to ${s.dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  await nothingPublished('data', 'secret.key');

  const root = await built('root', 'ln -s / out', 'out');
  assert.equal(root.status, 'failed', root.output);
  assert.match((await s.api('GET', '/api/v1/sites/root')).body.lastError, /out is a symbolic link to \/,/);
  await nothingPublished('root', 'etc/shadow');
});

test('a link in a nested folder of the output path is refused the same way; a link that stays inside the workspace is followed', async () => {
  const nested = await built('nested', 'mkdir -p site && ln -s / site/host', 'site/host/etc');
  assert.equal(nested.status, 'failed', nested.output);
  assert.match((await s.api('GET', '/api/v1/sites/nested')).body.lastError, /site\/host is a symbolic link to \/,/);
  await nothingPublished('nested', 'shadow');

  const inside = await built('inside', 'mkdir -p dist/a && cp src/index.html dist/ && ln -s dist out', 'out');
  assert.equal(inside.status, 'succeeded', inside.output);
  assert.equal((await edgeAnswers(s.httpPort, 'inside.links.test', '/', (a) => a.status === 200)).body, 'from the source');
});

test('links inside the output that lead out of it are left out and named in the job output; the rest is published', async () => {
  const job = await built('partial', 'mkdir -p out/sub && cp src/index.html out/ && ln -s /etc out/sub/etc && ln -s /etc/shadow out/shadow && ln -s ../src/index.html out/up.html && ln -s index.html out/same.html', 'out');
  assert.equal(job.status, 'succeeded', job.output);
  assert.match(job.output, /not published: sub\/etc, a symbolic link to \/etc/);
  assert.match(job.output, /not published: shadow, a symbolic link to \/etc\/shadow/);
  assert.match(job.output, /not published: up.html, a symbolic link to ..\/src\/index.html/);
  const files = (await s.api('GET', '/api/v1/sites/partial/files')).body.map((f: { path: string }) => f.path).sort();
  assert.deepEqual(files, ['index.html', 'same.html']);
  assert.equal((await s.api('GET', '/api/v1/sites/partial/file?path=sub/etc/shadow')).status, 404);
  assert.equal((await edgeAnswers(s.httpPort, 'partial.links.test', '/same.html', (a) => a.status === 200)).body, 'from the source');
  assert.notEqual((await viaEdge(s.httpPort, 'partial.links.test', '/shadow')).status, 200);
});
