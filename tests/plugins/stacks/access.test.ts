// Access lists and crashes: who sees and deploys a stack; a restart in the middle of a deploy leaves a failed job and a redeploy converges.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, eventually, startChild, type TestServer } from '../../helpers/harness.ts';
import { busybox, cleanupProjects, createStack, projectContainers, slowCompose, startStacksServer, uniqueName, waitJob } from './helpers.ts';

let s: TestServer;
const names: string[] = [];
const fresh = (prefix: string) => { const n = uniqueName(prefix); names.push(n); return n; };
before(async () => { s = await startStacksServer(); });
after(async () => { await cleanupProjects(...names); await s.close(); });

test('a user not on a non-empty access list gets 404; list roles gate read, deploy and write; admins see all', async () => {
  const open = fresh('acc');
  const guarded = fresh('acc');
  await createStack(s, open, busybox());
  await createStack(s, guarded, busybox());
  const all = ['stacks:read', 'stacks:write', 'stacks:deploy', 'containers:read', 'containers:write', 'containers:logs', 'jobs:read', 'jobs:cancel', 'activity:read'];
  const alice = await s.token('operator', all, { name: `alice-${guarded}` });
  const bob = await s.token('operator', all, { name: `bob-${guarded}` });
  const carol = await s.token('operator', all, { name: `carol-${guarded}`, teams: ['ops'] });
  const dave = await s.token('operator', all, { name: `dave-${guarded}` });

  const bad = await s.api('POST', `/api/v1/stacks/${guarded}/access`, { body: { entries: [{ principal: 'group:x', role: 'viewer' }] } });
  assert.equal(bad.status, 400);
  const set = await s.api('POST', `/api/v1/stacks/${guarded}/access`, {
    body: { entries: [{ principal: `user:alice-${guarded}`, role: 'manager' }, { principal: `user:bob-${guarded}`, role: 'viewer' }, { principal: 'team:ops', role: 'operator' }] },
  });
  assert.equal(set.status, 200, set.text);
  assert.equal((await s.api('GET', `/api/v1/stacks/${guarded}/access`)).body.length, 3);

  const get = (token: string, path = '') => call(s.url, 'GET', `/api/v1/stacks/${guarded}${path}`, { token });
  assert.equal((await get(dave)).status, 404, 'not on the list: the stack does not exist for dave');
  assert.equal((await get(dave, '/compose')).status, 404);
  assert.equal((await call(s.url, 'POST', `/api/v1/stacks/${guarded}/deploy`, { token: dave })).status, 404);
  // creating it again is no way to learn that it exists: 404 as well, whether by If-None-Match or by revision 0
  const create = (token: string, how: { headers?: Record<string, string>; revision?: number }) =>
    call(s.url, 'PUT', `/api/v1/stacks/${guarded}/compose`, { token, headers: how.headers, body: { content: busybox(), ...(how.revision === undefined ? {} : { revision: how.revision }) } });
  for (const how of [{ headers: { 'if-none-match': '*' } }, { revision: 0 }]) {
    const hidden = await create(dave, how);
    assert.equal(hidden.status, 404, hidden.text);
    assert.doesNotMatch(hidden.text, /exists/);
    assert.equal((await create(s.admin, how)).status, 409, 'one who sees it learns that it exists');
  }
  const daveList = await call(s.url, 'GET', '/api/v1/stacks?limit=1000', { token: dave });
  assert.ok(!daveList.body.some((x: any) => x.name === guarded));
  assert.ok(daveList.body.some((x: any) => x.name === open), 'a stack with an empty list is governed by roles alone');

  assert.equal((await get(bob)).status, 200, 'viewer on the list reads');
  assert.equal((await call(s.url, 'POST', `/api/v1/stacks/${guarded}/deploy`, { token: bob })).status, 403, 'a viewer cannot deploy');
  const carolDeploy = await call(s.url, 'POST', `/api/v1/stacks/${guarded}/deploy`, { token: carol });
  assert.equal(carolDeploy.status, 202, 'a team operator deploys');
  assert.equal((await call(s.url, 'PUT', `/api/v1/stacks/${guarded}/env`, { token: carol, body: { values: {}, revision: 1 } })).status, 403, 'an operator on the list cannot write');
  assert.equal((await call(s.url, 'PUT', `/api/v1/stacks/${guarded}/env`, { token: alice, body: { values: { A: '1', DB_PASSWORD: 'guarded-pw-1' }, revision: 1 } })).status, 200, 'a manager writes');
  for (const [who, token] of [['bob', bob], ['carol', carol]] as const) {
    const env = await call(s.url, 'GET', `/api/v1/stacks/${guarded}/env`, { token });
    assert.equal(env.body.values.DB_PASSWORD, '***', `${who} holds stacks:write but is no manager of this stack: secrets stay hidden`);
    assert.doesNotMatch((await call(s.url, 'GET', `/api/v1/stacks/${guarded}/revisions/2`, { token })).text, /guarded-pw-1/);
  }
  assert.equal((await call(s.url, 'GET', `/api/v1/stacks/${guarded}/env`, { token: alice })).body.values.DB_PASSWORD, 'guarded-pw-1');
  assert.equal((await call(s.url, 'POST', `/api/v1/stacks/${guarded}/access`, { token: carol, body: { entries: [] } })).status, 403);
  assert.equal((await get(s.admin)).status, 200, 'admins see every stack');
  assert.equal((await waitJob(s, carolDeploy.body.id)).status, 'succeeded');

  // its jobs and activity are as visible as the stack
  const daveJobs = await call(s.url, 'GET', `/api/v1/jobs?resource=stack:${guarded}`, { token: dave });
  assert.deepEqual(daveJobs.body, []);
  assert.equal((await call(s.url, 'GET', `/api/v1/jobs/${carolDeploy.body.id}`, { token: dave })).status, 404);
  assert.equal((await call(s.url, 'GET', `/api/v1/jobs/${carolDeploy.body.id}/wait?timeout=1`, { token: dave })).status, 404);
  assert.equal((await call(s.url, 'POST', `/api/v1/jobs/${carolDeploy.body.id}/cancel`, { token: dave })).status, 404);
  assert.equal((await call(s.url, 'POST', `/api/v1/jobs/${carolDeploy.body.id}/cancel`, { token: bob })).status, 403, 'a viewer on the list cannot cancel its jobs');
  assert.deepEqual((await call(s.url, 'GET', `/api/v1/activity?resource=stack:${guarded}`, { token: dave })).body, []);
  assert.equal((await call(s.url, 'GET', `/api/v1/jobs/${carolDeploy.body.id}`, { token: bob })).status, 200);
  assert.ok((await call(s.url, 'GET', `/api/v1/activity?resource=stack:${guarded}`, { token: bob })).body.length > 0);

  // the stack's containers are as visible and as usable as the stack
  const container = `${guarded}-app-1`;
  const listed = (token: string) => call(s.url, 'GET', `/api/v1/containers?stack=${guarded}`, { token });
  assert.deepEqual((await listed(dave)).body, [], 'dave does not see the containers of a stack hidden from him');
  assert.equal((await listed(bob)).body.length, 1);
  assert.equal((await call(s.url, 'POST', `/api/v1/containers/${container}/restart?timeout=1`, { token: dave })).status, 404);
  assert.equal((await call(s.url, 'GET', `/api/v1/containers/${container}/logs`, { token: dave })).status, 404);
  assert.equal((await call(s.url, 'POST', `/api/v1/containers/${container}/restart?timeout=1`, { token: bob })).status, 403, 'a viewer on the list cannot act on its containers');
  assert.equal((await call(s.url, 'GET', `/api/v1/containers/${container}/logs`, { token: bob })).status, 403);
  assert.equal((await call(s.url, 'POST', `/api/v1/containers/${container}/restart?timeout=1`, { token: carol })).status, 200, 'an operator on the list can');
  assert.equal((await call(s.url, 'GET', `/api/v1/containers/${container}/logs`, { token: carol })).status, 200);
});

