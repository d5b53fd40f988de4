// Remote repositories: the outbound policy at save and at run (nothing connects to a refused host), and an sftp repository for real on the test sshd — pinned, backed up, restored into each target kind, retention, the database restored into a fresh database.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { createDatabase, type TestServer } from '../../helpers/harness.ts';
import { act, checksums, cleanupProjects, createStack, docker, inVolume, runJob, startBackupsServer, uniqueName } from './helpers.ts';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests with scripts/test.sh (scripts/test-env.d/sftp.sh starts the test sshd)`);
  return value;
};
const sshPort = Number(env('SFTP_TEST_PORT'));
const sshUser = env('SFTP_TEST_USER');
const sshKey = readFileSync(env('SFTP_TEST_KEY'), 'utf8');
const hostKey = readFileSync(env('SFTP_TEST_HOST_KEY'), 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
const sftpRoot = env('SFTP_TEST_ROOT');
const repoDir = join(sftpRoot, uniqueName('remote'));

/** the names the servers' resolver knows: no DNS query leaves the machine */
const names = new Map<string, string>();
const resolveName = async (name: string) => {
  const found = names.get(name.toLowerCase());
  if (!found) throw Object.assign(new Error(`no such name ${name}`), { code: 'ENOTFOUND' });
  return [{ address: found, family: found.includes(':') ? 6 : 4 }];
};

/** a TCP listener on loopback that records every connection and answers nothing */
async function listener(): Promise<{ server: Server; port: number; connections: number }> {
  const l = { server: createServer((socket) => { l.connections++; socket.destroy(); }), port: 0, connections: 0 };
  await new Promise<void>((resolve) => l.server.listen(0, '127.0.0.1', () => resolve()));
  l.port = (l.server.address() as { port: number }).port;
  return l;
}

const stack = uniqueName('bkremote');
const volume = `${stack}_data`;
const newVolume = uniqueName('bkremotevol');
const compose = `services:
  app:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "[ -f /data/a.txt ] || { echo hello-remote > /data/a.txt; mkdir -p /data/sub; head -c 150000 /dev/urandom > /data/sub/blob; }; sleep 3600"]
    volumes: ["data:/data"]
volumes:
  data: {}
