// Backups of a stack's volume on a real engine with real restic: run with progress, files listed, data changed, restored byte for byte into a new volume, the stack (stopping only the services that mount it) and a folder; stop consistency; retention; one run at a time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestServer } from '../../helpers/harness.ts';
import { act, checksums, cleanupProjects, containerOf, createStack, docker, inVolume, runJob, sha256, startBackupsServer, uniqueName, waitJob } from './helpers.ts';

let s: TestServer;
const stack = uniqueName('bk');
const volume = `${stack}_data`;
const restored = uniqueName('bkrestored');
const repos = mkdtempSync(join(tmpdir(), 'dw-restic-'));
const password = 'correct-horse-battery-staple-42';
const seen: string[] = [];
const events: { name: string; payload: Record<string, unknown> }[] = [];

const compose = `services:
  app:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "[ -f /data/a.txt ] || { echo hello-backup > /data/a.txt; mkdir -p /data/sub; head -c 200000 /dev/urandom > /data/sub/blob; chown 1234:1234 /data/sub/blob; }; sleep 3600"]
    volumes: ["data:/data"]
  other:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    stop_grace_period: 1s
volumes:
  data: {}
`;

async function api(method: string, path: string, body?: unknown, token?: string) {
  const res = await s.api(method, path, { body, ...(token ? { token } : {}) });
  seen.push(res.text);
  return res;
}
async function job(path: string, body?: unknown, expect: 'succeeded' | 'failed' = 'succeeded') {
  const j = await runJob(s, path, body, expect);
  seen.push(JSON.stringify(j));
  return j;
}
const startedAt = async (service = 'app') => (await docker.getContainer((await containerOf(stack, service))!.Id).inspect()).State;

before(async () => {
  s = await startBackupsServer({ backups: { repositoryRoots: [repos] } });
  for (const name of ['backup.failed', 'backup.succeeded']) s.app.services.events.on(name, (payload) => { events.push({ name, payload }); });
  await createStack(s, stack, compose);
  await act(s, 'deploy', stack);
  await inVolume(volume, 'while [ ! -f /v/sub/blob ]; do sleep 0.1; done; sleep 0.2', true);
});
after(async () => {
  await s.close();
  await cleanupProjects(stack);
  await docker.getVolume(restored).remove().catch(() => undefined);
  rmSync(repos, { recursive: true, force: true });
});

