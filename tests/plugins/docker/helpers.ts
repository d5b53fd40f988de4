// Helpers of the docker and containers tests: a server with the docker plugins, jobs run to their end, free ports, a recording stand-in server, and cleanup of what a project left on the engine.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { createServer as createHttpServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import Dockerode from 'dockerode';
import { startServer, type StartOptions, type TestServer } from '../../helpers/harness.ts';

export const driverPath = 'tests/fixtures/compose-driver/index.ts';
export const docker = new Dockerode({ socketPath: (process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock').replace(/^unix:\/\//, '') });

export function startDockerServer(opts: { docker?: Record<string, unknown>; containers?: boolean | Record<string, unknown> } & Omit<StartOptions, 'plugins'> = {}): Promise<TestServer> {
  const { docker: dockerOptions = {}, containers = true, ...rest } = opts;
  return startServer({
    ...rest,
    // tests poll the API while containers come up: the per-token limit is the kernel's business, not theirs
    config: { rateLimit: { perMinute: 100_000 }, ...rest.config },
    plugins: {
      // busybox as PID 1 ignores SIGTERM: a short grace time keeps stops and recreates quick
      // test files run side by side on one engine: a start-up reconcile would touch the others' deploys (reconcile.test.ts turns it on)
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false, ...dockerOptions } },
      ...(containers ? { containers: containers === true ? {} : { options: containers } } : {}),
      'compose-driver': { path: driverPath },
    },
  });
}

/** resolves with check()'s first truthy value; polls every intervalMs (gentler on a busy engine than the harness's 25 ms) */
export async function until<T>(check: () => Promise<T | undefined | null | false>, timeoutMs: number, what: string, intervalMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** a project name no other test (or earlier run) uses */
export const uniqueName = (prefix = 't'): string => `${prefix}${randomBytes(4).toString('hex')}`;

/** a host port that was free a moment ago */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface JobAnswer { id: string; status: string; done: boolean; output: string; error: string | null; result: any }

/** starts a driver job and waits for its end (jobs wait in 30 s steps up to `timeoutMs`). */
export async function run(s: TestServer, verb: 'deploy' | 'stop' | 'pull' | 'remove', name: string, body: Record<string, unknown> = {}, timeoutMs = 240_000): Promise<JobAnswer> {
  const started = await s.api('POST', `/api/v1/driver/projects/${name}/${verb}`, { body });
  if (started.status !== 202) throw new Error(`${verb} ${name}: ${started.status} ${started.text}`);
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await s.api<JobAnswer>('GET', `/api/v1/jobs/${started.body.id}/wait?timeout=30`);
    if (res.body.done) return res.body;
    if (Date.now() > until) throw new Error(`${verb} ${name} did not finish within ${timeoutMs} ms; output so far:\n${res.body.output}`);
  }
}

/** deploys and insists on success, showing the job output otherwise */
export async function deployOk(s: TestServer, name: string, compose: string, extra: Record<string, unknown> = {}): Promise<JobAnswer> {
  const job = await run(s, 'deploy', name, { compose, ...extra });
  if (job.status !== 'succeeded') throw new Error(`deploy of ${name} ${job.status}: ${job.error}\n${job.output}`);
  return job;
}

export async function projectContainers(name: string): Promise<Dockerode.ContainerInfo[]> {
  const list = await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${name}`] } });
  return list.sort((a, b) => a.Names[0].localeCompare(b.Names[0]));
}

export async function containerOf(project: string, service: string): Promise<Dockerode.ContainerInfo | undefined> {
  return (await projectContainers(project)).find((c) => c.Labels['dockwright.service'] === service);
}

/** removes every container, network and volume of these projects, whatever state a failed test left them in. */
export async function cleanupProjects(...names: string[]): Promise<void> {
  for (const name of names) {
    const filters = { label: [`dockwright.project=${name}`] };
    for (const c of await docker.listContainers({ all: true, filters })) await docker.getContainer(c.Id).remove({ force: true, v: true }).catch(() => undefined);
    for (const c of await docker.listContainers({ all: true, filters: { name: [`^/${name}-`] } })) await docker.getContainer(c.Id).remove({ force: true, v: true }).catch(() => undefined);
    for (const n of await docker.listNetworks({ filters })) await docker.getNetwork(n.Id).remove().catch(() => undefined);
    for (const v of (await docker.listVolumes({ filters })).Volumes ?? []) await docker.getVolume(v.Name).remove().catch(() => undefined);
  }
}

/** GET over plain HTTP (no keep-alive), body as text; rejects on connection errors. */
export function httpGet(port: number, path: string, host = '127.0.0.1'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, agent: false, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** the plain-text logs of a container through the API */
export async function logsOf(s: TestServer, container: string, query = ''): Promise<string> {
  const res = await s.api('GET', `/api/v1/containers/${container}/logs${query ? `?${query}` : ''}`);
  if (res.status !== 200) throw new Error(`logs of ${container}: ${res.status} ${res.text}`);
  return res.text;
}

export interface RecordingServer {
  port: number;
  /** every connection made to it (a TLS attempt on this plain HTTP port counts too) */
  connections: number;
  /** `METHOD /path?query` of every request it read */
  requests: string[];
  close(): Promise<void>;
}

/** a plain HTTP server on a loopback address that records who came, answering with `answer` (404 by default) */
export function recordingServer(answer?: (req: IncomingMessage, res: ServerResponse) => void, host = '127.0.0.1'): Promise<RecordingServer> {
  const recorded = { connections: 0, requests: [] as string[] };
  const server = createHttpServer((req, res) => {
    recorded.requests.push(`${req.method} ${req.url}`);
    if (answer) answer(req, res);
    else res.writeHead(404).end();
  });
  server.on('connection', () => { recorded.connections++; });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve({
      port: (server.address() as { port: number }).port,
      get connections() { return recorded.connections; },
      requests: recorded.requests,
      close: () => new Promise<void>((done) => { server.closeAllConnections(); server.close(() => done()); }),
    }));
  });
}
