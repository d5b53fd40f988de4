// Previews from signed pull_request deliveries through the real engine and the real Caddy: opened serves the PR's compose beside the parent, synchronize the new commit, closed leaves nothing; forks, maxActive, the preview token and access lists.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../../helpers/harness.ts';
import { containerOf, freePort } from '../docker/helpers.ts';
import { edgeAnswers, edgeRunning, viaEdge } from '../edge/helpers.ts';
import { act, cleanupProjects, createStack, busybox, repoRoot, setSource, TestRepo, uniqueName, waitJob } from '../git/helpers.ts';
import { deliver, leftovers, previewCompose, pullRequest, setPullRef, startPreviewServer, type PreviewServer } from './helpers.ts';

let s: PreviewServer;
const repos = repoRoot();
let repo: TestRepo;
const name = uniqueName('pv');
const host = `${name}.app.test`;
const previewHost = (key: string) => `${key}.${name}.preview.test`;
let secret: string;
let port: number;
let previewToken: string;

before(async () => {
  s = await startPreviewServer([repos.root]);
  await edgeRunning(s);
  port = await freePort();
  repo = await TestRepo.create(repos.root, 'previewed');
  await repo.commit({ 'compose.yaml': previewCompose(host, port), '.env': 'MESSAGE=main\n' }, 'initial');
  await createStack(s, name, busybox());
  await setSource(s, name, { url: repo.bare, branch: 'main', autodeploy: false });
  await act(s, 'deploy', name);
  await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.status === 200 && a.body.includes('message=main-none'));
  secret = (await s.api('POST', `/api/v1/stacks/${name}/webhooks/push`)).body.secret;
});
after(async () => {
  await s?.close();
  await cleanupProjects(name, ...['pr-7', 'pr-8', 'ci-1', 'ci-2'].map((k) => `${name}-${k}`));
  repos.rm();
});

const settings = (body: Record<string, unknown>) => s.api('PUT', `/api/v1/stacks/${name}/previews`, { body });
const jobOf = async (res: { status: number; text: string; body: any }) => {
  assert.equal(res.status, 202, res.text);
  assert.ok(res.body.jobId, res.text);
  const job = await waitJob(s, res.body.jobId);
  assert.equal(job.status, 'succeeded', `${job.error}\n${job.output}`);
  return job;
};

test('settings: off by default; a hostname template needs {key} and must make a hostname; pull requests are ignored while off', async () => {
  const first = await s.api('GET', `/api/v1/stacks/${name}/previews`);
  assert.equal(first.status, 200, first.text);
  assert.deepEqual({ ...first.body, previews: first.body.previews.length }, {
    stack: name, enabled: false, hostname: null, maxActive: 5, idleDays: 7, fromForks: false, variables: {}, token: { enabled: false }, previews: 0,
  });
  const off = await deliver(s, name, secret, pullRequest('opened', 7, '1'.repeat(40)));
  assert.equal(off.status, 202, off.text);
  assert.equal(off.body.ignored, true);
  assert.match(off.body.reason, /not enabled/);

  for (const hostname of ['pr.preview.test', '{key}.{nope}.test', '{key}..test']) {
    const bad = await settings({ enabled: true, hostname });
    assert.equal(bad.status, 422, `${hostname}: ${bad.text}`);
    assert.equal(bad.headers.get('content-type'), 'application/problem+json');
  }
  assert.equal((await settings({ enabled: true, maxActive: 0 })).status, 400);
  const ok = await settings({ enabled: true, hostname: '{key}.{stack}.preview.test', maxActive: 2, variables: { EXTRA: 'from-settings' } });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.body.hostname, '{key}.{stack}.preview.test');
  assert.equal(ok.body.idleDays, 7);
});

test('opened: the pull request\'s compose serves on its own hostname, isolated, while the parent serves its own', async () => {
  const head = await repo.commit({ '.env': 'MESSAGE=pr-one\n' }, 'pr one', 'feature');
  await setPullRef(repo, 7, head);
  const res = await deliver(s, name, secret, pullRequest('opened', 7, head));
  assert.equal(res.body.outcome, 'deployed', res.text);
  const job = await jobOf(res);
  assert.match(job.output, /not published in a preview/);
  assert.equal(job.actor.kind, 'github');

  const served = await edgeAnswers(s.httpPort, previewHost('pr-7'), '/cgi-bin/env', (a) => a.status === 200 && a.body.includes('message=pr-one-from-settings'));
  assert.match(served.body, /hostname=/);
  assert.match((await viaEdge(s.httpPort, host, '/cgi-bin/env')).body, /message=main-none/, 'the parent serves its own commit');

  const c = await containerOf(`${name}-pr-7`, 'web');
  assert.ok(c, 'the preview runs as its own project');
  assert.equal(c.Labels['dockwright.preview'], 'pr-7');
  assert.equal(c.Labels['dockwright.parent'], name);
  assert.deepEqual(c.Ports.filter((p) => p.PublicPort), [], 'no host port is published');
  const held = await leftovers(`${name}-pr-7`);
  assert.deepEqual(held.volumes, [`${name}-pr-7_data`], 'a volume of its own');
  assert.ok(held.networks.includes(`${name}-pr-7_default`), held.networks.join(', '));

  const list = (await s.api('GET', `/api/v1/stacks/${name}/previews`)).body.previews;
  assert.equal(list.length, 1);
  assert.deepEqual({ ...list[0], createdAt: undefined, updatedAt: undefined, deployedAt: undefined, lastJob: list[0].lastJob.status }, {
    key: 'pr-7', pullRequest: 7, ref: 'refs/pull/7/head', commit: head, deployedCommit: head, urls: [`http://${previewHost('pr-7')}`],
    status: 'running', createdAt: undefined, updatedAt: undefined, deployedAt: undefined, lastJob: 'succeeded',
  });
});

