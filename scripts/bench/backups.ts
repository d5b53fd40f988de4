// Benchmark (not a test): a backup of one stack volume of many small files through Dockwright, first and incremental run, against `restic backup` run by hand on the same data.
// Run with `npm run bench:backups` after `npm test` has prepared PostgreSQL and Docker. BENCH_MB (default 1024) and BENCH_FILE_KB (default 50) size the volume.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, createDatabase, startChild } from '../../tests/helpers/harness.ts';
import { cleanupProjects, docker } from '../../tests/plugins/docker/helpers.ts';
import { loadTestEnv, removeDataDir } from './common.ts';

loadTestEnv();
const totalMb = Number(process.env.BENCH_MB ?? 1024);
const fileKb = Number(process.env.BENCH_FILE_KB ?? 50);
const files = Math.round((totalMb * 1024) / fileKb);
const db = await createDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'dw-bench-'));
const handRepo = mkdtempSync(join(tmpdir(), 'dw-bench-restic-'));
const stack = 'bench-backup';
const server = await startChild({
  databaseUrl: db.url, dataDir, rateLimit: { perMinute: 100_000_000 },
  plugins: { docker: { options: { stopTimeoutSeconds: 1, reconcile: false } }, stacks: {}, backups: { options: { progressIntervalMs: 5000 } } },
});
const token = readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
// long pauses (writing the volume, runs by hand) outlast the server's keep-alive: a request on a closed socket is sent again
const api = (method: string, path: string, body?: unknown) => call(server.url, method, path, { token, body }).catch(() => call(server.url, method, path, { token, body }));

async function wait(id: string) {
  let job;
  do job = (await api('GET', `/api/v1/jobs/${id}/wait?timeout=120`)).body; while (!job.done);
  if (job.status !== 'succeeded') throw new Error(`job failed: ${job.error}\n${job.output}`);
  return job;
}
function touch(dir: string, every: number) {
  for (let i = 0; i < files; i += every) writeFileSync(join(dir, `d${i % 100}`, `f${i}`), randomBytes(fileKb * 1024));
}
const timed = async (fn: () => Promise<unknown> | unknown) => { const t = performance.now(); await fn(); return performance.now() - t; };

try {
  await api('PUT', `/api/v1/stacks/${stack}/compose`, { content: 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n    volumes: ["data:/data"]\nvolumes:\n  data: {}\n', revision: 0 });
  await wait((await api('POST', `/api/v1/stacks/${stack}/deploy`)).body.id);
  const mountpoint = (await docker.getVolume(`${stack}_data`).inspect()).Mountpoint;
  for (let d = 0; d < 100; d++) mkdirSync(join(mountpoint, `d${d}`), { recursive: true });
  touch(mountpoint, 1);
  console.log(`volume: ${files} files of ${fileKb} KiB (${totalMb} MiB)`);

  await api('PUT', '/api/v1/backups/bench', { targets: { stacks: [stack] } });
  const run = async () => {
    let job: any;
    const ms = await timed(async () => { job = await wait((await api('POST', '/api/v1/backups/bench/run')).body.id); });
    return { ms, job };
  };
  const env = { ...process.env, RESTIC_REPOSITORY: handRepo, RESTIC_PASSWORD: 'bench-password', RESTIC_CACHE_DIR: join(handRepo, '.cache') };
  const hand = () => timed(() => execFileSync('restic', ['backup', '--json', '--', mountpoint], { env, stdio: 'ignore', maxBuffer: 1 << 30 }));

  // the fresh data reaches the disk first, so neither first run pays for the other's writeback
  execFileSync('sync');
  // Dockwright's first run creates its repository: so does the first run by hand
  const hand1 = (await timed(() => execFileSync('restic', ['init'], { env, stdio: 'ignore' }))) + (await hand());
  const dw1 = await run();
  touch(mountpoint, 100); // 1 % of the files change
  // incremental runs are short, and the machine is shared: the median of three, alternating
  const dwRuns: { ms: number; job: any }[] = [];
  const handRuns: number[] = [];
  for (let i = 0; i < 3; i++) {
    dwRuns.push(await run());
    handRuns.push(await hand());
    touch(mountpoint, 100);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1];
  const dw2 = { ms: median(dwRuns.map((r) => r.ms)), job: dwRuns[0].job };
  const hand2 = median(handRuns);
  const row = (dw: { ms: number }, h: number) => ({ dockwright_ms: Math.round(dw.ms), restic_by_hand_ms: Math.round(h), ratio: +(dw.ms / h).toFixed(2) });
  console.table({ 'first run': row(dw1, hand1), 'second run (1 % changed, median of 3)': row(dw2, hand2) });
  console.log(`job durations (inside the job): first ${dw1.job.result.durationMs} ms, incremental ${dwRuns.map((r) => r.job.result.durationMs).join(', ')} ms`);
  console.log(`added: first ${dw1.job.result.bytesAdded} bytes, second ${dw2.job.result.bytesAdded} bytes`);
} finally {
  await server.kill('SIGTERM');
  await cleanupProjects(stack);
  await db.drop();
  await removeDataDir(dataDir);
  rmSync(handRepo, { recursive: true, force: true });
}
