// The settings an admin may change at run time: the kernel's own and those plugins declare, each with its schema (the config file's) and where its value comes from.
import type { TSchema } from '@sinclair/typebox';
import type { PluginDef, SettingDef } from '../../sdk/index.ts';
import { ConfigSchema, type ConfigLayer, type ConfigSource } from '../config.ts';
import { compileStrict, type Check } from '../http/validate.ts';

export interface Setting extends SettingDef {
  /** the config file's own dotted path: `outbound.allow`, `plugins.sites.options.previewDomain` */
  path: string;
  schema: TSchema;
  check: Check;
  /** the plugin whose option it is (null: the kernel's) */
  plugin: string | null;
  /** the option's name within the plugin's options */
  option?: string;
}

/** the kernel's own live settings (a plugin declares its own in its definition's `settings`) */
const kernelSettings: Record<string, SettingDef> = {
  'outbound.allow': { label: 'Reachable although private', group: 'Outbound connections' },
  'outbound.allowHostnames': { label: 'Host names looked up', group: 'Outbound connections' },
  'sessions.requireTotp': { label: 'Every sign-in needs a second factor', group: 'Sign-in' },
  'sessions.ttlMs': { label: 'Session lifetime (ms)', group: 'Sign-in' },
  'sessions.failedSignInsPerMinute': { label: 'Failed sign-ins allowed per minute', group: 'Sign-in', restart: true },
  'auth.oidc.providers': { label: 'Identity providers (OIDC)', group: 'Sign-in', secret: true },
  'auth.oidc.enforceSso': { label: 'Sign in only through an identity provider', group: 'Sign-in' },
  'auth.oidc.breakGlass': { label: 'Local admins who may still use a password', group: 'Sign-in' },
  'jobs.concurrency': { label: 'Jobs run at once (per instance)', group: 'Jobs' },
  'images.keepReleases': { label: 'Releases whose images are kept', group: 'Images' },
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** the schema at a dotted path within an object schema, or null */
function schemaAt(root: TSchema, path: readonly string[]): TSchema | null {
  let at: TSchema | undefined = root;
  for (const key of path) {
    at = (at?.properties as Record<string, TSchema> | undefined)?.[key];
    if (!at) return null;
  }
  return at;
}

/** the value at a dotted path of a plain object, and whether it is there */
export function valueAt(values: unknown, path: readonly string[]): { found: boolean; value?: unknown } {
  let at = values;
  for (const key of path) {
    if (!isObject(at) || !(key in at)) return { found: false };
    at = at[key];
  }
  return { found: true, value: at };
}

export class SettingsCatalogue {
  readonly list: Setting[] = [];
  private readonly byPath = new Map<string, Setting>();

  constructor(plugins: readonly { def: PluginDef }[]) {
    for (const [path, def] of Object.entries(kernelSettings)) this.add({ ...def, path, plugin: null }, schemaAt(ConfigSchema, path.split('.')));
    for (const { def: plugin } of plugins) {
      for (const [option, def] of Object.entries(plugin.settings ?? {})) {
        const schema = plugin.options ? schemaAt(plugin.options, [option]) : null;
        if (!schema) throw new Error(`plugin "${plugin.name}": the setting "${option}" is not one of its options`);
        this.add({ ...def, path: `plugins.${plugin.name}.options.${option}`, plugin: plugin.name, option }, schema);
      }
    }
  }

  private add(setting: Omit<Setting, 'schema' | 'check'>, schema: TSchema | null): void {
    if (!schema) throw new Error(`settings: ${setting.path} is not in the configuration schema`);
    const entry = { ...setting, schema, check: compileStrict(schema) };
    this.list.push(entry);
    this.byPath.set(setting.path, entry);
  }

  get(path: string): Setting | undefined {
    return this.byPath.get(path);
  }

  /** the layer that set this path last (`file` and `env` are the operator's and win over the Settings API) */
  static sourceOf(layers: readonly ConfigLayer[], path: string): ConfigSource {
    const keys = path.split('.');
    let source: ConfigSource = 'default';
    for (const layer of layers) if (valueAt(layer.values, keys).found) source = layer.source;
    return source;
  }
}
