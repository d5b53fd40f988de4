// Helpers of the backups tests: a server with docker, stacks and backups, jobs followed to their end, and volumes read and written by containers.
import { createHash } from 'node:crypto';
import { startServer, type StartOptions, type TestServer } from '../../helpers/harness.ts';
import { docker } from '../docker/helpers.ts';
import { waitJob, type JobAnswer } from '../stacks/helpers.ts';

export { act, createStack, waitJob } from '../stacks/helpers.ts';
export { cleanupProjects, containerOf, docker, uniqueName } from '../docker/helpers.ts';

export function startBackupsServer(opts: { backups?: Record<string, unknown> } & Omit<StartOptions, 'plugins'> = {}): Promise<TestServer> {
  const { backups = {}, ...rest } = opts;
  return startServer({
    ...rest,
    config: { rateLimit: { perMinute: 100_000 }, ...rest.config },
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } },
      stacks: {},
      backups: { options: { progressIntervalMs: 0, stopTimeoutSeconds: 1, ...backups } },
    },
  });
}

/** POST …/run or …/restore and wait for the job; insists on the expected end */
export async function runJob(s: TestServer, path: string, body?: unknown, expect: 'succeeded' | 'failed' = 'succeeded', token = s.admin): Promise<JobAnswer> {
  const res = await s.api('POST', path, { body, token });
  if (res.status !== 202) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
  const job = await waitJob(s, res.body.id);
  if (job.status !== expect) throw new Error(`POST ${path}: the job ${job.status}, expected ${expect}: ${job.error}\n${job.output}`);
  return job;
}

/** runs a busybox container with the volume at /v and returns what it printed on stdout */
export async function inVolume(volume: string, script: string, readOnly = false): Promise<Buffer> {
  const c = await docker.createContainer({
    Image: 'dockwright-test/busybox:1', Cmd: ['sh', '-c', script], Tty: false,
    HostConfig: { Binds: [`${volume}:/v${readOnly ? ':ro' : ''}`], NetworkMode: 'none' },
    Labels: { 'dockwright-test': 'backups' },
  });
  try {
    await c.start();
    const { StatusCode } = await c.wait();
    const raw = (await c.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    // the engine multiplexes stdout and stderr in frames: [stream, 0, 0, 0, size (4 bytes)]
    for (let i = 0; i + 8 <= raw.length;) {
      const size = raw.readUInt32BE(i + 4);
      (raw[i] === 1 ? out : err).push(raw.subarray(i + 8, i + 8 + size));
      i += 8 + size;
    }
    if (StatusCode !== 0) throw new Error(`script in ${volume} exited ${StatusCode}: ${Buffer.concat(err).toString()}`);
    return Buffer.concat(out);
  } finally {
    await c.remove({ force: true }).catch(() => undefined);
  }
}

export const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

/** the SHA-256 of every file below /v, by path (computed in a container that mounts the volume read-only) */
export async function checksums(volume: string): Promise<Record<string, string>> {
  const out = (await inVolume(volume, 'cd /v && find . -type f | sort | xargs -r sha256sum', true)).toString().trim();
  return Object.fromEntries(out.split('\n').filter(Boolean).map((l) => { const [sum, file] = l.split(/\s+/); return [file, sum]; }));
}
