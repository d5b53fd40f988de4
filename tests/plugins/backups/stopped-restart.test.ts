// A backup with consistency stop whose process is killed (kill -9) while the stack's containers are stopped: they are started again when Dockwright starts again, and the run is failed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, eventually, startChild, type TestServer } from '../../helpers/harness.ts';
import { act, cleanupProjects, containerOf, createStack, docker, startBackupsServer, uniqueName } from './helpers.ts';

const stack = uniqueName('bkstop');
const work = mkdtempSync(join(tmpdir(), 'dw-restic-stop-'));
const pids = join(work, 'pids');
// a backup's restic falls asleep (the containers are stopped by then): the process is killed right there
const wrapper = join(work, 'sleep-then-restic');
writeFileSync(wrapper, `#!/bin/sh\nif [ "$1" = backup ]; then echo $$ >> ${pids}; exec sleep 300; fi\nexec restic "$@"\n`);
chmodSync(wrapper, 0o755);
const sleepers = () => (existsSync(pids) ? readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number) : []);
const killSleepers = () => { for (const pid of sleepers()) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } };

const compose = `services:
  app:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    stop_grace_period: 1s
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

const running = async () => (await docker.getContainer((await containerOf(stack, 'app'))!.Id).inspect()).State.Running;

test('containers stopped for a backup are started again after the process was killed mid-backup', async () => {
  const backups = { repositoryRoots: [work], progressIntervalMs: 0, stopTimeoutSeconds: 1 };
  const jobs = { leaseMs: 3000, renewMs: 250 };
  first = await startBackupsServer({ backups, config: { jobs } });
  const s = first;
  await createStack(s, stack, compose);
  await act(s, 'deploy', stack);
  assert.equal((await s.api('PUT', '/api/v1/backups/stop-kill', { body: { targets: { stacks: [stack] }, consistency: 'stop', repository: { url: join(work, 'repo') } } })).status, 201);
  await s.stop();

  const child = await startChild({
    databaseUrl: s.databaseUrl, dataDir: s.dataDir, rateLimit: { perMinute: 100_000 }, jobs,
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } },
      stacks: {},
      backups: { options: { ...backups, restic: wrapper } },
    },
  });
  let id = '';
  try {
    const res = await call(child.url, 'POST', '/api/v1/backups/stop-kill/run', { token: s.admin });
    assert.equal(res.status, 202, res.text);
    id = res.body.id;
    await eventually(async () => sleepers().length === 1, 60_000, 'the backup to be under way, its containers stopped');
    assert.equal(await running(), false, 'the container is stopped for the snapshot');
  } finally {
    await child.kill('SIGKILL');
    killSleepers();
  }
  assert.equal(await running(), false, 'the killed process left it stopped');

  again = await startBackupsServer({ backups, config: { jobs }, reuse: { databaseUrl: s.databaseUrl, dataDir: s.dataDir } });
  const job: { status: string; error: string } = (await again.api('GET', `/api/v1/jobs/${id}/wait?timeout=30`)).body;
  assert.equal(job.status, 'failed');
  await eventually(running, 30_000, 'the container to be started again');
});