test('a removed user or team takes its access entries along: a new user or team of the same name sees nothing, and the list stays closed', async () => {
  const guarded = fresh('gone');
  const only = fresh('gone');
  const missing = uniqueName('gone');
  await createStack(s, guarded, busybox());
  await createStack(s, only, busybox());
  const scopes = ['stacks:read', 'stacks:deploy', 'jobs:read'];
  const uma = `uma-${guarded}`;
  const crew = `crew-${guarded}`;
  const tokenOf = async (user: string) => (await s.app.tokens.create({ user, name: 'test', scopes })).token;
  const made = (await s.api('POST', '/api/v1/users', { body: { name: uma, role: 'operator' } }));
  assert.equal(made.status, 201, made.text);
  assert.equal((await s.api('POST', '/api/v1/teams', { body: { name: crew } })).status, 201);
  const tim = await s.token('operator', scopes, { name: `tim-${guarded}`, teams: [crew] });
  assert.equal((await s.api('POST', `/api/v1/stacks/${guarded}/access`, { body: { entries: [{ principal: `user:${uma}`, role: 'manager' }, { principal: `team:${crew}`, role: 'viewer' }] } })).status, 200);
  assert.equal((await s.api('POST', `/api/v1/stacks/${only}/access`, { body: { entries: [{ principal: `user:${uma}`, role: 'operator' }] } })).status, 200);
  const oldUma = await tokenOf(uma);
  assert.equal((await call(s.url, 'GET', `/api/v1/stacks/${guarded}`, { token: oldUma })).status, 200, 'on the list: seen');
  assert.equal((await call(s.url, 'GET', `/api/v1/stacks/${guarded}`, { token: tim })).status, 200, 'through the team: seen');

  assert.equal((await s.api('DELETE', `/api/v1/users/${uma}`)).status, 204);
  assert.equal((await s.api('DELETE', `/api/v1/teams/${crew}`)).status, 204);
  assert.equal((await s.api('POST', '/api/v1/users', { body: { name: uma, role: 'operator' } })).status, 201, 'the name is free again');
  assert.equal((await s.api('POST', '/api/v1/teams', { body: { name: crew } })).status, 201);
  const newUma = await tokenOf(uma);
  const tara = await s.token('operator', scopes, { name: `tara-${guarded}`, teams: [crew] });

  // the hidden stacks answer exactly as a stack that does not exist
  const same = (text: string, name: string) => text.replaceAll(name, '<stack>');
  for (const [who, token] of [['the new user', newUma], ['a member of the new team', tara]] as const) {
    for (const name of [guarded, only]) {
      for (const [method, path] of [['GET', ''], ['GET', '/compose'], ['GET', '/access'], ['POST', '/deploy']] as const) {
        const hidden = await call(s.url, method, `/api/v1/stacks/${name}${path}`, { token });
        const absent = await call(s.url, method, `/api/v1/stacks/${missing}${path}`, { token });
        assert.equal(hidden.status, 404, `${who}: ${method} ${name}${path}: ${hidden.text}`);
        assert.equal(same(hidden.text, name), same(absent.text, missing), `${who}: ${method} ${path} answers as for a missing stack`);
      }
    }
    const list = await call(s.url, 'GET', '/api/v1/stacks?limit=1000', { token });
    assert.ok(!list.body.some((x: any) => x.name === guarded || x.name === only), `${who} does not list them`);
  }
  const entries = (await s.api('GET', `/api/v1/stacks/${guarded}/access`)).body;
  assert.deepEqual(entries, [{ principal: `user:${uma}`, role: 'manager', removed: true }, { principal: `team:${crew}`, role: 'viewer', removed: true }], 'the entries show they were removed');
  const stranger = await s.token('operator', scopes, { name: `sam-${guarded}` });
  assert.equal((await call(s.url, 'GET', `/api/v1/stacks/${only}`, { token: stranger })).status, 404, 'a list left with removed entries stays closed: no one else sees the stack');
  assert.equal((await s.api('GET', `/api/v1/stacks/${only}`)).status, 200, 'admins still do');
  // naming the new user again grants it
  assert.equal((await s.api('POST', `/api/v1/stacks/${only}/access`, { body: { entries: [{ principal: `user:${uma}`, role: 'viewer' }] } })).status, 200);
  assert.equal((await call(s.url, 'GET', `/api/v1/stacks/${only}`, { token: newUma })).status, 200);
});

