// Benchmark (not a test): GET /api/v1/stacks (a page of 100 with live status) and GET /api/v1/stacks/{name}, with 200 stacks of which 20 run.
// Run with `npm run bench:stacks` after `npm test` has prepared PostgreSQL and Docker (it reads .test-env).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, createDatabase, startChild } from '../../tests/helpers/harness.ts';
import { cleanupProjects } from '../../tests/plugins/docker/helpers.ts';
import { load, loadTestEnv } from './common.ts';

loadTestEnv();
const db = await createDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'dw-bench-'));
// a prefix of its own: other runs may share the engine, and cleanup removes these projects only
const prefix = `bench${randomBytes(3).toString('hex')}`;
const names = Array.from({ length: 200 }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
const server = await startChild({
  databaseUrl: db.url, dataDir, rateLimit: { perMinute: 100_000_000 },
  plugins: { docker: { options: { stopTimeoutSeconds: 1 } }, containers: {}, stacks: {} },
});
const token = readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
const auth = { authorization: `Bearer ${token}` };
try {
  const compose = 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n  side:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n';
  for (const name of names) await call(server.url, 'PUT', `/api/v1/stacks/${name}/compose`, { token, body: { content: compose, revision: 0 } });
  const t0 = performance.now();
  const jobs = await Promise.all(names.slice(0, 20).map(async (n) => (await call(server.url, 'POST', `/api/v1/stacks/${n}/deploy`, { token })).body.id));
  for (const id of jobs) {
    let job;
    do job = (await call(server.url, 'GET', `/api/v1/jobs/${id}/wait?timeout=120`, { token })).body; while (!job.done);
    if (job.status !== 'succeeded') throw new Error(`deploy failed: ${job.error}`);
  }
  const deployMs = performance.now() - t0;
  await load(`${server.url}/api/v1/stacks?limit=100`, auth, 2, 8); // warm-up
  const list = await load(`${server.url}/api/v1/stacks?limit=100`, auth, 10, 8);
  const one = await load(`${server.url}/api/v1/stacks/${names[0]}`, auth, 10, 8);
  console.log(`\n20 stacks of 2 services deployed at once (4 jobs at a time): ${deployMs.toFixed(0)} ms`);
  console.log('\n200 stacks, 20 running; 8 connections, 10 s each');
  console.table({ 'GET /stacks?limit=100': list, 'GET /stacks/{name}': one });
} finally {
  await server.kill('SIGTERM');
  await cleanupProjects(...names.slice(0, 20));
  await db.drop();
}
