// Live status from the engine's events, on a second engine of this test's own: reads cost no engine call, kills and health show within moments, a broken stream falls back to direct calls, an engine restart is caught up with.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import type { DockerRuntime } from '../../../plugins/docker/types.ts';
import { act, createStack } from '../stacks/helpers.ts';
import { uniqueName, until } from './helpers.ts';
import { engineProxy, startSecondEngine, type EngineProxy, type SecondEngine } from './second-engine.ts';

const name = uniqueName('live');
let engine: SecondEngine;
let proxy: EngineProxy;
let s: TestServer;

const service = (extra: string) => `    image: dockwright-test/busybox:1\n    network_mode: none\n    stop_grace_period: 1s\n${extra}`;
const compose = `services:
  keeper:
${service('    command: ["sleep", "3600"]\n    restart: always\n')}  plain:
${service('    command: ["sleep", "3600"]\n')}  checked:
${service('    command: ["sh", "-c", "touch /tmp/ok; exec sleep 3600"]\n    healthcheck: { test: ["CMD", "test", "-f", "/tmp/ok"], interval: 300ms, timeout: 5s, retries: 1 }\n')}`;

function serverOn(socketPath: string, options: Record<string, unknown> = {}): Promise<TestServer> {
  return startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: {
      // resyncing rarely: what these tests see comes from events and from the resync of a (re)connection
      docker: { options: { socketPath, stopTimeoutSeconds: 1, reconnectDelayMs: 50, refreshDelayMs: 20, resyncIntervalMs: 3_600_000, ...options } },
      containers: {},
      stacks: {},
    },
  });
}

const followed = async (server: TestServer) => (await server.api('GET', '/api/v1/overview')).body.summary.docker.engine.eventsFollowed === true;
const stack = async () => (await s.api('GET', `/api/v1/stacks/${name}`)).body;
const containers = async () => (await s.api('GET', `/api/v1/containers?stack=${name}`)).body as { name: string; service: string; state: string; status: string; health: string | null; id: string }[];
const stateOf = async (svc: string) => (await stack()).services.find((x: any) => x.name === svc).containers[0];
const engineCalls = () => proxy.requests.filter((r) => !/\/events\b/.test(r));
/** waits until no engine call has been made for `ms` (the watcher's refreshes after an event are done) */
async function quiet(ms: number): Promise<void> {
  for (let seen = -1; seen !== engineCalls().length;) {
    seen = engineCalls().length;
    await new Promise((r) => setTimeout(r, ms));
  }
}

before(async () => {
  engine = await startSecondEngine();
  proxy = await engineProxy(engine.socketPath);
  s = await serverOn(proxy.socketPath);
  await createStack(s, name, compose);
  await act(s, 'deploy', name);
  await until(() => followed(s), 10_000, 'the events stream to be followed');
  await until(async () => (await stack()).status === 'running' && (await stateOf('checked')).health === 'healthy', 20_000, 'the stack to run, healthy');
});
after(async () => {
  await s?.close();
  await proxy?.close();
  await engine?.stop();
});

test('while the events stream is followed, reading stacks, containers and the overview costs no engine call', async () => {
  await quiet(300);
  proxy.requests.length = 0;
  for (let i = 0; i < 20; i++) {
    await Promise.all([
      s.api('GET', `/api/v1/stacks/${name}`), s.api('GET', '/api/v1/stacks'), s.api('GET', '/api/v1/containers'),
      s.api('GET', `/api/v1/containers?stack=${name}&status=running`), s.api('GET', '/api/v1/overview'),
    ]);
  }
  assert.deepEqual(engineCalls(), []);
  const list = await containers();
  assert.deepEqual(list.map((c) => `${c.service} ${c.state}`), ['checked running', 'keeper running', 'plain running']);
  assert.equal(list.find((c) => c.service === 'checked')!.health, 'healthy');
});

