// Benchmark (not a test): an update check of a stack of 20 services on one registry (tags and manifests asked in parallel), and a rollback of a one-service stack.
// Run with `npm run bench:releases` after `npm test` has prepared PostgreSQL, Docker and the local registries (it reads .test-env).
import { chmodSync, mkdtempSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, createDatabase } from '../../tests/helpers/harness.ts';
import { cleanupProjects, docker } from '../../tests/plugins/docker/helpers.ts';
import { publishVariant } from '../../tests/plugins/releases/helpers.ts';
import { median, removeDataDir, standalone, type Figure } from './common.ts';
import { startService } from './service.ts';

const runs = 5;
/** a container that stops at once on SIGTERM, so a replacement measures Dockwright and the engine, not a stop timeout */
const cmd = ['sh', '-c', 'trap "exit 0" TERM; sleep 3600 & wait'];

export async function releasesBench(): Promise<Figure[]> {
  const registry = process.env.REGISTRY_OPEN ?? '127.0.0.1:5000';
  const repo = `${registry}/dwb-rel-${randomBytes(3).toString('hex')}`;
  const prefix = `rb${randomBytes(2).toString('hex')}`;
  const [many, one] = [`${prefix}-many`, `${prefix}-one`];
  const db = await createDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-bench-'));
  chmodSync(dataDir, 0o755);
  // 20 repositories of one registry, each with three semver tags; the one-service stack moves between two of them
  for (let i = 0; i < 20; i++) for (const v of ['1.0.0', '1.1.0', '2.0.0']) await publishVariant(`${repo}/s${i}:${v}`, `${i}-${v}`, cmd);
  const svc = await startService({
    dataDir, env: { DATABASE_URL: db.url },
    config: {
      rateLimit: { perMinute: 100_000_000 }, outbound: { allow: ['127.0.0.0/8'] },
      plugins: {
        docker: { options: { stopTimeoutSeconds: 1, reconcile: false } }, containers: {}, stacks: {}, alerts: {}, registries: {}, releases: {},
        git: { enabled: false }, previews: { enabled: false }, sites: { enabled: false }, edge: { enabled: false }, backups: { enabled: false }, certificates: { enabled: false }, portal: { enabled: false },
      },
    },
  });
  const token = svc.token();
  const api = (method: string, path: string, body?: unknown) => call(svc.url, method, path, { token, body, unchecked: true });
  const job = async (path: string, body: unknown = {}) => {
    const started = performance.now();
    const { id } = (await api('POST', path, body)).body;
    let j;
    do j = (await api('GET', `/api/v1/jobs/${id}/wait?timeout=120`)).body; while (!j.done);
    if (j.status !== 'succeeded') throw new Error(`${path}: ${j.error}\n${j.output}`);
    return { job: j, wallMs: performance.now() - started };
  };
  try {
    const services = Array.from({ length: 20 }, (_, i) => `  s${i}:\n    image: ${repo}/s${i}:1.0.0\n    labels: { dockwright.update: minor }\n`).join('');
    await api('PUT', `/api/v1/stacks/${many}/compose`, { content: `services:\n${services}`, revision: 0 });
    await job(`/api/v1/stacks/${many}/deploy`);
    const checks: number[] = [];
    const checkWall: number[] = [];
    for (let i = 0; i < runs; i++) {
      const { job: j, wallMs } = await job(`/api/v1/stacks/${many}/updates/check`);
      checks.push(j.result.ms);
      checkWall.push(wallMs);
    }

    await api('PUT', `/api/v1/stacks/${one}/compose`, { content: `services:\n  app:\n    image: ${repo}/s0:1.0.0\n`, revision: 0 });
    await job(`/api/v1/stacks/${one}/deploy`);
    await api('PUT', `/api/v1/stacks/${one}/compose`, { content: `services:\n  app:\n    image: ${repo}/s0:1.1.0\n`, revision: 1 });
    await job(`/api/v1/stacks/${one}/deploy`);
    const rollbacks: number[] = [];
    const rollbackWall: number[] = [];
    const boots: number[] = [];
    for (let i = 0; i < runs; i++) {
      // back and forth between the two releases before the newest: each rollback replaces the container
      const { job: j, wallMs } = await job(`/api/v1/stacks/${one}/rollback`, { release: 1 + (i % 2) });
      rollbacks.push(Date.parse(j.finishedAt) - Date.parse(j.startedAt));
      rollbackWall.push(wallMs);
      const [c] = await docker.listContainers({ filters: { label: [`dockwright.project=${one}`] } });
      const info = await docker.getContainer(c.Id).inspect();
      boots.push(Date.parse(info.State.StartedAt) - Date.parse(info.Created));
    }
    return [
      { figure: 'update check, 20 services on one registry (minor: tags + manifest each), median', value: median(checks), unit: 'ms', target: { below: 1000 }, note: `job's own measure; POST→done ${Math.round(median(checkWall))} ms; ${runs} runs` },
      { figure: 'rollback of a one-service stack (job start→finish), median', value: median(rollbacks), unit: 'ms', target: { below: 2000 + median(boots) }, note: `target 2 s + boot (create→started ${Math.round(median(boots))} ms); POST→done ${Math.round(median(rollbackWall))} ms` },
    ];
  } finally {
    await svc.stop();
    await cleanupProjects(many, one);
    await removeDataDir(dataDir);
    await db.drop();
    for (const i of await docker.listImages({ filters: { reference: [`${repo}/*`] } })) await docker.getImage(i.Id).remove({ force: true }).catch(() => undefined);
  }
}

await standalone(import.meta.url, releasesBench);
