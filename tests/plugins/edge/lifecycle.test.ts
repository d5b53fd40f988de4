// The edge outlives the service (real Caddy, real containers, a kernel in a child process): SIGTERM or kill -9 drops no request, the next start adopts Caddy, settings apply live, and the CLI stops it on purpose.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findCaddy } from '../../../plugins/edge/process.ts';
import { call, createDatabase, eventually, onlyPlugins, root, startChild, stopEdgeOf, type Child, type TestServer } from '../../helpers/harness.ts';
import { act, cleanupProjects, createStack, freePort, uniqueName, viaEdge, webCompose } from './helpers.ts';

const work = mkdtempSync(join(tmpdir(), 'dw-edgelife-'));
const projects: string[] = [];
after(async () => {
  await cleanupProjects(...projects);
  rmSync(work, { recursive: true, force: true });
});

interface Install {
  dataDir: string;
  home: string;
  config: Record<string, unknown>;
  edge: Record<string, unknown>;
  httpPort: number;
  child: Child | null;
  token: string;
  drop(): Promise<void>;
}

async function install(): Promise<Install> {
  const db = await createDatabase();
  const dataDir = mkdtempSync(join(work, 'data-'));
  const httpPort = await freePort();
  const edge = { httpPort, httpsPort: await freePort(), pollIntervalMs: 100, resyncIntervalMs: 60_000 };
  const config = {
    databaseUrl: db.url, dataDir, rateLimit: { perMinute: 100_000 },
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } },
      stacks: {},
      edge: { options: edge },
      'edge-client': { path: 'tests/fixtures/edge-client/index.ts' },
    },
  };
  const i: Install = {
    dataDir, home: join(dataDir, 'plugins', 'edge', 'caddy'), config, edge, httpPort, child: null, token: '',
    async drop() {
      await i.child?.kill('SIGKILL');
      await stopEdgeOf(dataDir);
      await db.drop();
    },
  };
  return i;
}

/** starts the service on the install (with edge options changed by `edge`), and waits until it runs the edge */
async function start(i: Install, edge: Record<string, unknown> = {}): Promise<{ edge: any; tookMs: number }> {
  const plugins = i.config.plugins as Record<string, any>;
  i.child = await startChild({ ...i.config, plugins: { ...plugins, edge: { options: { ...i.edge, ...edge } } } });
  // from the moment the service serves (its plugins started) to the edge running
  const began = Date.now();
  i.token ||= readFileSync(join(i.dataDir, 'initial-admin-token'), 'utf8').trim();
  const view = await eventually(async () => {
    const r = await api(i, 'GET', '/api/v1/edge');
    return r.body.state === 'running' ? r.body : null;
  }, 20_000, 'the edge to run', 10);
  return { edge: view, tookMs: Date.now() - began };
}

const api = (i: Install, method: string, path: string, body?: unknown) => call(i.child!.url, method, path, { token: i.token, body, unchecked: true });
const server = (i: Install) => ({ admin: i.token, api: (m: string, p: string, o: any = {}) => call(i.child!.url, m, p, { token: i.token, unchecked: true, ...o }) }) as unknown as TestServer;

