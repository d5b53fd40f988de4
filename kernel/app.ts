// The composition root: assemble the kernel services and plugins, migrate, start serving, and shut down in order.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { pino } from 'pino';
import type { Logger } from '../sdk/index.ts';
import { loadConfig, type Config } from './config.ts';
import { loadPlugins, type LoadedPlugin, type SkippedPlugin } from './registry.ts';
import { openDatabase, type Database } from './db/index.ts';
import { migrate } from './db/migrate.ts';
import { ScopeCatalogue } from './auth/scopes.ts';
import { Tokens, tokensChannel } from './auth/tokens.ts';
import { RateLimiter } from './rate-limit.ts';
import { RateBudget } from './rate-budget.ts';
import { createRevisions } from './services/revisions.ts';
import { createActivity } from './services/activity.ts';
import { actionTokensChanged, createActionTokens } from './services/action-tokens.ts';
import { createSecrets, loadSecretKey } from './services/secrets.ts';
import { createEvents } from './services/events.ts';
import { createOutbound, type NameResolver } from './services/outbound.ts';
import { JobRunner } from './jobs/runner.ts';
import { Scheduler } from './jobs/scheduler.ts';
import { RouteTable } from './http/routes.ts';
import { createHttpServer } from './http/server.ts';
import { drainable } from './http/drain.ts';
import { handedOverSocket } from './http/socket-activation.ts';
import { webFiles } from './http/web.ts';
import { Sessions } from './auth/sessions.ts';
import { accountRoutes } from './auth/routes.ts';
import { userRoutes } from './auth/user-routes.ts';
import { SignInLimit } from './auth/sign-in-limit.ts';
import { Users } from './auth/users.ts';
import { TwoFactor } from './auth/totp.ts';
import { Federation, federatedPrefix, policiesChanged } from './auth/federation.ts';
import { federationRoutes } from './auth/federation-routes.ts';
import { IssuerKeys } from './auth/issuer-keys.ts';
import { OidcSignIn } from './auth/oidc.ts';
import type { OidcProvider } from './auth/oidc-grants.ts';
import { oidcApiRoutes, oidcRootRoutes } from './auth/oidc-routes.ts';
import { newPassword } from './auth/passwords.ts';
import { ClientResolver } from './http/client.ts';
import { buildOpenApi } from './http/openapi.ts';
import { coreRoutes } from './core-routes.ts';
import { docsRoutes } from './docs-routes.ts';
import { mcpRoutes } from './mcp/routes.ts';
import { pluginRoutes } from './plugin-routes.ts';
import { healthRoutes } from './health-routes.ts';
import { Metrics } from './services/metrics.ts';
import { setupPlugin, type KernelServices } from './plugin-context.ts';
import { Visibility } from './services/visibility.ts';
import { LiveSettings, settingsChannel } from './settings/service.ts';
import { settingsRoutes } from './settings/routes.ts';
import type { LiveOutbound } from './services/outbound.ts';

export const kernelVersion = '0.1.0';

export interface Assembled {
  config: Config;
  log: Logger;
  db: Database;
  tokens: Tokens;
  sessions: Sessions;
  users: Users;
  twoFactor: TwoFactor;
  /** CI federation: trust policies and the tokens exchanged under them */
  federation: Federation;
  scopes: ScopeCatalogue;
  jobs: JobRunner;
  services: KernelServices;
  /** the settings admins change at run time, over the config file's base */
  settings: LiveSettings;
  plugins: { name: string; version: string }[];
  /** the plugins set up, in boot order, with where each came from */
  loaded: LoadedPlugin[];
  /** the plugins enabled only by default that were left out, and why */
  skipped: SkippedPlugin[];
  apis: Record<string, unknown>;
  close(): Promise<void>;
}

export interface Running extends Assembled {
  server: Server;
  url: string;
  port: number;
}

export interface BootOptions {
  root: string;
  env?: NodeJS.ProcessEnv;
  /** config overrides (tests, CLI flags) */
  config?: Record<string, unknown>;
  /** a logger to use instead of pino on stdout */
  log?: Logger;
  /** answers host names instead of the system resolver (tests: no DNS query ever leaves the machine) */
  resolveName?: NameResolver;
  /** share the embedded database a running service owns instead of refusing (the CLI) */
  attach?: boolean;
  /** the embedded database ended and cannot be started again (default: say so on stderr and in the log, and exit 1) */
  onDatabaseLost?: (err: Error) => void;
}

