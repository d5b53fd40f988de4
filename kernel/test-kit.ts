// The plugin test kit (`dockwright/sdk/testing`, served by the kernel so that the SDK never imports it): a real kernel with exactly the given plugins on a throw-away database, a typed client, tokens.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Static, TSchema } from '@sinclair/typebox';
import pg from 'pg';
import { boot, type Running } from './app.ts';
import { embeddedPaths, startEmbedded } from './db/embedded.ts';
import type { RouteDef, Role } from '../sdk/index.ts';
import { sdkVersion } from '../sdk/version.ts';
import { checkContract, forgetContract, prepareContract } from '../sdk/testing/contract.ts';

export { checkContract } from '../sdk/testing/contract.ts';

/** how a plugin is enabled: a built-in by name ({}), a folder or file (`path`, relative to the working directory), or an npm `package` */
export interface TestPluginEntry { path?: string; package?: string; options?: Record<string, unknown> }

export interface TestKernelOptions {
  /** exactly these plugins load (the default ones of config/default.json are switched off) */
  plugins: Record<string, TestPluginEntry>;
  /** further configuration (rateLimit, jobs, outbound, …) */
  config?: Record<string, unknown>;
  /** the environment the kernel (and the env plugins declare) sees; NODE_ENV is `test` */
  env?: Record<string, string>;
  /** a PostgreSQL server to create the throw-away database on; default: an embedded PostgreSQL cloned from a template */
  databaseUrl?: string;
}

export interface Answer<T> { status: number; headers: Headers; body: T; text: string }
export interface RequestOptions { token?: string; body?: unknown; headers?: Record<string, string>; query?: Record<string, string | number | boolean> }

/** the input of a typed call: the route's params, query and body as its schemas type them */
export interface CallInput<P, Q, B> { params?: P; query?: Q; body?: B; token?: string; headers?: Record<string, string> }

export interface TestKernel {
  url: string;
  /** a token of an admin user with every scope */
  admin: string;
  /** a new user of this role (default viewer) with a token holding these scopes */
  token(scopes: readonly string[], role?: Role): Promise<string>;
  /** any request; the answer is checked against the served OpenAPI document (a mismatch throws) */
  request<T = unknown>(method: string, path: string, opts?: RequestOptions): Promise<Answer<T>>;
  /** a request to a route value: path filled from params, the success answer typed by its response schema */
  call<P extends TSchema, Q extends TSchema, B extends TSchema, R extends TSchema>(
    route: RouteDef<P, Q, B, R, any>, input?: CallInput<Static<P>, Static<Q>, Static<B>>,
  ): Promise<Answer<Static<R>>>;
  /** the running kernel (its services), for what the HTTP API does not show */
  kernel: Running;
  /** stops the kernel and removes its database and data directory */
  close(): Promise<void>;
}

/** the installed dockwright package: config/default.json and the built-in plugins live there */
function packageRoot(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'dockwright') return dir;
  }
  throw new Error('the test kit cannot find the dockwright package it belongs to');
}

/**
 * A stopped, freshly initialised embedded cluster, made once per machine and SDK version; each kernel starts on a copy
 * (copying is much faster than initdb). Made under a temporary name and renamed, so parallel test files never see half of one.
 */
async function templateCluster(): Promise<string> {
  const template = join(tmpdir(), `dockwright-testkit-${sdkVersion}-${process.getuid?.() ?? 'u'}`);
  if (existsSync(join(embeddedPaths(template).cluster, 'PG_VERSION'))) return template;
  const making = `${template}.${randomBytes(4).toString('hex')}`;
  mkdirSync(making, { mode: 0o755 });
  const db = await startEmbedded(making);
  await db.stop();
  rmSync(join(embeddedPaths(making).cluster, 'postmaster.pid'), { force: true });
  try {
    renameSync(making, template);
  } catch {
    rmSync(making, { recursive: true, force: true }); // another process made it first
  }
  return template;
}

