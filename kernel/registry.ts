// The plugin registry: load the plugins enabled in config (built-in folder, path or npm package), check them, order them by `requires`.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import semver from 'semver';
import { requiredNames, sdkVersion, type PluginDef } from '../sdk/index.ts';
import type { Config, PluginEntry } from './config.ts';

export interface LoadedPlugin { def: PluginDef; entry: PluginEntry }

/** built-in plugins sit beside the kernel: plugins/<name>/index.ts in the sources, dist/plugins/<name>/index.js in the build */
const builtInDir = fileURLToPath(new URL('../plugins/', import.meta.url));
const builtInFile = `index${extname(fileURLToPath(import.meta.url))}`;

function sourceOf(name: string, entry: PluginEntry, root: string): string {
  if (entry.package) return createRequire(join(root, 'package.json')).resolve(entry.package);
  if (entry.path) return resolve(root, entry.path);
  const builtIn = join(builtInDir, name, builtInFile);
  if (!existsSync(builtIn)) throw new Error(`plugin "${name}" is enabled in config but there is no plugins/${name}/${builtInFile}; give it a "package" or "path"`);
  return builtIn;
}

async function importPlugin(name: string, entry: PluginEntry, root: string): Promise<PluginDef> {
  let source: string;
  let mod: { default?: unknown; plugin?: unknown };
  try {
    source = sourceOf(name, entry, root);
    mod = await import(pathToFileURL(source).href);
  } catch (err) {
    throw new Error(`plugin "${name}" could not be loaded: ${(err as Error).message}`);
  }
  const def = (mod.default ?? mod.plugin) as PluginDef | undefined;
  if (!def || typeof def !== 'object' || typeof def.setup !== 'function' || typeof def.version !== 'string') {
    throw new Error(`plugin "${name}" (${source}) must export a plugin (definePlugin({ name, version, setup })) as its default export`);
  }
  if (def.name !== name) throw new Error(`plugin configured as "${name}" calls itself "${def.name}"`);
  checkSdk(def);
  return def;
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
export function orderPlugins(plugins: readonly LoadedPlugin[], configured: Config['plugins']): LoadedPlugin[] {
  const byName = new Map(plugins.map((p) => [p.def.name, p]));
  const ordered: LoadedPlugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: LoadedPlugin, chain: string[]): void => {
    const name = p.def.name;
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new Error(`plugins require each other in a cycle: ${[...chain.slice(chain.indexOf(name)), name].join(' → ')}`);
    state.set(name, 'visiting');
    for (const dep of requiredNames(p.def.requires)) {
      const target = byName.get(dep);
      if (!target) {
        const why = configured[dep]?.enabled === false ? 'which is disabled in config' : 'which is not enabled in config';
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

export async function loadPlugins(config: Config): Promise<LoadedPlugin[]> {
  const enabled = Object.entries(config.plugins).filter(([, entry]) => entry.enabled !== false);
  const loaded = await Promise.all(enabled.map(async ([name, entry]) => ({ def: await importPlugin(name, entry, config.root), entry })));
  return orderPlugins(loaded, config.plugins);
}
