// Verification of database backups against a real PostgreSQL 15 service: a test restore into a throwaway container of the recorded image on an internal network lists the tables and their row counts, records verifiedAt, leaves nothing behind; a corrupted repository fails it with an alert that the next good one resolves; refusals (no dumps, no snapshot, hidden backup, scopes); the unverified alert.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { call, eventually, startServer, type TestServer } from '../../helpers/harness.ts';
import { act, cleanupProjects, containerOf, createStack, docker, runJob, uniqueName } from './helpers.ts';

const run = promisify(execFile);
let s: TestServer;
const stack = uniqueName('bkvf');
const hidden = uniqueName('bkvfh');
const maria = uniqueName('bkvfm');
const repos = mkdtempSync(join(tmpdir(), 'dw-restic-verify-'));
const dbPassword = `pg-secret-${randomBytes(9).toString('hex')}`;
const label = 'dev.dockwright.backups.verify';
const problems = 'https://dockwright.dev/problems/';

const compose = `services:
  db:
    image: dockwright-test/postgres:15
    environment:
      POSTGRES_USER: shop
      POSTGRES_PASSWORD: ${dbPassword}
      POSTGRES_DB: shop
    volumes: ["pgdata:/var/lib/postgresql/data"]
volumes:
  pgdata: {}
`;

async function psql(sql: string): Promise<string> {
  const id = (await containerOf(stack, 'db'))!.Id;
  const { stdout } = await run('docker', ['exec', id, 'psql', '-X', '-U', 'shop', '-d', 'shop', '-Atc', sql]);
  return stdout.trim();
}
const define = (name: string, targets: unknown, repo = name) => s.api('PUT', `/api/v1/backups/${name}`, { body: { targets, repository: { url: join(repos, repo) }, password: 'verify-restic-password-1' } });

/** the containers (and the volumes they mounted) and networks a verification made between two times, by its label */
async function madeBetween(since: number, until: number): Promise<{ containers: string[]; networks: string[]; volumes: string[] }> {
  const { stdout } = await run('docker', ['events', '--since', String(since / 1000), '--until', String(until / 1000), '--format', '{{json .}}']);
  const events = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { Type: string; Action: string; Actor: { ID: string; Attributes: Record<string, string> } });
  const containers = new Set(events.filter((e) => e.Type === 'container' && e.Action === 'create' && e.Actor.Attributes[label]).map((e) => e.Actor.ID));
  const networks = events.filter((e) => e.Type === 'network' && e.Action === 'create' && e.Actor.Attributes.name?.startsWith('dw-verify-')).map((e) => e.Actor.ID);
  const volumes = events.filter((e) => e.Type === 'volume' && e.Action === 'mount' && containers.has(e.Actor.Attributes.container)).map((e) => e.Actor.ID);
  return { containers: [...containers], networks, volumes };
}
async function gone(made: { containers: string[]; networks: string[]; volumes: string[] }): Promise<void> {
  for (const id of made.containers) await assert.rejects(docker.getContainer(id).inspect(), `container ${id} is removed`);
  for (const id of made.networks) await assert.rejects(docker.getNetwork(id).inspect(), `network ${id} is removed`);
  for (const id of made.volumes) await assert.rejects(docker.getVolume(id).inspect(), `volume ${id} is removed`);
  assert.deepEqual((await docker.listContainers({ all: true, filters: JSON.stringify({ label: [label] }) })).filter((c) => made.containers.includes(c.Id)), []);
}
const openAlerts = async (kind: string, backup: string) => ((await s.api('GET', `/api/v1/alerts?kind=${kind}`)).body as { resource: string; status: string }[])
  .filter((a) => a.resource === `backup:${backup}` && a.status === 'open');

before(async () => {
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } }, stacks: {}, alerts: {},
      backups: { options: { progressIntervalMs: 0, stopTimeoutSeconds: 1, repositoryRoots: [repos], readyTimeoutMs: 60_000, verifyCheckMs: 1000, unverifiedAfterHours: 1 / 3600 } },
    },
  });
  await createStack(s, stack, compose);
  await act(s, 'deploy', stack);
  await eventually(() => psql('SELECT 1').then(() => true, () => false), 60_000, 'postgres ready', 300);
  await psql('CREATE TABLE a (id serial PRIMARY KEY, v int NOT NULL); CREATE TABLE b (id serial PRIMARY KEY, v text); INSERT INTO a (v) SELECT g FROM generate_series(1, 3) g; INSERT INTO b (v) SELECT g::text FROM generate_series(1, 5) g');
});
after(async () => {
  await s.close();
  await cleanupProjects(stack, hidden, maria);
  rmSync(repos, { recursive: true, force: true });
});

