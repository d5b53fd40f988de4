// The live container table without an engine: events and list answers fed by hand, what events said winning until a list shows it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContainerInfo } from 'dockerode';
import { LiveTable, maxRetries, readEvent, type EngineEvent } from '../../../plugins/docker/live-table.ts';

function entry(id: string, state: string, status: string, name = id): ContainerInfo {
  return {
    Id: id, Names: [`/${name}`], Image: 'img', ImageID: '', Command: '', Created: 1, Ports: [], Labels: { app: 'x' },
    State: state, Status: status, HostConfig: { NetworkMode: '' }, NetworkSettings: { Networks: {} }, Mounts: [],
  };
}
const event = (id: string, Action: string, Attributes: Record<string, string> = {}): EngineEvent => ({ Type: 'container', Action, Actor: { ID: id, Attributes }, time: 5 });

function tableWithLog() {
  const refreshed: string[] = [];
  const table = new LiveTable((id) => refreshed.push(id));
  const feed = (e: EngineEvent) => table.apply(readEvent(e)!);
  const states = () => table.rows().map((c) => `${c.Id} ${c.State} ${c.Status}`);
  return { table, refreshed, feed, states };
}

test('lines of the stream that are not container events are not read as such', () => {
  assert.equal(readEvent({ Type: 'network', Action: 'create', Actor: { ID: 'n' } }), null);
  assert.equal(readEvent({ Type: 'container', Actor: { ID: 'a' } }), null);
  assert.deepEqual(readEvent(event('a', 'health_status: healthy')), { id: 'a', action: 'health_status', detail: 'healthy', attrs: {}, time: 5 });
});

test('a created container shows at once from its event, with its labels, and waits for a list that shows it', () => {
  const { table, refreshed, feed, states } = tableWithLog();
  feed(event('a', 'create', { name: 'web-1', image: 'img', app: 'x' }));
  assert.deepEqual(states(), ['a created Created']);
  assert.deepEqual(table.get('a')!.Labels, { app: 'x' });
  assert.deepEqual(table.get('a')!.Names, ['/web-1']);
  assert.deepEqual(refreshed, ['a']);
  // a list that lags the event does not show it yet: the entry stays, and another list is asked for
  table.merge([]);
  assert.deepEqual(states(), ['a created Created']);
  assert.deepEqual(refreshed, ['a', 'a']);
  // the list shows it: from now on the list is the truth
  table.merge([entry('a', 'created', 'Created', 'web-1')]);
  assert.deepEqual(table.rows(), [entry('a', 'created', 'Created', 'web-1')]);
  assert.equal(refreshed.length, 2);
});

test('a death the list does not show yet wins over the list until the list shows it', () => {
  const { table, refreshed, feed, states } = tableWithLog();
  table.merge([entry('a', 'running', 'Up 5 minutes (healthy)')]);
  feed(event('a', 'die', { exitCode: '137' }));
  assert.deepEqual(states(), ['a exited Exited (137) Less than a second ago']);
  table.merge([entry('a', 'running', 'Up 5 minutes (healthy)')]);
  assert.deepEqual(states(), ['a exited Exited (137) Less than a second ago']);
  assert.deepEqual(refreshed, ['a', 'a']);
  // a container with a restart policy may show as restarting: that shows the death too
  table.merge([entry('a', 'restarting', 'Restarting (137) 1 second ago')]);
  assert.deepEqual(states(), ['a restarting Restarting (137) 1 second ago']);
});

test('health and names from events are laid over the list entry', () => {
  const { table, feed, states } = tableWithLog();
  table.merge([entry('a', 'running', 'Up 2 minutes (health: starting)', 'old')]);
  feed(event('a', 'health_status: healthy'));
  feed(event('a', 'rename', { name: 'new' }));
  assert.deepEqual(states(), ['a running Up 2 minutes (healthy)']);
  assert.deepEqual(table.get('a')!.Names, ['/new']);
  table.merge([entry('a', 'running', 'Up 2 minutes (healthy)', 'new')]);
  assert.deepEqual(table.get('a'), entry('a', 'running', 'Up 2 minutes (healthy)', 'new'));
});

test('a destroyed container leaves at once and a lagging list does not bring it back', () => {
  const { table, feed, states } = tableWithLog();
  table.merge([entry('a', 'running', 'Up 1 minute'), entry('b', 'running', 'Up 1 minute')]);
  feed(event('a', 'destroy'));
  assert.deepEqual(states(), ['b running Up 1 minute']);
  table.merge([entry('a', 'exited', 'Exited (0) 1 second ago'), entry('b', 'running', 'Up 1 minute')]);
  assert.deepEqual(states(), ['b running Up 1 minute']);
  table.merge([entry('b', 'running', 'Up 1 minute')]);
  assert.deepEqual(states(), ['b running Up 1 minute']);
});

test('a list that keeps disagreeing is believed after the last retry', () => {
  const { table, refreshed, feed, states } = tableWithLog();
  table.merge([entry('a', 'running', 'Up 1 minute')]);
  feed(event('a', 'die', { exitCode: '1' }));
  for (let i = 0; i < maxRetries; i++) table.merge([entry('a', 'running', 'Up 1 minute')]);
  assert.deepEqual(states(), ['a exited Exited (1) Less than a second ago']);
  table.merge([entry('a', 'running', 'Up 1 minute')]);
  assert.deepEqual(states(), ['a running Up 1 minute']);
  assert.equal(refreshed.length, 1 + maxRetries);
});

test('a filtered list answers only for what it covers; a full list removes what it lacks', () => {
  const { table, states } = tableWithLog();
  table.merge([entry('a', 'running', 'Up 1 minute'), entry('b', 'running', 'Up 1 minute')]);
  table.merge([entry('a', 'exited', 'Exited (0) 1 second ago')], (id) => id === 'a');
  assert.deepEqual(states(), ['a exited Exited (0) 1 second ago', 'b running Up 1 minute']);
  table.merge([], (id) => id === 'a');
  assert.deepEqual(states(), ['b running Up 1 minute']);
  table.merge([]);
  assert.deepEqual(states(), []);
});

test('reads share one frozen array until the table changes; a new stream forgets what the old one said', () => {
  const { table, feed, states } = tableWithLog();
  table.merge([entry('a', 'running', 'Up 1 minute')]);
  const first = table.rows();
  assert.equal(table.rows(), first);
  assert.ok(Object.isFrozen(first));
  feed(event('a', 'die'));
  assert.notEqual(table.rows(), first);
  table.forgetEvents();
  table.merge([entry('a', 'running', 'Up 1 minute')]);
  assert.deepEqual(states(), ['a running Up 1 minute']);
});