test('synchronize: the new commit serves; a fork\'s pull request and other actions are ignored with a reason', async () => {
  const next = await repo.commit({ '.env': 'MESSAGE=pr-two\n' }, 'pr two', 'feature');
  await setPullRef(repo, 7, next);
  const started = Date.now();
  const res = await deliver(s, name, secret, pullRequest('synchronize', 7, next));
  assert.equal(res.body.outcome, 'deployed', res.text);
  await edgeAnswers(s.httpPort, previewHost('pr-7'), '/cgi-bin/env', (a) => a.status === 200 && a.body.includes('message=pr-two-from-settings'), 60_000);
  console.log(`synchronize → the new commit serving through the edge: ${Date.now() - started} ms`);
  await waitJob(s, res.body.jobId);

  const fork = await deliver(s, name, secret, pullRequest('opened', 8, next, { fork: true }));
  assert.equal(fork.status, 202);
  assert.equal(fork.body.ignored, true);
  assert.match(fork.body.reason, /fork/);
  const labeled = await deliver(s, name, secret, pullRequest('labeled', 7, next));
  assert.equal(labeled.body.ignored, true);
  assert.match(labeled.body.reason, /"labeled"/);
  assert.equal((await leftovers(`${name}-pr-8`)).containers.length, 0);
});