/** a service whose embedded database cannot run again can do nothing: it says why and ends, for a supervisor to restart it */
function exitForLostDatabase(log: Logger): (err: Error) => void {
  return (err) => {
    log.error({ err }, 'the embedded database is gone: stopping');
    process.stderr.write(`dockwright: ${err.message}\nThe service stops: start it again once the database can run (its log is in the data dir's postgres.log).\n`);
    process.exit(1);
  };
}

export function kernelScopes(scopes: ScopeCatalogue): void {
  scopes.define('kernel', {
    'jobs:read': { description: 'list jobs, read their output, wait for them', role: 'viewer' },
    'jobs:cancel': { description: 'cancel queued or running jobs', role: 'operator' },
    'activity:read': { description: 'read the activity log', role: 'viewer' },
    'tokens:read': { description: "list every personal token of the owner (without it, a token sees only itself)", role: 'viewer' },
    'tokens:write': { description: "create personal tokens, and revoke any of the owner's (without it, a token revokes only itself)", role: 'viewer' },
    'account:write': { description: "change the owner's password, enrol or remove its authenticator, end all its portal sessions (a portal session has it; a token only when created with it)", role: 'viewer' },
    'users:read': { description: 'list users and teams', role: 'admin' },
    'users:write': { description: 'create, change, disable and remove users and teams; reset their two-factor sign-in', role: 'admin' },
    admin: { description: 'administer the installation', role: 'admin' },
    'metrics:read': { description: 'scrape /metrics (Prometheus)', role: 'operator' },
    'plugins:read': { description: 'list the plugins of the install: source, version, scopes, routes, jobs, extension points', role: 'admin' },
    'settings:read': { description: 'read the settings changed at run time and where each comes from; test a connection against the outbound policy', role: 'admin' },
    'settings:write': { description: 'change the settings the config file and environment leave open; applied without a restart', role: 'admin' },
    'federation:read': { description: 'list the trust policies of CI federation (which CI tokens are exchanged for Dockwright tokens)', role: 'admin' },
    'federation:write': { description: 'add and remove trust policies of CI federation', role: 'admin' },
  });
}

/** A route needing a scope nobody declared could never be called, not even by an admin's `*` token: refuse to boot. */
function refuseUndeclaredScopes(table: RouteTable, scopes: ScopeCatalogue): void {
  for (const { owner, route } of table.routes) {
    const [unknown] = scopes.unknown([...route.scopes ?? [], ...route.optionalScopes ?? []]);
    if (unknown === undefined) continue;
    throw new Error(`plugin "${owner}": route ${route.method} ${route.path} ${route.scopes?.includes(unknown) ? 'requires' : 'asks for'} the scope "${unknown}", which no plugin declares; `
      + `declare it in setup with ctx.scopes.define({ '${unknown}': { description, role } }), or require the plugin that declares it`);
  }
}

/** The services every plugin's context is made of, before any plugin has registered anything. */
export function kernelServices(parts: Pick<KernelServices, 'db' | 'databaseUrl' | 'log' | 'env' | 'dataDir' | 'installationId' | 'scopes' | 'jobs' | 'activity' | 'secrets' | 'events' | 'outbound' | 'locks' | 'settings'>): KernelServices {
  const { db, log, secrets } = parts;
  return {
    ...parts, table: new RouteTable(), scheduler: new Scheduler(db, log.child({ part: 'scheduler' })),
    revisions: createRevisions(db), actionTokens: createActionTokens(db, secrets, tokensChannel),
    migrations: [], extensions: new Map(), registered: new Map(), contributors: [], visibility: new Visibility(), starters: [], stoppers: [], commands: [],
    metrics: new Metrics(), health: [],
  };
}