test('a container killed outside Dockwright shows as exited within 2 s, in the stack and in the containers list', async () => {
  const plain = (await containers()).find((c) => c.service === 'plain')!;
  await engine.docker.getContainer(plain.id).kill();
  await until(async () => {
    const [st, list] = await Promise.all([stack(), containers()]);
    const listed = list.find((c) => c.service === 'plain')!;
    return st.status === 'partial' && st.services.find((x: any) => x.name === 'plain').containers[0].state === 'exited' && listed.state === 'exited';
  }, 2000, 'the killed container to show as exited', 20);
  assert.match((await stateOf('plain')).status, /^Exited \(137\)/);

  // a start through the API is seen by the very next read
  const started = await s.api('POST', `/api/v1/containers/${plain.id}/start`);
  assert.equal(started.status, 200, started.text);
  assert.equal(started.body.state, 'running');
  assert.equal((await stack()).status, 'running');
});

test('the status of the live table is worked out once for each change of it: reads between changes share it, frozen', async () => {
  const runtime = s.app.apis.docker as DockerRuntime;
  await quiet(300);
  const first = (await runtime.status([name])).get(name)!;
  const again = (await runtime.status([name, 'no-such-stack'])).get(name)!;
  assert.equal(again, first, 'no change between the reads: the same services');
  assert.ok(Object.isFrozen(first) && Object.isFrozen(first[0]) && Object.isFrozen(first[0].containers) && Object.isFrozen(first[0].containers[0]));
  assert.throws(() => { (first[0].containers[0] as { state: string }).state = 'exited'; }, TypeError);
  assert.deepEqual((await runtime.status(['no-such-stack'])).get('no-such-stack'), []);

  const plain = first.find((x) => x.service === 'plain')!.containers[0];
  await engine.docker.getContainer(plain.id).kill();
  await until(async () => (await runtime.status([name])).get(name)!.find((x) => x.service === 'plain')!.containers[0].state === 'exited', 2000, 'the kill to show', 20);
  const after = (await runtime.status([name])).get(name)!;
  assert.notEqual(after, first, 'a change of the table: worked out anew');
  assert.equal(first.find((x) => x.service === 'plain')!.containers[0].state, 'running', 'what an earlier read got is left as it was');
  await engine.docker.getContainer(plain.id).start();
  await until(async () => (await stack()).status === 'running', 2000, 'plain to run again', 20);
});

