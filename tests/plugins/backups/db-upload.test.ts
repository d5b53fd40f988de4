// Restores from an uploaded dump into a real PostgreSQL 15 service: a pg_dump -Fc made by hand is uploaded (streamed to disk), restored in place and the rows are back; what is not a dump, too large, another caller's, expired or asked for wrongly is refused before anything is queued.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { type TestServer } from '../../helpers/harness.ts';
import { act, cleanupProjects, containerOf, createStack, startBackupsServer, uniqueName, waitJob } from './helpers.ts';

const run = promisify(execFile);
let s: TestServer;
const stack = uniqueName('bkup');
const repos = mkdtempSync(join(tmpdir(), 'dw-restic-up-'));
const dbPassword = `pg-secret-${randomBytes(9).toString('hex')}`;
const problems = 'https://dockwright.dev/problems/';
const limit = 4 * 1024 * 1024;
const ttlMs = 6000;

const compose = `services:
  db:
    image: dockwright-test/postgres:15
    environment:
      POSTGRES_USER: shop
      POSTGRES_PASSWORD: ${dbPassword}
      POSTGRES_DB: shop
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
`;

const dbId = async () => (await containerOf(stack, 'db'))!.Id;
async function psql(sql: string): Promise<string> {
  const { stdout } = await run('docker', ['exec', await dbId(), 'psql', '-X', '-U', 'shop', '-d', 'shop', '-Atc', sql]);
  return stdout.trim();
}
/** pg_dump -Fc by hand, as a user would make one elsewhere */
async function dumpByHand(): Promise<Buffer> {
  const { stdout } = await run('docker', ['exec', await dbId(), 'pg_dump', '-U', 'shop', '-Fc', 'shop'], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}
async function upload(body: Buffer, token = s.admin, backup = 'up') {
  const res = await fetch(`${s.url}/api/v1/backups/${backup}/uploads`, { method: 'PUT', body: new Uint8Array(body), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' } });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
}
const restore = (body: unknown, token = s.admin) => s.api('POST', '/api/v1/backups/up/restore', { body, token });
/** the files of the plugin's uploads folder */
function uploadFiles(): string[] {
  const find = (dir: string): string | null => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      if (e.name === 'uploads') return join(dir, e.name);
      const inner = find(join(dir, e.name));
      if (inner) return inner;
    }
    return null;
  };
  const dir = find(s.dataDir);
  return dir && existsSync(dir) ? readdirSync(dir) : [];
}

before(async () => {
  s = await startBackupsServer({ backups: { repositoryRoots: [repos], readyTimeoutMs: 60_000, uploadLimitBytes: limit, uploadTtlMs: ttlMs } });
  await createStack(s, stack, compose);
  await act(s, 'deploy', stack);
  await psql('CREATE TABLE t (id int PRIMARY KEY, v text NOT NULL); INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 500) g');
  const put = await s.api('PUT', '/api/v1/backups/up', { body: { targets: { databases: [{ stack, service: 'db' }] }, repository: { url: join(repos, 'up') }, password: 'upload-restic-password-1' } });
  assert.equal(put.status, 201, put.text);
});
after(async () => {
  await s.close();
  await cleanupProjects(stack);
  rmSync(repos, { recursive: true, force: true });
});

test('a pg_dump -Fc made by hand, uploaded and restored in place: the rows are back, the upload is used up, both audited', async () => {
  const dump = await dumpByHand();
  assert.equal(dump.subarray(0, 5).toString(), 'PGDMP');
  const up = await upload(dump);
  assert.equal(up.status, 201, up.text);
  assert.match(up.body.id, /^[A-Za-z0-9_-]{32}$/);
  assert.equal(up.body.bytes, dump.length);
  await psql('DROP TABLE t');

  const res = await restore({ upload: up.body.id, target: 'service', stack, service: 'db' });
  assert.equal(res.status, 202, res.text);
  const job = await waitJob(s, res.body.id);
  assert.equal(job.status, 'succeeded', `${job.error}\n${job.output}`);
  assert.match(job.output, /an upload of \d+ bytes/);
  assert.deepEqual((job.result as any).restored, [{ database: 'shop', upload: up.body.id }]);
  assert.equal(await psql('SELECT count(*), sum(id) FROM t'), '500|125250', 'the rows are back');
  assert.ok(!job.output.includes(dbPassword));

  const again = await restore({ upload: up.body.id, target: 'service', stack, service: 'db' });
  assert.equal(again.status, 404, `an upload is restored once: ${again.text}`);
  assert.deepEqual(uploadFiles(), [], 'the restored upload is removed');
  const activity = (await s.api('GET', '/api/v1/activity?limit=50')).body;
  assert.ok(activity.some((a: any) => a.action === 'backup.upload' && a.resource === 'backup:up'), 'the upload is in the activity log');
  assert.ok(activity.some((a: any) => a.action === 'backup.restore' && a.resource === 'backup:up'), 'the restore is in the activity log');
});

test('refusals before anything is queued: not a dump (422), wrong targets and fields (400), unknown or another caller\'s upload (404), a backup that is missing (404)', async () => {
  const junk = await upload(Buffer.from('this is not a database dump\n'));
  assert.equal(junk.status, 201, junk.text);
  const notADump = await restore({ upload: junk.body.id, target: 'service', stack, service: 'db' });
  assert.equal(notADump.status, 422, notADump.text);
  assert.equal(notADump.body.type, `${problems}not-a-dump`);
  assert.match(notADump.body.detail, /not a PostgreSQL dump in the custom format/);

  const good = await upload(await dumpByHand());
  const id = good.body.id;
  assert.equal((await restore({ upload: id, target: 'download', stack, service: 'db' })).status, 400);
  assert.equal((await restore({ upload: id, target: 'folder' })).status, 400);
  assert.equal((await restore({ upload: id, target: 'service', stack })).status, 400, 'service is required');
  assert.equal((await restore({ upload: id, target: 'service', stack, service: 'db', snapshot: 'latest' })).status, 400, 'an upload or a snapshot');
  assert.equal((await restore({ upload: 'x', target: 'service', stack, service: 'db' })).status, 400, 'an id of the wrong shape');
  assert.equal((await restore({ upload: 'A'.repeat(32), target: 'service', stack, service: 'db' })).status, 404);
  const wrong = await restore({ upload: id, target: 'service', stack, service: 'app' });
  assert.equal(wrong.status, 422, wrong.text);
  assert.equal(wrong.body.type, `${problems}wrong-strategy`);
  const other = await s.token('operator', ['backups:read', 'backups:run', 'stacks:read', 'stacks:deploy'], { name: `other-${stack}` });
  assert.equal((await restore({ upload: id, target: 'service', stack, service: 'db' }, other)).status, 404, 'an upload is its uploader\'s');
  const noDeploy = await s.token('operator', ['backups:read', 'backups:run'], { name: `nodeploy-${stack}` });
  assert.equal((await restore({ upload: id, target: 'service', stack, service: 'db' }, noDeploy)).status, 403);
  assert.equal((await upload(Buffer.from('x'), s.admin, uniqueName('nope'))).status, 404);
  const reader = await s.token('operator', ['backups:read'], { name: `reader-${stack}` });
  assert.equal((await upload(Buffer.from('x'), reader)).status, 403, 'uploads need backups:run');
  assert.equal((await upload(Buffer.alloc(0))).status, 400, 'an empty body');
  const jobs = (await s.api('GET', '/api/v1/jobs?limit=100')).body;
  assert.equal((jobs.items ?? jobs).filter((j: any) => j.type === 'backups.restore').length, 1, 'only the first test\'s restore was queued');
});

test('a dump over the upload limit is refused with 413 and nothing is kept; an upload expires and is removed', async () => {
  const before = uploadFiles().length;
  const big = await upload(randomBytes(limit + 1));
  assert.equal(big.status, 413, big.text);
  // the body sent without a length (chunked): refused as it passes the limit, its part removed
  const data = randomBytes(limit + 4096);
  const stream = new ReadableStream({ start(c) { for (let i = 0; i < data.length; i += 65536) c.enqueue(data.subarray(i, i + 65536)); c.close(); } });
  const chunked = await fetch(`${s.url}/api/v1/backups/up/uploads`, { method: 'PUT', body: stream, duplex: 'half', headers: { authorization: `Bearer ${s.admin}` } } as RequestInit).then((r) => r.status, () => 0);
  assert.ok(chunked === 413 || chunked === 0, `${chunked}`);
  assert.equal(uploadFiles().filter((f) => f.endsWith('.part')).length, 0, 'no part left');
  assert.equal(uploadFiles().length, before);

  const up = await upload(await dumpByHand());
  assert.equal(up.status, 201);
  await new Promise((r) => setTimeout(r, ttlMs + 200));
  const late = await restore({ upload: up.body.id, target: 'service', stack, service: 'db' });
  assert.equal(late.status, 404, `expired: ${late.text}`);
  // swept at least once per time to live
  await new Promise((r) => setTimeout(r, ttlMs + 500));
  assert.deepEqual(uploadFiles(), [], 'expired uploads are removed');
});
