// The sqlite and command strategies on real containers: a SQLite file (sqlite3 of the postgres test image) backed up with .backup and a busybox file with the user's own dump and restore argv, both streamed into restic and restored in place; entries without their fields are refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type TestServer } from '../../helpers/harness.ts';
import { act, cleanupProjects, containerOf, createStack, runJob, startBackupsServer, uniqueName } from './helpers.ts';

const run = promisify(execFile);
let s: TestServer;
const stack = uniqueName('bklite');
const repos = mkdtempSync(join(tmpdir(), 'dw-restic-lite-'));
const problems = 'https://dockwright.dev/problems/';

const compose = `services:
  lite:
    image: dockwright-test/postgres:15
    entrypoint: ["sleep", "3600"]
    stop_grace_period: 1s
    volumes: ["litedata:/data"]
  files:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    stop_grace_period: 1s
volumes:
  litedata: {}
`;

async function inService(service: string, argv: string[]): Promise<string> {
  const { stdout } = await run('docker', ['exec', (await containerOf(stack, service))!.Id, ...argv]);
  return stdout.trim();
}
const sqlite = (sql: string) => inService('lite', ['sqlite3', '/data/app.db', sql]);
const entries = [
  { stack, service: 'lite', strategy: 'sqlite', path: '/data/app.db' },
  { stack, service: 'files', strategy: 'command', database: 'notes', dump: ['cat', '/tmp/notes.txt'], restore: ['sh', '-c', 'cat > /tmp/notes.txt'] },
];

before(async () => {
  s = await startBackupsServer({ backups: { repositoryRoots: [repos] } });
  await createStack(s, stack, compose);
  await act(s, 'deploy', stack);
  await sqlite("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL); WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 300) INSERT INTO t SELECT n, hex(randomblob(8)) FROM g;");
  await inService('files', ['sh', '-c', 'seq 1 1000 > /tmp/notes.txt']);
});
after(async () => {
  await s.close();
  await cleanupProjects(stack);
  rmSync(repos, { recursive: true, force: true });
});

test('entries of sqlite and command without their fields, or with another strategy\'s, are refused; nothing stored', async () => {
  const put = (entry: unknown) => s.api('PUT', '/api/v1/backups/lite-bad', { body: { targets: { databases: [entry] }, repository: { url: join(repos, 'bad') }, password: 'lite-restic-password-1' } });
  for (const [entry, path] of [
    [{ stack, service: 'lite', strategy: 'sqlite' }, '/body/targets/databases/0/path'],
    [{ stack, service: 'files', strategy: 'command', restore: ['true'] }, '/body/targets/databases/0/dump'],
    [{ stack, service: 'lite', strategy: 'command', dump: ['true'], path: '/data/app.db' }, '/body/targets/databases/0/path'],
  ] as const) {
    const res = await put(entry);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.errors[0].path, path, res.text);
  }
  const relative = await put({ stack, service: 'lite', strategy: 'sqlite', path: 'data/app.db' });
  assert.equal(relative.status, 400);
  assert.equal((await s.api('GET', '/api/v1/backups/lite-bad')).status, 404);
  const wrong = await put({ stack, service: 'files', strategy: 'postgres' });
  assert.equal(wrong.status, 422, wrong.text);
  assert.equal(wrong.body.type, `${problems}missing-credentials`, 'postgres on a service with no credentials');
});

test('a sqlite file and a command dump are streamed into restic and restored in place', async () => {
  const put = await s.api('PUT', '/api/v1/backups/lite', { body: { targets: { databases: entries }, repository: { url: join(repos, 'lite') }, password: 'lite-restic-password-1' } });
  assert.equal(put.status, 201, put.text);
  const before = await sqlite('SELECT count(*), group_concat(v) FROM t');
  const job = await runJob(s, '/api/v1/backups/lite/run');
  assert.match(job.output, /sqlite \.backup of \/data\/app\.db/);
  const snaps = (await s.api('GET', '/api/v1/backups/lite/snapshots')).body;
  const lite = snaps.find((x: any) => x.service === 'lite');
  const files = snaps.find((x: any) => x.service === 'files');
  assert.equal(lite.strategy, 'sqlite');
  assert.equal(lite.file, `/databases/${stack}/lite/%2Fdata%2Fapp%2Edb.sqlite`);
  assert.equal(files.strategy, 'command');

  // the dump in the repository is a SQLite database: plain restic reads it
  const { stdout } = await run('restic', ['dump', lite.id, lite.file], { env: { ...process.env, RESTIC_REPOSITORY: join(repos, 'lite'), RESTIC_PASSWORD: 'lite-restic-password-1' }, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(stdout.subarray(0, 15).toString('latin1'), 'SQLite format 3');

  await sqlite('DELETE FROM t WHERE id > 10; INSERT INTO t VALUES (9999, \'new\')');
  await inService('files', ['sh', '-c', 'echo changed > /tmp/notes.txt']);
  await runJob(s, '/api/v1/backups/lite/restore', { target: 'service', stack, service: 'lite' });
  assert.equal(await sqlite('SELECT count(*), group_concat(v) FROM t'), before, 'the rows are those of the backup');
  const cmd = await runJob(s, '/api/v1/backups/lite/restore', { target: 'service', stack, service: 'files' });
  assert.match(cmd.output, /the restore command/);
  assert.equal(await inService('files', ['sh', '-c', 'wc -l < /tmp/notes.txt; tail -1 /tmp/notes.txt']), '1000\n1000');
});
