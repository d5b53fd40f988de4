// Helpers of the stacks tests: a server with docker + stacks, stack creation, jobs followed to their end, cleanup.
import { startServer, type StartOptions, type TestServer } from '../../helpers/harness.ts';

export { cleanupProjects, containerOf, docker, freePort, httpGet, projectContainers, uniqueName } from '../docker/helpers.ts';

export function startStacksServer(opts: { stacks?: Record<string, unknown> } & Omit<StartOptions, 'plugins'> = {}): Promise<TestServer> {
  const { stacks = {}, ...rest } = opts;
  return startServer({
    ...rest,
    plugins: {
      // test files run side by side on one engine: a start-up reconcile would touch the others' deploys (reconcile.test.ts covers it)
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } },
      containers: {},
      stacks: { options: stacks },
    },
  });
}

export const busybox = (services: Record<string, string> = { app: 'sleep 3600' }, extra = '') =>
  `services:\n${Object.entries(services).map(([name, cmd]) => `  ${name}:\n    image: dockwright-test/busybox:1\n    command: ${JSON.stringify(['sh', '-c', cmd])}\n`).join('')}${extra}`;

export async function createStack(s: TestServer, name: string, content: string, token = s.admin) {
  const res = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { token, body: { content }, headers: { 'if-none-match': '*' } });
  if (res.status !== 200) throw new Error(`create ${name}: ${res.status} ${res.text}`);
  return res.body;
}

export interface JobAnswer { id: string; status: string; done: boolean; output: string; error: string | null; result: any; actor: any }

export async function waitJob(s: TestServer, id: string, timeoutMs = 240_000): Promise<JobAnswer> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await s.api<JobAnswer>('GET', `/api/v1/jobs/${id}/wait?timeout=30`);
    if (res.body.done) return res.body;
    if (Date.now() > until) throw new Error(`job ${id} did not finish within ${timeoutMs} ms:\n${res.body.output}`);
  }
}

/** POST deploy|stop|pull and wait; insists on success unless told otherwise */
export async function act(s: TestServer, verb: 'deploy' | 'stop' | 'pull', name: string, expect: 'succeeded' | 'failed' = 'succeeded'): Promise<JobAnswer> {
  const res = await s.api('POST', `/api/v1/stacks/${name}/${verb}`);
  if (res.status !== 202) throw new Error(`${verb} ${name}: ${res.status} ${res.text}`);
  const job = await waitJob(s, res.body.id);
  if (job.status !== expect) throw new Error(`${verb} of ${name} ${job.status}, expected ${expect}: ${job.error}\n${job.output}`);
  return job;
}

/** a deploy that takes `seconds`: app waits for slow to become healthy */
export const slowCompose = (seconds: number) => `services:
  slow:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "sleep ${seconds}; touch /tmp/ok; sleep 3600"]
    healthcheck: { test: ["CMD", "test", "-f", "/tmp/ok"], interval: 1s, timeout: 2s, retries: 60 }
  app:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    depends_on: { slow: { condition: service_healthy } }
`;
