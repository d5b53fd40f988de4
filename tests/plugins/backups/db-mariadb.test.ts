// Database backups of a real MariaDB 10.11 service (the test image from scripts/test-env.d/db-images.sh): the plan suggests mariadb, mariadb-dump runs with --single-transaction --routines --events --triggers and the root password only in its environment, and a dropped table and its routine come back with a restore in place.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import type { TestServer } from '../../helpers/harness.ts';
import { act, cleanupProjects, containerOf, createStack, runJob, startBackupsServer, uniqueName, waitJob } from './helpers.ts';

const run = promisify(execFile);
let s: TestServer;
const stack = uniqueName('bkmy');
const repos = mkdtempSync(join(tmpdir(), 'dw-restic-my-'));
const rootPassword = `my-root-${randomBytes(9).toString('hex')}`;
const seen: string[] = [];

const compose = `services:
  db:
    image: dockwright-test/mariadb:10.11
    environment:
      MARIADB_ROOT_PASSWORD: ${rootPassword}
      MARIADB_DATABASE: shop
      MARIADB_USER: shop
      MARIADB_PASSWORD: shop-user-password
    volumes: ["mydata:/var/lib/mysql"]
    healthcheck:
      test: ["CMD", "mariadb-admin", "ping", "--silent"]
      interval: 1s
      timeout: 3s
      retries: 60
volumes:
  mydata: {}
`;

async function sql(query: string): Promise<string> {
  const id = (await containerOf(stack, 'db'))!.Id;
  // the password by environment: the docker CLI's own argv is scanned too
  const { stdout } = await run('docker', ['exec', '-e', 'MYSQL_PWD', id, 'mariadb', '-uroot', '-N', '-B', 'shop', '-e', query], { env: { ...process.env, MYSQL_PWD: rootPassword } });
  return stdout.trim();
}

before(async () => {
  s = await startBackupsServer({ backups: { repositoryRoots: [repos], readyTimeoutMs: 60_000 } });
  await createStack(s, stack, compose);
  await act(s, 'deploy', stack);
  for (let i = 0; (await sql('SELECT 1').catch(() => '')) !== '1'; i++) {
    if (i > 120) throw new Error('mariadb did not start');
    await new Promise((r) => setTimeout(r, 500));
  }
  await sql('CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40)) ENGINE=InnoDB');
  await sql("INSERT INTO items VALUES (1, 'one'), (2, 'two'), (3, 'three')");
  // enough rows for the dump to run a while (and be seen in the process list)
  await sql("CREATE TABLE big ENGINE=InnoDB AS SELECT seq AS id, REPEAT('x', 200) AS pad FROM seq_1_to_300000");
  await sql('CREATE FUNCTION twice(x INT) RETURNS INT DETERMINISTIC RETURN x * 2');
});
after(async () => {
  await s.close();
  await cleanupProjects(stack);
  rmSync(repos, { recursive: true, force: true });
});

