// Upgrades keep the data: a database made by an older version (the dump in tests/fixtures/upgrade) is migrated once and served intact; a database migrated by a newer version stops the service with a message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { call, createDatabase, root, startServer, stopEdgeOf, type TestServer } from '../helpers/harness.ts';
import { cleanupProjects } from '../plugins/docker/helpers.ts';
import { fixtureCommit, fixturePlugins, freePort, secretKey } from '../fixtures/upgrade/setup.ts';

const run = promisify(execFile);
const fixture = JSON.parse(readFileSync(join(root, `tests/fixtures/upgrade/${fixtureCommit}.json`), 'utf8')) as { tokens: { admin: string; reader: string }; deployWebhook: string; certificate: string };
const dataDir = mkdtempSync(join(tmpdir(), 'dw-upgrade-'));
let db: Awaited<ReturnType<typeof createDatabase>>;
let s: TestServer | undefined;

before(async () => {
  db = await createDatabase();
  await run('psql', ['--quiet', '--no-psqlrc', '-v', 'ON_ERROR_STOP=1', '--dbname', db.url, '--file', join(root, `tests/fixtures/upgrade/${fixtureCommit}.sql`)]);
});
after(async () => {
  await s?.stop();
  await cleanupProjects('keep');
  await stopEdgeOf(dataDir);
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const query = async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
};

/** every migrations table and the names it lists, with when each was applied */
async function migrationRows() {
  const tables = await query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'pgmigrations\\_%' ORDER BY 1`);
  const rows = new Map<string, { name: string; runOn: string }[]>();
  for (const { name } of tables) rows.set(name, await query<{ name: string; runOn: string }>(`SELECT name, run_on::text AS "runOn" FROM ${name} ORDER BY id`));
  return rows;
}

const filesOf = (dir: string) => readdirSync(join(root, dir)).filter((f) => f.endsWith('.sql')).map((f) => basename(f, extname(f))).sort();

test(`a database made by ${fixtureCommit} is migrated once and served intact: stacks, variables, access lists, sites, backups, certificates, alert channels, tokens, webhooks`, async () => {
  const before = await migrationRows();
  s = await startServer({ reuse: { databaseUrl: db.url, dataDir }, env: { SECRET_KEY: secretKey }, plugins: fixturePlugins(await freePort(), await freePort()) });

  const afterStart = await migrationRows();
  const owners: Record<string, string> = { kernel: 'kernel/migrations' };
  for (const plugin of ['stacks', 'git', 'registries', 'edge', 'backups', 'alerts', 'sites', 'certificates']) owners[plugin] = `plugins/${plugin}/migrations`;
  let added = 0;
  for (const [owner, dir] of Object.entries(owners)) {
    const rows = afterStart.get(`pgmigrations_${owner}`) ?? [];
    const names = rows.map((r) => r.name);
    assert.deepEqual([...names].sort(), filesOf(dir), `every migration of ${owner} is applied, each once`);
    const old = before.get(`pgmigrations_${owner}`) ?? [];
    assert.deepEqual(rows.slice(0, old.length), old, `what ${fixtureCommit} applied for ${owner} is not applied again`);
    added += rows.length - old.length;
  }
  assert.ok(added > 0, `the fixture predates some migrations (${added} applied now)`);

  const admin = fixture.tokens.admin;
  const get = (path: string, token = admin) => call(s!.url, 'GET', path, { token });
  const stack = await get('/api/v1/stacks/keep');
  assert.equal(stack.status, 200, stack.text);
  assert.equal(stack.body.revision, 2);
  assert.deepEqual(stack.body.services.map((x: any) => x.name), ['app']);
  const env = await get('/api/v1/stacks/keep/env');
  assert.deepEqual(env.body.values, { GREETING: 'hello', DB_PASSWORD: 'upgrade-secret-pw' }, 'secret variables still decrypt');
  assert.equal((await get('/api/v1/stacks/keep/revisions/1')).body.message, 'made by the old version');
  assert.deepEqual((await get('/api/v1/stacks/keep/access')).body.map((e: any) => e.principal).sort(), ['team:ops', 'user:reader']);

  const reader = fixture.tokens.reader;
  assert.equal((await get('/api/v1/stacks/keep', reader)).status, 200, "the old viewer token still works, with its stack's access list");
  assert.equal((await call(s.url, 'PUT', '/api/v1/stacks/keep/env', { token: reader, body: { values: {}, revision: 2 } })).status, 403, 'and its scopes');

  const site = await get('/api/v1/sites/docs', reader);
  assert.equal(site.status, 200, site.text);
  assert.deepEqual(site.body.hostnames, ['docs.upgrade.test']);
  const backup = await get('/api/v1/backups/nightly');
  assert.equal(backup.status, 200, backup.text);
  assert.equal(backup.body.schedule, '0 3 * * *');
  const certificate = await get('/api/v1/certificates/own');
  assert.equal(certificate.status, 200, certificate.text);
  assert.deepEqual(certificate.body.domains, ['own.upgrade.test']);
  const channels = await get('/api/v1/alerts/channels');
  assert.deepEqual(channels.body.map((c: any) => [c.name, c.kind]), [['hook', 'webhook']]);

  // the deploy webhook's token is kept: a deploy through it runs the stack as the old version saved it
  const hook = await call(s.url, 'POST', '/api/stacks/keep/deploy?async=1', { token: fixture.deployWebhook, unchecked: true });
  assert.equal(hook.status, 202, hook.text);
  const jobId = hook.body.jobId ?? hook.body.id;
  const done = await call(s.url, 'GET', `/api/v1/jobs/${jobId}/wait?timeout=120`, { token: admin });
  assert.equal(done.body.status, 'succeeded', done.body.error ?? done.text);

  // a restart on the migrated database applies nothing more
  await s.stop();
  s = await startServer({ reuse: { databaseUrl: db.url, dataDir }, env: { SECRET_KEY: secretKey }, plugins: fixturePlugins(await freePort(), await freePort()) });
  assert.deepEqual(await migrationRows(), afterStart);
  assert.equal((await get('/api/v1/stacks/keep')).body.status, 'running');
});

test('a database migrated by a newer version stops the service with a message instead of starting', async () => {
  await s?.stop();
  s = undefined;
  await query(`INSERT INTO pgmigrations_sites (name, run_on) VALUES ('1799999999999_from-a-newer-version', now())`);
  const config = { DATABASE_URL: db.url, DATA_DIR: dataDir, SECRET_KEY: secretKey };
  const refused = await run(process.execPath, ['--import', 'tsx', join(root, 'kernel/main.ts'), 'migrate'], { cwd: root, env: { ...process.env, ...config } })
    .then(() => null, (err: { code: number; stderr: string }) => err);
  assert.ok(refused, 'the service does not start');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^dockwright: the database was migrated by a newer version of Dockwright: the plugin "sites" has applied migration 1799999999999_from-a-newer-version \(table pgmigrations_sites\), which this version does not know/m);
  await assert.rejects(
    startServer({ reuse: { databaseUrl: db.url, dataDir }, env: { SECRET_KEY: secretKey }, plugins: fixturePlugins(await freePort(), await freePort()) }),
    /migrated by a newer version of Dockwright/,
  );
  const kernelRows = (await migrationRows()).get('pgmigrations_kernel')!.length;
  await query(`DELETE FROM pgmigrations_sites WHERE name = '1799999999999_from-a-newer-version'`);
  await query(`INSERT INTO pgmigrations_kernel (name, run_on) VALUES ('1799999999999_kernel-of-the-future', now())`);
  await assert.rejects(
    startServer({ reuse: { databaseUrl: db.url, dataDir }, env: { SECRET_KEY: secretKey }, plugins: fixturePlugins(await freePort(), await freePort()) }),
    /the kernel has applied migration 1799999999999_kernel-of-the-future/,
  );
  assert.equal((await migrationRows()).get('pgmigrations_kernel')!.length, kernelRows + 1, 'nothing else was applied');
});