test('a stack volume: backed up with progress, listed, changed, and restored byte for byte into a new volume, the stack and a folder', async () => {
  const original = await checksums(volume);
  assert.deepEqual(Object.keys(original).sort(), ['./a.txt', './sub/blob']);

  const put = await api('PUT', '/api/v1/backups/vol', { targets: { stacks: [stack] }, repository: { url: join(repos, 'vol') }, password });
  assert.equal(put.status, 201, put.text);
  assert.equal(put.body.repository.initialized, false);
  assert.equal((await api('PUT', '/api/v1/backups/vol', { targets: { stacks: [stack] }, repository: { url: join(repos, 'vol') } })).status, 200, 'a replace keeps the password');

  const run = await job('/api/v1/backups/vol/run');
  assert.match(run.output, /initialising the repository/);
  assert.match(run.output, /progress \d+% · \d+\/\d+ files/);
  assert.match(run.result.snapshot, /^[0-9a-f]{64}$/);
  assert.equal(run.result.files, 2);
  assert.ok(run.result.bytesAdded > 200_000, `bytes added: ${run.result.bytesAdded}`);
  assert.equal(typeof run.result.durationMs, 'number');

  const def = (await api('GET', '/api/v1/backups/vol')).body;
  assert.equal(def.lastRun.status, 'succeeded');
  assert.equal(def.lastRun.snapshot, run.result.snapshot);
  assert.equal(def.snapshots, 1);
  assert.equal(def.repository.initialized, true);
  const list = (await api('GET', '/api/v1/backups')).body;
  assert.ok(list.some((b: any) => b.name === 'vol' && b.lastRun.status === 'succeeded'));

  assert.deepEqual((await api('GET', '/api/v1/backups/vol/files')).body.map((f: any) => f.path), ['/stacks']);
  assert.deepEqual((await api('GET', `/api/v1/backups/vol/files?path=/stacks/${stack}`)).body.map((f: any) => f.name), [volume]);
  const root = (await api('GET', `/api/v1/backups/vol/files?path=/stacks/${stack}/${volume}`)).body;
  assert.deepEqual(root.map((f: any) => [f.name, f.type]), [['a.txt', 'file'], ['sub', 'dir']]);
  const sub = await api('GET', `/api/v1/backups/vol/files?snapshot=${run.result.snapshot.slice(0, 8)}&path=/stacks/${stack}/${volume}/sub&limit=1`);
  assert.deepEqual(sub.body.map((f: any) => [f.path, f.size]), [[`/stacks/${stack}/${volume}/sub/blob`, 200_000]]);
  assert.deepEqual((await api('GET', `/api/v1/backups/vol/files?path=/stacks/${stack}/${volume}/a.txt`)).body.map((f: any) => [f.name, f.size]), [['a.txt', 13]]);
  assert.equal((await api('GET', `/api/v1/backups/vol/files?path=/stacks/${stack}/nothing`)).status, 404);
  assert.equal((await api('GET', '/api/v1/backups/vol/files?snapshot=deadbeef')).status, 404);
  const snaps = (await api('GET', '/api/v1/backups/vol/snapshots')).body;
  assert.deepEqual(snaps.map((x: any) => [x.id, x.sources]), [[run.result.snapshot, [`/stacks/${stack}/${volume}`]]]);

  await inVolume(volume, 'echo changed > /v/a.txt; rm /v/sub/blob; echo new > /v/extra');
  assert.notDeepEqual(await checksums(volume), original);

  // into a new volume: the bytes are back, with their owner
  const toVolume = await job('/api/v1/backups/vol/restore', { target: `volume:${restored}` });
  assert.match(toVolume.output, /restored 2 files/);
  assert.deepEqual(await checksums(restored), original);
  assert.equal((await inVolume(restored, 'stat -c %u:%g /v/sub/blob', true)).toString().trim(), '1234:1234');
  const again = await api('POST', '/api/v1/backups/vol/restore', { target: `volume:${restored}` });
  assert.equal(again.status, 409, 'a volume with data is not overwritten without overwrite');

  // back into the stack: refused without overwrite, then the container is stopped, the data replaced, the container started
  const refused = await api('POST', '/api/v1/backups/vol/restore', { target: 'stack' });
  assert.equal(refused.status, 409, refused.text);
  assert.match(refused.body.detail, /overwrite/);
  const before = await startedAt();
  const otherBefore = await startedAt('other');
  const toStack = await job('/api/v1/backups/vol/restore', { target: 'stack', overwrite: true });
  assert.match(toStack.output, /stopped .*app/);
  // only the services that mount the restored volume stop: the stack's other one keeps serving
  assert.match(toStack.output, new RegExp(`kept running \\(they mount none of ${volume}\\): ${stack}-other-1`));
  assert.doesNotMatch(toStack.output, /stopped .*other/);
  assert.equal((await startedAt('other')).StartedAt, otherBefore.StartedAt, 'the service without the volume was not restarted');
  assert.match(toStack.output, /started .*app.* again/);
  assert.deepEqual(await checksums(volume), original, 'the extra file is gone and the changed ones are back');
  const afterRestore = await startedAt();
  assert.equal(afterRestore.Running, true);
  assert.notEqual(afterRestore.StartedAt, before.StartedAt);

  // into a folder under DATA_DIR/restores: everything, then one file only
  const toFolder = await job('/api/v1/backups/vol/restore', { target: 'folder', snapshot: run.result.snapshot });
  assert.ok(toFolder.result.folder.startsWith(join(s.dataDir, 'restores')), toFolder.result.folder);
  const base = join(toFolder.result.folder, 'stacks', stack, volume);
  assert.equal(readFileSync(join(base, 'a.txt'), 'utf8'), 'hello-backup\n');
  assert.equal(sha256(readFileSync(join(base, 'sub/blob'))), original['./sub/blob']);
  const one = await job('/api/v1/backups/vol/restore', { target: 'folder', paths: [`/stacks/${stack}/${volume}/a.txt`] });
  assert.equal(one.result.files, 1);
  assert.equal(readFileSync(join(one.result.folder, 'stacks', stack, volume, 'a.txt'), 'utf8'), 'hello-backup\n');
  assert.equal((await api('POST', '/api/v1/backups/vol/restore', { target: 'folder', paths: ['/stacks/none'] })).status, 404);
  assert.equal((await api('POST', '/api/v1/backups/vol/restore', { target: 'volume:x', paths: ['/'] })).status, 404);
});

