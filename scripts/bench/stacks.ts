// Benchmark (not a test): GET /api/v1/stacks?limit=100 (with live status) and GET /api/v1/stacks/{name} on the built service, 200 stacks of which 20 run,
// on external PostgreSQL and on the embedded database. Run with `npm run bench:stacks` after `npm test` has prepared PostgreSQL and Docker (it reads .test-env).
import { chmodSync, mkdtempSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, createDatabase } from '../../tests/helpers/harness.ts';
import { cleanupProjects } from '../../tests/plugins/docker/helpers.ts';
import { load, standalone, type Figure, removeDataDir } from './common.ts';
import { startService } from './service.ts';

const compose = 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n  side:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n';

async function listAndRead(label: string, env: Record<string, string>): Promise<Figure[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-bench-'));
  chmodSync(dataDir, 0o755);
  const prefix = `sb${randomBytes(2).toString('hex')}`;
  const names = Array.from({ length: 200 }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
  const svc = await startService({
    dataDir, env,
    config: { rateLimit: { perMinute: 100_000_000 }, plugins: { docker: { options: { stopTimeoutSeconds: 1, reconcile: false } }, containers: {}, stacks: {}, git: { enabled: false }, previews: { enabled: false }, sites: { enabled: false } } },
  });
  const token = svc.token();
  const auth = { authorization: `Bearer ${token}` };
  try {
    for (const name of names) await call(svc.url, 'PUT', `/api/v1/stacks/${name}/compose`, { token, body: { content: compose, revision: 0 } });
    const jobs = await Promise.all(names.slice(0, 20).map(async (n) => (await call(svc.url, 'POST', `/api/v1/stacks/${n}/deploy`, { token })).body.id));
    for (const id of jobs) {
      let job;
      do job = (await call(svc.url, 'GET', `/api/v1/jobs/${id}/wait?timeout=120`, { token })).body; while (!job.done);
      if (job.status !== 'succeeded') throw new Error(`deploy failed: ${job.error}`);
    }
    await load(`${svc.url}/api/v1/stacks?limit=100`, auth, 2, 8); // warm-up
    const list = await load(`${svc.url}/api/v1/stacks?limit=100`, auth, 10, 8);
    const one = await load(`${svc.url}/api/v1/stacks/${names[0]}`, auth, 10, 8);
    return [
      { figure: `GET /stacks?limit=100, 200 stacks, 20 running, p50 (${label})`, value: list.p50, unit: 'ms', target: { below: 15 }, note: `${list.rps} req/s, p99 ${list.p99} ms, 8 connections` },
      { figure: `GET /stacks/{name}, p50 (${label})`, value: one.p50, unit: 'ms', target: { below: 5 }, note: `${one.rps} req/s, p99 ${one.p99} ms, 8 connections` },
    ];
  } finally {
    await svc.stop();
    await cleanupProjects(...names.slice(0, 20));
    await removeDataDir(dataDir);
  }
}

export async function stacksBench(): Promise<Figure[]> {
  const db = await createDatabase();
  try {
    return [...(await listAndRead('PostgreSQL', { DATABASE_URL: db.url })), ...(await listAndRead('embedded', {}))];
  } finally {
    await db.drop();
  }
}

await standalone(import.meta.url, stacksBench);
