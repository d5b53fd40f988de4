// Sites from real git repositories through the real API and Caddy: served at the hostname, push-then-check, builds in a container (a failing one keeps the served version), the check webhook, ownership against stacks.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../../helpers/harness.ts';
import { repoRoot, TestRepo, waitJob } from '../git/helpers.ts';
import { edgeAnswers, edgeRunning, startSitesServer, viaEdge, type SitesServer } from './helpers.ts';

const repos = repoRoot();
let s: SitesServer;
before(async () => {
  s = await startSitesServer({ git: { allowedLocalRoots: [repos.root] } });
  await edgeRunning(s);
});
after(async () => {
  await s.close();
  repos.rm();
});

const check = async (name: string) => {
  const res = await s.api('POST', `/api/v1/sites/${name}/check`);
  assert.equal(res.status, 202, res.text);
  return waitJob(s, res.body.id, 120_000);
};

test('a site from git: served at its hostname, push then check publishes the new commit, no new commit still advances lastDeploy', async () => {
  const repo = await TestRepo.create(repos.root, 'www');
  const c1 = await repo.commit({ 'public/index.html': 'one', 'public/css/site.css': 'body{}', 'README.md': 'not served' }, 'first');
  const created = await s.api('PUT', '/api/v1/sites/www', { body: { hostnames: ['www.git.test'], source: { url: repo.bare, branch: 'main', path: 'public' } } });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.source.path, 'public');
  const first = await waitJob(s, created.body.jobId, 120_000);
  assert.equal(first.status, 'succeeded', first.output);
  assert.equal((await edgeAnswers(s.httpPort, 'www.git.test', '/', (a) => a.status === 200)).body, 'one');
  assert.equal((await viaEdge(s.httpPort, 'www.git.test', '/README.md')).status, 404, 'only the folder is the site');
  let site = (await s.api('GET', '/api/v1/sites/www')).body;
  assert.deepEqual([site.version, site.lastDeploy.commit, site.syncedCommit, site.lastError], [1, c1, c1, null]);

  const c2 = await repo.commit({ 'public/index.html': 'two' }, 'second');
  assert.equal((await viaEdge(s.httpPort, 'www.git.test', '/')).body, 'one', 'nothing changes before a check');
  const second = await check('www');
  assert.equal(second.status, 'succeeded', second.output);
  assert.equal(second.result.version, 2);
  assert.equal((await viaEdge(s.httpPort, 'www.git.test', '/')).body, 'two');
  const versions = (await s.api('GET', '/api/v1/sites/www/versions')).body;
  assert.deepEqual(versions.map((v: any) => [v.number, v.from, v.commit]), [[2, 'commit', c2], [1, 'commit', c1]]);

  const before = (await s.api('GET', '/api/v1/sites/www')).body.lastDeploy;
  const same = await check('www');
  assert.equal(same.result.changed, false);
  site = (await s.api('GET', '/api/v1/sites/www')).body;
  assert.equal(site.version, 2, 'no new version for the same commit');
  assert.ok(site.lastDeploy.at > before.at, 'lastDeploy advances after every successful sync');

  // an upload-only site has nothing to check
  await s.api('PUT', '/api/v1/sites/plain', { body: { hostnames: [] } });
  assert.equal((await s.api('POST', '/api/v1/sites/plain/check')).status, 409);
  assert.equal((await s.api('POST', '/api/v1/sites/nope/check')).status, 404);
  // a missing branch fails the sync with a clear lastError
  await s.api('PUT', '/api/v1/sites/plain', { body: { hostnames: [], source: { url: repo.bare, branch: 'nope' } } });
  const missing = (await s.api('GET', '/api/v1/jobs?limit=5')).body.find((j: any) => j.resource === 'site:plain');
  assert.equal((await waitJob(s, missing.id)).status, 'failed');
  assert.match((await s.api('GET', '/api/v1/sites/plain')).body.lastError, /no branch "nope"/);
});

