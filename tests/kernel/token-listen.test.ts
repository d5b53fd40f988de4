// The token-revocation channel heals: after its PostgreSQL backend is terminated, requests authenticate against the database until LISTEN is back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { call, eventually, startServer, tokenListenerPid } from '../helpers/harness.ts';
import { hashToken } from '../../kernel/auth/tokens.ts';

/** a revocation from another process: the row changes and the announcement goes out, nothing touches this process's cache */
async function revokeElsewhere(admin: pg.Client, token: string): Promise<void> {
  await admin.query('UPDATE tokens SET revoked_at = now() WHERE hash = $1', [hashToken(token)]);
  await admin.query(`SELECT pg_notify('dockwright_tokens', 'revoked')`);
}

test('a terminated LISTEN connection is re-established; meanwhile and afterwards a revoked token stops working at once', async () => {
  const server = await startServer({ config: { database: { poolSize: 10, reconnect: { minMs: 50, maxMs: 400 } } } });
  const admin = new pg.Client({ connectionString: server.databaseUrl });
  await admin.connect();
  const database = new URL(server.databaseUrl).pathname.slice(1);
  try {
    const tokens = server.app.tokens;
    assert.equal(tokens.cachingOn, true, 'caching is on while revocations reach the service');
    const first = await eventually(() => tokenListenerPid(admin, database), 5000, 'the LISTEN backend');

    // the cache is warm for this token: a stale cache would keep answering 200 after the revocation
    const a = await server.token('viewer', ['jobs:read']);
    assert.equal((await call(server.url, 'GET', '/api/v1/me', { token: a })).status, 200);
    await admin.query('SELECT pg_terminate_backend($1)', [first]);
    await eventually(async () => !tokens.cachingOn || (await tokenListenerPid(admin, database)) !== first, 5000, 'the loss to be noticed');

    // down or already back: either way the revocation is seen (no cache while down; a cleared cache when back)
    await revokeElsewhere(admin, a);
    assert.equal((await call(server.url, 'GET', '/api/v1/me', { token: a })).status, 401);

    // re-subscribed, with a new backend, and caching again
    const second = await eventually(async () => tokens.cachingOn && (await tokenListenerPid(admin, database)), 5000, 'LISTEN to be re-established');
    assert.notEqual(second, first);
    const b = await server.token('viewer', ['jobs:read']);
    assert.equal((await call(server.url, 'GET', '/api/v1/me', { token: b })).status, 200);
    assert.equal((await call(server.url, 'GET', '/api/v1/me', { token: b })).status, 200, 'served from the cache');
    await revokeElsewhere(admin, b);
    const started = Date.now();
    await eventually(async () => (await call(server.url, 'GET', '/api/v1/me', { token: b })).status === 401, 2000, 'the revocation to reach the new subscription');
    assert.ok(Date.now() - started < 2000);

    // several drops in a row: it keeps coming back
    for (let i = 0; i < 3; i++) {
      const pid = await eventually(async () => tokens.cachingOn && (await tokenListenerPid(admin, database)), 5000, 'LISTEN');
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await eventually(async () => {
        const now = await tokenListenerPid(admin, database);
        return tokens.cachingOn && now !== null && now !== pid;
      }, 5000, 'LISTEN after another drop');
    }
    assert.equal((await server.api('GET', '/api/v1/me')).status, 200, 'the service answers throughout');
  } finally {
    await admin.end();
    await server.close();
  }
});
