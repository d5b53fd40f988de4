// GET /plugins: every plugin of the config, where it came from, and what it registered (scopes, routes, jobs, extension points, migrations).
import { Type, type Static } from '@sinclair/typebox';
import { compareText, defineRoute, Nullable, requiredNames, serviceNames, type AnyRoute, type Db } from '../sdk/index.ts';
import type { Config } from './config.ts';
import { migrationState, type MigrationSet } from './db/migrate.ts';
import type { CompiledRoute } from './http/routes.ts';
import type { Registered } from './plugin-context.ts';
import type { LoadedPlugin } from './registry.ts';

const Source = Type.Union([
  Type.Object({ kind: Type.Literal('built-in') }),
  Type.Object({ kind: Type.Literal('package'), package: Type.String(), version: Nullable(Type.String({ description: 'the installed version; null while disabled' })), path: Nullable(Type.String()) }),
  Type.Object({ kind: Type.Literal('path'), path: Type.String() }),
]);
const OfferedPoint = Type.Object({
  name: Type.String({ description: '`<owner>.<name>`' }),
  resource: Nullable(Type.String({ description: 'what a contribution provides, for a resource provider (stack runtime, backup target…)' })),
  contributions: Type.Integer({ description: 'how many plugins (or parts of one) plugged into it' }),
});
export const PluginInfo = Type.Object({
  name: Type.String(),
  version: Nullable(Type.String({ description: 'null for a disabled plugin whose code was not loaded' })),
  description: Nullable(Type.String()),
  source: Source,
  enabled: Type.Boolean(),
  requires: Type.Array(Type.String()),
  services: Type.Array(Type.String(), { description: 'the kernel services its context holds (what it declared; every one when it declared none)' }),
  scopes: Type.Array(Type.String()),
  routes: Type.Integer(),
  jobTypes: Type.Array(Type.String()),
  extensionPoints: Type.Object({ offered: Type.Array(OfferedPoint), used: Type.Array(Type.String()) }),
  migrations: Nullable(Type.Object({ files: Type.Integer(), applied: Type.Integer(), latest: Nullable(Type.String()) })),
});
type PluginInfo = Static<typeof PluginInfo>;

export interface PluginRoutesDeps {
  db: Db;
  plugins: Config['plugins'];
  loaded: readonly LoadedPlugin[];
  routes: readonly CompiledRoute[];
  registered: ReadonlyMap<string, Registered>;
  extensions: ReadonlyMap<string, readonly unknown[]>;
  migrations: readonly MigrationSet[];
}

type MigrationsOf = (set: MigrationSet) => ReturnType<typeof migrationState>;

/** one plugin that was set up: everything it declared and registered */
async function describeLoaded({ def, source }: LoadedPlugin, d: PluginRoutesDeps, migrationsOf: MigrationsOf): Promise<PluginInfo> {
  const registered = d.registered.get(def.name) ?? { scopes: [], jobTypes: [], contributes: [] };
  const declared = new Map((def.extensionPoints ?? []).map((p) => [`${p.owner}.${p.name}`, p.resource ?? null]));
  // points of its own that others plugged into count as offered even when undeclared
  for (const key of d.extensions.keys()) if (key.startsWith(`${def.name}.`) && !declared.has(key)) declared.set(key, null);
  const set = d.migrations.find((m) => m.owner === def.name);
  return {
    name: def.name, version: def.version, description: def.description ?? null, source, enabled: true,
    requires: requiredNames(def.requires),
    services: [...def.services ?? serviceNames],
    scopes: [...registered.scopes].sort(compareText),
    routes: d.routes.filter((r) => r.owner === def.name).length,
    jobTypes: [...registered.jobTypes].sort(compareText),
    extensionPoints: {
      offered: [...declared].sort(([a], [b]) => compareText(a, b)).map(([name, resource]) => ({ name, resource, contributions: d.extensions.get(name)?.length ?? 0 })),
      used: registered.contributes.filter((key) => !key.startsWith(`${def.name}.`)).sort(compareText),
    },
    migrations: set ? await migrationsOf(set) : null,
  };
}

/** a plugin switched off in config: its code is not loaded, so only what config says is known */
function describeDisabled(name: string, entry: Config['plugins'][string]): PluginInfo {
  const source: PluginInfo['source'] = entry.package ? { kind: 'package', package: entry.package, version: null, path: null } : entry.path ? { kind: 'path', path: entry.path } : { kind: 'built-in' };
  return {
    name, version: null, description: null, source, enabled: false, requires: [], services: [], scopes: [], routes: 0, jobTypes: [],
    extensionPoints: { offered: [], used: [] }, migrations: null,
  };
}

export function pluginRoutes(d: PluginRoutesDeps): AnyRoute[] {
  // how far each plugin's migrations are applied: read once (its folder and its table), as they are applied only at start
  const states = new Map<MigrationSet, ReturnType<typeof migrationState>>();
  const migrationsOf: MigrationsOf = (set) => {
    let state = states.get(set);
    if (!state) {
      state = migrationState(d.db, set);
      states.set(set, state);
      state.catch(() => states.delete(set));
    }
    return state;
  };
  return [
    defineRoute({
      method: 'GET', path: '/plugins', scopes: ['plugins:read'],
      summary: 'The plugins of this install in boot order, then the disabled ones: source, version, scopes, routes, job types, extension points, migrations',
      response: Type.Array(PluginInfo),
      handler: async () => {
        const loaded = await Promise.all(d.loaded.map((p) => describeLoaded(p, d, migrationsOf)));
        const names = new Set(loaded.map((p) => p.name));
        const disabled = Object.entries(d.plugins).filter(([name]) => !names.has(name)).map(([name, entry]) => describeDisabled(name, entry));
        return [...loaded, ...disabled.sort((a, b) => compareText(a.name, b.name))];
      },
    }),
  ];
}
