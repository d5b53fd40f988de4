// The plugin registry: load the plugins enabled in config (built-in folder, path or npm package), check them, order them by `requires`.
import { createRequire, register } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import semver from 'semver';
import { requiredNames, requiresProblem, sdkVersion, type PluginDef } from '../sdk/index.ts';
import type { Config, PluginEntry } from './config.ts';

/** where a plugin's code came from: a folder of plugins/, an npm package (its installed version and folder), or a path in config */
export type PluginSource =
  | { kind: 'built-in' }
  | { kind: 'package'; package: string; version: string; path: string }
  | { kind: 'path'; path: string };
export interface LoadedPlugin { def: PluginDef; entry: PluginEntry; source: PluginSource }

/** built-in plugins sit beside the kernel: plugins/<name>/index.ts in the sources, dist/plugins/<name>/index.js in the build */
const builtInDir = fileURLToPath(new URL('../plugins/', import.meta.url));
const builtInFile = `index${extname(fileURLToPath(import.meta.url))}`;

export const isBuiltIn = (name: string): boolean => existsSync(join(builtInDir, name, builtInFile));

/** the file to import, and where it came from */
function sourceOf(name: string, entry: PluginEntry, root: string): { file: string; source: PluginSource } {
  if (entry.package) {
    const file = createRequire(join(root, 'package.json')).resolve(entry.package);
    const manifest = manifestOf(file, entry.package);
    return { file, source: { kind: 'package', package: entry.package, version: manifest.version, path: manifest.dir } };
  }
  if (entry.path) return { file: resolve(root, entry.path), source: { kind: 'path', path: resolve(root, entry.path) } };
  const builtIn = join(builtInDir, name, builtInFile);
  if (!existsSync(builtIn)) throw new Error(`plugin "${name}" is enabled in config but there is no plugins/${name}/${builtInFile}; give it a "package" or "path"`);
  return { file: builtIn, source: { kind: 'built-in' } };
}

interface Manifest { dir: string; version: string; peerDependencies?: Record<string, string> }
/** the package.json of an installed package, found above one of its files (its `exports` need not list it) */
function manifestOf(file: string, name: string): Manifest {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const at = join(dir, 'package.json');
    if (!existsSync(at)) continue;
    const manifest = JSON.parse(readFileSync(at, 'utf8')) as Omit<Manifest, 'dir'> & { name?: string };
    if (manifest.name === name) return { ...manifest, dir };
  }
  throw new Error(`no package.json of ${name} above ${file}`);
}

/**
 * Plugins that are packages or folders import `dockwright/sdk`: the kernel hands them its own SDK, the copy it runs
 * (dist/sdk in the build, sdk/ in the sources), whether or not npm put a `dockwright` beside them (it is nobody's
 * dependency: npm leaves a peer that is not in its registry out with --legacy-peer-deps). A resolve hook, as an editor
 * provides its API module to its extensions; registered only when such a plugin is configured (its loader thread costs memory).
 */
const sdkHook = `let map;
export function initialize(data) { map = data; }
export function resolve(specifier, context, next) { return Object.hasOwn(map, specifier) ? { url: map[specifier], shortCircuit: true } : next(specifier, context); }`;
let sdkProvided = false;
function provideSdk(): void {
  if (sdkProvided) return;
  sdkProvided = true;
  const data = {
    'dockwright/sdk': new URL(`../sdk/${builtInFile}`, import.meta.url).href,
    'dockwright/sdk/testing': new URL(`../sdk/testing/${builtInFile}`, import.meta.url).href,
  };
  register(`data:text/javascript,${encodeURIComponent(sdkHook)}`, { data });
}

/** Imports and checks one plugin (not set up): the CLI uses it to learn what a package holds. */
export async function importPlugin(name: string | undefined, entry: PluginEntry, root: string): Promise<LoadedPlugin> {
  const label = name ?? entry.package ?? entry.path;
  let found: ReturnType<typeof sourceOf>;
  let mod: { default?: unknown; plugin?: unknown };
  try {
    if (entry.package || entry.path) provideSdk();
    found = sourceOf(name ?? '', entry, root);
    if (found.source.kind === 'package') checkPeer(found.source.package, manifestOf(found.file, found.source.package), root);
    mod = await import(pathToFileURL(found.file).href);
  } catch (err) {
    throw new Error(`plugin "${label}" could not be loaded: ${(err as Error).message}`);
  }
  const def = (mod.default ?? mod.plugin) as PluginDef | undefined;
  if (!def || typeof def !== 'object' || typeof def.setup !== 'function' || typeof def.version !== 'string') {
    throw new Error(`plugin "${label}" (${found.file}) must export a plugin (definePlugin({ name, version, setup })) as its default export`);
  }
  if (name !== undefined && def.name !== name) throw new Error(`plugin configured as "${name}" calls itself "${def.name}"`);
  checkSdk(def);
  const wrongRequires = requiresProblem(def.requires);
  if (wrongRequires) throw new Error(`plugin "${def.name}": ${wrongRequires}`);
  return { def, entry, source: found.source };
}