test('a restore into a stack volume never writes through a link a container left in it: refused naming the link, the host folder untouched', async () => {
  const victim = mkdtempSync(join(tmpdir(), 'dw-victim-'));
  try {
    mkdirSync(join(victim, 'blob'));
    writeFileSync(join(victim, 'blob', 'keep'), 'a host file');
    // what the stack's container can do to its own volume: its folder becomes a link to a host path
    await inVolume(volume, `rm -rf /v/sub && ln -s ${victim} /v/sub`);
    const refused = await job('/api/v1/backups/vol/restore', { target: 'stack', overwrite: true, paths: [`/stacks/${stack}/${volume}/sub/blob`] }, 'failed');
    assert.match(refused.error ?? '', new RegExp(`sub in \\S+ is a symbolic link to ${victim}, which leads out of it`));
    assert.equal(readFileSync(join(victim, 'blob', 'keep'), 'utf8'), 'a host file', 'nothing removed through the link');
    assert.equal(existsSync(join(victim, 'blob', 'blob')), false, 'nothing written through the link');
    assert.equal((await startedAt()).Running, true, 'the stack runs again after the refused restore');
    // the whole volume restored: the link itself is replaced by the folder of the snapshot
    await job('/api/v1/backups/vol/restore', { target: 'stack', overwrite: true });
    assert.deepEqual(Object.keys(await checksums(volume)).sort(), ['./a.txt', './sub/blob']);
    assert.equal(readFileSync(join(victim, 'blob', 'keep'), 'utf8'), 'a host file');
  } finally {
    rmSync(victim, { recursive: true, force: true });
  }
});

test('a generated repository password is answered once, when the backup is created; with it plain restic opens the repository; progress ends with files and bytes', async () => {
  const put = await api('PUT', '/api/v1/backups/gen', { targets: { stacks: [stack] }, repository: { url: join(repos, 'gen') } });
  assert.equal(put.status, 201, put.text);
  const generated = put.body.password as string;
  assert.match(generated, /^[A-Za-z0-9_-]{43}$/, 'shown this once');
  assert.equal((await api('GET', '/api/v1/backups/gen')).body.password, undefined, 'never read back');
  const replaced = await api('PUT', '/api/v1/backups/gen', { targets: { stacks: [stack] }, repository: { url: join(repos, 'gen') } });
  assert.equal(replaced.status, 200);
  assert.equal(replaced.body.password, undefined, 'a replace keeps it and does not show it again');
  const own = await api('PUT', '/api/v1/backups/own', { targets: { stacks: [stack] }, repository: { url: join(repos, 'own') }, password });
  assert.equal(own.body.password, undefined, 'a password the user set is never answered');
  await api('DELETE', '/api/v1/backups/own');

  const run = await job('/api/v1/backups/gen/run');
  assert.match(run.output, /progress 100% · 2\/2 files · [\d.]+ [KMG]?i?B\/[\d.]+ [KMG]?i?B/, run.output);
  const { stdout } = await promisify(execFile)('restic', ['-r', join(repos, 'gen'), 'snapshots', '--json', '--no-lock'], { env: { PATH: process.env.PATH, RESTIC_PASSWORD: generated, RESTIC_CACHE_DIR: join(repos, 'cache') } });
  assert.deepEqual(JSON.parse(stdout).map((x: { id: string }) => x.id), [run.result.snapshot], 'restic elsewhere opens it with the shown password');
  await api('DELETE', '/api/v1/backups/gen');
});

