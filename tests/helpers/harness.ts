// The test harness: a real kernel on a real PostgreSQL database of its own, spoken to over HTTP.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { boot, type Running } from '../../kernel/app.ts';
import type { NameResolver } from '../../kernel/services/outbound.ts';
import { checkContract, forgetContract, prepareContract } from '../../sdk/testing/contract.ts';
import { findCaddy, stopCaddy } from '../../plugins/edge/process.ts';

import type { Logger, Role } from '../../sdk/index.ts';

export const root = resolve(import.meta.dirname, '../..');
export const probePath = 'tests/fixtures/probe-plugin/index.ts';

export function adminUrl(): string {
  const url = process.env.DATABASE_URL_TEST;
  if (!url) throw new Error('DATABASE_URL_TEST is not set: run the tests with `npm test` (scripts/test.sh sets up PostgreSQL)');
  return url;
}

/** a fresh, empty database on the test server; drop() removes it. */
export async function createDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `dw_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface ApiAnswer<T = any> { status: number; headers: Headers; body: T; text: string }
export interface CallOptions {
  token?: string; body?: unknown; raw?: BodyInit; headers?: Record<string, string>;
  /** skip the response-contract check (only for a test that proves a raw transport behaviour) */
  unchecked?: boolean;
}

export async function call<T = any>(base: string, method: string, path: string, opts: CallOptions = {}): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: BodyInit | undefined = opts.raw;
  if (opts.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(opts.body);
  }
  const res = await fetch(base + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  const contentType = res.headers.get('content-type') ?? '';
  if (contentType.includes('json') && text) parsed = JSON.parse(text);
  if (!opts.unchecked) await checkContract(base, method, path, { status: res.status, contentType, body: parsed, text });
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export interface TestServer {
  app: Running;
  url: string;
  databaseUrl: string;
  dataDir: string;
  /** an admin token with every scope */
  admin: string;
  /** a user of this role with a token holding these scopes */
  token(role: Role, scopes: string[], opts?: { expiresAt?: Date; teams?: string[]; name?: string }): Promise<string>;
  api<T = any>(method: string, path: string, opts?: CallOptions): Promise<ApiAnswer<T>>;
  /** stops the server (keeps the database and data dir for a restart) */
  stop(): Promise<void>;
  /** stops the server and removes its database and data dir */
  close(): Promise<void>;
}

export interface StartOptions {
  plugins?: Record<string, unknown>;
  config?: Record<string, unknown>;
  /** reuse the database and data dir of an earlier server (a restart) */
  reuse?: { databaseUrl: string; dataDir: string };
  env?: NodeJS.ProcessEnv;
  /** answers host names for the outbound policy instead of the system resolver */
  resolveName?: NameResolver;
  /** a logger of the test's own (to look at what was logged) instead of a silent one */
  log?: Logger;
}

let users = 0;

/** the edge's Caddy outlives its service: every data dir a test used has its Caddy stopped, by close() or, at the latest, as this process exits */
const edgeHomes = new Set<string>();
const edgeHomeOf = (dataDir: string) => join(dataDir, 'plugins', 'edge', 'caddy');
process.on('exit', () => {
  for (const home of edgeHomes) {
    // also when the test removed the data dir itself: findCaddy looks through /proc for the boot file's path
    const pid = findCaddy(home);
    if (pid !== null) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
});

/** stops the edge's Caddy a kernel on this data dir left running (tests end what they start) */
export async function stopEdgeOf(dataDir: string): Promise<void> {
  const home = edgeHomeOf(dataDir);
  edgeHomes.add(home);
  if (existsSync(home)) await stopCaddy(home);
}

/** exactly these plugins: config/default.json's others are switched off (config files merge, so they would load too) */
export function onlyPlugins(plugins: Record<string, unknown>): Record<string, unknown> {
  const defaults = JSON.parse(readFileSync(join(root, 'config/default.json'), 'utf8')).plugins as Record<string, unknown>;
  return { ...Object.fromEntries(Object.keys(defaults).map((name) => [name, { enabled: false }])), ...plugins };
}

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const db = opts.reuse ? { url: opts.reuse.databaseUrl, drop: async () => undefined } : await createDatabase();
  const dataDir = opts.reuse?.dataDir ?? mkdtempSync(join(tmpdir(), 'dw-test-'));
  edgeHomes.add(edgeHomeOf(dataDir));
  const app = await boot({
    root,
    env: { NODE_ENV: 'test', ...opts.env },
    resolveName: opts.resolveName,
    config: {
      host: '127.0.0.1', port: 0, dataDir, databaseUrl: db.url, log: { level: 'silent' },
      plugins: onlyPlugins(opts.plugins ?? { probe: { path: probePath } }),
      ...opts.config,
    },
    log: opts.log,
  });
  const token: TestServer['token'] = async (role, scopes, extra = {}) => {
    const name = extra.name ?? `${role}-${process.pid}-${++users}`;
    await app.tokens.addUser(name, role, extra.teams);
    return (await app.tokens.create({ user: name, name: 'test', scopes, expiresAt: extra.expiresAt })).token;
  };
  const admin = await token('admin', ['*']);
  await prepareContract(app.url);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    forgetContract(app.url);
    await app.close();
  };
  return {
    app, url: app.url, databaseUrl: db.url, dataDir, admin, token, stop,
    api: (method, path, o) => call(app.url, method, path, { token: admin, ...o }),
    async close() {
      await stop();
      if (!opts.reuse) {
        await stopEdgeOf(dataDir);
        await db.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/** resolves when check() returns a truthy value, polling every intervalMs (25 ms) up to timeoutMs. */
/** the pid of the backend that LISTENs for token revocations (and webhook changes) in this database, if any */
export async function tokenListenerPid(admin: pg.Client, database: string): Promise<number | null> {
  const { rows } = await admin.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND query ILIKE 'LISTEN %dockwright_tokens%' AND pid <> pg_backend_pid()`, [database]);
  return rows[0]?.pid ?? null;
}

export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, what = 'condition', intervalMs = 25): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export interface Child {
  url: string;
  /** its process id (for its memory in /proc) */
  pid: number;
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** a signal that does not end it (SIGSTOP freezes it: its connections stay open, it renews nothing) */
  signal(signal: NodeJS.Signals): void;
  /** resolves with its exit code (null after a signal) when it ends */
  exited: Promise<number | null>;
  /** what it wrote on stderr so far (also passed on to this process's stderr) */
  stderr(): string;
}

/** starts a kernel in a child process on an existing database (`env`: variables Node reads at process start); kill() with SIGKILL simulates a crash. */
export async function startChild(config: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<Child> {
  const { spawn } = await import('node:child_process');
  if (typeof config.dataDir === 'string') edgeHomes.add(edgeHomeOf(config.dataDir));
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'tests/helpers/child-server.ts')], {
    cwd: root, env: { ...process.env, ...env, DW_TEST_CONFIG: JSON.stringify({ host: '127.0.0.1', port: 0, log: { level: 'silent' }, ...config, plugins: onlyPlugins((config.plugins ?? {}) as Record<string, unknown>) }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    stderr = (stderr + chunk.toString()).slice(-65_536);
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.startsWith('{"url"'));
      if (line) resolveUrl(JSON.parse(line).url);
    });
    child.once('exit', (code) => reject(new Error(`child server exited with ${code}`)));
  });
  return {
    url,
    pid: child.pid!,
    kill: (signal = 'SIGKILL') => new Promise((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGCONT');
      child.kill(signal);
    }),
    signal: (signal) => { child.kill(signal); },
    exited,
    stderr: () => stderr,
  };
}