/** what the package.json of a plugin not loaded (a package or path plugin switched off) says of it: read, never imported; null where there is none */
export function manifestOfUnloaded(entry: PluginEntry, root: string): { dir: string; version: string | null; description: string | null } | null {
  let dir: string | undefined;
  if (entry.package) {
    const folders = createRequire(join(root, 'package.json')).resolve.paths(entry.package) ?? [];
    dir = folders.map((folder) => join(folder, entry.package!)).find((folder) => existsSync(join(folder, 'package.json')));
  } else if (entry.path) {
    // the nearest package.json above the path, short of the install's own
    for (let at = resolve(root, entry.path); at !== dirname(at) && at !== resolve(root); at = dirname(at)) {
      if (existsSync(join(at, 'package.json'))) { dir = at; break; }
    }
  }
  if (dir === undefined) return null;
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown; description?: unknown };
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    return { dir, version: text(manifest.version), description: text(manifest.description) };
  } catch {
    return { dir, version: null, description: null };
  }
}

/** the version of the Dockwright installed at root */
export function dockwrightVersion(root: string): string {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
}

/** A package declares the Dockwright it was made for as its peer dependency: npm did not check it (it was told not to), so the kernel does. */
function checkPeer(name: string, manifest: Manifest, root: string): void {
  const range = manifest.peerDependencies?.dockwright;
  if (range === undefined) return;
  const version = dockwrightVersion(root);
  if (semver.validRange(range) === null) throw new Error(`package ${name} ${manifest.version}: peerDependencies.dockwright ${JSON.stringify(range)} is not a semver range`);
  if (!semver.satisfies(version, range, { includePrerelease: true })) {
    throw new Error(`package ${name} ${manifest.version} supports dockwright ${range} (its peerDependencies), but this is dockwright ${version}: install a version of the plugin made for dockwright ${version}`);
  }
}

/** plugins written before they could declare a range were written for SDK 1 */
const undeclaredRange = '^1';

/** A plugin made for another SDK would fail in odd ways later: refuse it now, saying which versions meet. */
export function checkSdk(def: PluginDef): void {
  const range = def.sdk ?? undeclaredRange;
  if (typeof range !== 'string' || semver.validRange(range) === null) throw new Error(`plugin "${def.name}": sdk ${JSON.stringify(range)} is not a semver range (e.g. '^1')`);
  if (!semver.satisfies(sdkVersion, range)) {
    const declared = def.sdk === undefined ? `declares no sdk range, so it is taken for SDK ${undeclaredRange}` : `supports the SDK ${range}`;
    throw new Error(`plugin "${def.name}" ${def.version} ${declared}, but this Dockwright provides SDK ${sdkVersion}: install a version of the plugin made for SDK ${semver.major(sdkVersion)}, or a Dockwright whose SDK it supports`);
  }
}

/** Sorts so that every plugin comes after the plugins it requires; names the chain of a missing or disabled dependency, and the cycle. */
export function orderPlugins<P extends Pick<LoadedPlugin, 'def'>>(plugins: readonly P[], configured: Config['plugins'], skipped: readonly SkippedPlugin[] = []): P[] {
  const byName = new Map(plugins.map((p) => [p.def.name, p]));
  const ordered: P[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: P, chain: string[]): void => {
    const name = p.def.name;
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new Error(`plugins require each other in a cycle: ${[...chain.slice(chain.indexOf(name)), name].join(' → ')}`);
    state.set(name, 'visiting');
    for (const dep of requiredNames(p.def.requires)) {
      const target = byName.get(dep);
      if (!target) {
        const skip = skipped.find((s) => s.plugin.def.name === dep);
        const why = skip ? `which is skipped: ${skip.reason}` : configured[dep]?.enabled === false ? 'which is disabled in config' : 'which is not enabled in config';
        throw new Error(`plugin ${[...chain, name].join(' → ')} requires "${dep}", ${why}: enable ${dep}, or disable ${chain[0] ?? name}`);
      }
      visit(target, [...chain, name]);
    }
    state.set(name, 'done');
    ordered.push(p);
  };
  for (const p of plugins) visit(p, []);
  return ordered;
}

/** a plugin enabled only by config/default.json that is not loaded, because a plugin it requires is off */
export interface SkippedPlugin { plugin: LoadedPlugin; reason: string }

/**
 * The plugins enabled by config/default.json alone (the install's own config does not name them) are left out, with the
 * reason, when one they require is off: an admin who disables edge is not made to disable previews too. A plugin the
 * install's config names still stops the boot when one it requires is off, naming the chain.
 */
function skipByDefault(loaded: readonly LoadedPlugin[], config: Config): SkippedPlugin[] {
  const skipped = new Map<string, SkippedPlugin>();
  const on = (name: string) => loaded.some((p) => p.def.name === name) && !skipped.has(name);
  for (let changed = true; changed;) {
    changed = false;
    for (const plugin of loaded) {
      if (config.namedPlugins.includes(plugin.def.name) || skipped.has(plugin.def.name)) continue;
      const off = requiredNames(plugin.def.requires).find((dep) => !on(dep));
      if (off === undefined) continue;
      const why = skipped.has(off) ? `which is skipped (${skipped.get(off)!.reason})` : config.plugins[off]?.enabled === false ? 'which is disabled in config' : 'which is not enabled in config';
      skipped.set(plugin.def.name, { plugin, reason: `it requires "${off}", ${why}` });
      changed = true;
    }
  }
  return [...skipped.values()];
}

export async function loadPlugins(config: Config): Promise<{ loaded: LoadedPlugin[]; skipped: SkippedPlugin[] }> {
  const enabled = Object.entries(config.plugins).filter(([, entry]) => entry.enabled !== false);
  const imported = await Promise.all(enabled.map(([name, entry]) => importPlugin(name, entry, config.root)));
  const skipped = skipByDefault(imported, config);
  return { loaded: orderPlugins(imported.filter((p) => !skipped.some((s) => s.plugin === p)), config.plugins, skipped), skipped };
}
