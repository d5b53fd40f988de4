// The CLI's plugin verbs: `plugins add <spec>` (npm install without a registry copy of Dockwright), `plugins enable|disable <name>` (the install's config file).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { loadConfig, localConfigFile, merge } from './config.ts';
import { importPlugin, isBuiltIn, loadPlugins } from './registry.ts';

const readJson = (file: string): Record<string, unknown> => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {});
const dependencies = (root: string): Record<string, string> => (readJson(resolve(root, 'package.json')).dependencies ?? {}) as Record<string, string>;

/** the file the CLI writes: the one DOCKWRIGHT_CONFIG names (read last of the files), else config/local.json */
function configFile(root: string, env: NodeJS.ProcessEnv): string {
  return env.DOCKWRIGHT_CONFIG ? resolve(root, env.DOCKWRIGHT_CONFIG) : localConfigFile(root);
}

/** sets `plugins.<name>` fields in the config file, keeping everything else in it */
function writeEntry(root: string, env: NodeJS.ProcessEnv, name: string, fields: Record<string, unknown>): string {
  const file = configFile(root, env);
  const written = merge(readJson(file), { plugins: { [name]: fields } });
  writeFileSync(file, `${JSON.stringify(written, null, 2)}\n`);
  return relative(root, file);
}

/** the package `npm install <spec>` added: the dependency it wrote or changed, else the name the spec gives */
function addedPackage(before: Record<string, string>, after: Record<string, string>, spec: string): string {
  const changed = Object.keys(after).filter((name) => before[name] !== after[name]);
  if (changed.length === 1) return changed[0];
  const named = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*/i.exec(spec)?.[0];
  if (named && named === spec.replace(/@[^@/]*$/, '') && after[named]) return named;
  throw new Error(`npm installed ${spec}, but which package it is cannot be told from package.json: enable it in config with { "plugins": { "<name>": { "package": "<npm name>" } } }`);
}

/**
 * `npm install --legacy-peer-deps <spec>`: a plugin declares `dockwright` as its peer, which npm would otherwise look up
 * in its registry (where Dockwright is not); the kernel provides its SDK to the plugin instead, and checks the peer range
 * itself when loading. The plugin goes into config disabled; `plugins enable` switches it on.
 */
export async function addPlugin(root: string, env: NodeJS.ProcessEnv, spec: string): Promise<string> {
  if (!spec || spec.startsWith('-')) throw new Error('usage: plugins add <package name, folder or tarball>');
  const before = dependencies(root);
  const npm = spawnSync('npm', ['install', '--legacy-peer-deps', '--no-audit', '--no-fund', '--', spec], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (npm.error) throw new Error(`npm could not be run: ${npm.error.message}`);
  if (npm.status !== 0) throw new Error(`npm install ${spec} failed (exit ${npm.status}): nothing was changed in config`);
  const pkg = addedPackage(before, dependencies(root), spec);
  const { def, source } = await importPlugin(undefined, { package: pkg }, root);
  const existing = loadConfig(root, env).plugins[def.name];
  if (existing ? !existing.package : isBuiltIn(def.name)) throw new Error(`${pkg} holds the plugin "${def.name}", which is the name of a built-in plugin or of one loaded from a path: it cannot be added under that name`);
  const enabled = existing !== undefined && existing.enabled !== false;
  const file = writeEntry(root, env, def.name, { package: pkg, enabled });
  const version = source.kind === 'package' ? source.version : def.version;
  const state = enabled ? `it is enabled in ${file}: restart Dockwright to load this version` : `enable it with: npm run cli -- plugins enable ${def.name}  (then restart Dockwright)`;
  return `installed ${pkg} ${version}: the plugin "${def.name}" ${def.version}${def.sdk ? ` (SDK ${def.sdk})` : ''}, added to ${file}\n${state}\n`;
}

/** switches a plugin on or off in the config file, refusing a change that leaves an enabled plugin without one it requires */
export async function setEnabled(root: string, env: NodeJS.ProcessEnv, name: string, enabled: boolean): Promise<string> {
  const config = loadConfig(root, env);
  const entry = config.plugins[name];
  if (!entry && !isBuiltIn(name)) throw new Error(`there is no plugin "${name}": neither built in nor in config (add a package with: npm run cli -- plugins add <spec>)`);
  // a plugin on only by default is named when enabled: it may have been left out (what it requires is off), which then refuses
  const already = entry && (entry.enabled !== false) === enabled && (!enabled || config.namedPlugins.includes(name));
  if (already) return `plugin "${name}" is already ${enabled ? 'enabled' : 'disabled'}\n`;
  const next = { ...config, plugins: { ...config.plugins, [name]: { ...entry, enabled } }, namedPlugins: [...config.namedPlugins, name] };
  let skipped: Awaited<ReturnType<typeof loadPlugins>>['skipped'];
  try {
    ({ skipped } = await loadPlugins(next));
  } catch (err) {
    throw new Error(`${enabled ? 'enabling' : 'disabling'} "${name}" was refused, nothing was written: ${(err as Error).message}`);
  }
  const file = writeEntry(root, env, name, { enabled });
  const left = skipped.map((s) => `plugin "${s.plugin.def.name}" (on by default) will not be loaded: ${s.reason}\n`).join('');
  return `plugin "${name}" ${enabled ? 'enabled' : 'disabled'} in ${file}: restart Dockwright to apply it\n${left}`;
}
