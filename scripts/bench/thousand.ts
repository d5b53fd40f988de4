// Benchmark (not a test): a thousand stacks on one engine, each with a network of its own and one tiny container — created and deployed through the built service, then listed and read, then deleted, with every network checked gone.
// Run with `npm run bench:thousand` after `npm test` has prepared PostgreSQL and Docker (it reads .test-env); BENCH_STACKS=200 runs a smaller one.
import { chmodSync, mkdtempSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, createDatabase } from '../../tests/helpers/harness.ts';
import { cleanupProjects, docker } from '../../tests/plugins/docker/helpers.ts';
import { load, removeDataDir, standalone, type Figure } from './common.ts';
import { startService } from './service.ts';

const compose = 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "36000"]\n';

/** runs `work` over `items`, `width` at a time */
async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

export async function thousandBench(): Promise<Figure[]> {
  const count = Number(process.env.BENCH_STACKS ?? 1000);
  const db = await createDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-bench-'));
  chmodSync(dataDir, 0o755);
  const prefix = `kb${randomBytes(2).toString('hex')}`;
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);
  const networksBefore = (await docker.listNetworks()).length;
  const svc = await startService({
    dataDir, env: { DATABASE_URL: db.url },
    config: { rateLimit: { perMinute: 100_000_000 }, plugins: { docker: { options: { stopTimeoutSeconds: 1, reconcile: false } }, containers: {}, stacks: {}, git: { enabled: false }, previews: { enabled: false }, sites: { enabled: false } } },
  });
  const token = svc.token();
  const auth = { authorization: `Bearer ${token}` };
  try {
    const began = Date.now();
    await inParallel(names, 8, async (name) => {
      await call(svc.url, 'PUT', `/api/v1/stacks/${name}/compose`, { token, body: { content: compose }, headers: { 'if-none-match': '*' } });
      const { id } = (await call(svc.url, 'POST', `/api/v1/stacks/${name}/deploy`, { token })).body;
      let job;
      do job = (await call(svc.url, 'GET', `/api/v1/jobs/${id}/wait?timeout=120`, { token })).body; while (!job.done);
      if (job.status !== 'succeeded') throw new Error(`the deploy of ${name} failed: ${job.error}`);
    });
    const deployedS = (Date.now() - began) / 1000;
    const networks = (await docker.listNetworks()).length - networksBefore;
    await load(`${svc.url}/api/v1/stacks?limit=100`, auth, 2, 8); // warm-up
    const list = await load(`${svc.url}/api/v1/stacks?limit=100`, auth, 10, 8);
    const one = await load(`${svc.url}/api/v1/stacks/${names[0]}`, auth, 10, 8);
    const rss = svc.rssMb();
    const deleting = Date.now();
    await inParallel(names, 8, async (name) => {
      const res = await call(svc.url, 'DELETE', `/api/v1/stacks/${name}`, { token, headers: { 'if-match': '"1"' } });
      if (res.status !== 200) throw new Error(`the delete of ${name} answered ${res.status}: ${res.text}`);
    });
    const deletedS = (Date.now() - deleting) / 1000;
    const left = (await docker.listNetworks({ filters: { label: ['dockwright.project'] } })).filter((n) => n.Name.startsWith(prefix)).length;
    return [
      { figure: `${count} stacks created and deployed, 8 at a time`, value: deployedS, unit: 's', target: { below: count * 1.5 }, note: `${networks} networks on the engine for them` },
      { figure: `GET /stacks?limit=100 at ${count} running stacks, p50`, value: list.p50, unit: 'ms', target: { below: 15 }, note: `${list.rps} req/s, p99 ${list.p99} ms, 8 connections` },
      { figure: 'GET /stacks/{name}, p50', value: one.p50, unit: 'ms', target: { below: 5 }, note: `${one.rps} req/s, p99 ${one.p99} ms` },
      { figure: `service RSS with ${count} running stacks`, value: rss, unit: 'MB', target: { below: 70 } },
      { figure: `${count} stacks deleted, 8 at a time`, value: deletedS, unit: 's', target: { below: count } },
      { figure: 'networks of the deleted stacks left on the engine', value: left, unit: '', target: { below: 1 } },
    ];
  } finally {
    await svc.stop();
    await cleanupProjects(...names);
    await removeDataDir(dataDir);
    await db.drop();
  }
}

await standalone(import.meta.url, thousandBench);