/** 20 requests a second to each host, bounded in count; every answer that is not the expected one is a failure */
function load(port: number, targets: { host: string; path: string; ok: (body: string) => boolean }[], maxSeconds: number) {
  let going = true;
  let sent = 0;
  const failures: string[] = [];
  const runs = targets.map(async (t) => {
    for (let n = 0; going && n < maxSeconds * 20; n++) {
      const next = Date.now() + 50;
      sent++;
      const a = await viaEdge(port, t.host, t.path).catch((err: Error) => ({ status: 0, body: err.message }));
      if (a.status !== 200 || !t.ok(a.body)) failures.push(`${t.host}: ${a.status} ${a.body.slice(0, 80)}`);
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
  });
  return { failures, get sent() { return sent; }, async stop() { going = false; await Promise.all(runs); } };
}

/** a site-like static route and a routed stack service, both answering through the edge */
async function serveBoth(i: Install, tag: string) {
  const rootDir = join(work, `site-${tag}`);
  mkdirSync(rootDir, { recursive: true });
  writeFileSync(join(rootDir, 'index.html'), `site ${tag}\n`);
  const site = `site-${tag}.life.test`;
  assert.equal((await api(i, 'PUT', `/api/v1/edge-client/routes/site:${tag}`, { routes: [{ kind: 'static', hostname: site, root: rootDir }] })).status, 200);
  const name = uniqueName('life');
  projects.push(name);
  const app = `${name}.life.test`;
  await createStack(server(i), name, webCompose(app, tag));
  await act(server(i), 'deploy', name);
  const targets = [
    { host: site, path: '/', ok: (b: string) => b === `site ${tag}\n` },
    { host: app, path: '/cgi-bin/env', ok: (b: string) => b.includes(`message=${tag}`) },
  ];
  for (const t of targets) await eventually(async () => t.ok((await viaEdge(i.httpPort, t.host, t.path).catch(() => ({ body: '' }))).body), 20_000, t.host);
  return { targets, rootDir };
}

async function restartUnderLoad(signal: 'SIGTERM' | 'SIGKILL', t: { diagnostic(m: string): void }) {
  const i = await install();
  try {
    const first = await start(i);
    assert.equal(first.edge.mode, 'managed');
    assert.equal(first.edge.adopted, null, 'the first start starts Caddy');
    const pid = first.edge.pid as number;
    const { targets, rootDir } = await serveBoth(i, signal.toLowerCase());

    const traffic = load(i.httpPort, targets, 30);
    await new Promise((r) => setTimeout(r, 500));
    await i.child!.kill(signal);
    assert.equal(findCaddy(i.home), pid, `Caddy outlives the service (${signal})`);
    await new Promise((r) => setTimeout(r, 3000));
    const again = await start(i);
    await new Promise((r) => setTimeout(r, 500));
    await traffic.stop();
    t.diagnostic(`${signal}: ${traffic.failures.length} failed of ${traffic.sent} requests; the new start said the edge runs ${again.tookMs} ms after it served`);
    assert.deepEqual(traffic.failures, [], `${traffic.failures.length} of ${traffic.sent} requests failed`);
    assert.ok(traffic.sent >= 2 * 20 * 3, `only ${traffic.sent} requests were made`);

    assert.equal(again.edge.pid, pid, 'the same Caddy');
    assert.equal(again.edge.state, 'running');
    assert.ok(again.edge.adopted?.at, JSON.stringify(again.edge.adopted));
    assert.equal(again.edge.adopted.configuration, 'unchanged', 'nothing changed while the service was down: nothing is reloaded');
    assert.equal(again.edge.restartNeeded, null);

    // the adopted Caddy takes route changes as fast as one it started: from the call to the first answer on the new hostname
    const took: number[] = [];
    for (const n of [1, 2, 3]) {
      const began = Date.now();
      assert.equal((await api(i, 'PUT', '/api/v1/edge-client/routes/site:later', { routes: [{ kind: 'static', hostname: `later${n}.life.test`, root: rootDir }] })).status, 200);
      assert.equal((await viaEdge(i.httpPort, `later${n}.life.test`, '/')).status, 200);
      took.push(Date.now() - began);
    }
    const median = [...took].sort((a, b) => a - b)[1];
    t.diagnostic(`${signal}: route changes after the adoption answered in ${took.join(', ')} ms`);
    assert.ok(median < 200, `route changes took ${took.join(', ')} ms`);
  } finally {
    await i.drop();
  }
}

test('SIGTERM: the edge keeps serving a site and a stack service while the service is down (0 failed requests); the next start adopts Caddy unchanged', async (t) => {
  await restartUnderLoad('SIGTERM', t);
});

test('kill -9: the same, 0 failed requests, and the next start adopts Caddy', async (t) => {
  await restartUnderLoad('SIGKILL', t);
});

test('edge settings apply to the adopted Caddy without restarting it (ports); another binary says restart needed; the CLI stops, starts and restarts it on purpose', async () => {
  const i = await install();
  const cli = (args: string[]) => {
    const file = join(i.dataDir, 'cli.json');
    writeFileSync(file, JSON.stringify({ rateLimit: { perMinute: 100_000 }, plugins: onlyPlugins(i.config.plugins as Record<string, unknown>) }));
    return promisify(execFile)(process.execPath, ['--import', 'tsx', join(root, 'kernel/main.ts'), ...args], {
      cwd: root, env: { ...process.env, NODE_ENV: 'test', DATA_DIR: i.dataDir, DATABASE_URL: (i.config as { databaseUrl: string }).databaseUrl, DOCKWRIGHT_CONFIG: file },
    });
  };
  try {
    const first = await start(i);
    const rootDir = join(work, 'site-ports');
    mkdirSync(rootDir, { recursive: true });
    writeFileSync(join(rootDir, 'index.html'), 'ports\n');
    await api(i, 'PUT', '/api/v1/edge-client/routes/site:ports', { routes: [{ kind: 'static', hostname: 'ports.life.test', root: rootDir }] });
    assert.equal((await viaEdge(i.httpPort, 'ports.life.test', '/')).body, 'ports\n');
    await i.child!.kill('SIGTERM');

    const newPort = await freePort();
    const moved = await start(i, { httpPort: newPort });
    assert.equal(moved.edge.pid, first.edge.pid, 'the same Caddy, not restarted');
    assert.equal(moved.edge.adopted.configuration, 'updated');
    assert.deepEqual(moved.edge.ports, { http: newPort, https: i.edge.httpsPort });
    assert.equal(moved.edge.restartNeeded, null, 'a port applies through the admin API');
    assert.equal((await viaEdge(newPort, 'ports.life.test', '/')).body, 'ports\n');
    await assert.rejects(viaEdge(i.httpPort, 'ports.life.test', '/'), /ECONNREFUSED/, 'the old port is let go');
    await i.child!.kill('SIGTERM');

    // a copy of the binary is another file: the running Caddy cannot switch to it by itself
    const which = (await promisify(execFile)('sh', ['-c', 'command -v caddy'])).stdout.trim();
    const copy = join(work, 'caddy-copy');
    copyFileSync(which, copy);
    const other = await start(i, { httpPort: newPort, caddy: copy });
    assert.equal(other.edge.pid, first.edge.pid);
    assert.match(other.edge.restartNeeded ?? '', /plugins\.edge\.options\.caddy is .*caddy-copy: restart the edge/);
    await i.child!.kill('SIGTERM');

    // on purpose: stopped, it stays stopped (a start does not bring it back), until edge start
    assert.match((await cli(['edge', 'stop'])).stdout, new RegExp(`pid ${first.edge.pid}\\) stopped`));
    assert.equal(findCaddy(i.home), null);
    i.child = await startChild({ ...i.config, plugins: { ...(i.config.plugins as object), edge: { options: { ...i.edge, httpPort: newPort } } } });
    const stopped = await eventually(async () => {
      const r = await api(i, 'GET', '/api/v1/edge');
      return r.body.state === 'stopped' ? r.body : null;
    }, 10_000, 'the edge to say it is stopped');
    assert.match(stopped.reason, /stopped on purpose/);
    assert.match((await cli(['edge', 'start'])).stdout, /the edge started \(caddy, pid \d+\) with its last configuration/);
    const adopted = await eventually(async () => {
      const r = await api(i, 'GET', '/api/v1/edge');
      return r.body.state === 'running' ? r.body : null;
    }, 10_000, 'the running service to adopt the started Caddy');
    assert.notEqual(adopted.pid, first.edge.pid);
    assert.ok(adopted.adopted);
    assert.equal((await viaEdge(newPort, 'ports.life.test', '/')).body, 'ports\n', 'served from the autosaved configuration');
  } finally {
    await i.drop();
  }
});