test('consistency stop: the containers are stopped for the snapshot and started again, even when restic fails', async () => {
  const put = await api('PUT', '/api/v1/backups/vol', { targets: { stacks: [stack] }, repository: { url: join(repos, 'vol') }, consistency: 'stop' });
  assert.equal(put.status, 200, put.text);
  const before = await startedAt();
  const ok = await job('/api/v1/backups/vol/run');
  assert.match(ok.output, /stopped .*app/);
  assert.match(ok.output, /started .*app.* again/);
  const between = await startedAt();
  assert.equal(between.Running, true);
  assert.notEqual(between.StartedAt, before.StartedAt, 'the container was restarted');

  // a wrong password: restic fails while the container is stopped; it runs again afterwards
  await api('PUT', '/api/v1/backups/vol', { targets: { stacks: [stack] }, repository: { url: join(repos, 'vol') }, consistency: 'stop', password: 'a-wrong-password-here' });
  const failed = await job('/api/v1/backups/vol/run', undefined, 'failed');
  assert.match(failed.error ?? '', /wrong password|no key found/i);
  assert.match(failed.output, /started .*app.* again/);
  const afterFail = await startedAt();
  assert.equal(afterFail.Running, true);
  assert.notEqual(afterFail.StartedAt, between.StartedAt);

  const def = (await api('GET', '/api/v1/backups/vol')).body;
  assert.equal(def.lastRun.status, 'failed');
  const attention = (await api('GET', '/api/v1/overview')).body.attention;
  assert.ok(attention.some((a: any) => a.kind === 'backup-failed' && a.resource === 'backup:vol'), JSON.stringify(attention));
  assert.ok(events.some((e) => e.name === 'backup.failed' && e.payload.backup === 'vol' && e.payload.jobId === failed.id));

  // the right password again: the next run succeeds and the failure leaves the overview
  await api('PUT', '/api/v1/backups/vol', { targets: { stacks: [stack] }, repository: { url: join(repos, 'vol') }, consistency: 'live', password });
  const live = await startedAt();
  const good = await job('/api/v1/backups/vol/run');
  assert.doesNotMatch(good.output, /stopped/);
  assert.equal((await startedAt()).StartedAt, live.StartedAt, 'live consistency leaves the containers alone');
  assert.ok(!(await api('GET', '/api/v1/overview')).body.attention.some((a: any) => a.kind === 'backup-failed' && a.resource === 'backup:vol'));
});

test('retention keeps exactly the configured count after each run', async () => {
  assert.equal((await api('PUT', '/api/v1/backups/kept', { targets: { stacks: [stack] }, retention: { last: 2 } })).status, 201);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    await inVolume(volume, `echo ${i} > /v/round`);
    const run = await job('/api/v1/backups/kept/run');
    ids.push(run.result.snapshot);
    assert.equal(run.result.snapshots, Math.min(i + 1, 2));
  }
  const snaps = (await api('GET', '/api/v1/backups/kept/snapshots')).body;
  assert.deepEqual(snaps.map((x: any) => x.id), [ids[2], ids[1]]);
  assert.equal((await api('GET', '/api/v1/backups/kept')).body.snapshots, 2);
  assert.equal((await api('GET', `/api/v1/backups/kept/files?snapshot=${ids[0]}`)).status, 404, 'the forgotten snapshot is gone');
  // the default repository lives in DATA_DIR; other backups' snapshots are not this one's
  assert.equal((await api('GET', `/api/v1/backups/vol/files?snapshot=${ids[2]}`)).status, 404);
});

test('two runs of one backup never overlap: the second call answers 202 with the first run', async () => {
  const [a, b] = await Promise.all([api('POST', '/api/v1/backups/kept/run'), api('POST', '/api/v1/backups/kept/run')]);
  assert.equal(a.status, 202);
  assert.equal(b.status, 202);
  assert.equal(a.body.id, b.body.id);
  const done = await waitJob(s, a.body.id);
  assert.equal(done.status, 'succeeded');
  assert.equal((await api('GET', '/api/v1/backups/kept')).body.lastRun.jobId, a.body.id);
  const next = await api('POST', '/api/v1/backups/kept/run');
  assert.notEqual(next.body.id, a.body.id, 'after the run is done, a call starts a new one');
  assert.equal((await waitJob(s, next.body.id)).status, 'succeeded');
});

