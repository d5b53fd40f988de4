// Listing stacks page by page with live status, and the overview: counts, and services that should run but do not.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { act, busybox, cleanupProjects, containerOf, createStack, docker, startStacksServer, uniqueName } from './helpers.ts';
import { until } from '../docker/helpers.ts';

let s: TestServer;
const prefix = uniqueName('ls');
const names = ['a', 'b', 'c'].map((x) => `${prefix}-${x}`);
before(async () => { s = await startStacksServer(); });
after(async () => { await cleanupProjects(...names); await s.close(); });

test('GET /stacks pages by name with a Link header, each stack with its live status', async () => {
  for (const n of names) await createStack(s, n, busybox({ one: 'sleep 3600', two: 'sleep 3600' }));
  await act(s, 'deploy', names[0]);
  const first = await s.api('GET', '/api/v1/stacks?limit=2');
  assert.equal(first.status, 200);
  assert.deepEqual(first.body.map((x: any) => x.name), names.slice(0, 2));
  assert.deepEqual(first.body.map((x: any) => x.status), ['running', 'never-deployed']);
  // the engine answers, so no item says why its status would be unknown
  assert.equal(first.body.some((x: any) => 'engineError' in x), false);
  assert.deepEqual(first.body[1].services, [{ name: 'one', declared: true, containers: [] }, { name: 'two', declared: true, containers: [] }]);
  assert.deepEqual(first.body.map((x: any) => x.webhooks), [0, 1].map(() => ({ deploy: { enabled: false }, push: { enabled: false } })));
  assert.deepEqual(first.body[0].services.map((x: any) => [x.name, x.containers.map((c: any) => c.state)]), [['one', ['running']], ['two', ['running']]]);
  const link = first.headers.get('link')!;
  assert.match(link, /rel="next"/);
  const second = await s.api('GET', link.slice(1, link.indexOf('>')));
  assert.deepEqual(second.body.map((x: any) => x.name), [names[2]]);
  assert.equal(second.headers.get('link'), null);
});

test('the overview counts stacks by status and names services that should run but do not', async () => {
  const victim = (await containerOf(names[0], 'two'))!;
  await docker.getContainer(victim.Id).kill();
  // the live status follows the engine's events: a moment after the kill, well within 2 s
  await until(async () => (await s.api('GET', `/api/v1/stacks/${names[0]}`)).body.status === 'partial', 2000, 'the stack to show as partial', 25);
  const overview = await s.api('GET', '/api/v1/overview');
  assert.equal(overview.body.summary.stacks.total, 3);
  assert.equal(overview.body.summary.stacks.partial, 1);
  assert.equal(overview.body.summary.stacks['never-deployed'], 2);
  const item = overview.body.attention.find((a: any) => a.resource === `stack:${names[0]}`);
  assert.equal(item.kind, 'services-down');
  assert.equal(item.severity, 'warning');
  assert.match(item.message, /two should run but is not running/);
  await act(s, 'deploy', names[0]);
  assert.equal((await s.api('GET', `/api/v1/stacks/${names[0]}`)).body.status, 'running', 'a redeploy brings it back');
});
