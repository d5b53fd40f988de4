// The alerts plugin's API as another plugin uses it (`requires: [alertsPlugin]`): its own alert kind and channel kind, raised, delivered and resolved.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startServer, type TestServer } from '../../helpers/harness.ts';
import { startReceiver, type Receiver } from './helpers.ts';

let s: TestServer;
let rx: Receiver;

before(async () => {
  rx = await startReceiver();
  s = await startServer({
    plugins: {
      alerts: { options: { retry: { attempts: 3, backoffMs: 20, maxBackoffMs: 100 } } },
      'alerts-client': { path: 'tests/fixtures/alerts-client/index.ts' },
    },
    config: { rateLimit: { perMinute: 100_000 } },
  });
});
after(async () => {
  await s.close();
  await rx.close();
});

test('a plugin that requires alertsPlugin adds an alert kind and a channel kind, raises and resolves through them', async () => {
  const channel = await s.api('POST', '/api/v1/alerts/channels', { body: { name: 'client', kind: 'client-hook', config: { url: `${rx.url}/client` }, events: ['client-trouble'] } });
  assert.equal(channel.status, 201, channel.text);

  const raised = await s.api('POST', '/api/v1/alerts-client/raise', { body: { resource: 'client:one', message: 'it is in trouble' } });
  assert.equal(raised.status, 200, raised.text);
  assert.equal(raised.body.status, 'open');
  const [alert] = (await s.api('GET', '/api/v1/alerts?kind=client-trouble')).body;
  assert.equal(alert.id, raised.body.id);
  assert.equal(alert.severity, 'warning');
  assert.equal(alert.resource, 'client:one');
  await eventually(async () => rx.on('/client').length === 1, 10_000, 'the raise delivered through the plugin\'s channel kind');
  assert.deepEqual(JSON.parse(rx.on('/client')[0].body), { event: 'raised', kind: 'client-trouble' });

  const resolved = await s.api('POST', '/api/v1/alerts-client/resolve', { body: { resource: 'client:one', message: '' } });
  assert.deepEqual(resolved.body, { id: alert.id, status: 'resolved' });
  await eventually(async () => rx.on('/client').length === 2, 10_000, 'the resolution delivered');
  assert.deepEqual(JSON.parse(rx.on('/client')[1].body), { event: 'resolved', kind: 'client-trouble' });
});
