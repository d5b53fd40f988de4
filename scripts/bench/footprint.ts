// Benchmark (not a test): the built service's start to first answer and idle memory, on the embedded database and on DATABASE_URL, also after 1,000 stacks exist.
// Run with `npm run bench:footprint` after `npm test` has prepared PostgreSQL (it reads .test-env).
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, createDatabase } from '../../tests/helpers/harness.ts';
import { median, standalone, type Figure, removeDataDir } from './common.ts';
import { startService, type Service } from './service.ts';

// every plugin, as `npm start` runs them; the engine is shared, so nothing is reconciled on it
const config = { rateLimit: { perMinute: 100_000_000 }, plugins: { docker: { options: { reconcile: false } } } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Idle: 12 s after the last request. V8 keeps the pages a burst of work used for about 8 s after it (its memory reducer
// waits that long for the allocation rate to stay low), then gives them back; the reading at 3 s is shown beside.
const earlyMs = 3000;
const idleMs = 12_000;
async function idleRss(svc: Service): Promise<{ value: number; note: string }> {
  await sleep(earlyMs);
  const early = svc.rssMb();
  await sleep(idleMs - earlyMs);
  return { value: svc.rssMb(), note: `${early.toFixed(1)} MB ${earlyMs / 1000} s after the last request` };
}

async function startsAndMemory(label: string, env: Record<string, string>, withStacks: boolean): Promise<Figure[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-bench-'));
  chmodSync(dataDir, 0o755);
  const figures: Figure[] = [];
  let svc: Service | undefined;
  // the service's other children (the edge's Caddy) are not the database: shown beside it, not counted in it
  const others = () => { const o = svc!.otherChildrenPss(); return o.what.length ? `not counted: ${o.what.join(', ')} ${o.mb.toFixed(1)} MB PSS` : ''; };
  try {
    await (await startService({ dataDir, env, config })).stop(); // the first start creates and migrates the database
    const starts: number[] = [];
    for (let i = 0; i < 3; i++) {
      svc = await startService({ dataDir, env, config });
      starts.push(svc.startMs);
      if (i < 2) { await svc.stop(); svc = undefined; }
    }
    figures.push({ figure: `start to first answer, warm data dir (${label})`, value: median(starts), unit: 'ms', target: { below: 1500 }, note: `median of ${starts.map((s) => s.toFixed(0)).join(', ')} ms` });
    figures.push({ figure: `idle RSS of the service process (${label})`, ...(await idleRss(svc!)), unit: 'MB', target: { below: 80 } });
    const pss = svc!.databasePssMb();
    if (pss !== null) figures.push({ figure: `idle PSS of the embedded database processes (${label})`, value: pss, unit: 'MB', target: { below: 60 }, note: others() });
    if (withStacks) {
      const token = svc!.token();
      const compose = 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n';
      const names = Array.from({ length: 1000 }, (_, i) => `fp-${String(i).padStart(4, '0')}`);
      for (let i = 0; i < names.length; i += 8) {
        await Promise.all(names.slice(i, i + 8).map(async (name) => {
          const res = await call(svc!.url, 'PUT', `/api/v1/stacks/${name}/compose`, { token, body: { content: compose, revision: 0 } });
          if (res.status >= 300) throw new Error(`creating ${name}: ${res.status} ${res.text}`);
        }));
      }
      const list = await call(svc!.url, 'GET', '/api/v1/stacks?limit=1000', { token });
      if (list.body.length !== 1000) throw new Error(`expected 1000 stacks, the list has ${list.body.length}`);
      figures.push({ figure: `idle RSS of the service process, 1,000 stacks (${label})`, ...(await idleRss(svc!)), unit: 'MB', target: { below: 80 } });
      const after = svc!.databasePssMb();
      if (after !== null) figures.push({ figure: `idle PSS of the embedded database, 1,000 stacks (${label})`, value: after, unit: 'MB', target: { below: 60 }, note: others() });
    }
    return figures;
  } finally {
    await svc?.stop();
    await removeDataDir(dataDir);
  }
}

export async function footprintBench(): Promise<Figure[]> {
  const embedded = await startsAndMemory('embedded', {}, true);
  const db = await createDatabase();
  try {
    return [...embedded, ...(await startsAndMemory('DATABASE_URL', { DATABASE_URL: db.url }, true))];
  } finally {
    await db.drop();
  }
}

await standalone(import.meta.url, footprintBench);