test('a list answer taken before an event but arriving after it never undoes what the event said', async () => {
  const plain = (await containers()).find((c) => c.service === 'plain')!;
  assert.equal(plain.state, 'running');
  // the refreshes after the last test's events are done: the first list call from now on is the start's
  await quiet(300);
  const lists = proxy.holdLists();
  proxy.requests.length = 0;
  try {
    // the start changes nothing; the list call after it is answered by the engine now (running) but held back
    const answer = s.api('POST', `/api/v1/containers/${plain.id}/start`);
    await until(async () => proxy.requests.some((r) => r.startsWith(`GET /containers/json`) && r.includes(plain.id)), 2000, 'the list call to be made', 10);
    await engine.docker.getContainer(plain.id).kill();
    // the death is known from its event before the old answer arrives (however long the engine took to kill)
    await until(async () => (await stateOf('plain')).state === 'exited', 5000, 'the kill to show', 20);
    // only the old answer arrives: the lists the event and the old answer call for are held still
    lists.send(new RegExp(plain.id));
    assert.equal((await answer).status, 200);
    for (let i = 0; i < 10; i++) {
      assert.equal((await stateOf('plain')).state, 'exited', 'the late answer must not bring "running" back');
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    lists.stop();
  }
  await engine.docker.getContainer(plain.id).start();
  await until(async () => (await stack()).status === 'running', 2000, 'plain to run again', 20);
});

test('health follows the engine\'s health_status events', async () => {
  const checked = (await containers()).find((c) => c.service === 'checked')!;
  const exec = async (cmd: string[]) => {
    const e = await engine.docker.getContainer(checked.id).exec({ Cmd: cmd });
    await e.start({ Detach: true });
  };
  await exec(['rm', '/tmp/ok']);
  await until(async () => (await containers()).find((c) => c.service === 'checked')!.health === 'unhealthy', 10_000, 'checked to be unhealthy', 50);
  assert.equal((await stack()).status, 'partial', 'an unhealthy service is not up');
  await exec(['touch', '/tmp/ok']);
  await until(async () => (await stack()).status === 'running', 10_000, 'checked to be healthy again', 50);
  assert.equal((await stateOf('checked')).health, 'healthy');
});

test('while the events stream is down, reads ask the engine instead of answering from memory', async () => {
  proxy.events('refuse');
  await until(async () => !(await followed(s)), 5000, 'the events stream to be given up');
  proxy.requests.length = 0;
  const plain = (await containers()).find((c) => c.service === 'plain')!;
  await engine.docker.getContainer(plain.id).stop({ t: 0 });
  // no event can reach the service now: only a read that asks the engine sees the stop
  await until(async () => (await stateOf('plain')).state === 'exited', 2000, 'the stop to be seen', 20);
  assert.ok(engineCalls().some((r) => r.startsWith('GET /containers/json')), engineCalls().join('\n'));

  proxy.events('pass');
  await until(() => followed(s), 5000, 'the events stream to be followed again');
  await engine.docker.getContainer(plain.id).start();
  await until(async () => (await stack()).status === 'running', 2000, 'the start to be seen', 20);
  // the start event is followed by the watcher's own refresh of that container (refreshDelayMs): let it finish first
  await quiet(300);
  proxy.requests.length = 0;
  await stack();
  assert.deepEqual(engineCalls(), [], 'answers come from memory again');
});

test('a stream that stays open but misses events is put right by the periodic resync', async () => {
  const proxy2 = await engineProxy(engine.socketPath);
  const s2 = await serverOn(proxy2.socketPath, { resyncIntervalMs: 300 });
  // a container of nobody's: visible to this second installation, as the stack above is not
  const loose = await engine.docker.createContainer({ name: `${name}-loose`, Image: 'dockwright-test/busybox:1', Cmd: ['sleep', '3600'], HostConfig: { NetworkMode: 'none' } });
  try {
    await loose.start();
    await until(() => followed(s2), 10_000, 'the second server to follow events');
    const looseState = async () => ((await s2.api('GET', '/api/v1/containers')).body as any[]).find((c) => c.name === `${name}-loose`)?.state;
    await until(async () => (await looseState()) === 'running', 5000, 'the loose container to be listed');
    assert.equal(((await s2.api('GET', '/api/v1/containers')).body as any[]).some((c) => c.project === name), false, 'another installation\'s containers are not listed');
    proxy2.events('mute');
    await loose.kill();
    await until(async () => (await looseState()) === 'exited', 5000, 'the resync to see the kill', 50);
    assert.equal(await followed(s2), true, 'the stream was never broken: the resync put it right');
  } finally {
    await loose.remove({ force: true }).catch(() => undefined);
    await s2.close();
    await proxy2.close();
  }
});

test('after the engine restarts the status is right again: unknown while it is down, then reconnected and resynced', async () => {
  await engine.down();
  const down = await stack();
  assert.equal(down.status, 'unknown', 'never the stale "running"');
  assert.ok(down.engineError);
  assert.equal((await s.api('GET', '/api/v1/containers')).status, 503);

  await engine.up();
  await until(() => followed(s), 15_000, 'the events stream to be followed again');
  // keeper restarts with the engine (restart: always); the others stay exited
  await until(async () => (await containers()).map((c) => `${c.service} ${c.state}`).join(', ') === 'checked exited, keeper running, plain exited', 10_000, 'the states after the restart', 50);
  assert.equal((await stack()).status, 'partial');
  const truth = await engine.docker.listContainers({ all: true, filters: { label: [`dockwright.project=${name}`] } });
  const shown = await containers();
  for (const c of truth) assert.equal(shown.find((x) => x.id === c.Id)?.state, c.State);
});