async function throwAwayDatabase(serverUrl: string | undefined, dataDir: string): Promise<{ url?: string; drop(): Promise<void> }> {
  if (!serverUrl) {
    // `cp -a` keeps the owner: as root the embedded server runs as the user "postgres", which owns the template
    await promisify(execFile)('cp', ['-a', '--', embeddedPaths(await templateCluster()).cluster, embeddedPaths(dataDir).cluster]);
    return { drop: async () => undefined };
  }
  const name = `dw_kit_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`).finally(() => admin.end());
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => c.end());
    },
  };
}

function pathOf(route: { path: string }, params: Record<string, unknown> | undefined, query: Record<string, unknown> | undefined): string {
  const filled = route.path.replace(/:([^/]+)/g, (_, name: string) => {
    if (params?.[name] === undefined) throw new Error(`the call of ${route.path} needs the param ${name}`);
    return encodeURIComponent(String(params[name]));
  });
  const search = new URLSearchParams(Object.entries(query ?? {}).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
  return filled + (search.size ? `?${search}` : '');
}

let users = 0;

/** Boots a kernel with exactly `plugins` on a throw-away database and serves it on a free loopback port. */
export async function startTestKernel(opts: TestKernelOptions): Promise<TestKernel> {
  const root = packageRoot();
  const defaults = JSON.parse(readFileSync(join(root, 'config/default.json'), 'utf8')).plugins as Record<string, unknown>;
  const plugins = {
    ...Object.fromEntries(Object.keys(defaults).map((name) => [name, { enabled: false }])),
    ...Object.fromEntries(Object.entries(opts.plugins).map(([name, entry]) => [name, {
      ...entry, enabled: true, ...(entry.path ? { path: isAbsolute(entry.path) ? entry.path : resolve(entry.path) } : {}),
    }])),
  };
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-kit-'));
  // the embedded server's user passes through it to its cluster
  chmodSync(dataDir, 0o711);
  const db = await throwAwayDatabase(opts.databaseUrl, dataDir);
  let kernel: Running;
  try {
    kernel = await boot({
      root,
      env: { NODE_ENV: 'test', ...opts.env },
      config: { host: '127.0.0.1', port: 0, dataDir, log: { level: 'silent' }, ...(db.url ? { databaseUrl: db.url } : {}), ...opts.config, plugins },
    });
  } catch (err) {
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const token = async (scopes: readonly string[], role: Role = 'viewer') => {
    const name = `kit-${role}-${process.pid}-${++users}`;
    await kernel.tokens.addUser(name, role);
    return (await kernel.tokens.create({ user: name, name: 'test-kit', scopes: [...scopes] })).token;
  };
  const admin = await token(['*'], 'admin');
  await prepareContract(kernel.url);
  const request = async <T>(method: string, path: string, o: RequestOptions = {}): Promise<Answer<T>> => {
    const headers: Record<string, string> = { authorization: `Bearer ${o.token ?? admin}`, ...o.headers };
    if (o.body !== undefined) headers['content-type'] ??= 'application/json';
    const full = o.query ? pathOf({ path }, {}, o.query) : path;
    const res = await fetch(kernel.url + full, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
    const text = await res.text();
    const contentType = res.headers.get('content-type') ?? '';
    const body = contentType.includes('json') && text ? JSON.parse(text) : text;
    await checkContract(kernel.url, method, full, { status: res.status, contentType, body, text });
    return { status: res.status, headers: res.headers, body: body as T, text };
  };
  let closed: Promise<void> | undefined;
  return {
    url: kernel.url, admin, token, request, kernel,
    call: (route, input = {}) => {
      const mount = route.actionToken ? '/api' : '/api/v1';
      return request(route.method, mount + pathOf(route, input.params as Record<string, unknown>, input.query as Record<string, unknown>),
        { token: input.token, body: input.body, headers: input.headers });
    },
    close: () => (closed ??= (async () => {
      forgetContract(kernel.url);
      await kernel.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    })()),
  };
}
