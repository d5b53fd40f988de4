// Database backups of a real PostgreSQL 15 service (the test image from scripts/test-env.d/db-images.sh): the plan suggests postgres, a dump taken under load is consistent, the password is never in any process's argv, job output or activity, a dropped table comes back with a restore in place (dependants stopped and started again, the database started first), and wrong strategies are refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { call, type TestServer } from '../../helpers/harness.ts';
import { act, cleanupProjects, containerOf, createStack, docker, runJob, startBackupsServer, uniqueName, waitJob } from './helpers.ts';

const run = promisify(execFile);
let s: TestServer;
const stack = uniqueName('bkpg');
const hidden = uniqueName('bkpgh');
const copy = uniqueName('bkpgc');
const repos = mkdtempSync(join(tmpdir(), 'dw-restic-db-'));
const repo = join(repos, 'pg');
const resticPassword = 'db-backups-restic-password-1';
const dbPassword = `pg-secret-${randomBytes(9).toString('hex')}`;
const seen: string[] = [];
const problems = 'https://dockwright.dev/problems/';

const compose = `services:
  db:
    image: dockwright-test/postgres:15
    environment:
      POSTGRES_USER: shop
      POSTGRES_PASSWORD: ${dbPassword}
      POSTGRES_DB: shop
    volumes: ["pgdata:/var/lib/postgresql/data"]
    healthcheck:
      test: ["CMD", "pg_isready", "-U", "shop", "-d", "shop"]
      interval: 1s
      timeout: 3s
      retries: 60
  app:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    stop_grace_period: 1s
    depends_on:
      db: { condition: service_healthy }
volumes:
  pgdata: {}
`;

async function api(method: string, path: string, body?: unknown) {
  const res = await s.api(method, path, { body });
  seen.push(res.text);
  return res;
}
const dbId = async () => (await containerOf(stack, 'db'))!.Id;
async function psql(sql: string, database = 'shop'): Promise<string> {
  const { stdout } = await run('docker', ['exec', await dbId(), 'psql', '-X', '-U', 'shop', '-d', database, '-Atc', sql]);
  return stdout.trim();
}
/** the dump in the repository, read with plain restic and restored with pg_restore into a scratch database */
async function restoreScratch(snapshot: string, file: string, database: string): Promise<void> {
  await psql(`DROP DATABASE IF EXISTS ${database}`);
  await psql(`CREATE DATABASE ${database}`);
  await run('sh', ['-c', 'restic dump "$SNAP" "$FILE" | docker exec -i "$CID" pg_restore -U shop -d "$DB"'], {
    env: { ...process.env, RESTIC_REPOSITORY: repo, RESTIC_PASSWORD: resticPassword, SNAP: snapshot, FILE: file, CID: await dbId(), DB: database },
  });
}

before(async () => {
  s = await startBackupsServer({ backups: { repositoryRoots: [repos], readyTimeoutMs: 60_000 } });
  await createStack(s, stack, compose);
  await act(s, 'deploy', stack);
  await psql('CREATE TABLE a (id serial PRIMARY KEY, v int NOT NULL); CREATE TABLE b (id serial PRIMARY KEY, v int NOT NULL)');
});
after(async () => {
  await s.close();
  await cleanupProjects(stack, hidden, copy);
  rmSync(repos, { recursive: true, force: true });
});