/** Sets up the plugins in dependency order; each gets the APIs of those before it. Third-party plugins' tables carry their name. */
export async function setupPlugins(loaded: readonly LoadedPlugin[], services: KernelServices): Promise<Record<string, unknown>> {
  const apis: Record<string, unknown> = {};
  for (const { def, entry } of loaded) {
    const thirdParty = entry.package !== undefined || entry.path !== undefined;
    apis[def.name] = await setupPlugin(def, entry.options, apis, services, thirdParty ? `${def.name.replace(/-/g, '_')}_` : undefined);
  }
  return apis;
}

/** Everything but serving: config, plugins set up (registration only), database migrated. The CLI stops here. */
export async function assemble(opts: BootOptions): Promise<Assembled> {
  const env = opts.env ?? process.env;
  const config = loadConfig(opts.root, env, opts.config);
  const outbound = createOutbound(config.outbound, opts.resolveName);
  const log: Logger = opts.log ?? (pino({ level: config.log.level, base: undefined }) as unknown as Logger);
  const { loaded, skipped } = await loadPlugins(config);
  for (const { plugin, reason } of skipped) log.warn({ plugin: plugin.def.name }, `plugin "${plugin.def.name}" is enabled by default but was not loaded: ${reason}. Enable what it requires, or disable ${plugin.def.name} in config to silence this`);
  const db = await openDatabase({
    url: config.databaseUrl, dataDir: config.dataDir, attach: opts.attach, poolSize: config.database.poolSize,
    reconnectMs: { min: config.database.reconnect.minMs, max: config.database.reconnect.maxMs },
    log: log.child({ part: 'database' }), onFatal: opts.onDatabaseLost ?? exitForLostDatabase(log),
  });
  try {
    const scopes = new ScopeCatalogue();
    kernelScopes(scopes);
    const activity = createActivity(db);
    const secrets = createSecrets(loadSecretKey(config.secretKey, config.dataDir));
    const events = createEvents(log);
    const jobs = new JobRunner({
      db, log: log.child({ part: 'jobs' }), activity, settings: config.jobs,
      onFailed: (job) => events.emit('job.failed', { jobId: job.id, type: job.type, resource: job.resource, error: job.error }),
    });
    // the kernel's own schema first: plugins are given the installation id while they set up
    // (named from the folder above: the production build may put this code in dist/chunks/, one level down like kernel/)
    await migrate(db, [{ owner: 'kernel', dir: fileURLToPath(new URL('../kernel/migrations', import.meta.url)) }], log);
    const { rows: [installation] } = await db.query<{ id: string }>('SELECT id FROM installation');
    const settings = new LiveSettings({ db, config, secrets, revisions: createRevisions(db), log: log.child({ part: 'settings' }), plugins: loaded });
    await settings.start();
    const { configure: _configure, ...outboundApi } = outbound;
    const services = kernelServices({
      db, databaseUrl: db.url, log, env: Object.freeze({ ...env }), dataDir: config.dataDir, installationId: installation.id, scopes, jobs,
      activity, secrets, events, outbound: Object.freeze(outboundApi), locks: { try: (name) => db.tryLock(name) }, settings,
    });
    const sessionOptions = { ...config.sessions };
    applyKernelSettings(settings, { outbound, jobs, sessions: sessionOptions });
    const apis = await setupPlugins(loaded, services);
    refuseUndeclaredScopes(services.table, scopes);
    await migrate(db, services.migrations, log);
    const twoFactor = new TwoFactor(db, secrets);
    return {
      config, log, db, scopes, jobs, services, apis, twoFactor, settings,
      tokens: new Tokens(db, scopes),
      federation: new Federation(db, scopes, new IssuerKeys(services.outbound), activity),
      users: new Users(db, (principal, tx) => services.visibility.forget(principal, tx)),
      sessions: new Sessions(db, scopes, sessionOptions, new SignInLimit(db, config.sessions.failedSignInsPerMinute), twoFactor),
      plugins: loaded.map(({ def }) => ({ name: def.name, version: def.version })),
      loaded,
      skipped,
      close: () => db.close(),
    };
  } catch (err) {
    await db.close();
    throw err;
  }
}