test('a build in a container: its output is the site; a failing build keeps the served version and sets lastError (overview attention)', async () => {
  const repo = await TestRepo.create(repos.root, 'built');
  await repo.commit({ 'src/page.txt': 'from source' }, 'first');
  const build = (cmd: string) => ({ image: 'dockwright-test/busybox:1', command: ['sh', '-c', cmd], output: 'dist' });
  const created = await s.api('PUT', '/api/v1/sites/built', { body: { hostnames: ['built.git.test'], source: { url: repo.bare, build: build('mkdir -p dist && cp src/page.txt dist/index.html && echo built > dist/stamp.txt') } } });
  assert.equal(created.status, 201, created.text);
  const job = await waitJob(s, created.body.jobId, 120_000);
  assert.equal(job.status, 'succeeded', job.output);
  assert.equal((await edgeAnswers(s.httpPort, 'built.git.test', '/', (a) => a.status === 200)).body, 'from source');
  assert.equal((await viaEdge(s.httpPort, 'built.git.test', '/stamp.txt')).body, 'built\n');

  await s.api('PUT', '/api/v1/sites/built', { body: { hostnames: ['built.git.test'], source: { url: repo.bare, build: build('echo broken >&2; exit 3') } } });
  await repo.commit({ 'src/page.txt': 'never served' }, 'second');
  const failed = await check('built');
  assert.equal(failed.status, 'failed');
  assert.match(failed.output, /broken/);
  const site = (await s.api('GET', '/api/v1/sites/built')).body;
  assert.equal(site.version, 1);
  assert.match(site.lastError, /exited with status 3/);
  assert.equal((await viaEdge(s.httpPort, 'built.git.test', '/')).body, 'from source', 'the served version is untouched');
  const events = (await s.api('GET', '/api/v1/event-recorder/events')).body.filter((e: any) => e.payload.site === 'built');
  // the first sync, (changing the source syncs again), then the failed check
  assert.equal(events[0].name, 'site.synced');
  assert.deepEqual(Object.keys(events[0].payload).sort(), ['commit', 'jobId', 'site', 'version']);
  assert.deepEqual([events[0].payload.version, events[0].payload.jobId], [1, created.body.jobId]);
  const last = events.at(-1);
  assert.equal(last.name, 'site.sync.failed');
  assert.deepEqual({ ...last.payload, error: undefined }, { site: 'built', jobId: failed.id, error: undefined });
  assert.match(last.payload.error, /exited with status 3/);
  const overview = (await s.api('GET', '/api/v1/overview')).body;
  assert.ok(overview.attention.some((a: any) => a.kind === 'site-sync-failed' && a.resource === 'site:built'), JSON.stringify(overview.attention));
  const leftovers = await (await import('../docker/helpers.ts')).docker.listContainers({ all: true, filters: { label: ['dockwright.site=built'] } });
  assert.deepEqual(leftovers, [], 'build containers are removed');

  await s.api('PUT', '/api/v1/sites/built', { body: { hostnames: ['built.git.test'], source: { url: repo.bare, build: build('mkdir -p dist && cp src/page.txt dist/index.html') } } });
  assert.equal((await check('built')).status, 'succeeded');
  assert.equal((await s.api('GET', '/api/v1/sites/built')).body.lastError, null);
  assert.equal((await viaEdge(s.httpPort, 'built.git.test', '/')).body, 'never served');
  assert.equal((await s.api('PUT', '/api/v1/sites/built', { body: { hostnames: [], source: { url: repo.bare, build: { image: 'busybox', command: [] } } } })).status, 400);
  assert.equal((await s.api('PUT', '/api/v1/sites/built', { body: { hostnames: [], source: { url: repo.bare, build: { image: '-x', command: ['a'] } } } })).status, 400);
});

