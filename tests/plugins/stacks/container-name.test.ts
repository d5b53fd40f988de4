// container_name through the stacks API: allowed by default, but a name held on the engine by another stack or a container made outside Dockwright is refused at PUT and validate (container-name-available), and at deploy time names its holder.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { act, cleanupProjects, createStack, docker, startStacksServer, uniqueName } from './helpers.ts';

let s: TestServer;
const first = uniqueName('cn');
const second = uniqueName('cn');
const late = uniqueName('cn');
const held = `${first}-fixed`;
const outside = uniqueName('cnout');
const takenLater = uniqueName('cnlate');

const named = (container: string) => `services:\n  app:\n    image: dockwright-test/busybox:1\n    container_name: ${container}\n    command: ["sleep", "3600"]\n`;

before(async () => { s = await startStacksServer(); });
after(async () => {
  await cleanupProjects(first, second, late);
  for (const c of [held, outside, takenLater]) await docker.getContainer(c).remove({ force: true }).catch(() => undefined);
  await s?.close();
});

test('a stack deploys with its container_name; another stack asking for it is refused at PUT and validate without naming the holder', async () => {
  await createStack(s, first, named(held));
  await act(s, 'deploy', first);
  assert.equal((await docker.getContainer(held).inspect()).Config.Labels['dockwright.project'], first);

  const refused = await s.api('PUT', `/api/v1/stacks/${second}/compose`, { body: { content: named(held) }, headers: { 'if-none-match': '*' } });
  assert.equal(refused.status, 422, refused.text);
  assert.deepEqual(refused.body.errors.map((e: any) => [e.rule, e.path]), [['container-name-available', 'services.app.container_name']]);
  assert.match(refused.body.errors[0].message, new RegExp(`the container name ${held} is held by another stack`));
  assert.ok(!refused.text.includes(`${first} `) && !refused.text.includes(`stack ${first}`), 'the holding stack is not named: the caller may not see it');
  assert.equal((await s.api('GET', `/api/v1/stacks/${second}`)).status, 404, 'nothing was saved');

  const validated = await s.api('POST', `/api/v1/stacks/${second}/validate`, { body: { content: named(held) } });
  assert.deepEqual([validated.body.valid, validated.body.errors.map((e: any) => e.rule)], [false, ['container-name-available']]);
  // the stack that holds it keeps it
  const own = await s.api('POST', `/api/v1/stacks/${first}/validate`, { body: { content: named(held) } });
  assert.deepEqual(own.body.errors, []);
});

test('a name held by a container made outside Dockwright is refused at validate, and a name taken after the save fails the deploy naming the holder', async () => {
  await docker.createContainer({ name: outside, Image: 'dockwright-test/busybox:1', Cmd: ['sleep', '3600'] });
  const validated = await s.api('POST', `/api/v1/stacks/${second}/validate`, { body: { content: named(outside) } });
  assert.deepEqual(validated.body.errors.map((e: any) => [e.rule, e.path]), [['container-name-available', 'services.app.container_name']]);
  assert.match(validated.body.errors[0].message, /held by a container made outside Dockwright/);

  await createStack(s, late, named(takenLater));
  const made = await docker.createContainer({ name: takenLater, Image: 'dockwright-test/busybox:1', Cmd: ['sleep', '3600'] });
  const job = await act(s, 'deploy', late, 'failed');
  assert.match(job.error ?? '', new RegExp(`the container name "${takenLater}" is held by a container made outside Dockwright \\(${made.id.slice(0, 12)}, image dockwright-test/busybox:1\\)`));
  assert.doesNotMatch(job.error ?? '', /409|Conflict/);
});
