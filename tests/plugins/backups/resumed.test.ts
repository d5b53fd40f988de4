// A backup run killed half-way (the service and its restic, mid-upload): after the restart the job is failed, and the next run succeeds with a complete snapshot in a repository restic checks clean.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, eventually, startChild, type TestServer } from '../../helpers/harness.ts';
import { act, checksums, cleanupProjects, createStack, inVolume, runJob, startBackupsServer, uniqueName } from './helpers.ts';

const stack = uniqueName('bkresume');
const volume = `${stack}_data`;
const work = mkdtempSync(join(tmpdir(), 'dw-resume-'));
const repo = join(work, 'repo');
const pids = join(work, 'pids');
// restic, slowed to 256 KiB/s for backups so the process can be killed while it uploads
const wrapper = join(work, 'slow-restic');
writeFileSync(wrapper, `#!/bin/sh\nif [ "$1" = backup ]; then restic --limit-upload 256 "$@" & echo $! >> ${pids}; wait $!; exit $?; fi\nexec restic "$@"\n`);
chmodSync(wrapper, 0o755);
const killUploads = () => {
  for (const pid of existsSync(pids) ? readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number) : []) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
};
const packs = () => (existsSync(join(repo, 'data')) ? readdirSync(join(repo, 'data'), { recursive: true }).filter((f) => /[0-9a-f]{64}$/.test(String(f))).length : 0);

const compose = `services:
  app:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "[ -f /data/done ] || { for i in 1 2 3 4 5 6 7 8; do head -c 1000000 /dev/urandom > /data/blob$$i; done; touch /data/done; }; sleep 3600"]
    volumes: ["data:/data"]
volumes:
  data: {}
`;

let first: TestServer | undefined;
let again: TestServer | undefined;
after(async () => {
  killUploads();
  await again?.stop();
  await first?.close();
  await cleanupProjects(stack);
  rmSync(work, { recursive: true, force: true });
});

test('a run killed half-way fails as interrupted; the next run completes the snapshot and the repository checks clean', async () => {
  const backups = { repositoryRoots: [work], progressIntervalMs: 0, stopTimeoutSeconds: 1 };
  const jobs = { leaseMs: 3000, renewMs: 250 };
  first = await startBackupsServer({ backups, config: { jobs } });
  const s = first;
  await createStack(s, stack, compose);
  await act(s, 'deploy', stack);
  await inVolume(volume, 'while [ ! -f /v/done ]; do sleep 0.1; done', true);
  const original = await checksums(volume);
  assert.equal((await s.api('PUT', '/api/v1/backups/resumed', { body: { targets: { stacks: [stack], database: true }, repository: { url: repo } } })).status, 201);
  await s.stop();

  const child = await startChild({
    databaseUrl: s.databaseUrl, dataDir: s.dataDir, rateLimit: { perMinute: 100_000 }, jobs,
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } },
      stacks: {},
      backups: { options: { ...backups, restic: wrapper } },
    },
  });
  let id: string;
  try {
    const res = await call(child.url, 'POST', '/api/v1/backups/resumed/run', { token: s.admin });
    assert.equal(res.status, 202, res.text);
    id = res.body.id;
    // half-way: restic has written some of the data, not all of it
    await eventually(async () => packs() >= 1, 60_000, 'restic to have uploaded part of the data');
  } finally {
    await child.kill('SIGKILL');
    killUploads();
  }
  const stage = join(s.dataDir, 'plugins', 'backups', 'stage', 'resumed');
  assert.ok(existsSync(join(stage, 'database', 'dockwright.dump')), 'the killed run leaves its dump behind');

  again = await startBackupsServer({ backups, config: { jobs }, reuse: { databaseUrl: s.databaseUrl, dataDir: s.dataDir } });
  const killed: { status: string; error: string } = (await again.api('GET', `/api/v1/jobs/${id}/wait?timeout=30`)).body;
  assert.equal(killed.status, 'failed');
  assert.equal(killed.error, 'interrupted by restart');
  assert.equal((await again.api('GET', '/api/v1/backups/resumed/snapshots')).body.length, 0, 'no snapshot of the killed run');

  const resumed = await runJob(again, '/api/v1/backups/resumed/run');
  assert.equal(resumed.result.files, 10, '8 blobs, the marker and the dump');
  assert.ok(!existsSync(stage), 'the stage of the killed run is gone');
  const files = await again.api('GET', `/api/v1/backups/resumed/files?path=/stacks/${stack}/${volume}`);
  assert.equal(files.body.length, 9);
  const restored = await runJob(again, '/api/v1/backups/resumed/restore', { target: 'folder' });
  for (let i = 1; i <= 8; i++) {
    const got = readFileSync(join(restored.result.folder, 'stacks', stack, volume, `blob${i}`));
    assert.equal((await import('node:crypto')).createHash('sha256').update(got).digest('hex'), original[`./blob${i}`]);
  }
  // the killed restic's lock and partial packs leave the repository consistent
  const password = (await again.app.services.db.query<{ password_sealed: string }>("SELECT password_sealed FROM backups WHERE name = 'resumed'")).rows[0].password_sealed;
  execFileSync('restic', ['check', '--no-lock'], { env: { PATH: process.env.PATH, RESTIC_REPOSITORY: repo, RESTIC_PASSWORD: again.app.services.secrets.open(password), RESTIC_CACHE_DIR: join(work, 'cache') }, stdio: 'pipe' });
});