test('mariadb: suggested, dumped with its routines under the root password kept out of argv, and restored in place', async () => {
  const plan = await s.api('GET', `/api/v1/stacks/${stack}/backup-plan`);
  assert.deepEqual(plan.body.services, [{ service: 'db', strategy: 'mariadb', database: 'shop', reason: 'the image dockwright-test/mariadb:10.11 is MariaDB' }]);
  const put = await s.api('PUT', '/api/v1/backups/my', { body: { targets: { databases: [{ stack, service: 'db' }] }, repository: { url: join(repos, 'my') }, password: 'db-backups-restic-password-2' } });
  assert.equal(put.status, 201, put.text);
  const wrong = await s.api('PUT', '/api/v1/backups/my-wrong', { body: { targets: { databases: [{ stack, service: 'db', strategy: 'postgres' }] } } });
  assert.equal(wrong.status, 422, wrong.text);
  assert.equal(wrong.body.type, 'https://dockwright.dev/problems/wrong-strategy');

  const started = await s.api('POST', '/api/v1/backups/my/run');
  assert.equal(started.status, 202, started.text);
  const argvs = new Set<string>();
  let job = (await s.api('GET', `/api/v1/jobs/${started.body.id}`)).body;
  while (!job.done) {
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try { argvs.add(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')); } catch { /* gone */ }
    }
    job = (await s.api('GET', `/api/v1/jobs/${started.body.id}`)).body;
  }
  job = await waitJob(s, started.body.id);
  assert.equal(job.status, 'succeeded', `${job.error}\n${job.output}`);
  seen.push(JSON.stringify(job));
  const dumps = [...argvs].filter((a) => a.startsWith('mariadb-dump '));
  assert.ok(dumps.length >= 1, `mariadb-dump was seen running: ${[...argvs].filter((a) => a.includes('maria')).join(' | ')}`);
  assert.match(dumps[0], /--single-transaction --routines --events --triggers/);
  assert.equal([...argvs].filter((a) => a.includes(rootPassword)).length, 0, 'the password is in no argv');
  assert.deepEqual(job.result.dumps.map((d: any) => d.file), [`/databases/${stack}/db/shop.sql`], 'the system databases are left out');

  const snaps = (await s.api('GET', '/api/v1/backups/my/snapshots')).body;
  assert.deepEqual(snaps.map((x: any) => [x.kind, x.strategy, x.database]), [['database', 'mariadb', 'shop']]);

  await sql('DROP TABLE items');
  await sql('DROP FUNCTION twice');
  const restore = await runJob(s, '/api/v1/backups/my/restore', { target: 'service', stack, service: 'db' });
  seen.push(JSON.stringify(restore));
  assert.match(restore.output, /phase: mariadb client of shop/);
  assert.equal(await sql('SELECT group_concat(name ORDER BY id) FROM items'), 'one,two,three');
  assert.equal(await sql('SELECT twice(21)'), '42', 'the routine is back');
  for (const text of [...seen, (await s.api('GET', '/api/v1/activity?limit=500')).text]) assert.ok(!text.includes(rootPassword));
});

test('hooks: pre and post run in the container around the dump; post runs also after a failing or timed-out pre hook', async () => {
  const inDb = async (script: string) => (await run('docker', ['exec', (await containerOf(stack, 'db'))!.Id, 'sh', '-c', script])).stdout.trim();
  const define = async (name: string, hooks: unknown) => {
    const res = await s.api('PUT', `/api/v1/backups/${name}`, { body: { targets: { databases: [{ stack, service: 'db', database: 'shop', hooks }] }, repository: { url: join(repos, name) }, password: 'db-backups-restic-password-3' } });
    assert.equal(res.status, 201, res.text);
  };
  const bad = await s.api('PUT', '/api/v1/backups/hk-bad', { body: { targets: { databases: [{ stack, service: 'db', hooks: { pre: [[]] } }] } } });
  assert.equal(bad.status, 400, 'an empty argv is refused');

  await define('hk', { pre: ['echo pre-ran > /tmp/pre-mark', ['sh', '-c', 'echo hello-from-pre']], post: ['echo post-ran > /tmp/post-mark'] });
  const ok = await runJob(s, '/api/v1/backups/hk/run');
  assert.match(ok.output, /pre hook 2 of service db of stack .*\| hello-from-pre/);
  assert.ok(ok.output.indexOf('pre hook 1') < ok.output.indexOf('dump: service db') && ok.output.indexOf('dump: service db') < ok.output.indexOf('post hook 1'), 'pre, dump, post in that order');
  assert.equal(await inDb('cat /tmp/pre-mark /tmp/post-mark'), 'pre-ran\npost-ran');

  await inDb('rm -f /tmp/post-mark');
  await define('hk-fail', { pre: ['exit 3'], post: ['echo post-ran > /tmp/post-mark'] });
  const failed = await runJob(s, '/api/v1/backups/hk-fail/run', undefined, 'failed');
  assert.match(failed.error ?? '', /pre hook 1 of service db of stack .* failed \(exit 3\)/);
  assert.equal(await inDb('cat /tmp/post-mark'), 'post-ran', 'post ran after the failed pre hook');

  await inDb('rm -f /tmp/post-mark');
  await define('hk-slow', { pre: ['sleep 30'], post: ['echo post-ran > /tmp/post-mark'], timeoutSeconds: 1 });
  const startedAt = Date.now();
  const slow = await runJob(s, '/api/v1/backups/hk-slow/run', undefined, 'failed');
  assert.match(slow.error ?? '', /pre hook 1 of service db of stack .* did not finish within 1 s/);
  assert.ok(Date.now() - startedAt < 15_000, 'the hook was cut off');
  assert.equal(await inDb('cat /tmp/post-mark'), 'post-ran', 'post ran after the timed-out pre hook');
  // the image has no pgrep: the container's processes from /proc (this shell's own grep names no sleep)
  assert.equal(await inDb("grep -las '^sleep' /proc/[0-9]*/cmdline | wc -l"), '0', 'the timed-out hook was killed in the container');
});