/** the kernel's own live settings as they are now, and again whenever they change */
function applyKernelSettings(settings: LiveSettings, to: { outbound: LiveOutbound; jobs: JobRunner; sessions: Config['sessions'] }): void {
  const apply = (changed: readonly string[] | null) => {
    const touched = (prefix: string) => changed === null || changed.some((p) => p.startsWith(prefix));
    if (touched('outbound.')) to.outbound.configure({ allow: settings.get('outbound.allow') as string[], allowHostnames: settings.get('outbound.allowHostnames') as boolean | string[] });
    if (touched('jobs.concurrency')) to.jobs.setConcurrency(settings.get('jobs.concurrency') as number);
    if (touched('sessions.')) {
      to.sessions.requireTotp = settings.get('sessions.requireTotp') as boolean;
      to.sessions.ttlMs = settings.get('sessions.ttlMs') as number;
    }
  };
  apply(null);
  settings.onChange(apply);
}

/** The first start with no users creates an admin and hands its token over once: on the terminal, and in a 0600 file. */
async function ensureFirstAdmin(app: Assembled): Promise<void> {
  if ((await app.tokens.userCount()) > 0) return;
  await app.tokens.addUser('admin', 'admin');
  const { token } = await app.tokens.create({ user: 'admin', name: 'initial', scopes: ['*'] });
  const password = newPassword();
  await app.sessions.setPassword('admin', password);
  mkdirSync(app.config.dataDir, { recursive: true });
  const file = join(app.config.dataDir, 'initial-admin-token');
  const passwordFile = join(app.config.dataDir, 'initial-admin-password');
  writeFileSync(file, token + '\n', { mode: 0o600 });
  writeFileSync(passwordFile, password + '\n', { mode: 0o600 });
  const where = process.stdout.isTTY ? `\n  ${token}\n\n(also saved, readable by this user only, in ${file})` : `in ${file} (readable by this user only)`;
  const portal = process.stdout.isTTY ? `\n  ${password}\n\n(also saved in ${passwordFile})` : `in ${passwordFile} (readable by this user only)`;
  process.stdout.write(`\nDockwright created the user "admin". Its first API token is ${where}\nIts portal password is ${portal}\nBoth are shown this once; create more tokens with: npm run cli -- token create --user admin --name <name> --scopes '*'; change the password with: npm run cli -- user passwd admin\n\n`);
}