test('a verification before any snapshot, or of a backup without database dumps, is refused before a job is queued', async () => {
  assert.equal((await define('pg', { databases: [{ stack, service: 'db' }] })).status, 201);
  const early = await s.api('POST', '/api/v1/backups/pg/verify');
  assert.equal(early.status, 404);
  assert.match(early.body.detail, /no snapshot yet/);
  assert.equal((await define('files', { stacks: [stack] })).status, 201);
  const none = await s.api('POST', '/api/v1/backups/files/verify');
  assert.equal(none.status, 422);
  assert.equal(none.body.type, `${problems}nothing-to-verify`);
  assert.equal((await s.api('POST', `/api/v1/backups/${uniqueName('nope')}/verify`)).status, 404);
  assert.equal((await s.api('POST', '/api/v1/backups/Bad_Name/verify')).status, 400);
});

test('no verification for the configured time raises backup-unverified', async () => {
  await runJob(s, '/api/v1/backups/pg/run');
  await eventually(async () => (await openAlerts('backup-unverified', 'pg')).length > 0, 15_000, 'the unverified alert', 300);
});

test('a verification restores the latest dumps into a throwaway server: tables and row counts in its output, verifiedAt set, nothing left behind', async () => {
  const since = Date.now() - 1000;
  const started = Date.now();
  const job = await runJob(s, '/api/v1/backups/pg/verify');
  const took = Date.now() - started;
  console.log(`verification of one postgres database (2 tables) took ${took} ms (job: ${(job.result as { durationMs: number }).durationMs} ms)`);
  assert.match(job.output, /shop: table public\.a: 3 rows/);
  assert.match(job.output, /shop: table public\.b: 5 rows/);
  assert.match(job.output, /internal network/);
  assert.ok(!job.output.includes(dbPassword));
  const result = job.result as { verified: { database: string; snapshot: string; tables: { table: string; rows: number }[] }[] };
  // every database of the server is dumped, and so verified: postgres (empty) and shop
  assert.deepEqual(result.verified.map((v) => [v.database, v.tables]), [['postgres', []], ['shop', [{ table: 'public.a', rows: 3 }, { table: 'public.b', rows: 5 }]]]);
  const listedRes = await s.api('GET', '/api/v1/backups/pg/snapshots');
  assert.equal(listedRes.status, 200, listedRes.text);
  const snaps = listedRes.body as { id: string; database: string | null; verifiedAt: string | null }[];
  const shop = snaps.find((x) => x.database === 'shop')!;
  assert.equal(shop.id, result.verified[1].snapshot);
  assert.ok(shop.verifiedAt && Date.parse(shop.verifiedAt) >= since, 'verifiedAt is set');
  assert.equal(snaps.find((x) => x.database === null)!.verifiedAt, null, 'the roles are no database of their own');
  const made = await madeBetween(since, Date.now() + 1000);
  assert.equal(made.containers.length, 1, 'one throwaway container');
  assert.equal(made.networks.length, 1, 'one network');
  await gone(made);
});