test('the backup plan suggests postgres for the database and says why; a hidden stack answers as a missing one', async () => {
  const plan = await api('GET', `/api/v1/stacks/${stack}/backup-plan`);
  assert.equal(plan.status, 200, plan.text);
  assert.deepEqual(plan.body.services.map((x: any) => [x.service, x.strategy, x.database]), [['app', 'none', undefined], ['db', 'postgres', 'shop']]);
  assert.match(plan.body.services[1].reason, /dockwright-test\/postgres:15 is PostgreSQL/);
  assert.doesNotMatch(plan.text, new RegExp(dbPassword));

  await createStack(s, hidden, 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n');
  const viewer = await s.token('operator', ['backups:read', 'stacks:read'], { name: `viewer-${hidden}` });
  assert.equal((await s.api('POST', `/api/v1/stacks/${hidden}/access`, { body: { entries: [{ principal: 'user:someone-else', role: 'manager' }] } })).status, 200);
  const hiddenAnswer = await call(s.url, 'GET', `/api/v1/stacks/${hidden}/backup-plan`, { token: viewer });
  const missingAnswer = await call(s.url, 'GET', `/api/v1/stacks/${uniqueName('nope')}/backup-plan`, { token: viewer });
  assert.equal(hiddenAnswer.status, 404);
  assert.equal(missingAnswer.status, 404);
  assert.equal(hiddenAnswer.body.title ?? hiddenAnswer.body.detail ? 'problem' : '', 'problem');
  assert.equal((await call(s.url, 'GET', `/api/v1/stacks/${stack}/backup-plan`, { token: viewer })).status, 200, 'an open stack is planned for a viewer');
});

test('a wrong strategy is refused with a clear problem, nothing stored', async () => {
  for (const strategy of ['mariadb', 'mongo']) {
    const res = await api('PUT', '/api/v1/backups/pg-wrong', { targets: { databases: [{ stack, service: 'db', strategy }] }, repository: { url: join(repos, 'wrong') }, password: resticPassword });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.type, `${problems}wrong-strategy`, res.text);
    assert.match(res.body.detail, new RegExp(`strategy ${strategy} does not fit service db of stack ${stack}: the image dockwright-test/postgres:15 is PostgreSQL`));
  }
  const app = await api('PUT', '/api/v1/backups/pg-wrong', { targets: { databases: [{ stack, service: 'app' }] }, repository: { url: join(repos, 'wrong') }, password: resticPassword });
  assert.equal(app.status, 422, app.text);
  assert.equal(app.body.type, `${problems}wrong-strategy`);
  const bad = await api('PUT', '/api/v1/backups/pg-wrong', { targets: { databases: [{ stack, service: 'db', strategy: 'oracle' }] }, password: resticPassword });
  assert.equal(bad.status, 400, bad.text);
  assert.equal((await api('GET', '/api/v1/backups/pg-wrong')).status, 404, 'nothing half-written');
});