test('bad input, unknown names and missing scopes', async () => {
  const bad = async (body: unknown, status: number, what: string) => {
    const res = await api('PUT', '/api/v1/backups/bad', body);
    assert.equal(res.status, status, `${what}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
  };
  await bad({ targets: { stacks: [stack] }, extra: 1 }, 400, 'unknown field');
  await bad({ targets: { stacks: ['Not_A_Name'] } }, 400, 'bad stack name');
  await bad({ targets: {} }, 422, 'no target');
  await bad({ targets: { stacks: [] } }, 422, 'an empty target');
  await bad({ targets: { sites: true } }, 422, 'sites without its plugin');
  await bad({ targets: { stacks: ['no-such-stack'] } }, 404, 'unknown stack');
  await bad({ targets: { stacks: [stack] }, schedule: 'every day' }, 400, 'bad cron');
  await bad({ targets: { stacks: [stack] }, schedule: '* * * *' }, 400, 'a cron of four fields');
  await bad({ targets: { stacks: [stack] }, schedule: '0 0 30 2 *' }, 400, 'a cron that never comes (30 February)');
  await bad({ targets: { stacks: [stack] }, consistency: 'sometimes' }, 400, 'bad consistency');
  await bad({ targets: { stacks: [stack] }, retention: { last: 0 } }, 400, 'bad retention');
  await bad({ targets: { stacks: [stack] }, password: 'short' }, 400, 'short password');
  await bad({ targets: { stacks: [stack] }, repository: { url: '/etc/restic' } }, 422, 'a folder outside the roots');
  await bad({ targets: { stacks: [stack] }, repository: { url: 'rclone:remote:path' } }, 422, 'rclone runs a program');
  await bad({ targets: { stacks: [stack] }, repository: { url: 'sftp:-oProxyCommand=x:/r' } }, 422, 'an option as host');
  await bad({ targets: { stacks: [stack] }, repository: { url: join(repos, 'x'), env: { RESTIC_PASSWORD_COMMAND: 'cat /etc/shadow' } } }, 422, 'restic switches in env');
  assert.equal((await api('GET', '/api/v1/backups/bad')).status, 404, 'nothing half-written');
  assert.equal((await api('GET', '/api/v1/backups/nope')).status, 404);
  assert.equal((await api('POST', '/api/v1/backups/nope/run')).status, 404);
  assert.equal((await api('DELETE', '/api/v1/backups/nope')).status, 404);
  assert.equal((await api('GET', '/api/v1/backups/nope/files')).status, 404);
  assert.equal((await api('POST', '/api/v1/backups/vol/restore', { target: 'somewhere' })).status, 400);
  assert.equal((await api('POST', '/api/v1/backups/vol/restore', { target: 'folder', snapshot: 'zz' })).status, 400);

  const reader = await s.token('operator', ['backups:read']);
  assert.equal((await api('GET', '/api/v1/backups/vol', undefined, reader)).status, 200);
  assert.equal((await api('PUT', '/api/v1/backups/vol', { targets: { stacks: [stack] } }, reader)).status, 403);
  assert.equal((await api('POST', '/api/v1/backups/vol/run', undefined, reader)).status, 403);
  assert.equal((await api('POST', '/api/v1/backups/vol/restore', { target: 'folder' }, reader)).status, 403);
  const runner = await s.token('operator', ['backups:read', 'backups:run']);
  assert.equal((await api('POST', '/api/v1/backups/vol/restore', { target: 'stack', overwrite: true }, runner)).status, 403, 'stack restores need stacks:deploy');
  await inVolume(`${stack}_data`, 'true', true);
  assert.equal((await api('POST', '/api/v1/backups/vol/restore', { target: `volume:${volume}`, overwrite: true }, runner)).status, 409, 'a stack volume is restored only through target stack');
  const writer = await s.token('operator', ['backups:write', 'stacks:read']);
  assert.equal((await api('PUT', '/api/v1/backups/db', { targets: { database: true } }, writer)).status, 403, 'the database is for admins');
  const viewer = await s.token('viewer', ['backups:read', 'backups:write']);
  assert.equal((await api('PUT', '/api/v1/backups/v2', { targets: { stacks: [stack] } }, viewer)).status, 403, 'a viewer role cannot hold backups:write');

  const del = await api('DELETE', '/api/v1/backups/kept');
  assert.equal(del.status, 200);
  assert.equal((await api('GET', '/api/v1/backups/kept')).status, 404);
  const activity = (await api('GET', '/api/v1/activity?limit=200')).body;
  assert.ok(activity.some((a: any) => a.action === 'backup.run' && a.resource === 'backup:vol'), 'runs are in the activity log');
  assert.ok(activity.some((a: any) => a.action === 'backup.restore' && a.resource === 'backup:vol'));
});

test('the repository password is in no answer, job output or log', async () => {
  for (const text of seen) assert.ok(!text.includes(password) && !text.includes('a-wrong-password-here'), `leaked in: ${text.slice(0, 300)}`);
  const jobs = (await api('GET', '/api/v1/jobs?limit=200')).body;
  for (const j of jobs) {
    const full = (await s.api('GET', `/api/v1/jobs/${j.id}`)).text;
    assert.ok(!full.includes(password) && !full.includes('a-wrong-password-here'));
  }
});