export async function boot(opts: BootOptions): Promise<Running> {
  const app = await assemble(opts);
  const { config, log, services } = app;
  try {
    services.contributors.unshift({ owner: 'jobs', contributor: jobsOverview(app) });
    // the document (600 kB of JSON, twice that as objects) is built when asked for, and kept only until the next full
    // collection: the requests that come together share one, an idle service holds none
    let openapi: WeakRef<Record<string, unknown>> | undefined;
    const openapiDocument = () => {
      const kept = openapi?.deref();
      if (kept) return kept;
      const built = buildOpenApi(services.table.routes, app.scopes, kernelVersion);
      openapi = new WeakRef(built);
      return built;
    };
    for (const route of coreRoutes({ db: app.db, jobs: app.jobs, contributors: services.contributors, visibility: services.visibility, openapi: openapiDocument, dataDir: app.config.dataDir })) services.table.add('kernel', 'api', route);
    for (const route of docsRoutes()) services.table.add('kernel', 'api', route);
    // the MCP tools call this API back on the address it listens at (set below, once it listens)
    let selfUrl = '';
    for (const route of mcpRoutes({ selfUrl: () => selfUrl, activity: services.activity, version: kernelVersion })) services.table.add('kernel', 'api', route);
    for (const route of pluginRoutes({ ...services, plugins: config.plugins, root: config.root, loaded: app.loaded, skipped: app.skipped, routes: services.table.routes })) services.table.add('kernel', 'api', route);
    let started = false;
    for (const route of healthRoutes({ db: app.db, metrics: services.metrics, started: () => started, details: services.health })) services.table.add('kernel', 'root', route);
    measureKernel(app);
    const clients = new ClientResolver(config.trustedProxies, config.publicUrl);
    for (const route of accountRoutes({ sessions: app.sessions, tokens: app.tokens, twoFactor: app.twoFactor, scopes: app.scopes, activity: services.activity, clients })) services.table.add('kernel', 'api', route);
    for (const route of userRoutes({ users: app.users, twoFactor: app.twoFactor, activity: services.activity })) services.table.add('kernel', 'api', route);
    for (const route of federationRoutes(app.federation)) services.table.add('kernel', 'api', route);
    const oidcSettings = { providers: () => app.settings.get('auth.oidc.providers') as OidcProvider[], enforceSso: () => app.settings.get('auth.oidc.enforceSso') as boolean, breakGlass: () => app.settings.get('auth.oidc.breakGlass') as string[] };
    const oidc = new OidcSignIn(app.db, oidcSettings, services.outbound, app.sessions, services.activity, () => app.sessions.options.requireTotp);
    for (const route of oidcRootRoutes(oidc, app.sessions)) services.table.add('kernel', 'root', route);
    for (const route of oidcApiRoutes(oidc, app.sessions, oidcSettings, (role) => app.scopes.effective(['*'], role))) services.table.add('kernel', 'api', route);
    for (const route of settingsRoutes({ settings: app.settings, activity: services.activity, outbound: services.outbound, resolveName: opts.resolveName })) services.table.add('kernel', 'api', route);
    await ensureFirstAdmin(app);
    const server = createHttpServer({
      table: services.table, log, activity: services.activity,
      limiter: new RateLimiter(config.rateLimit.perMinute),
      failures: new RateLimiter(config.rateLimit.failedAuthPerMinute, Date.now, 'failed-auth'),
      webhooks: new RateLimiter(config.rateLimit.webhookPerMinute, Date.now, 'webhook'),
      budget: config.rateLimit.shared.enabled
        ? new RateBudget(app.db, config.rateLimit.perMinute, { chunk: Math.max(1, Math.ceil(config.rateLimit.perMinute * config.rateLimit.shared.chunkFraction)) }, log.child({ part: 'rate-limit' }))
        : undefined,
      clients,
      limits: { body: config.http.bodyLimit, upload: config.http.uploadLimit }, batchAnswers: config.http.batchAnswers,
      timeouts: { headersMs: config.http.headersTimeoutMs, requestMs: config.http.requestTimeoutMs },
      authenticate: (bearer, tokenHash) => (bearer.startsWith(federatedPrefix) ? app.federation.authenticate(tokenHash) : app.tokens.authenticate(bearer, tokenHash)),
      verifyActionToken: (kind, resource, token) => services.actionTokens.verify(kind, resource, token),
      session: (req) => app.sessions.authenticate(req),
      web: services.web ? webFiles(services.web.dir) : undefined,
      metrics: services.metrics,
    });
    const handedOver = handedOverSocket();
    const draining = drainable(server, { handedOver: handedOver !== null });
    // cached principals (and which resources have webhooks) are safe only while revocations reach this process: while
    // the channel is down, every request asks the database
    const unlisten = await app.db.listen(tokensChannel, {
      notify: (payload) => {
        if (payload === actionTokensChanged) services.actionTokens.forget();
        else if (payload === policiesChanged) app.federation.forget();
        else app.tokens.forget();
      },
      down: () => {
        if (app.tokens.cachingOn) log.warn('lost the token revocation channel: authenticating every request against the database until it is back');
        app.tokens.caching(false);
        services.actionTokens.caching(false);
        app.federation.caching(false);
      },
      up: () => {
        app.tokens.caching(true);
        services.actionTokens.caching(true);
        app.federation.caching(true);
      },
    });
    // a change made on another instance (or while the channel was down) is read again from the database
    const unlistenSettings = await app.db.listen(settingsChannel, {
      notify: () => void app.settings.reload(),
      down: () => undefined,
      up: () => void app.settings.reload(),
    });
    await app.jobs.start();
    services.scheduler.start();
    for (const { owner, fn } of services.starters) {
      try {
        await fn();
      } catch (err) {
        throw new Error(`plugin "${owner}" failed to start: ${(err as Error).message}`);
      }
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      if (handedOver) server.listen(handedOver, () => resolve());
      else server.listen(config.port, config.host, () => resolve());
    });
    // a scrape address of its own answers /metrics without a token (bind it where only Prometheus reaches)
    const scrape = config.metrics.listen ? await listenForScrapes(config.metrics.listen, services.metrics, log) : undefined;
    started = true;
    const port = (server.address() as AddressInfo).port;
    const url = `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${port}`;
    selfUrl = url;
    log.info({ url, plugins: app.plugins.map((p) => p.name), database: app.db.embedded ? 'embedded PostgreSQL' : 'PostgreSQL' }, 'dockwright is serving');
    let closing: Promise<void> | undefined;
    return {
      ...app, server, url, port,
      close: () => (closing ??= (async () => {
        scrape?.close();
        // one grace for both: requests in flight finish while new ones are told to retry (503 + Retry-After), and running
        // jobs finish; a job still running after it is aborted, and one of an instance killed outright is taken over
        const grace = config.shutdown.graceMs;
        const [{ cut }] = await Promise.all([draining.drain(grace), services.scheduler.stop().then(() => app.jobs.stop(grace))]);
        if (cut > 0) log.warn({ cut, graceMs: grace }, 'requests still running after the shutdown grace were cut');
        await unlisten();
        await unlistenSettings();
        for (const { owner, fn } of [...services.stoppers].reverse()) {
          await Promise.resolve().then(fn).catch((err) => log.error({ err, plugin: owner }, 'plugin failed to stop'));
        }
        await app.db.close();
      })()),
    };
  } catch (err) {
    await app.jobs.stop(0).catch(() => undefined);
    await services.scheduler.stop().catch(() => undefined);
    await app.close();
    throw err;
  }
}

