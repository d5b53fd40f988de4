// The command line and the embedded database: user and token management, first-start admin token, a boot on embedded PostgreSQL with no DATABASE_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import pg from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, createDatabase, root, startChild } from '../helpers/harness.ts';

const run = promisify(execFile);

function cli(args: string[], env: Record<string, string>) {
  return run(process.execPath, ['--import', 'tsx', join(root, 'kernel/main.ts'), ...args], { cwd: root, env: { ...process.env, NODE_ENV: 'test', ...env } })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (err) => ({ code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string }));
}

test('user add, token create, list and revoke through the CLI; the token works until revoked', async () => {
  const db = await createDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-cli-'));
  const env = { DATABASE_URL: db.url, DATA_DIR: dataDir };
  try {
    const refused = await cli(['user', 'add', 'ci-bot', '--role', 'operator'], env);
    assert.equal(refused.code, 2, 'an empty database is not an installation: the CLI does not make one unasked');
    assert.match(refused.stderr, /no Dockwright installation at database postgres:.*--init/s);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'");
    await client.end();
    assert.equal(rows[0].n, 0, 'no table was created');
    const added = await cli(['user', 'add', 'ci-bot', '--role', 'operator', '--init'], env);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stderr, /^installation [0-9a-f-]{36} at database postgres:/m, 'it says which installation it acts on');
    assert.match((await cli(['user', 'add', 'ci-bot'], env)).stderr, /already exists/);
    assert.match((await cli(['user', 'add', 'x', '--role', 'god'], env)).stderr, /role must be one of/);
    const created = await cli(['token', 'create', '--user', 'ci-bot', '--name', 'pipeline', '--scopes', 'jobs:read', '--expires', '30d'], env);
    assert.equal(created.code, 0, created.stderr);
    const token = created.stdout.trim().split('\n').at(-1)!;
    assert.match(token, /^dw_[A-Za-z0-9_-]{43}$/);
    assert.match((await cli(['token', 'create', '--user', 'ci-bot', '--name', 'bad', '--scopes', 'nope:nope'], env)).stderr, /unknown scope/);
    const list = await cli(['token', 'list', '--user', 'ci-bot'], env);
    assert.match(list.stdout, /ci-bot\/pipeline {2}active {2}scopes=jobs:read/);
    assert.doesNotMatch(list.stdout, new RegExp(token), 'list never shows a token');

    const server = await startChild({ databaseUrl: db.url, dataDir, plugins: {} });
    try {
      const me = await call(server.url, 'GET', '/api/v1/me', { token });
      assert.deepEqual([me.body.user.name, me.body.user.role, me.body.scopes], ['ci-bot', 'operator', ['jobs:read']]);
      const id = list.stdout.split(' ')[0];
      assert.equal((await cli(['token', 'revoke', id], env)).code, 0);
      assert.equal((await call(server.url, 'GET', '/api/v1/me', { token })).status, 401, 'revoked from another process: refused at once');
      assert.equal((await cli(['token', 'revoke', id], env)).code, 2);
    } finally {
      await server.kill('SIGTERM');
    }
  } finally {
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('with no DATABASE_URL the service boots on embedded PostgreSQL, creates the first admin once, keeps its data, and the CLI works beside it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-embedded-'));
  try {
    const first = await startChild({ dataDir, plugins: {} });
    const tokenFile = join(dataDir, 'initial-admin-token');
    const token = readFileSync(tokenFile, 'utf8').trim();
    assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
    const me = await call(first.url, 'GET', '/api/v1/me', { token });
    assert.equal(me.status, 200);
    assert.equal(me.body.user.role, 'admin');
    // the CLI shares the running service's database; its revocation reaches the service's token cache at once (LISTEN)
    assert.equal((await cli(['user', 'add', 'ops', '--role', 'viewer'], { DATA_DIR: dataDir })).code, 0);
    const created = await cli(['token', 'create', '--user', 'ops', '--name', 'ci', '--scopes', 'jobs:read'], { DATA_DIR: dataDir });
    const opsToken = created.stdout.trim().split('\n').at(-1)!;
    assert.equal((await call(first.url, 'GET', '/api/v1/me', { token: opsToken })).status, 200);
    const id = created.stdout.split(' ')[1];
    assert.equal((await cli(['token', 'revoke', id], { DATA_DIR: dataDir })).code, 0);
    assert.equal((await call(first.url, 'GET', '/api/v1/me', { token: opsToken })).status, 401, 'revoked beside the running service: refused at once');
    assert.equal((await call(first.url, 'GET', '/api/v1/me', { token })).status, 200, 'the CLI left the service and its database running');
    await first.kill('SIGTERM');
    const listed = await cli(['token', 'list'], { DATA_DIR: dataDir });
    assert.match(listed.stdout, /admin\/initial {2}active/, 'the CLI starts the embedded database itself when the service is stopped');
    const second = await startChild({ dataDir, plugins: {} });
    try {
      assert.equal((await call(second.url, 'GET', '/api/v1/me', { token })).status, 200, 'data survived the restart');
      assert.equal(readFileSync(tokenFile, 'utf8').trim(), token, 'no second admin token');
    } finally {
      await second.kill('SIGTERM');
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the CLI run without the service\'s DATA_DIR says so, exits non-zero and creates nothing; --init creates the installation', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'dw-cli-none-'));
  const dataDir = join(parent, 'data');
  chmodSync(parent, 0o711); // the embedded database's own user passes through it to the data dir --init makes
  try {
    for (const args of [['token', 'list'], ['user', 'add', 'someone'], ['migrate'], ['plugins']]) {
      const answer = await cli(args, { DATA_DIR: dataDir });
      assert.equal(answer.code, 2, `${args.join(' ')}: ${answer.stderr}`);
      assert.match(answer.stderr, new RegExp(`no Dockwright installation at data dir ${dataDir} \\(embedded PostgreSQL\\)`));
      assert.match(answer.stderr, /--init/);
      assert.equal(answer.stdout, '');
      assert.equal(existsSync(dataDir), false, `${args.join(' ')} created nothing`);
    }
    assert.deepEqual(readdirSync(parent), []);
    const init = await cli(['migrate', '--init'], { DATA_DIR: dataDir });
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stderr, new RegExp(`^installation [0-9a-f-]{36} at data dir ${dataDir}`, 'm'));
    const listed = await cli(['token', 'list'], { DATA_DIR: dataDir });
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stderr.match(/^installation ([0-9a-f-]{36})/m)?.[1], init.stderr.match(/^installation ([0-9a-f-]{36})/m)?.[1], 'the same installation');
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});
