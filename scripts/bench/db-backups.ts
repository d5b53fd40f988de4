// Benchmark (not a test): a PostgreSQL database backed up and restored in place through Dockwright (strategy postgres, streamed) against `docker exec … pg_dump -Fc | restic backup --stdin` and `restic dump | docker exec -i … pg_restore` by hand, with the database container's peak memory during the backup.
// Run with `npm run bench:db-backups` after the test setup built dockwright-test/postgres:15. BENCH_MB (default 1024) sizes the table.
import { execFileSync, execSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, createDatabase, startChild } from '../../tests/helpers/harness.ts';
import { cleanupProjects, containerOf, docker } from '../../tests/plugins/docker/helpers.ts';
import { loadTestEnv, removeDataDir } from './common.ts';

loadTestEnv();
const totalMb = Number(process.env.BENCH_MB ?? 1024);
const db = await createDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'dw-bench-'));
const handRepo = mkdtempSync(join(tmpdir(), 'dw-bench-restic-'));
const stack = 'bench-db-backup';
const pgPassword = 'bench-pg-password-1';
const server = await startChild({
  databaseUrl: db.url, dataDir, rateLimit: { perMinute: 100_000_000 },
  plugins: { docker: { options: { stopTimeoutSeconds: 1, reconcile: false, healthTimeoutMs: 120_000 } }, stacks: {}, backups: { options: { progressIntervalMs: 5000 } } },
});
const token = readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
const api = (method: string, path: string, body?: unknown) => call(server.url, method, path, { token, body }).catch(() => call(server.url, method, path, { token, body }));
async function wait(id: string) {
  let job;
  do job = (await api('GET', `/api/v1/jobs/${id}/wait?timeout=120`)).body; while (!job.done);
  if (job.status !== 'succeeded') throw new Error(`job failed: ${job.error}\n${job.output}`);
  return job;
}
const timed = async (fn: () => Promise<unknown> | unknown) => { const t = performance.now(); await fn(); return performance.now() - t; };
// the password reaches the hand-run commands by environment, as Dockwright's
const env = { ...process.env, PGPASSWORD: pgPassword, RESTIC_REPOSITORY: handRepo, RESTIC_PASSWORD: 'bench-password', RESTIC_CACHE_DIR: join(handRepo, '.cache') };
const sh = (script: string, extra: Record<string, string>) => execSync(script, { env: { ...env, ...extra }, stdio: 'ignore', shell: '/bin/sh' });

try {
  await api('PUT', `/api/v1/stacks/${stack}/compose`, { revision: 0, content: `services:
  db:
    image: dockwright-test/postgres:15
    environment: { POSTGRES_USER: bench, POSTGRES_PASSWORD: ${pgPassword}, POSTGRES_DB: bench }
    volumes: ["pgdata:/var/lib/postgresql/data"]
    healthcheck: { test: ["CMD", "pg_isready", "-U", "bench", "-d", "bench"], interval: 1s, retries: 120 }
volumes:
  pgdata: {}
` });
  await wait((await api('POST', `/api/v1/stacks/${stack}/deploy`)).body.id);
  const cid = (await containerOf(stack, 'db'))!.Id;
  const psql = (sql: string) => execFileSync('docker', ['exec', cid, 'psql', '-X', '-U', 'bench', '-d', 'bench', '-Atc', sql], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  for (let i = 0; ; i++) {
    try { psql('SELECT 1'); break; } catch (err) { if (i > 240) throw err; await new Promise((r) => setTimeout(r, 500)); }
  }
  const rows = Math.round((totalMb * 1024 * 1024) / 240);
  await timed(() => psql(`CREATE TABLE t AS SELECT g AS id, md5(random()::text) || md5(random()::text) || md5(random()::text) || md5(random()::text) || md5(random()::text) || md5(random()::text) AS pad FROM generate_series(1, ${rows}) g`));
  console.log(`database: ${psql("SELECT pg_size_pretty(pg_database_size('bench'))")} (${rows} rows)`);

  await api('PUT', '/api/v1/backups/bench-db', { targets: { databases: [{ stack, service: 'db', database: 'bench' }] } });
  const memory = async () => ((await docker.getContainer(cid).stats({ stream: false })) as any).memory_stats.usage as number;
  const baseline = await memory();
  let peak = baseline;
  let sampling = true;
  const sampler = (async () => { while (sampling) { peak = Math.max(peak, await memory()); await new Promise((r) => setTimeout(r, 250)); } })();
  // first runs create the repositories; the second runs (both incremental over the same data) are compared
  await wait((await api('POST', '/api/v1/backups/bench-db/run')).body.id);
  execFileSync('restic', ['init'], { env, stdio: 'ignore' });
  const handBackup = () => timed(() => sh('docker exec -e PGPASSWORD "$CID" pg_dump -Fc -U bench -d bench | restic backup --stdin --stdin-filename bench.pgdump --json', { CID: cid }));
  await handBackup();
  const dwBackup = await timed(async () => wait((await api('POST', '/api/v1/backups/bench-db/run')).body.id));
  const hand = await handBackup();
  sampling = false;
  await sampler;

  const dwRestore = await timed(async () => wait((await api('POST', '/api/v1/backups/bench-db/restore', { target: 'service', stack, service: 'db' })).body.id));
  const handRestore = await timed(() => sh('restic dump latest /bench.pgdump | docker exec -i -e PGPASSWORD "$CID" pg_restore -U bench -d bench --clean --if-exists --single-transaction --exit-on-error', { CID: cid }));
  const row = (dw: number, h: number) => ({ dockwright_ms: Math.round(dw), by_hand_ms: Math.round(h), ratio: +(dw / h).toFixed(2) });
  console.table({ 'backup (second run)': row(dwBackup, hand), 'restore in place': row(dwRestore, handRestore) });
  console.log(`database container memory during the backups: baseline ${(baseline / 2 ** 20).toFixed(1)} MiB, peak ${(peak / 2 ** 20).toFixed(1)} MiB (+${((peak - baseline) / 2 ** 20).toFixed(1)} MiB, page cache included)`);
  console.log('verification: not measured (POST /backups/{name}/verify is not built yet)');
} finally {
  await server.kill('SIGTERM');
  await cleanupProjects(stack);
  await db.drop();
  await removeDataDir(dataDir);
  rmSync(handRepo, { recursive: true, force: true });
}
