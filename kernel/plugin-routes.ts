// GET /plugins: every plugin of the config, where it came from, and what it registered (scopes, routes, jobs, extension points, migrations).
import { resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { compareText, defineRoute, Nullable, requiredNames, serviceNames, type AnyRoute, type Db } from '../sdk/index.ts';
import type { Config } from './config.ts';
import { migrationState, type MigrationSet } from './db/migrate.ts';
import type { CompiledRoute } from './http/routes.ts';
import type { Registered } from './plugin-context.ts';
import { manifestOfUnloaded, type LoadedPlugin, type SkippedPlugin } from './registry.ts';

const Source = Type.Union([
  Type.Object({ kind: Type.Literal('built-in') }),
  Type.Object({ kind: Type.Literal('package'), package: Type.String(), version: Nullable(Type.String({ description: 'the installed version; null when it is not installed' })), path: Nullable(Type.String()) }),
  Type.Object({ kind: Type.Literal('path'), path: Type.String() }),
]);
const OfferedPoint = Type.Object({
  name: Type.String({ description: '`<owner>.<name>`' }),
  resource: Nullable(Type.String({ description: 'what a contribution provides, for a resource provider (stack runtime, backup target…)' })),
  contributions: Type.Integer({ description: 'how many plugins (or parts of one) plugged into it' }),
});
export const PluginInfo = Type.Object({
  name: Type.String(),
  version: Nullable(Type.String({ description: "a disabled plugin's from its package.json (null for a built-in one)" })),
  description: Nullable(Type.String()),
  source: Source,
  enabled: Type.Boolean(),
  reason: Nullable(Type.String({ description: 'why it is disabled: switched off in config, or (a plugin enabled only by default) a plugin it requires is off' })),
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
  /** the install's folder, where a disabled plugin's package is looked for */
  root: string;
  loaded: readonly LoadedPlugin[];
  skipped: readonly SkippedPlugin[];
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
    name: def.name, version: def.version, description: def.description ?? null, source, enabled: true, reason: null,
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

/** a plugin switched off in config: its code is not loaded, so what config and its package.json say is known */
function describeDisabled(name: string, entry: Config['plugins'][string], root: string): PluginInfo {
  const manifest = manifestOfUnloaded(entry, root);
  const version = manifest?.version ?? null;
  const source: PluginInfo['source'] = entry.package ? { kind: 'package', package: entry.package, version, path: manifest?.dir ?? null }
    : entry.path ? { kind: 'path', path: resolve(root, entry.path) } : { kind: 'built-in' };
  return {
    name, version, description: manifest?.description ?? null, source, enabled: false, reason: 'disabled in config', requires: [], services: [], scopes: [], routes: 0, jobTypes: [],
    extensionPoints: { offered: [], used: [] }, migrations: null,
  };
}

/** a plugin enabled only by default that was left out: its code was read, nothing of it was set up */
function describeSkipped({ plugin: { def, source }, reason }: SkippedPlugin): PluginInfo {
  return {
    name: def.name, version: def.version, description: def.description ?? null, source, enabled: false, reason, requires: requiredNames(def.requires),
    services: [...def.services ?? serviceNames], scopes: [], routes: 0, jobTypes: [], extensionPoints: { offered: [], used: [] }, migrations: null,
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
        const skipped = d.skipped.map(describeSkipped);
        const names = new Set([...loaded, ...skipped].map((p) => p.name));
        const disabled = [...skipped, ...Object.entries(d.plugins).filter(([name]) => !names.has(name)).map(([name, entry]) => describeDisabled(name, entry, d.root))];
        return [...loaded, ...disabled.sort((a, b) => compareText(a.name, b.name))];
      },
    }),
  ];
}