`;

let s: TestServer;
let strict: TestServer | undefined;
let trap: Awaited<ReturnType<typeof listener>>;
const answers: string[] = [];

before(async () => {
  trap = await listener();
  names.set('sftp.test', '127.0.0.1');
  // loopback allowed (as in every test), names looked up only for sftp.test and later.test, by the table above
  s = await startBackupsServer({ config: { outbound: { allow: ['127.0.0.0/8', '::1'], allowHostnames: ['sftp.test', 'later.test'] } }, resolveName });
  await createStack(s, stack, compose);
  await act(s, 'deploy', stack);
  await inVolume(volume, 'while [ ! -f /v/sub/blob ]; do sleep 0.1; done; sleep 0.2', true);
});
after(async () => {
  await strict?.stop();
  await s?.close();
  await cleanupProjects(stack);
  await docker.getVolume(newVolume).remove().catch(() => undefined);
  await new Promise((resolve) => trap?.server.close(resolve));
  rmSync(repoDir, { recursive: true, force: true });
});

async function api(method: string, path: string, body?: unknown, server = s) {
  const res = await server.api(method, path, { body });
  answers.push(res.text);
  return res;
}

test('repositories on loopback, private or metadata addresses are refused with 422 before anything is stored or connected; a run checks again before restic starts', async () => {
  strict = await startBackupsServer({ config: { outbound: { allow: [], allowHostnames: ['meta.test', 'later.test'] } }, resolveName });
  names.set('meta.test', '169.254.169.254');
  const p = trap.port;
  const cases: [string, Record<string, string>, RegExp][] = [
    [`sftp:${sshUser}@127.0.0.1:/x`, {}, /127\.0\.0\.1 are refused: it is a loopback address/],
    [`sftp://${sshUser}@127.0.0.1:${p}//x`, {}, /loopback/],
    [`sftp://${sshUser}@[::1]:${p}//x`, {}, /the loopback address/],
    [`sftp:${sshUser}@0x7f.1:/x`, {}, /127\.0\.0\.1, a loopback address/],
    [`rest:http://127.0.0.1:${p}/`, {}, /loopback/],
    [`rest:https://user:secret-in-url@10.1.2.3/repo`, {}, /private address/],
    ['rest:http://meta.test/repo', {}, /it resolves to 169\.254\.169\.254, the cloud metadata address/],
    ['s3:http://169.254.169.254/bucket', {}, /the cloud metadata address/],
    [`s3:127.0.0.1:${p}/bucket`, {}, /loopback/],
    ['s3://192.168.1.1/bucket', {}, /private address/],
    ['s3:https://[fd00:ec2::254]/bucket', {}, /the cloud metadata address/],
    ['swift:container:/path', { OS_AUTH_URL: `http://127.0.0.1:${p}/v3` }, /loopback/],
  ];
  for (const [url, repoEnv, why] of cases) {
    const res = await api('PUT', '/api/v1/backups/refused', { targets: { database: true }, repository: { url, env: repoEnv } }, strict);
    assert.equal(res.status, 422, `${url}: ${res.text}`);
    assert.equal(res.body.type, 'https://dockwright.dev/problems/outbound-refused', url);
    assert.match(res.body.detail, why, url);
    assert.match(res.body.detail, /outbound\.allow/, 'names the policy');
    assert.deepEqual(res.body.errors.map((e: any) => e.path), ['/body/repository/url']);
    assert.ok(!res.text.includes('secret-in-url'));
  }
  assert.equal((await api('GET', '/api/v1/backups/refused', undefined, strict)).status, 404, 'nothing was stored');
  assert.equal(trap.connections, 0, 'nothing connected');

  // a name that does not resolve at save passes; at run it resolves to loopback: refused before restic starts
  const put = await api('PUT', '/api/v1/backups/later', { targets: { database: true }, repository: { url: `sftp://${sshUser}@later.test:${p}//x` } }, strict);
  assert.equal(put.status, 201, put.text);
  names.set('later.test', '127.0.0.1');
  const run = await runJob(strict, '/api/v1/backups/later/run', undefined, 'failed');
  assert.match(run.error ?? '', /connections to later\.test are refused: it resolves to 127\.0\.0\.1, a loopback address/);
  assert.equal(trap.connections, 0, 'restic never connected');

  // a definition saved while loopback was allowed, run after the policy changed (a restart with allow: []): refused at run
  const loose = await startBackupsServer();
  try {
    const saved = await api('PUT', '/api/v1/backups/was-allowed', { targets: { database: true }, repository: { url: `sftp://${sshUser}@127.0.0.1:${p}//x` } }, loose);
    assert.equal(saved.status, 201, saved.text);
    await loose.stop();
    const again = await startBackupsServer({ config: { outbound: { allow: [], allowHostnames: false } }, reuse: { databaseUrl: loose.databaseUrl, dataDir: loose.dataDir } });
    try {
      const failed = await runJob(again, '/api/v1/backups/was-allowed/run', undefined, 'failed');
      assert.match(failed.error ?? '', /connections to 127\.0\.0\.1 are refused: it is a loopback address/);
      assert.equal(trap.connections, 0, 'restic never connected');
    } finally {
      await again.stop();
    }
  } finally {
    await loose.close();
  }
});

const sftpUrl = `sftp://${sshUser}@sftp.test:${sshPort}/${repoDir}`;