test('check webhook: 202 with the job, attach to a queued sync, one per window (429 + Retry-After), status, rotation, disable, activity with the address', async () => {
  const repo = await TestRepo.create(repos.root, 'hook');
  await repo.commit({ 'index.html': 'hook one' }, 'first');
  // a slow build keeps the first sync running, so a second one stays queued
  const created = await s.api('PUT', '/api/v1/sites/hook', { body: { hostnames: ['hook.git.test'], source: { url: repo.bare, build: { image: 'dockwright-test/busybox:1', command: ['sh', '-c', 'sleep 2'] } } } });
  assert.equal(created.status, 201);
  const enabled = await s.api('POST', '/api/v1/sites/hook/webhooks/check');
  assert.equal(enabled.status, 200);
  assert.match(enabled.body.url, /\/api\/sites\/hook\/check$/);
  const token = enabled.body.token as string;
  assert.equal((await s.api('GET', '/api/v1/sites/hook')).body.webhook.enabled, true);

  await repo.commit({ 'index.html': 'hook two' }, 'second');
  const hook = (t = token) => call(s.url, 'POST', '/api/sites/hook/check', { token: t });
  const accepted = await hook();
  assert.equal(accepted.status, 202, accepted.text);
  assert.equal(accepted.body.attached, false);
  const attached = await hook();
  assert.equal(attached.status, 202, attached.text);
  assert.equal(attached.body.attached, true);
  assert.equal(attached.body.id, accepted.body.id, 'a call while a sync is queued attaches to it');
  // the answer's Location is readable with the same token (not /api/v1/jobs, which wants a personal token)
  const location = accepted.headers.get('location');
  assert.equal(location, `/api/sites/hook/jobs/${accepted.body.id}`);
  const followed = await call(s.url, 'GET', location!, { token });
  assert.equal(followed.status, 200, followed.text);
  assert.equal(followed.body.id, accepted.body.id);
  assert.equal(followed.body.type, 'sites.sync');
  assert.equal((await call(s.url, 'GET', location!, { token: s.admin })).status, 401, 'a personal token is not the webhook token');
  assert.equal((await call(s.url, 'GET', `/api/v1/jobs/${accepted.body.id}`, { token })).status, 401);
  const other = (await s.api('POST', '/api/v1/sites/www/check')).body.id as string;
  assert.equal((await call(s.url, 'GET', `/api/sites/hook/jobs/${other}`, { token })).status, 404, 'only this site\'s jobs');
  assert.equal((await call(s.url, 'GET', `/api/sites/www/jobs/${other}`, { token })).status, 401, 'the token is one site\'s');
  assert.equal((await call(s.url, 'GET', '/api/sites/hook/jobs/00000000-0000-4000-8000-000000000000', { token })).status, 404);
  const done = await waitJob(s, accepted.body.id, 120_000);
  assert.equal(done.status, 'succeeded', done.output);
  assert.equal(done.actor.kind, 'webhook');
  const limited = await hook();
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers.get('retry-after')) > 0);

  const status = await call(s.url, 'GET', '/api/sites/hook/status', { token });
  assert.equal(status.status, 200);
  assert.equal(status.body.lastDeploy.version, 2);
  assert.match(status.body.lastDeploy.commit, /^[0-9a-f]{40}$/);
  assert.equal(status.body.lastError, null);
  assert.equal((await call(s.url, 'GET', '/api/sites/hook/status', { token: s.admin })).status, 401, 'a personal token is not the webhook token');
  assert.equal((await call(s.url, 'GET', '/api/sites/www/status', { token })).status, 401, 'the token is one site\'s');

  const rotated = await s.api('POST', '/api/v1/sites/hook/webhooks/check');
  assert.equal((await call(s.url, 'GET', '/api/sites/hook/status', { token })).status, 401, 'the old token stops working at once');
  assert.equal((await call(s.url, 'GET', '/api/sites/hook/status', { token: rotated.body.token })).status, 200);
  assert.equal((await s.api('DELETE', '/api/v1/sites/hook/webhooks/check')).status, 200);
  assert.equal((await hook(rotated.body.token)).status, 401);
  assert.equal((await s.api('GET', '/api/v1/sites/hook')).body.webhook.enabled, false);

  const activity = (await s.api('GET', '/api/v1/activity?limit=100')).body;
  const calls = activity.filter((a: any) => a.action === 'site.check' && a.actor.kind === 'webhook');
  assert.ok(calls.length >= 3, JSON.stringify(calls));
  assert.ok(calls.every((a: any) => a.actor.address), 'webhook calls carry the caller address');
});

test('credentials are sealed and never echoed: not by the site, the list or the sync job', async () => {
  const secret = 'ghp_sitesSecretToken1234567890';
  const put = await s.api('PUT', '/api/v1/sites/private', { body: { hostnames: [], source: { url: 'https://127.0.0.1:1/me/private.git', credentials: { token: secret } } } });
  assert.equal(put.status, 201, put.text);
  assert.deepEqual(put.body.source.credentials, { kind: 'token' });
  const job = await waitJob(s, put.body.jobId);
  assert.equal(job.status, 'failed', 'nothing listens there');
  const texts = [put.text, (await s.api('GET', '/api/v1/sites/private')).text, (await s.api('GET', '/api/v1/sites')).text, JSON.stringify(job), (await s.api('GET', '/api/v1/activity?limit=20')).text];
  for (const t of texts) assert.ok(!t.includes(secret), t.slice(0, 200));
  // omitted credentials keep the stored ones for the same repository; null removes them
  await s.api('PUT', '/api/v1/sites/private', { body: { hostnames: [], source: { url: 'https://127.0.0.1:1/me/private.git' } } });
  assert.deepEqual((await s.api('GET', '/api/v1/sites/private')).body.source.credentials, { kind: 'token' });
  await s.api('PUT', '/api/v1/sites/private', { body: { hostnames: [], source: { url: 'https://127.0.0.1:1/me/private.git', credentials: null } } });
  assert.equal((await s.api('GET', '/api/v1/sites/private')).body.source.credentials, null);
});

test('one owner per hostname: a compose file naming a site\'s hostname is refused (422 edge-hostname-taken)', async () => {
  await s.api('PUT', '/api/v1/sites/owned', { body: { hostnames: ['owned.git.test'] } });
  const compose = 'services:\n  web:\n    image: dockwright-test/web:1\n    labels:\n      dockwright.http.host: "owned.git.test"\n      dockwright.http.port: "8080"\n';
  const validated = await s.api('POST', '/api/v1/stacks/taker/validate', { body: { content: compose } });
  assert.equal(validated.body.errors.find((e: any) => e.rule === 'edge-hostname-taken')?.message, 'the hostname owned.git.test belongs to site:owned');
  const put = await s.api('PUT', '/api/v1/stacks/taker/compose', { body: { content: compose, revision: 0 } });
  assert.equal(put.status, 422, put.text);
  assert.ok(put.body.errors.some((e: any) => e.rule === 'edge-hostname-taken'));
});