/** the kernel's own families: job queue depth (from the database, at scrape), database pool use, jobs finished here */
function measureKernel(app: Assembled): void {
  const { metrics } = app.services;
  app.jobs.onFinish((job) => {
    const seconds = job.startedAt && job.finishedAt ? (Date.parse(job.finishedAt) - Date.parse(job.startedAt)) / 1000 : null;
    metrics.job(job.type, job.status, seconds);
  });
  metrics.add({
    name: 'dockwright_jobs_open', help: 'jobs queued or running in the installation, by type and status', type: 'gauge',
    collect: async () => (await app.db.query<{ type: string; status: string; n: number }>(
      `SELECT type, status, count(*)::int AS n FROM jobs WHERE status IN ('queued', 'running') GROUP BY type, status`)).rows
      .map((r) => ({ labels: { type: r.type, status: r.status }, value: r.n })),
  });
  const pool = app.db.pool;
  metrics.add({
    name: 'dockwright_db_pool_connections', help: 'connections of the database pool of this instance: in use, idle, and requests waiting for one', type: 'gauge',
    collect: () => [
      { labels: { state: 'in-use' }, value: pool.totalCount - pool.idleCount },
      { labels: { state: 'idle' }, value: pool.idleCount },
      { labels: { state: 'waiting' }, value: pool.waitingCount },
    ],
  });
}

/** `host:port` serving /metrics alone, without a token */
async function listenForScrapes(address: string, metrics: Metrics, log: Logger): Promise<Server> {
  const at = address.lastIndexOf(':');
  const host = address.slice(0, at).replace(/^\[|\]$/g, '');
  const port = Number(address.slice(at + 1));
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') { res.writeHead(404).end(); return; }
    metrics.render().then(({ text, contentType }) => res.writeHead(200, { 'Content-Type': contentType }).end(text), (err) => {
      log.error({ err }, 'rendering metrics failed');
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, host, () => resolve()); });
  log.info({ address }, 'serving /metrics for scrapes without a token');
  return server;
}

function jobsOverview(app: Assembled) {
  return {
    scope: 'jobs:read',
    async summary() {
      const { rows } = await app.db.query<{ queued: number; running: number; failed: number }>(
        `SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued, count(*) FILTER (WHERE status = 'running')::int AS running,
                count(*) FILTER (WHERE status = 'failed' AND finished_at > now() - interval '24 hours')::int AS failed
           FROM jobs WHERE status IN ('queued', 'running') OR finished_at > now() - interval '24 hours'`);
      return { queued: rows[0].queued, running: rows[0].running, failedLast24h: rows[0].failed };
    },
  };
}