test('a restart during a deploy: the job fails "interrupted by restart", and a redeploy converges', async () => {
  const name = fresh('crash');
  await createStack(s, name, slowCompose(30));
  const config = {
    databaseUrl: s.databaseUrl, dataDir: s.dataDir,
    plugins: { docker: { options: { stopTimeoutSeconds: 1, healthTimeoutMs: 120_000, reconcile: false } }, containers: {}, stacks: {} },
  };
  const first = await startChild(config);
  const job = (await call(first.url, 'POST', `/api/v1/stacks/${name}/deploy`, { token: s.admin })).body;
  await eventually(async () => (await projectContainers(name)).some((c) => c.Labels['dockwright.service'] === 'slow' && c.State === 'running'), 60_000, 'the slow service to start');
  await first.kill('SIGKILL');

  const second = await startChild(config);
  try {
    const interrupted = (await call(second.url, 'GET', `/api/v1/jobs/${job.id}/wait`, { token: s.admin })).body;
    assert.equal(interrupted.status, 'failed');
    assert.equal(interrupted.error, 'interrupted by restart');
    const stack = (await call(second.url, 'GET', `/api/v1/stacks/${name}`, { token: s.admin })).body;
    assert.equal(stack.status, 'failed');
    await call(second.url, 'PUT', `/api/v1/stacks/${name}/compose`, { token: s.admin, body: { content: slowCompose(2), revision: 1 } });
    const redeploy = (await call(second.url, 'POST', `/api/v1/stacks/${name}/deploy`, { token: s.admin })).body;
    let done: any;
    do done = (await call(second.url, 'GET', `/api/v1/jobs/${redeploy.id}/wait?timeout=60`, { token: s.admin })).body; while (!done.done);
    assert.equal(done.status, 'succeeded', done.output);
    const after = (await call(second.url, 'GET', `/api/v1/stacks/${name}`, { token: s.admin })).body;
    assert.equal(after.status, 'running');
    const containers = await projectContainers(name);
    assert.deepEqual(containers.map((c) => c.Labels['dockwright.service']).sort(), ['app', 'slow'], 'one container per service, nothing left over');
    assert.ok(containers.every((c) => c.State === 'running'));
  } finally {
    await second.kill('SIGTERM');
  }
});