test('the API and the preview token: a branch with variables; maxActive refuses with 409 and an alert; the token works on its two paths only', async () => {
  const created = await s.api('PUT', `/api/v1/stacks/${name}/previews/ci-1`, { body: { ref: 'feature', variables: { EXTRA: 'from-ci' } } });
  await jobOf(created);
  await edgeAnswers(s.httpPort, previewHost('ci-1'), '/cgi-bin/env', (a) => a.status === 200 && a.body.includes('message=pr-two-from-ci'));

  const refused = await s.api('PUT', `/api/v1/stacks/${name}/previews/ci-2`, { body: {} });
  assert.equal(refused.status, 409, refused.text);
  assert.match(refused.body.detail, /maxActive/);
  const alerts = (await s.api('GET', '/api/v1/alerts')).body;
  assert.ok(alerts.some((a: any) => a.kind === 'preview-limit' && a.resource === `stack:${name}`), JSON.stringify(alerts));
  assert.equal((await s.api('PUT', `/api/v1/stacks/${name}/previews/Bad_Key`, { body: {} })).status, 400);
  const full = await deliver(s, name, secret, pullRequest('opened', 9, '3'.repeat(40)));
  assert.equal(full.status, 202, full.text);
  assert.equal(full.body.ignored, true);
  assert.match(full.body.reason, /maxActive/);

  const enabled = await s.api('POST', `/api/v1/stacks/${name}/webhooks/preview`);
  assert.equal(enabled.status, 200, enabled.text);
  const token = enabled.body.token;
  previewToken = token;
  assert.match(enabled.body.url, new RegExp(`/api/stacks/${name}/previews/\\{key\\}$`));
  const viaToken = await fetch(`${s.url}/api/stacks/${name}/previews/ci-1`, {
    method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ ref: 'feature', variables: { EXTRA: 'from-token' } }),
  });
  const answer = await viaToken.json() as any;
  assert.equal(viaToken.status, 202, JSON.stringify(answer));
  assert.equal((await waitJob(s, answer.jobId)).status, 'succeeded');
  await edgeAnswers(s.httpPort, previewHost('ci-1'), '/cgi-bin/env', (a) => a.status === 200 && a.body.includes('message=pr-two-from-token'));
  for (const [method, path] of [['POST', `/api/stacks/${name}/deploy`], ['GET', `/api/v1/stacks/${name}`], ['GET', `/api/v1/stacks/${name}/previews`], ['PUT', `/api/stacks/other/previews/ci-1`]]) {
    const r = await fetch(`${s.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
    assert.equal(r.status, 401, `${method} ${path}`);
  }
});

test('a viewer outside the stack\'s access list sees no preview anywhere; the overview counts them for others', async () => {
  const viewer = await s.token('viewer', ['stacks:read', 'jobs:read', 'activity:read', 'containers:read'], { name: `outsider-${name}` });
  const insider = await s.token('operator', ['stacks:read', 'containers:read'], { name: `insider-${name}` });
  const before = (await s.api('GET', '/api/v1/overview')).body;
  assert.equal(before.summary.previews.total, 2, JSON.stringify(before.summary));
  const stack = (await s.api('GET', `/api/v1/stacks/${name}`)).body;
  assert.equal((await s.api('POST', `/api/v1/stacks/${name}/access`, { body: { entries: [{ principal: 'user:somebody-else', role: 'manager' }, { principal: `user:insider-${name}`, role: 'viewer' }] } })).status, 200);
  const theirs = await s.api('GET', '/api/v1/containers', { token: insider });
  assert.ok(theirs.text.includes(`${name}-pr-7`), 'someone on the stack\'s list sees its previews\' containers');
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}/previews`, { token: insider })).body.previews.length, 2);
  const outside = await s.api('GET', '/api/v1/containers', { token: viewer });
  assert.equal(outside.status, 200, outside.text);
  assert.ok(!outside.text.includes(name), 'no container of the stack or its previews');
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}/previews`, { token: viewer })).status, 404);
  assert.equal((await s.api('GET', '/api/v1/overview', { token: viewer })).body.summary.previews.total, 0);
  const jobs = await s.api('GET', `/api/v1/jobs?resource=stack:${name}`, { token: viewer });
  assert.deepEqual(jobs.body, []);
  const activity = await s.api('GET', '/api/v1/activity', { token: viewer });
  assert.ok(!activity.text.includes(name), 'no activity of the stack');
  assert.equal((await s.api('POST', `/api/v1/stacks/${name}/access`, { body: { entries: [] } })).status, 200);
  assert.ok(stack.revision >= 1);
});

test('closed: the preview leaves nothing behind (containers, networks, volumes, route); removing the stack removes its previews', async () => {
  const res = await deliver(s, name, secret, pullRequest('closed', 7, '2'.repeat(40)));
  assert.equal(res.body.outcome, 'removed', res.text);
  await jobOf(res);
  assert.deepEqual(await leftovers(`${name}-pr-7`), { containers: [], networks: [], volumes: [] });
  assert.equal((await viaEdge(s.httpPort, previewHost('pr-7'), '/')).status, 404);
  assert.match((await viaEdge(s.httpPort, host, '/cgi-bin/env')).body, /message=main-none/, 'the parent is untouched');
  const again = await deliver(s, name, secret, pullRequest('closed', 7, '2'.repeat(40)));
  assert.equal(again.body.ignored, true);

  const activity = (await s.api('GET', `/api/v1/activity?resource=stack:${name}`)).body;
  assert.ok(activity.some((a: any) => a.action === 'stack.pull-request' && a.actor.kind === 'github'), JSON.stringify(activity.map((a: any) => a.action)));
  assert.ok(activity.some((a: any) => a.action === 'stack.preview.deploy' && a.actor.kind === 'user'));

  const stack = (await s.api('GET', `/api/v1/stacks/${name}`)).body;
  const removed = await s.api('DELETE', `/api/v1/stacks/${name}?volumes=1`, { headers: { 'if-match': `"${stack.revision}"` } });
  assert.ok(removed.status === 200 || removed.status === 202, removed.text);
  await eventually(async () => (await leftovers(`${name}-ci-1`)).containers.length === 0 && (await leftovers(`${name}-ci-1`)).volumes.length === 0, 60_000, 'the preview ci-1 removed with its stack', 200);
  assert.deepEqual(await leftovers(`${name}-ci-1`), { containers: [], networks: [], volumes: [] });
  await edgeAnswers(s.httpPort, previewHost('ci-1'), '/', (a) => a.status === 404);
  const revoked = await fetch(`${s.url}/api/stacks/${name}/previews/ci-1`, { method: 'DELETE', headers: { authorization: `Bearer ${previewToken}` } });
  assert.equal(revoked.status, 401, 'the preview token goes with its stack');
  await createStack(s, name, busybox());
  const fresh = (await s.api('GET', `/api/v1/stacks/${name}/previews`)).body;
  assert.deepEqual([fresh.enabled, fresh.previews, fresh.variables], [false, [], {}], 'a new stack of that name starts without previews');
  const recreated = (await s.api('GET', `/api/v1/stacks/${name}`)).body;
  await s.api('DELETE', `/api/v1/stacks/${name}`, { headers: { 'if-match': `"${recreated.revision}"` } });
});
