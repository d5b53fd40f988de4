// A plugin's context: the kernel services it declared, plus registration (open only while its setup runs).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TSchema } from '@sinclair/typebox';
import type {
  ActivityApi, Db, EventsApi, ExtensionPoint, HealthCheck, HeldLock, Logger, MetricFamily, OutboundApi, OverviewContributor, PluginCommand, PluginContext, PluginDef, PluginServices, Principal, ServiceName, RevisionsApi, ScopeDef, SecretsApi, VisibilityRule,
} from '../sdk/index.ts';
import { requiredNames, serviceNames } from '../sdk/index.ts';
import type { ScopeCatalogue } from './auth/scopes.ts';
import type { ActionTokens } from './services/action-tokens.ts';
import type { MigrationSet } from './db/migrate.ts';
import { migrationDir } from './db/migrate.ts';
import { compileCoercing } from './http/validate.ts';
import type { RouteTable } from './http/routes.ts';
import type { JobRunner } from './jobs/runner.ts';
import type { Metrics } from './services/metrics.ts';
import type { Scheduler } from './jobs/scheduler.ts';
import type { Visibility } from './services/visibility.ts';
import type { LiveSettings } from './settings/service.ts';

export interface KernelServices {
  db: Db;
  databaseUrl: string;
  log: Logger;
  env: Readonly<Record<string, string | undefined>>;
  dataDir: string;
  installationId: string;
  table: RouteTable;
  scopes: ScopeCatalogue;
  jobs: JobRunner;
  scheduler: Scheduler;
  revisions: RevisionsApi;
  activity: ActivityApi;
  actionTokens: ActionTokens;
  secrets: SecretsApi;
  events: EventsApi;
  outbound: OutboundApi;
  migrations: MigrationSet[];
  contributors: { owner: string; contributor: OverviewContributor }[];
  visibility: Visibility;
  locks: { try(name: string): Promise<HeldLock | null> };
  metrics: Metrics;
  /** the live settings (absent where nothing serves: the reference documents are built without a database) */
  settings?: LiveSettings;
  /** the parts plugins show in /readyz */
  health: { name: string; check: HealthCheck }[];
  /** contributions to extension points, by `<owner>.<name>` */
  extensions: Map<string, unknown[]>;
  /** what each plugin registered, by name, for GET /plugins */
  registered: Map<string, Registered>;
  starters: { owner: string; fn: () => Promise<void> | void }[];
  /** CLI verbs plugins add */
  commands: { owner: string; command: PluginCommand }[];
  stoppers: { owner: string; fn: () => Promise<void> | void }[];
  /** the folder served at `/` and the plugin that asked for it */
  web?: { owner: string; dir: string };
}

/** what a plugin registered beyond routes (the route table knows those) */
export interface Registered { scopes: string[]; jobTypes: string[]; contributes: string[] }

function validOptions(plugin: PluginDef, raw: Record<string, unknown> | undefined): unknown {
  const options = structuredClone(raw ?? {});
  if (!plugin.options) return Object.freeze(options);
  const errors = compileCoercing(plugin.options as TSchema)(options);
  if (errors) throw new Error(`plugin "${plugin.name}": invalid options: ${errors.map((e) => `${e.path || '/'} ${e.message}`).join('; ')}`);
  return Object.freeze(options);
}

/** the environment a plugin sees, least privilege: exactly the variables it declared (none when it declares none) */
function envOf(plugin: PluginDef, env: Readonly<Record<string, string | undefined>>): Readonly<Record<string, string | undefined>> {
  return Object.freeze(Object.fromEntries((plugin.env ?? []).filter((name) => env[name] !== undefined).map((name) => [name, env[name]])));
}

/** the services a plugin declared (every one when it declares none); another is a property that says what to declare */
function servicesOf(plugin: PluginDef, k: KernelServices): PropertyDescriptorMap {
  const owner = plugin.name;
  const declared = plugin.services ?? serviceNames;
  const unknown = declared.filter((name) => !serviceNames.includes(name));
  if (unknown.length) throw new Error(`plugin "${owner}": services ${unknown.join(', ')} do not exist; the kernel offers ${serviceNames.join(', ')}`);
  const services: PluginServices = {
    db: k.db, databaseUrl: k.databaseUrl, revisions: k.revisions, activity: k.activity, actionTokens: k.actionTokens, secrets: k.secrets,
    events: k.events, outbound: k.outbound, locks: Object.freeze({ try: (name: string) => k.locks.try(`${owner}:${name}`) }),
  };
  return Object.fromEntries(serviceNames.map((name) => [name, declared.includes(name)
    ? { value: services[name], enumerable: true }
    : { get() { throw new Error(`plugin "${owner}" uses the service ${name}, which it does not declare: add '${name}' to the services of its definition`); } }]));
}

/**
 * Runs one plugin's setup with a fresh context; afterwards every registration method refuses. Returns the plugin's API.
 * `tablePrefix`: what a third-party plugin's tables must be named with (built-in plugins keep their historical names).
 */
