// The OpenAPI document without a database or a server: plugins only register during setup, so their routes can be described offline (the portal's build).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Db, Logger, PluginDef, Role, ScopeDef } from '../sdk/index.ts';
import { kernelProblems, ProblemCatalogue } from './problems.ts';
import { kernelScopes, kernelServices, kernelVersion, setupPlugins } from './app.ts';
import { ScopeCatalogue } from './auth/scopes.ts';
import { Sessions } from './auth/sessions.ts';
import { Federation } from './auth/federation.ts';
import { federationRoutes } from './auth/federation-routes.ts';
import { IssuerKeys } from './auth/issuer-keys.ts';
import { OidcSignIn } from './auth/oidc.ts';
import { oidcApiRoutes, oidcRootRoutes } from './auth/oidc-routes.ts';
import { SignInLimit } from './auth/sign-in-limit.ts';
import { Tokens } from './auth/tokens.ts';
import { accountRoutes } from './auth/routes.ts';
import { userRoutes } from './auth/user-routes.ts';
import { LiveSettings } from './settings/service.ts';
import { settingsRoutes } from './settings/routes.ts';
import { createRevisions } from './services/revisions.ts';
import { Users } from './auth/users.ts';
import { TwoFactor } from './auth/totp.ts';
import { loadConfig } from './config.ts';
import { coreRoutes } from './core-routes.ts';
import { docsRoutes } from './docs-routes.ts';
import { mcpRoutes } from './mcp/routes.ts';
import { pluginRoutes } from './plugin-routes.ts';
import { healthRoutes } from './health-routes.ts';
import { createActivity } from './services/activity.ts';
import { createEvents } from './services/events.ts';
import { createOutbound } from './services/outbound.ts';
import { createSecrets } from './services/secrets.ts';
import { ClientResolver } from './http/client.ts';
import { buildOpenApi } from './http/openapi.ts';
import { JobRunner } from './jobs/runner.ts';
import { loadPlugins } from './registry.ts';

const silent: Logger = { info: () => undefined, debug: () => undefined, warn: () => undefined, error: () => undefined, child: () => silent } as unknown as Logger;

/** a database that is never there: a setup that queries during registration fails loudly instead of describing a half API */
const noDatabase = new Proxy({}, { get: (_, key) => (key === 'then' ? undefined : () => { throw new Error(`describing the API needs no database, yet ${String(key)} was called`); }) }) as Db;

/** the scope catalogue, remembering which plugin declared each scope */
class OwnedScopes extends ScopeCatalogue {
  readonly owners = new Map<string, string>();
  override define(owner: string, defs: Record<string, ScopeDef>): void {
    super.define(owner, defs);
    for (const name of Object.keys(defs)) this.owners.set(name, owner);
  }
}

/** what the plugins of a config declare, set up offline: the reference pages (scripts/docs-reference.ts) are made from it */
export interface Described {
  openapi: Record<string, unknown>;
  scopes: { name: string; description: string; role: Role; owner: string }[];
  problems: ProblemCatalogue;
  plugins: readonly PluginDef[];
  /** contributions to each extension point (`<owner>.<name>`), by the plugin that made them */
  contributions: Map<string, string[]>;
}

export async function describeApi(root: string, overrides: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  return (await describeKernel(root, overrides)).openapi;
}

/**
 * Sets the plugins up offline and answers what they declared. `wrapApi` may wrap a plugin's API before the plugins that
 * require it are set up (to see what they register with it).
 */
export async function describeKernel(
  root: string, overrides: Record<string, unknown> = {},
  wrapApi?: (plugin: string, api: unknown, settingUp: () => string | undefined) => unknown,
): Promise<Described> {
  const config = loadConfig(root, {}, overrides);
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-describe-'));
  try {
    const scopes = new OwnedScopes();
    kernelScopes(scopes);
    const activity = createActivity(noDatabase);
    const secrets = createSecrets(randomBytes(32));
    const services = kernelServices({
      db: noDatabase, databaseUrl: 'postgres://describe.invalid/none', log: silent, env: {}, dataDir, installationId: '00000000-0000-4000-8000-000000000000',
      scopes, jobs: new JobRunner({ db: noDatabase, log: silent, activity, settings: config.jobs }), activity, secrets,
      events: createEvents(silent), outbound: createOutbound(config.outbound), locks: { try: async () => null },
    });
    const { loaded: found, skipped } = await loadPlugins(config);
    let settingUp: string | undefined;
    const loaded = !wrapApi ? found : found.map((p) => ({
      ...p, def: { ...p.def, setup: async (ctx: never) => { settingUp = p.def.name; return wrapApi(p.def.name, await p.def.setup(ctx), () => settingUp); } },
    }));
    await setupPlugins(loaded, services);
    const problems = new ProblemCatalogue();
    problems.define('kernel', kernelProblems);
    for (const { def } of loaded) problems.define(def.name, def.problems ?? {});
    for (const route of pluginRoutes({ ...services, plugins: config.plugins, root: config.root, loaded, skipped, routes: services.table.routes })) services.table.add('kernel', 'api', route);
    let openapi: Record<string, unknown> = {};
    for (const route of coreRoutes({ db: noDatabase, jobs: services.jobs, contributors: [], visibility: services.visibility, openapi: () => openapi, dataDir: '' })) services.table.add('kernel', 'api', route);
    for (const route of docsRoutes()) services.table.add('kernel', 'api', route);
    for (const route of mcpRoutes({ selfUrl: () => '', activity: services.activity, version: kernelVersion })) services.table.add('kernel', 'api', route);
    for (const route of healthRoutes({ db: noDatabase, metrics: services.metrics, started: () => false, details: [] })) services.table.add('kernel', 'root', route);
    const twoFactor = new TwoFactor(noDatabase, secrets);
    const sessions = new Sessions(noDatabase, scopes, config.sessions, new SignInLimit(noDatabase, 1), twoFactor);
    for (const route of accountRoutes({ sessions, tokens: new Tokens(noDatabase, scopes), twoFactor, scopes, activity, clients: new ClientResolver([], null) })) services.table.add('kernel', 'api', route);
    for (const route of userRoutes({ users: new Users(noDatabase), twoFactor, activity })) services.table.add('kernel', 'api', route);
    for (const route of federationRoutes(new Federation(noDatabase, scopes, new IssuerKeys(services.outbound), activity))) services.table.add('kernel', 'api', route);
    const noProviders = { providers: () => [], enforceSso: () => false, breakGlass: () => [] };
    const oidc = new OidcSignIn(noDatabase, noProviders, services.outbound, sessions, activity, () => false);
    for (const route of oidcRootRoutes(oidc, sessions)) services.table.add('kernel', 'root', route);
    for (const route of oidcApiRoutes(oidc, sessions, noProviders, (role) => scopes.effective(['*'], role))) services.table.add('kernel', 'api', route);
    const settings = new LiveSettings({ db: noDatabase, config, secrets, revisions: createRevisions(noDatabase), log: silent, plugins: loaded });
    for (const route of settingsRoutes({ settings, activity, outbound: services.outbound })) services.table.add('kernel', 'api', route);
    openapi = buildOpenApi(services.table.routes, scopes, kernelVersion);
    const contributions = new Map<string, string[]>();
    for (const [plugin, registered] of services.registered) for (const key of registered.contributes) contributions.set(key, [...(contributions.get(key) ?? []), plugin]);
    return {
      openapi, problems, plugins: loaded.map((p) => p.def), contributions,
      scopes: scopes.list().map((s) => ({ ...s, owner: scopes.owners.get(s.name) ?? 'kernel' })),
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
