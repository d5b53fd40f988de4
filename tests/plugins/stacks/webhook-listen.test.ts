// Which stacks have a deploy webhook is kept in memory while the token channel is up: every change, made here or announced by another instance, shows at once; while the channel is down the database answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { eventually, tokenListenerPid } from '../../helpers/harness.ts';
import { busybox, createStack, startStacksServer, uniqueName } from './helpers.ts';
import { deployKind } from '../../../plugins/stacks/core.ts';

test('a stack shows its deploy webhook enabled or not at once, whichever instance changed it, and across a lost channel', async () => {
  const s = await startStacksServer({ config: { database: { poolSize: 10, reconnect: { minMs: 50, maxMs: 400 } } } });
  const admin = new pg.Client({ connectionString: s.databaseUrl });
  await admin.connect();
  const database = new URL(s.databaseUrl).pathname.slice(1);
  const name = uniqueName('whlisten');
  const enabled = async () => {
    const res = await s.api('GET', `/api/v1/stacks/${name}`);
    assert.equal(res.status, 200, res.text);
    return res.body.webhooks.deploy.enabled as boolean;
  };
  const listed = async () => (await s.api('GET', '/api/v1/stacks')).body.find((x: { name: string }) => x.name === name).webhooks.deploy.enabled as boolean;
  try {
    await createStack(s, name, busybox());
    assert.equal(await enabled(), false);

    // changes made here: the next answer has them
    assert.equal((await s.api('POST', `/api/v1/stacks/${name}/webhooks/deploy`)).status, 200);
    assert.equal(await enabled(), true);
    assert.equal(await listed(), true);
    assert.equal((await s.api('DELETE', `/api/v1/stacks/${name}/webhooks/deploy`)).status, 200);
    assert.equal(await enabled(), false);
    assert.equal(await listed(), false);

    // another instance enables it: its write and its announcement commit together
    await admin.query('BEGIN');
    await admin.query('INSERT INTO action_tokens (kind, resource, hash) VALUES ($1, $2, $3)', [deployKind, name, 'f'.repeat(64)]);
    await admin.query(`SELECT pg_notify('dockwright_tokens', 'action-tokens')`);
    await admin.query('COMMIT');
    await eventually(async () => (await enabled()) === true, 2000, 'the announced webhook to show');
    assert.equal(await listed(), true);

    // a change nobody announced is not seen while the channel is up: the answer comes from memory (every writer announces)
    await admin.query('DELETE FROM action_tokens WHERE kind = $1 AND resource = $2', [deployKind, name]);
    assert.equal(await enabled(), true, 'answered from memory');

    // the channel is lost: memory is dropped, and what the database holds shows, both while it is down and once it is back
    const first = await eventually(() => tokenListenerPid(admin, database), 5000, 'the LISTEN backend');
    await admin.query('SELECT pg_terminate_backend($1)', [first]);
    await eventually(async () => (await enabled()) === false, 5000, 'the database to answer once the channel was lost');
    await eventually(async () => {
      const now = await tokenListenerPid(admin, database);
      return now !== null && now !== first;
    }, 5000, 'LISTEN to be re-established');
    assert.equal(await enabled(), false);
    assert.equal((await s.api('POST', `/api/v1/stacks/${name}/webhooks/deploy`)).status, 200);
    assert.equal(await enabled(), true);
  } finally {
    await s.api('DELETE', `/api/v1/stacks/${name}`, { headers: { 'If-Match': '"1"' } }).catch(() => undefined);
    await admin.end();
    await s.close();
  }
});