export async function setupPlugin(plugin: PluginDef, rawOptions: Record<string, unknown> | undefined, deps: Record<string, unknown>, k: KernelServices, tablePrefix?: string): Promise<unknown> {
  let open = true;
  const owner = plugin.name;
  const registering = <A extends unknown[]>(what: string, fn: (...args: A) => void) => (...args: A): void => {
    if (!open) throw new Error(`plugin "${owner}": ${what} is only possible during setup`);
    fn(...args);
  };
  const dataDir = join(k.dataDir, 'plugins', owner);
  const registered: Registered = { scopes: [], jobTypes: [], contributes: [] };
  k.registered.set(owner, registered);
  const options = k.settings ? k.settings.pluginOptions(owner) : validOptions(plugin, rawOptions);
  const registration: Omit<PluginContext, ServiceName> = {
    name: owner,
    options,
    settings: Object.freeze({
      options: () => (k.settings ? k.settings.pluginOptions(owner) : options),
      get: (path: string) => k.settings?.get(path),
      onChange: (fn: (changed: readonly string[]) => void | Promise<void>) => k.settings?.onChange(fn) ?? (() => undefined),
    }),
    env: envOf(plugin, k.env),
    installationId: k.installationId,
    get dataDir() {
      mkdirSync(dataDir, { recursive: true });
      return dataDir;
    },
    log: k.log.child({ plugin: owner }),
    deps: Object.freeze(Object.fromEntries(requiredNames(plugin.requires).map((name) => [name, deps[name]]))),
    routes: Object.freeze({ add: registering('routes.add', (route: unknown) => k.table.add(owner, 'api', route as never)) }),
    webhooks: Object.freeze({ add: registering('webhooks.add', (route: unknown) => k.table.add(owner, 'webhook', route as never)) }),
    scopes: Object.freeze({
      define: registering('scopes.define', (defs: Record<string, ScopeDef>) => {
        k.scopes.define(owner, defs);
        registered.scopes.push(...Object.keys(defs));
      }),
    }),
    jobs: Object.freeze({
      define: (def: Parameters<JobRunner['define']>[0]) => {
        if (!open) throw new Error(`plugin "${owner}": jobs.define is only possible during setup`);
        if (!def.type.startsWith(`${owner}.`)) throw new Error(`plugin "${owner}": job type "${def.type}" must start with "${owner}."`);
        const handle = k.jobs.define(def);
        registered.jobTypes.push(def.type);
        return handle;
      },
      get: (id: string) => k.jobs.get(id),
      wait: (id: string, ms: number) => k.jobs.wait(id, ms),
      latest: (type: string, resource: string) => k.jobs.latest(type, resource),
      getMany: (ids: readonly string[], opts?: { output?: boolean }) => k.jobs.getMany(ids, opts),
      open: (resource: string) => k.jobs.open(resource),
    }) as PluginContext['jobs'],
    schedule: Object.freeze({
      every: registering('schedule.every', (name: string, ms: number, run: () => Promise<void>) => k.scheduler.every(`${owner}.${name}`, ms, run)),
      cron: registering('schedule.cron', (name: string, expr: string, run: () => Promise<void>) => k.scheduler.cron(`${owner}.${name}`, expr, run)),
    }),
    migrations: Object.freeze({ from: registering('migrations.from', (dir: string | URL) => k.migrations.push({ owner, dir: migrationDir(dir), prefix: tablePrefix })) }),
    extensions: Object.freeze({
      add: registering('extensions.add', (point: ExtensionPoint<unknown>, value: unknown) => {
        if (point.owner !== owner && !requiredNames(plugin.requires).includes(point.owner)) {
          throw new Error(`plugin "${owner}": the extension point ${point.owner}.${point.name} belongs to "${point.owner}", which "${owner}" does not require`);
        }
        const key = `${point.owner}.${point.name}`;
        k.extensions.set(key, [...(k.extensions.get(key) ?? []), value]);
        if (!registered.contributes.includes(key)) registered.contributes.push(key);
      }),
      of: <T>(point: ExtensionPoint<T>) => (k.extensions.get(`${point.owner}.${point.name}`) ?? []) as readonly T[],
    }),
    web: Object.freeze({
      serve: registering('web.serve', (dir: string) => {
        if (k.web) throw new Error(`plugin "${owner}": ${k.web.owner} already serves the files at /`);
        k.web = { owner, dir };
      }),
    }),
    overview: Object.freeze({ add: registering('overview.add', (contributor: OverviewContributor) => k.contributors.push({ owner, contributor })) }),
    visibility: Object.freeze({
      add: registering('visibility.add', (rule: VisibilityRule) => k.visibility.add(owner, rule)),
      filter: (principal: Principal, resources: readonly (string | null)[], need: 'read' | 'act') => k.visibility.filter(principal, resources, need),
    }),
    metrics: Object.freeze({ add: registering('metrics.add', (family: MetricFamily) => k.metrics.add(family)) }),
    health: Object.freeze({ add: registering('health.add', (check: HealthCheck) => k.health.push({ name: owner, check })) }),
    onStart: registering('onStart', (fn: () => Promise<void> | void) => k.starters.push({ owner, fn })),
    onStop: registering('onStop', (fn: () => Promise<void> | void) => k.stoppers.push({ owner, fn })),
    commands: Object.freeze({
      add: registering('commands.add', (command: PluginCommand) => {
        if (!command.name.startsWith(`${owner} `)) throw new Error(`plugin "${owner}": the command "${command.name}" must start with "${owner} "`);
        k.commands.push({ owner, command });
      }),
    }),
  };
  // the services join as properties of their own, so that an undeclared one can say what to declare
  const ctx = Object.freeze(Object.defineProperties(registration, servicesOf(plugin, k))) as PluginContext;
  try {
    return await plugin.setup(ctx);
  } catch (err) {
    throw new Error(`plugin "${owner}" failed its setup: ${(err as Error).message}`);
  } finally {
    open = false;
  }
}