test('a verification of a corrupted repository fails, raises backup-verify-failed, leaves nothing behind; the next good one resolves it', async () => {
  assert.equal((await define('pgbad', { databases: [{ stack, service: 'db' }] }, 'bad')).status, 201);
  await runJob(s, '/api/v1/backups/pgbad/run');
  // every data pack overwritten: restic can no longer read a dump
  const data = join(repos, 'bad', 'data');
  for (const dir of readdirSync(data)) for (const f of readdirSync(join(data, dir))) writeFileSync(join(data, dir, f), randomBytes(statSync(join(data, dir, f)).size));
  const since = Date.now() - 1000;
  const job = await runJob(s, '/api/v1/backups/pgbad/verify', undefined, 'failed');
  assert.ok(job.error);
  await eventually(async () => (await openAlerts('backup-verify-failed', 'pgbad')).length === 1, 15_000, 'the verify-failed alert', 300);
  const made = await madeBetween(since, Date.now() + 1000);
  assert.equal(made.containers.length, 1);
  await gone(made);
  // the backup into a fresh repository: its verification resolves the alert
  assert.equal((await s.api('PUT', '/api/v1/backups/pgbad', { body: { targets: { databases: [{ stack, service: 'db' }] }, repository: { url: join(repos, 'good') }, password: 'verify-restic-password-1' } })).status, 200);
  await runJob(s, '/api/v1/backups/pgbad/run');
  await runJob(s, '/api/v1/backups/pgbad/verify');
  const snaps = (await s.api('GET', '/api/v1/backups/pgbad/snapshots')).body as { database: string | null; verifiedAt: string | null }[];
  assert.equal(snaps.filter((x) => x.verifiedAt !== null).length, 2, 'the two databases of the good run are verified');
  await eventually(async () => (await openAlerts('backup-verify-failed', 'pgbad')).length === 0, 15_000, 'resolved', 300);
});

test('a MariaDB dump is verified the same way: its tables and row counts from the mariadb client, nothing left behind', async () => {
  const rootPassword = `my-root-${randomBytes(9).toString('hex')}`;
  await createStack(s, maria, `services:\n  db:\n    image: dockwright-test/mariadb:10.11\n    environment:\n      MARIADB_ROOT_PASSWORD: ${rootPassword}\n      MARIADB_DATABASE: shop\n`);
  await act(s, 'deploy', maria);
  const sql = async (query: string) => run('docker', ['exec', '-e', 'MYSQL_PWD', (await containerOf(maria, 'db'))!.Id, 'mariadb', '-uroot', '-N', '-B', 'shop', '-e', query], { env: { ...process.env, MYSQL_PWD: rootPassword } });
  await eventually(() => sql('SELECT 1').then(() => true, () => false), 60_000, 'mariadb ready', 300);
  await sql('CREATE TABLE items (id int PRIMARY KEY) ENGINE=InnoDB; INSERT INTO items VALUES (1), (2), (3), (4)');
  assert.equal((await define('my', { databases: [{ stack: maria, service: 'db' }] })).status, 201);
  await runJob(s, '/api/v1/backups/my/run');
  const since = Date.now() - 1000;
  const job = await runJob(s, '/api/v1/backups/my/verify');
  assert.match(job.output, /shop: table items: 4 rows/);
  assert.ok(!job.output.includes(rootPassword));
  const snaps = (await s.api('GET', '/api/v1/backups/my/snapshots')).body as { database: string | null; verifiedAt: string | null }[];
  assert.ok(snaps.find((x) => x.database === 'shop')?.verifiedAt, 'verifiedAt is set');
  const made = await madeBetween(since, Date.now() + 1000);
  assert.equal(made.containers.length, 1);
  await gone(made);
});

test('a hidden backup answers as a missing one; the scope backups:run is needed', async () => {
  await createStack(s, hidden, 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n');
  assert.equal((await define('hid', { databases: [{ stack: hidden, service: 'app', strategy: 'postgres' }] })).status, 201);
  assert.equal((await s.api('POST', `/api/v1/stacks/${hidden}/access`, { body: { entries: [{ principal: 'user:someone-else', role: 'manager' }] } })).status, 200);
  const runner = await s.token('operator', ['backups:read', 'backups:run', 'stacks:read'], { name: `runner-${hidden}` });
  const hiddenAnswer = await call(s.url, 'POST', '/api/v1/backups/hid/verify', { token: runner });
  const missing = await call(s.url, 'POST', '/api/v1/backups/nosuchbackup/verify', { token: runner });
  assert.equal(hiddenAnswer.status, 404);
  assert.equal(missing.status, 404);
  assert.equal(hiddenAnswer.body.detail.replace('hid', 'X'), missing.body.detail.replace('nosuchbackup', 'X'));
  const reader = await s.token('operator', ['backups:read', 'stacks:read'], { name: `reader-${hidden}` });
  assert.equal((await call(s.url, 'POST', '/api/v1/backups/pg/verify', { token: reader })).status, 403);
});
