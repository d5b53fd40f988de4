// A stack's named volumes: deleting the stack keeps them unless ?volumes=1 and names them either way; GET /volumes lists this installation's (sizes on request); an unused one is removed, one in use is 409, a hidden stack's is 404.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, type TestServer } from '../../helpers/harness.ts';
import { act, cleanupProjects, createStack, docker, startStacksServer, uniqueName } from './helpers.ts';

let s: TestServer;
const names: string[] = [];
const fresh = (prefix: string) => { const n = uniqueName(prefix); names.push(n); return n; };
const foreign = `dwforeign${uniqueName('v')}_data`;
before(async () => { s = await startStacksServer(); });
after(async () => {
  await cleanupProjects(...names);
  await docker.getVolume(foreign).remove().catch(() => undefined);
  await s.close();
});

// writes 64 KiB into the volume, then sleeps
const withVolume = `services:
  app:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "head -c 65536 /dev/zero > /data/blob; sleep 3600"]
    volumes: ["data:/data"]
volumes:
  data: {}
`;

const exists = async (volume: string) => docker.getVolume(volume).inspect().then(() => true, () => false);
const revisionOf = async (name: string) => (await s.api('GET', `/api/v1/stacks/${name}`)).body.revision as number;

test('deleting a stack keeps its named volumes and names them; GET /volumes lists them with sizes only on request; an unused one is removed', async () => {
  const name = fresh('vol');
  await createStack(s, name, withVolume);
  await act(s, 'deploy', name);
  const volume = `${name}_data`;

  const removed = await s.api('DELETE', `/api/v1/stacks/${name}`, { headers: { 'if-match': `"${await revisionOf(name)}"` } });
  assert.equal(removed.status, 200, removed.text);
  assert.deepEqual(removed.body.volumes, { kept: [volume], removed: [] });
  assert.ok(await exists(volume), 'the volume is kept on the engine');
  const job = await s.api('GET', `/api/v1/jobs/${removed.body.jobId}`);
  assert.deepEqual(job.body.result.volumes, { kept: [volume], removed: [] });
  assert.match(job.body.output, new RegExp(`volumes are kept \\(${volume}\\)`));

  const listed = await s.api('GET', '/api/v1/volumes');
  assert.equal(listed.status, 200, listed.text);
  const entry = listed.body.find((v: any) => v.name === volume);
  assert.deepEqual({ ...entry, createdAt: undefined }, { name: volume, stack: name, stackExists: false, driver: 'local', createdAt: undefined, size: null, containers: null }, 'no sizes unless asked');
  const measured = await s.api('GET', '/api/v1/volumes?size=1');
  assert.equal(measured.status, 200, measured.text);
  const sized = measured.body.find((v: any) => v.name === volume);
  assert.ok(sized.size >= 65536, `the size is measured: ${sized.size}`);
  assert.equal(sized.containers, 0);

  const operator = await s.token('operator', ['stacks:read', 'stacks:write'], { name: `op-${name}` });
  assert.ok(!(await call(s.url, 'GET', '/api/v1/volumes', { token: operator })).body.some((v: any) => v.name === volume), 'a volume of no stack is for admins');
  assert.equal((await call(s.url, 'DELETE', `/api/v1/volumes/${volume}`, { token: operator })).status, 404);

  const gone = await s.api('DELETE', `/api/v1/volumes/${volume}`);
  assert.equal(gone.status, 204, gone.text);
  assert.equal(await exists(volume), false);
  assert.equal((await s.api('DELETE', `/api/v1/volumes/${volume}`)).status, 404);
});

test('a volume in use is 409; deleting the stack with ?volumes=1 removes and names them; another installation\'s volume is 404', async () => {
  const name = fresh('vol');
  await createStack(s, name, withVolume);
  await act(s, 'deploy', name);
  const volume = `${name}_data`;

  const busy = await s.api('DELETE', `/api/v1/volumes/${volume}`);
  assert.equal(busy.status, 409, busy.text);
  assert.match(busy.body.type, /volume-in-use$/);
  assert.ok(await exists(volume));
  const listed = (await s.api('GET', '/api/v1/volumes?size=1')).body.find((v: any) => v.name === volume);
  assert.equal(listed.stackExists, true);
  assert.equal(listed.containers, 1);

  const removed = await s.api('DELETE', `/api/v1/stacks/${name}?volumes=1`, { headers: { 'if-match': `"${await revisionOf(name)}"` } });
  assert.equal(removed.status, 200, removed.text);
  assert.deepEqual(removed.body.volumes, { kept: [], removed: [volume] });
  assert.equal(await exists(volume), false);

  await docker.createVolume({ Name: foreign, Labels: { 'dockwright.managed': 'true', 'dockwright.project': 'dwforeign', 'dockwright.installation': 'another-installation' } });
  assert.ok(!(await s.api('GET', '/api/v1/volumes')).body.some((v: any) => v.name === foreign), 'not listed');
  assert.equal((await s.api('DELETE', `/api/v1/volumes/${foreign}`)).status, 404);
  assert.ok(await exists(foreign), 'another installation\'s volume is never touched');
});

test("a stack's volume is as visible as the stack: not listed for a viewer or operator not on its access list, 404 to delete, 403 for one below manager", async () => {
  const name = fresh('vol');
  await createStack(s, name, withVolume);
  await act(s, 'deploy', name);
  await act(s, 'stop', name);
  const volume = `${name}_data`;
  const scopes = ['stacks:read', 'stacks:write'];
  const viewer = await s.token('viewer', ['stacks:read'], { name: `vw-${name}` });
  const outsider = await s.token('operator', scopes, { name: `out-${name}` });
  const onList = await s.token('operator', scopes, { name: `in-${name}` });
  const manager = await s.token('operator', scopes, { name: `mgr-${name}` });
  const set = await s.api('POST', `/api/v1/stacks/${name}/access`, { body: { entries: [{ principal: `user:in-${name}`, role: 'operator' }, { principal: `user:mgr-${name}`, role: 'manager' }] } });
  assert.equal(set.status, 200, set.text);

  for (const token of [viewer, outsider]) {
    assert.ok(!(await call(s.url, 'GET', '/api/v1/volumes', { token })).body.some((v: any) => v.name === volume), 'a hidden stack\'s volume is not listed');
  }
  assert.equal((await call(s.url, 'DELETE', `/api/v1/volumes/${volume}`, { token: viewer })).status, 403, 'a viewer holds no stacks:write');
  const hidden = await call(s.url, 'DELETE', `/api/v1/volumes/${volume}`, { token: outsider });
  assert.equal(hidden.status, 404, hidden.text);
  assert.doesNotMatch(hidden.body.detail, /stack/, 'the hidden stack is not named');
  assert.ok((await call(s.url, 'GET', '/api/v1/volumes', { token: onList })).body.some((v: any) => v.name === volume), 'on the list: listed');
  assert.equal((await call(s.url, 'DELETE', `/api/v1/volumes/${volume}`, { token: onList })).status, 403, 'an operator on the list may not remove data');
  assert.ok(await exists(volume));
  assert.equal((await call(s.url, 'DELETE', `/api/v1/volumes/${volume}`, { token: manager })).status, 204, 'a manager of the stack may');
  assert.equal(await exists(volume), false);
});