test('a dump under load is consistent, streamed with its tags; the password is in no argv, job output or activity; a dropped table comes back in place', async () => {
  const put = await api('PUT', '/api/v1/backups/pg', { targets: { databases: [{ stack, service: 'db' }] }, repository: { url: repo }, password: resticPassword, retention: { last: 5 } });
  assert.equal(put.status, 201, put.text);

  // load: transactions writing one row to a and one to b, for a while
  await run('docker', ['exec', '-d', await dbId(), 'sh', '-c', 'for i in $(seq 1 4000); do echo "BEGIN; INSERT INTO a(v) VALUES ($i); INSERT INTO b(v) VALUES ($i); COMMIT; SELECT pg_sleep(0.003);"; done | psql -X -q -U shop -d shop >/dev/null']);
  while (Number(await psql('SELECT count(*) FROM a')) < 200) await new Promise((r) => setTimeout(r, 100));

  // every process's argv while the backup runs
  const started = await api('POST', '/api/v1/backups/pg/run');
  assert.equal(started.status, 202, started.text);
  const argvs = new Set<string>();
  let scans = 0;
  let job = (await s.api('GET', `/api/v1/jobs/${started.body.id}`)).body;
  while (!job.done) {
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try { argvs.add(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')); } catch { /* gone */ }
    }
    scans++;
    job = (await s.api('GET', `/api/v1/jobs/${started.body.id}`)).body;
  }
  job = await waitJob(s, started.body.id);
  assert.equal(job.status, 'succeeded', `${job.error}\n${job.output}`);
  seen.push(JSON.stringify(job));
  assert.ok(scans >= 3, `the process list was scanned ${scans} times during the backup`);
  assert.ok([...argvs].some((a) => a.includes('pg_dump')), 'pg_dump was seen running');
  assert.ok([...argvs].some((a) => a.includes('restic') && a.includes('--stdin')), 'restic backup --stdin was seen running');
  assert.equal([...argvs].filter((a) => a.includes(dbPassword)).length, 0, 'the password is in no argv');
  assert.match(job.output, /dump: service db of stack .*: database shop → \/databases\/.*\/db\/shop\.pgdump/);
  assert.equal(job.result.dumps.length, 3, 'roles, postgres and shop');

  // the dump is one consistent snapshot of the database while it was being written to
  const listed = await api('GET', '/api/v1/backups/pg/snapshots');
  assert.equal(listed.status, 200, listed.text);
  const snaps = listed.body;
  const shop = snaps.find((x: any) => x.database === 'shop');
  assert.deepEqual({ kind: shop.kind, stack: shop.stack, service: shop.service, strategy: shop.strategy, verifiedAt: shop.verifiedAt, file: shop.file },
    { kind: 'database', stack, service: 'db', strategy: 'postgres', verifiedAt: null, file: `/databases/${stack}/db/shop.pgdump` });
  assert.equal(shop.release, '1');
  assert.ok(snaps.some((x: any) => x.kind === 'database' && x.database === null && x.file.endsWith('/globals.sql')), 'the roles have a snapshot');
  await restoreScratch(shop.id, shop.file, 'scratch');
  const [rowsA, rowsB] = [Number(await psql('SELECT count(*) FROM a', 'scratch')), Number(await psql('SELECT count(*) FROM b', 'scratch'))];
  assert.equal(rowsA, rowsB, 'every transaction is in the dump whole or not at all');
  assert.equal(await psql('SELECT count(*) FROM a JOIN b USING (id) WHERE a.v <> b.v', 'scratch'), '0');
  assert.ok(rowsA >= 200, `rows in the dump: ${rowsA}`);
  const later = Number(await psql('SELECT count(*) FROM a'));
  assert.ok(rowsA < 4000, `the dump was taken while rows were written (${rowsA} of 4000, ${later} by now)`);
  while (Number(await psql('SELECT count(*) FROM b')) < 4000) await new Promise((r) => setTimeout(r, 200));
  await psql('DROP DATABASE scratch');

  // drop the table, stop the database: a restore in place starts it first and gives the rows back
  await psql('DROP TABLE a');
  await docker.getContainer(await dbId()).stop({ t: 5 });
  const appBefore = (await docker.getContainer((await containerOf(stack, 'app'))!.Id).inspect()).State.StartedAt;
  const restore = await runJob(s, '/api/v1/backups/pg/restore', { target: 'service', stack, service: 'db' });
  seen.push(JSON.stringify(restore));
  assert.match(restore.output, /is stopped: starting it first/);
  assert.match(restore.output, /is healthy/);
  assert.match(restore.output, /stopped .*app.* \(it depends on db\)/);
  assert.match(restore.output, /started .*app.* again/);
  assert.deepEqual(restore.result.restored.map((r: any) => r.database), ['postgres', 'shop'], 'latest: the databases of the newest run (roles stay as they are)');
  assert.equal(Number(await psql('SELECT count(*) FROM a')), rowsA, 'the dropped table is back with its rows');
  assert.equal(Number(await psql('SELECT count(*) FROM b')), rowsB, 'b is as it was in the dump');
  const app = (await docker.getContainer((await containerOf(stack, 'app'))!.Id).inspect()).State;
  assert.equal(app.Running, true, 'the dependant runs again');
  assert.notEqual(app.StartedAt, appBefore, 'the dependant was stopped and started again');

  for (const text of [...seen, JSON.stringify((await api('GET', '/api/v1/activity?limit=500')).body)]) {
    assert.ok(!text.includes(dbPassword), 'the password is in no answer, job output or activity');
  }
});

test('a restore into a service is refused before anything is queued: missing names, wrong strategy, unknown snapshot, another restore running', async () => {
  const post = (body: unknown) => api('POST', '/api/v1/backups/pg/restore', body);
  const noService = await post({ target: 'service', stack });
  assert.equal(noService.status, 400, noService.text);
  const dbDump = (await api('GET', '/api/v1/backups/pg/snapshots')).body.find((x: any) => x.database === 'shop');
  assert.equal((await post({ target: 'service', stack, service: 'app' })).status, 404, 'latest: the service has no dump of its own');
  const wrong = await post({ target: 'service', stack, service: 'app', snapshot: dbDump.id });
  assert.equal(wrong.status, 422, wrong.text);
  assert.equal(wrong.body.type, `${problems}wrong-strategy`);
  assert.match(wrong.body.detail, /a postgres dump cannot be restored into service app of stack .*: no database recognised/);
  const snaps = (await api('GET', '/api/v1/backups/pg/snapshots')).body;
  const globals = snaps.find((x: any) => x.file.endsWith('/globals.sql'));
  const roles = await post({ target: 'service', stack, service: 'db', snapshot: globals.id });
  assert.equal(roles.status, 422, roles.text);
  assert.equal(roles.body.type, `${problems}not-a-dump`);
  assert.equal((await post({ target: 'service', stack, service: 'db', snapshot: 'abcdef0123' })).status, 404);
  assert.equal((await post({ target: 'service', stack: uniqueName('nope'), service: 'db' })).status, 404);
  assert.equal((await post({ target: 'stack', stack, service: 'db' })).status, 400, 'stack and service belong to target service');

  const first = await post({ target: 'service', stack, service: 'db' });
  assert.equal(first.status, 202, first.text);
  const second = await post({ target: 'service', stack, service: 'db' });
  assert.equal(second.status, 409, second.text);
  assert.equal(second.body.type, `${problems}restore-running`);
  const firstJob = await waitJob(s, first.body.id);
  assert.equal(firstJob.status, 'succeeded', `${firstJob.error}\n${firstJob.output}`);
});

test('a download: a one-time path for the caller who asked, streamed, that pg_restore -l lists; audited', async () => {
  const job = await runJob(s, '/api/v1/backups/pg/restore', { target: 'download', stack, service: 'db' });
  const shop = job.result.downloads.find((x: any) => x.database === 'shop');
  assert.match(shop.path, /^\/api\/v1\/backups\/pg\/downloads\/[A-Za-z0-9_-]{16,64}$/);
  assert.equal(shop.file, `/databases/${stack}/db/shop.pgdump`);

  const other = await s.token('operator', ['backups:read', 'backups:run', 'stacks:read', 'stacks:deploy'], { name: `other-${stack}` });
  assert.equal((await call(s.url, 'GET', shop.path, { token: other })).status, 404, 'the path is only for the one who asked');
  const res = await fetch(`${s.url}${shop.path}`, { headers: { authorization: `Bearer ${s.admin}` } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-disposition') ?? '', /attachment; filename="pg-[0-9a-f]{8}-shop\.pgdump"/);
  const dump = Buffer.from(await res.arrayBuffer());
  const pgId = await dbId();
  assert.equal(dump.subarray(0, 5).toString(), 'PGDMP', 'a pg_dump custom-format archive');
  const listing = await new Promise<string>((resolve, reject) => {
    const child = execFile('docker', ['exec', '-i', pgId, 'pg_restore', '-l'], (err, stdout) => (err ? reject(err) : resolve(stdout)));
    child.stdin!.end(dump);
  });
  assert.match(listing, /TABLE public a shop/);
  assert.match(listing, /TABLE DATA public b shop/);
  assert.equal((await s.api('GET', shop.path)).status, 404, 'used once');
  const activity = (await api('GET', '/api/v1/activity?limit=50')).body;
  assert.ok(activity.some((a: any) => a.action === 'backup.download' && a.resource === 'backup:pg'), 'the download is in the activity log');

  const missing = await api('POST', '/api/v1/backups/pg/restore', { target: 'download', stack });
  assert.equal(missing.status, 400, missing.text);
});

test('a restore into a new stack: made from the compose file of the source, deployed, its database restored with the same rows', async () => {
  const rows = Number(await psql('SELECT count(*) FROM a'));
  const job = await runJob(s, '/api/v1/backups/pg/restore', { target: `stack:${copy}`, stack, service: 'db' });
  assert.match(job.output, new RegExp(`deploying the new stack ${copy}`));
  assert.match(job.output, /phase: roles from snapshot/);
  assert.equal(job.result.stack, copy);
  const copyId = (await containerOf(copy, 'db'))!.Id;
  const { stdout } = await run('docker', ['exec', copyId, 'psql', '-X', '-U', 'shop', '-d', 'shop', '-Atc', 'SELECT count(*) FROM a']);
  assert.equal(Number(stdout.trim()), rows, 'the new stack has the rows of the dump');
  assert.equal((await api('GET', `/api/v1/stacks/${copy}`)).status, 200);
  const again = await api('POST', '/api/v1/backups/pg/restore', { target: `stack:${copy}`, stack, service: 'db' });
  assert.equal(again.status, 412, `a stack that exists is not made again: ${again.text}`);
});
