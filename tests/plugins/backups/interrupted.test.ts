// A restore whose process is killed: its staging folders (in the stack's volume, in DATA_DIR/restores) are gone after the restart, the volume's data untouched.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, eventually, startChild, type TestServer } from '../../helpers/harness.ts';
import { act, checksums, cleanupProjects, createStack, docker, inVolume, runJob, startBackupsServer, uniqueName } from './helpers.ts';

const stack = uniqueName('bkint');
const volume = `${stack}_data`;
const work = mkdtempSync(join(tmpdir(), 'dw-restic-'));
const pids = join(work, 'pids');
// restic itself, then (for a restore) asleep with the restored tree in staging: the process is killed right there
const wrapper = join(work, 'restic-then-sleep');
writeFileSync(wrapper, `#!/bin/sh\nrestic "$@" || exit $?\nif [ "$1" = restore ]; then echo $$ >> ${pids}; exec sleep 300; fi\n`);
chmodSync(wrapper, 0o755);
const sleepers = () => (existsSync(pids) ? readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number) : []);
const killSleepers = () => { for (const pid of sleepers()) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } };

const compose = `services:
  app:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "[ -f /data/a.txt ] || { echo hello-restore > /data/a.txt; mkdir -p /data/sub; head -c 100000 /dev/urandom > /data/sub/blob; }; sleep 3600"]
    volumes: ["data:/data"]
volumes:
  data: {}
`;

let first: TestServer | undefined;
let again: TestServer | undefined;
after(async () => {
  killSleepers();
  await again?.stop();
  await first?.close();
  await cleanupProjects(stack);
  rmSync(work, { recursive: true, force: true });
});

test('a restore killed midway leaves no staging folder once the service runs again, and the data it would have replaced is intact', async () => {
  const backups = { repositoryRoots: [work], progressIntervalMs: 0, stopTimeoutSeconds: 1 };
  // short leases: the restarted instance sees at once that the killed one is gone
  const jobs = { leaseMs: 3000, renewMs: 250 };
  first = await startBackupsServer({ backups, config: { jobs } });
  const s = first;
  await createStack(s, stack, compose);
  await act(s, 'deploy', stack);
  await inVolume(volume, 'while [ ! -f /v/sub/blob ]; do sleep 0.1; done; sleep 0.2', true);
  for (const name of ['int-stack', 'int-folder']) {
    assert.equal((await s.api('PUT', `/api/v1/backups/${name}`, { body: { targets: { stacks: [stack] }, repository: { url: join(work, name) } } })).status, 201);
    await runJob(s, `/api/v1/backups/${name}/run`);
  }
  const original = await checksums(volume);
  await s.stop();

  // a restore staging folder of a job this database does not know (another installation's on the engine): never touched
  const restores = join(s.dataDir, 'restores');
  const foreign = join(restores, `.dockwright-restore-${randomUUID()}`);
  mkdirSync(foreign, { recursive: true });

  const child = await startChild({
    databaseUrl: s.databaseUrl, dataDir: s.dataDir, rateLimit: { perMinute: 100_000 }, jobs,
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } },
      stacks: {},
      backups: { options: { ...backups, restic: wrapper } },
    },
  });
  let stagings: string[] = [];
  let ids: string[] = [];
  try {
    const start = async (name: string, body: unknown) => {
      const res = await call(child.url, 'POST', `/api/v1/backups/${name}/restore`, { token: s.admin, body });
      assert.equal(res.status, 202, res.text);
      return res.body.id as string;
    };
    ids = [await start('int-stack', { target: 'stack', overwrite: true }), await start('int-folder', { target: 'folder' })];
    await eventually(async () => sleepers().length === 2, 60_000, 'both restores to have their trees in staging');
    const mountpoint = (await docker.getVolume(volume).inspect()).Mountpoint;
    stagings = [join(mountpoint, `.dockwright-restore-${ids[0]}`), join(restores, `.dockwright-restore-${ids[1]}`)];
    for (const dir of stagings) assert.ok(readdirSync(dir, { recursive: true }).some((f) => String(f).endsWith('blob')), `${dir} holds the restored tree`);
  } finally {
    await child.kill('SIGKILL');
    killSleepers();
  }
  for (const dir of stagings) assert.ok(existsSync(dir), `${dir} is left by the killed process`);

  again = await startBackupsServer({ backups, config: { jobs }, reuse: { databaseUrl: s.databaseUrl, dataDir: s.dataDir } });
  for (const id of ids) {
    const job: { status: string; error: string } = (await again.api('GET', `/api/v1/jobs/${id}/wait?timeout=30`)).body;
    assert.equal(job.status, 'failed');
    assert.equal(job.error, 'interrupted by restart');
  }
  await eventually(async () => stagings.every((dir) => !existsSync(dir)), 30_000, `the staging folders to be removed (${stagings.filter(existsSync).join(', ')})`);
  assert.deepEqual(await checksums(volume), original, 'the volume holds its data, without the staging folder');
  assert.ok(existsSync(foreign), 'the folder of a job unknown here is kept');
  // the restored folder the killed folder restore would have made is not there, half or whole
  assert.deepEqual(readdirSync(restores).filter((n) => n.startsWith('int-folder')), []);
});