test('an sftp repository on the test sshd: pinned to the checked address, backed up, listed, restored into a new volume, the stack and a folder; retention; the key never shown', async () => {
  const original = await checksums(volume);
  const put = await api('PUT', '/api/v1/backups/remote', { targets: { stacks: [stack] }, repository: { url: sftpUrl, sshKey }, retention: { last: 2 } });
  assert.equal(put.status, 201, put.text);
  assert.equal(put.body.repository.sshKey, true);
  assert.equal(put.body.repository.url, sftpUrl);
  assert.equal((await api('PUT', '/api/v1/backups/nokey', { targets: { stacks: [stack] }, repository: { url: '/tmp/x', sshKey } })).status, 422, 'a key is for sftp');

  // sftp.test is known to Dockwright's resolver only: ssh reaches the sshd because it is given the checked address
  const first = await runJob(s, '/api/v1/backups/remote/run');
  assert.match(first.output, /initialising the repository/);
  assert.equal(first.result.files, 2);
  assert.ok(existsSync(join(repoDir, 'config')), 'the repository is on the sftp server');
  const knownHosts = readFileSync(join(s.dataDir, 'plugins', 'backups', 'ssh', 'known_hosts'), 'utf8');
  assert.ok(knownHosts.includes(`[sftp.test]:${sshPort} ${hostKey}`), `the host key is kept under the name: ${knownHosts}`);
  assert.deepEqual(readdirSync(join(s.dataDir, 'plugins', 'backups', 'ssh')).filter((n) => n.startsWith('key-')), [], 'no key file outlives its command');

  const files = await api('GET', `/api/v1/backups/remote/files?path=/stacks/${stack}/${volume}`);
  assert.deepEqual(files.body.map((f: any) => f.name), ['a.txt', 'sub']);

  await inVolume(volume, 'echo changed > /v/a.txt; rm /v/sub/blob');
  const toVolume = await runJob(s, '/api/v1/backups/remote/restore', { target: `volume:${newVolume}` });
  assert.match(toVolume.output, /restored 2 files/);
  assert.deepEqual(await checksums(newVolume), original);
  const toStack = await runJob(s, '/api/v1/backups/remote/restore', { target: 'stack', overwrite: true });
  assert.match(toStack.output, /started .*app.* again/);
  assert.deepEqual(await checksums(volume), original);
  const toFolder = await runJob(s, '/api/v1/backups/remote/restore', { target: 'folder' });
  assert.equal(readFileSync(join(toFolder.result.folder, 'stacks', stack, volume, 'a.txt'), 'utf8'), 'hello-remote\n');

  // retention over sftp: the oldest of three snapshots is forgotten and pruned
  const ids = [first.result.snapshot];
  for (let i = 0; i < 2; i++) {
    await inVolume(volume, `echo ${i} > /v/round`);
    ids.push((await runJob(s, '/api/v1/backups/remote/run')).result.snapshot);
  }
  const snaps = (await api('GET', '/api/v1/backups/remote/snapshots')).body;
  assert.deepEqual(snaps.map((x: any) => x.id), [ids[2], ids[1]]);
  assert.equal((await api('GET', `/api/v1/backups/remote/files?snapshot=${ids[0]}`)).status, 404);

  // the key is in no answer and no job output
  const keyLines = sshKey.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----'));
  const jobs = (await api('GET', '/api/v1/jobs?limit=200')).body;
  for (const j of jobs) answers.push((await api('GET', `/api/v1/jobs/${j.id}`)).text);
  for (const text of answers) for (const line of keyLines) assert.ok(!text.includes(line), `the key leaked in: ${text.slice(0, 200)}`);
});

test('the database over sftp: restored into a fresh database holding the same rows', async () => {
  assert.equal((await api('PUT', '/api/v1/backups/remote-db', { targets: { database: true }, repository: { url: `${sftpUrl}-db`, sshKey } })).status, 201);
  const run = await runJob(s, '/api/v1/backups/remote-db/run');
  assert.equal(run.result.files, 1);
  const restored = await runJob(s, '/api/v1/backups/remote-db/restore', { target: 'folder' });
  const dump = join(restored.result.folder, 'database', 'dockwright.dump');
  const fresh = await createDatabase();
  try {
    execFileSync('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${fresh.url}`, dump], { stdio: 'pipe' });
    // what no run changes afterwards: definitions, stacks and their revisions, users and tokens
    const queries = [
      'SELECT name, revision, compose FROM stacks ORDER BY name',
      'SELECT kind, key, revision, snapshot FROM revisions ORDER BY kind, key, revision',
      'SELECT name, targets, repository_display, repository_ssh_key_sealed, password_sealed FROM backups ORDER BY name',
      'SELECT id, hash, scopes FROM tokens ORDER BY id',
      'SELECT name, role FROM users ORDER BY name',
    ];
    for (const q of queries) assert.deepEqual(await rows(fresh.url, q), await rows(s.databaseUrl, q), q);
  } finally {
    await fresh.drop();
    rmSync(`${repoDir}-db`, { recursive: true, force: true });
  }
});

async function rows(url: string, sql: string): Promise<unknown[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}
