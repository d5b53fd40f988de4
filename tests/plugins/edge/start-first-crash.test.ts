// Start-first deploys cut short by kill -9 (a kernel in a child process, real engine, real Caddy): after the next start, exactly one container serves under the service's name and the edge routes to it.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { call, eventually, startChild, startServer, type Child, type TestServer } from '../../helpers/harness.ts';
import { docker, projectContainers } from '../docker/helpers.ts';
import { bootingCompose, cleanupProjects, edgeComplaints, freePort, uniqueName, viaEdge } from './helpers.ts';

const name = uniqueName('sfcrash');
const host = `${name}.app.test`;
let s: TestServer;
let config: Record<string, unknown>;
let httpPort: number;
const children: Child[] = [];

before(async () => {
  // the database, its admin and the data directory the child kernels share; this one runs no edge
  s = await startServer({ plugins: { docker: { options: { reconcile: false } }, stacks: {} } });
  httpPort = await freePort();
  config = {
    databaseUrl: s.databaseUrl, dataDir: s.dataDir, rateLimit: { perMinute: 100_000 },
    plugins: {
      // reconcile on: it is what puts things right after the crash (only this installation's containers, older than the start)
      docker: { options: { stopTimeoutSeconds: 1, healthTimeoutMs: 60_000, reconcile: true } },
      stacks: {},
      edge: { options: { httpPort, httpsPort: await freePort(), pollIntervalMs: 100, resyncIntervalMs: 60_000 } },
    },
  };
});
after(async () => {
  for (const c of children) await c.kill('SIGTERM');
  await s?.close();
  await cleanupProjects(name);
});

async function start(): Promise<Child> {
  const child = await startChild(config);
  children.push(child);
  return child;
}
const api = (child: Child, method: string, path: string, body?: unknown) => call(child.url, method, path, { token: s.admin, body });

async function deploy(child: Child, content: string): Promise<string> {
  const stack = await api(child, 'GET', `/api/v1/stacks/${name}`);
  const put = stack.status === 404
    ? await call(child.url, 'PUT', `/api/v1/stacks/${name}/compose`, { token: s.admin, body: { content }, headers: { 'if-none-match': '*' } })
    : await api(child, 'PUT', `/api/v1/stacks/${name}/compose`, { content, revision: stack.body.revision });
  assert.equal(put.status, 200, put.text);
  const res = await api(child, 'POST', `/api/v1/stacks/${name}/deploy`);
  assert.equal(res.status, 202, res.text);
  return res.body.id;
}

/** the one container of the service, running under its usual name, with what it runs; and the edge of `child` answering from it */
async function servedBy(child: Child, message: string): Promise<void> {
  const web = `${name}-web-1`;
  const list = await eventually(async () => {
    const l = await projectContainers(name);
    return l.length === 1 && l[0].Names[0] === `/${web}` && l[0].State === 'running' ? l : null;
  }, 60_000, 'exactly one container of the service, under its name');
  const info = await docker.getContainer(list[0].Id).inspect();
  assert.ok(info.Config.Env.includes(`MESSAGE=${message}`), `${web} runs ${message}`);
  let last = '';
  await eventually(async () => {
    const a = await viaEdge(httpPort, host, '/cgi-bin/env').catch((err: Error) => ({ status: 0, body: err.message }));
    last = `${a.status} ${a.body.trim().slice(0, 200)}`;
    return a.status === 200 && a.body.includes(`message=${message}`) && a.body.includes(`hostname=${info.Config.Hostname}`);
  }, 30_000, `the edge to route to ${web}`).catch(async (err: Error) => {
    const edge = await api(child, 'GET', '/api/v1/edge');
    throw new Error(`${err.message}; it last answered: ${last}; GET /edge: ${edge.status} ${edge.text}\nthe edge's Caddy said:\n${edgeComplaints(s.dataDir, 0)}`);
  });
}

test('kill -9 while the new container gets ready, then while the old one drains: after each start, one container serves and the route points at it', async () => {
  const first = await start();
  const v1 = await deploy(first, bootingCompose(host, 'one', { bootSeconds: 0 }));
  assert.equal((await api(first, 'GET', `/api/v1/jobs/${v1}/wait?timeout=60`)).body.status, 'succeeded');
  await servedBy(first, 'one');

  // the new version boots slowly: the process dies while it is starting beside the old one
  const v2 = await deploy(first, bootingCompose(host, 'two', { bootSeconds: 60 }));
  await eventually(async () => (await projectContainers(name)).some((c) => /-dwnew-[0-9a-f]{12}$/.test(c.Names[0]) && c.State === 'running'), 60_000, 'the new container to start');
  await first.kill('SIGKILL');

  const second = await start();
  await servedBy(second, 'one');
  assert.equal((await api(second, 'GET', `/api/v1/jobs/${v2}/wait?timeout=10`)).body.error, 'interrupted by restart');

  // now it switches at once and drains for long (its stop_grace_period): the process dies while the old one drains
  const v3 = await deploy(second, bootingCompose(host, 'three', { bootSeconds: 0 }).replace('stop_grace_period: 3s', 'stop_grace_period: 25s'));
  await eventually(async () => /switched: the edge routes new requests/.test((await api(second, 'GET', `/api/v1/jobs/${v3}`)).body.output), 60_000, 'the switch');
  assert.ok((await projectContainers(name)).some((c) => /-dwold-[0-9a-f]{12}$/.test(c.Names[0]) && c.State === 'running'), 'the old container drains, set aside');
  await second.kill('SIGKILL');

  await servedBy(await start(), 'three');
});
