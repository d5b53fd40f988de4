// Benchmark (not a test): the task scheduler with 500 tasks — the delay from a slot to its run queued (the scheduler) and running (the job queue too), p50/p99; the idle service's CPU and RSS with 500 tasks beside none.
// Run with `npm run bench:tasks` after the test environment is prepared and `npx tsx scripts/build.ts` (it reads .test-env). Takes about 6 minutes.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { call, createDatabase, onlyPlugins } from '../../tests/helpers/harness.ts';
import { cleanupProjects } from '../../tests/plugins/docker/helpers.ts';
import { removeDataDir, standalone, type Figure } from './common.ts';
import { startService } from './service.ts';

const tasks = 500;
const stack = 'bench-tasks';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (xs: readonly number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]; };

/** the process's CPU time so far, ms (user + system, from /proc; clock ticks of 10 ms) */
const cpuMs = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };

async function idle(pid: number, rssMb: () => number, seconds: number): Promise<{ cpuPercent: number; rss: number }> {
  await sleep(10_000); // past the burst of the requests before
  const before = cpuMs(pid);
  await sleep(seconds * 1000);
  return { cpuPercent: ((cpuMs(pid) - before) / (seconds * 1000)) * 100, rss: rssMb() };
}

export async function tasksBench(): Promise<Figure[]> {
  const db = await createDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-bench-'));
  const env: Record<string, string> = { DATABASE_URL: db.url, ...(process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {}) };
  const svc = await startService({
    dataDir, env,
    config: { rateLimit: { perMinute: 100_000_000 }, plugins: onlyPlugins({ docker: { options: { reconcile: false, stopTimeoutSeconds: 1 } }, stacks: {}, alerts: {}, tasks: {} }) },
  });
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const token = svc.token();
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await call(svc.url, method, path, { token, body, unchecked: true });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  try {
    await api('PUT', `/api/v1/stacks/${stack}/compose`, { content: 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n', revision: 0 });
    let job = await api('POST', `/api/v1/stacks/${stack}/deploy`);
    while (!job.done) job = await api('GET', `/api/v1/jobs/${job.id}/wait?timeout=60`);
    if (job.status !== 'succeeded') throw new Error(`deploy: ${job.error}`);

    const none = await idle(svc.pid, svc.rssMb, 30);
    // 500 tasks whose slots are far away: what the scheduler costs while it waits
    for (let i = 0; i < tasks; i += 10) {
      await Promise.all(Array.from({ length: 10 }, (_, k) => api('POST', `/api/v1/stacks/${stack}/tasks`, { name: `t${i + k}`, service: 'app', command: ['true'], schedule: '0 0 1 1 *' })));
    }
    const waiting = await idle(svc.pid, svc.rssMb, 30);

    // then their slots spread over 3 minutes (about 167 a minute, each at the minute): every one runs once
    const first = new Date(Math.ceil((Date.now() + 90_000) / 60_000) * 60_000);
    for (let i = 0; i < tasks; i += 10) {
      await Promise.all(Array.from({ length: 10 }, (_, k) => {
        const n = i + k;
        const minute = (first.getUTCMinutes() + (n % 3)) % 60;
        return api('PUT', `/api/v1/stacks/${stack}/tasks/t${n}`, { service: 'app', command: ['true'], schedule: `${minute} * * * *` });
      }));
    }
    const end = first.getTime() + 3 * 60_000;
    for (;;) {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM task_runs WHERE status NOT IN ('queued', 'running')`);
      if (rows[0].n >= tasks || Date.now() > end + 120_000) break;
      await sleep(2000);
    }
    const { rows } = await client.query<{ queued: number; running: number | null; status: string }>(
      `SELECT extract(epoch FROM created_at - slot) * 1000 AS queued, extract(epoch FROM started_at - slot) * 1000 AS running, status FROM task_runs WHERE trigger = 'schedule'`);
    const queued = rows.map((r) => Number(r.queued));
    const running = rows.filter((r) => r.running !== null && r.status !== 'skipped').map((r) => Number(r.running));
    const note = `${rows.length} runs of ${tasks} tasks, ${rows.filter((r) => r.status === 'succeeded').length} succeeded`;
    return [
      { figure: `slot → run queued by the scheduler, p50 (${tasks} tasks, ~167 a minute)`, value: percentile(queued, 50), unit: 'ms', target: { below: 1000 }, note },
      { figure: 'slot → run queued by the scheduler, p99', value: percentile(queued, 99), unit: 'ms', target: { below: 1000 } },
      { figure: 'slot → run running (job queue of jobs.concurrency too), p50', value: percentile(running, 50), unit: 'ms', target: { below: 1000 } },
      { figure: 'slot → run running, p99', value: percentile(running, 99), unit: 'ms', target: { below: 1000 }, note: 'the runs of one minute share the job runner\'s slots' },
      { figure: `idle CPU of the service with ${tasks} tasks`, value: waiting.cpuPercent, unit: '% of a core', target: { below: 2 }, note: `${none.cpuPercent.toFixed(2)} % with none` },
      { figure: `idle RSS of the service with ${tasks} tasks`, value: waiting.rss, unit: 'MB', target: { below: 120 }, note: `${none.rss.toFixed(1)} MB with none` },
    ];
  } finally {
    await client.end();
    await svc.stop();
    await cleanupProjects(stack);
    await db.drop();
    await removeDataDir(dataDir);
  }
}

await standalone(import.meta.url, tasksBench);
