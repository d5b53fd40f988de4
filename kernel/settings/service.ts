// Live settings: what admins set through the Settings API, stored in the database over the config file's base, validated, and announced to every instance (LISTEN/NOTIFY).
import type { TSchema } from '@sinclair/typebox';
import type { Actor, Db, Logger, PluginDef, SecretsApi } from '../../sdk/index.ts';
import { isProblem, problem, type RevisionsApi } from '../../sdk/index.ts';
import type { Config, ConfigSource } from '../config.ts';
import { compileCoercing, type FieldError } from '../http/validate.ts';
import { compilePolicy } from '../services/outbound.ts';
import { SettingsCatalogue, valueAt, type Setting } from './catalogue.ts';

export type SettingSource = ConfigSource | 'portal';
export const settingsChannel = 'dockwright_settings';
const revisionKind = 'settings';
const revisionKey = 'installation';

/** how a secret setting is answered: whether it is set, never its value */
export interface SecretShown { secret: true; set: boolean }

type Listener = (changed: readonly string[]) => void | Promise<void>;

export class LiveSettings {
  private stored = new Map<string, unknown>();
  private revision = 0;
  private current = new Map<string, string>();
  private readonly atStart = new Map<string, string>();
  private readonly listeners = new Set<Listener>();
  private readonly pluginDefs = new Map<string, PluginDef>();
  private readonly optionsCache = new Map<string, unknown>();
  private reloading: Promise<void> = Promise.resolve();

  constructor(private readonly deps: { db: Db; config: Config; secrets: SecretsApi; revisions: RevisionsApi; log: Logger; plugins: readonly { def: PluginDef }[] },
    readonly catalogue = new SettingsCatalogue(deps.plugins)) {
    for (const { def } of deps.plugins) this.pluginDefs.set(def.name, def);
  }

  /** reads the stored settings; the values at start are what restartNeeded compares with */
  async start(): Promise<void> {
    await this.read();
    for (const [path, json] of this.current) this.atStart.set(path, json);
  }

  /** reads the stored settings again (a NOTIFY from another instance, or the channel back after a loss) and tells the listeners what changed */
  reload(): Promise<void> {
    this.reloading = this.reloading.then(() => this.read()).catch((err) => this.deps.log.error({ err }, 'reading the settings failed'));
    return this.reloading;
  }

  onChange(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => { this.listeners.delete(fn); };
  }

  get currentRevision(): number { return this.revision; }

  source(path: string): SettingSource {
    const base = SettingsCatalogue.sourceOf(this.deps.config.layers, path);
    return base === 'default' && this.stored.has(path) ? 'portal' : base;
  }

  /** a setting's value now: the config file's (with the option's default), or the stored one where the operator's files and environment leave it open */
  get(path: string): unknown {
    const setting = this.catalogue.get(path);
    if (setting?.plugin) return (this.pluginOptions(setting.plugin) as Record<string, unknown>)[setting.option!];
    const open = setting && this.source(path) === 'portal';
    return open ? this.stored.get(path) : valueAt(this.deps.config, path.split('.')).value;
  }

  /** a plugin's options now: its config entry with the stored values on top, validated (defaults filled in) */
  pluginOptions(plugin: string): unknown {
    const cached = this.optionsCache.get(plugin);
    if (cached) return cached;
    const raw = this.rawPluginOptions(plugin, this.stored);
    const errors = this.checkOptions(plugin, raw);
    if (errors) throw new Error(`plugin "${plugin}": invalid options: ${errors.map((e) => `${e.path || '/'} ${e.message}`).join('; ')}`);
    const options = Object.freeze(raw);
    this.optionsCache.set(plugin, options);
    return options;
  }

  /** GET /settings: every setting with its value (secrets as set or unset), source, and those that wait for a restart */
  view() {
    const settings: Record<string, unknown> = {};
    const sources: Record<string, SettingSource> = {};
    const about: Record<string, { label: string; group: string; secret: boolean; live: boolean; description?: string; schema: TSchema }> = {};
    for (const s of this.catalogue.list) {
      const value = this.get(s.path);
      settings[s.path] = s.secret ? { secret: true, set: value !== undefined && value !== null } satisfies SecretShown : value ?? null;
      sources[s.path] = this.source(s.path);
      about[s.path] = { label: s.label, group: s.group, secret: s.secret === true, live: s.restart !== true, description: s.schema.description, schema: s.schema };
    }
    const restartNeeded = this.catalogue.list.filter((s) => s.restart && this.current.get(s.path) !== this.atStart.get(s.path)).map((s) => s.path);
    return { revision: this.revision, settings, sources, restartNeeded, about };
  }

  /**
   * PATCH /settings: `changes` by dotted path (null: back to the config file's value), all or nothing, based on revision
   * `expected`. 422 for an unknown path or a bad value, 409 for a path the config file or environment sets, 412 when stale.
   */
  async write(changes: Record<string, unknown>, expected: number, actor: Actor): Promise<{ revision: number; changed: string[] }> {
    const paths = Object.keys(changes);
    const unknown = paths.filter((p) => !this.catalogue.get(p));
    if (unknown.length) throw invalid(unknown.map((path) => ({ path, message: 'is not a setting that can be changed at run time' })));
    const locked = paths.filter((p) => this.source(p) === 'file' || this.source(p) === 'env');
    if (locked.length) {
      throw problem(409, `${locked.map((p) => `${p} is set by ${this.source(p) === 'env' ? 'the environment' : 'the config file'}`).join('; ')}: change it there`, {
        code: 'setting-locked', extra: { paths: Object.fromEntries(locked.map((p) => [p, this.source(p)])) },
      });
    }
    const next = new Map(this.stored);
    for (const [path, value] of Object.entries(changes)) {
      if (value === null) next.delete(path);
      else next.set(path, value);
    }
    this.validate(paths, next);
    const revision = await this.deps.revisions.write({
      kind: revisionKind, key: revisionKey, expected, actor, message: `settings: ${paths.join(', ')}`,
      apply: async (tx, revision) => {
        for (const path of paths) {
          if (!next.has(path)) await tx.query('DELETE FROM settings WHERE path = $1', [path]);
          else {
            await tx.query(`INSERT INTO settings (path, value, updated_by) VALUES ($1, $2, $3)
              ON CONFLICT (path) DO UPDATE SET value = EXCLUDED.value, updated_by = EXCLUDED.updated_by, updated_at = now()`,
            [path, JSON.stringify(this.seal(path, next.get(path))), actor.name]);
          }
        }
        await tx.query('SELECT pg_notify($1, $2)', [settingsChannel, String(revision)]);
        return { changed: paths };
      },
    }).catch((err) => {
      // revision 0 is the settings never changed: once they were, it is a stale base like any other
      if (isProblem(err) && err.status === 404) throw problem(412, 'the settings are at revision 0; read them again and retry', { code: 'stale-revision', extra: { currentRevision: 0 } });
      const current = (err as { extra?: { currentRevision?: number } }).extra?.currentRevision;
      if (isProblem(err) && (err.code === 'exists' || err.status === 412)) throw problem(412, `the settings are at revision ${current}; read them again and retry`, { code: 'stale-revision', extra: { currentRevision: current } });
      throw err;
    });
    await this.reload();
    return { revision, changed: paths };
  }

  /** the schema of each changed path, then each touched plugin's whole options and the outbound policy (nothing is written on an error) */
  private validate(paths: readonly string[], next: Map<string, unknown>): void {
    const errors: FieldError[] = [];
    for (const path of paths) {
      if (!next.has(path)) continue;
      for (const e of this.catalogue.get(path)!.check(next.get(path)) ?? []) errors.push({ path: `${path}${e.path}`, message: e.message });
    }
    if (errors.length) throw invalid(errors);
    for (const plugin of new Set(paths.map((p) => this.catalogue.get(p)!.plugin).filter((p): p is string => p !== null))) {
      for (const e of this.checkOptions(plugin, this.rawPluginOptions(plugin, next)) ?? []) errors.push({ path: `plugins.${plugin}.options${e.path.replace(/^\/([^/]+)/, '.$1')}`, message: e.message });
    }
    if (paths.some((p) => p.startsWith('outbound.'))) {
      const value = (p: string) => (next.has(p) && this.source(p) !== 'file' && this.source(p) !== 'env' ? next.get(p) : valueAt(this.deps.config, p.split('.')).value);
      try {
        compilePolicy({ allow: value('outbound.allow') as string[], allowHostnames: value('outbound.allowHostnames') as boolean | string[] });
      } catch (err) {
        const message = (err as Error).message.replace(/^config: /, '');
        errors.push({ path: message.startsWith('outbound.allowHostnames') ? 'outbound.allowHostnames' : 'outbound.allow', message });
      }
    }
    if (errors.length) throw invalid(errors);
  }

  private rawPluginOptions(plugin: string, stored: Map<string, unknown>): Record<string, unknown> {
    const raw = structuredClone(this.deps.config.plugins[plugin]?.options ?? {}) as Record<string, unknown>;
    for (const s of this.catalogue.list) {
      if (s.plugin !== plugin || !stored.has(s.path) || this.source(s.path) === 'file' || this.source(s.path) === 'env') continue;
      raw[s.option!] = structuredClone(stored.get(s.path));
    }
    return raw;
  }

  private checkOptions(plugin: string, raw: Record<string, unknown>): FieldError[] | null {
    const schema = this.pluginDefs.get(plugin)?.options;
    return schema ? compileCoercing(schema)(raw) : null;
  }

  private seal(path: string, value: unknown): unknown {
    return this.catalogue.get(path)?.secret ? { sealed: this.deps.secrets.seal(JSON.stringify(value)) } : value;
  }

  private open(path: string, stored: unknown): unknown {
    if (!this.catalogue.get(path)?.secret) return stored;
    return JSON.parse(this.deps.secrets.open((stored as { sealed: string }).sealed));
  }

  /** one read of the table and the revision; the listeners hear of the paths whose value changed */
  private async read(): Promise<void> {
    const [{ rows }, revision] = await Promise.all([
      this.deps.db.query<{ path: string; value: unknown }>('SELECT path, value FROM settings'),
      this.deps.revisions.current(revisionKind, revisionKey),
    ]);
    const stored = new Map<string, unknown>();
    for (const row of rows) {
      const setting = this.catalogue.get(row.path);
      if (!setting) continue;
      const value = this.open(row.path, row.value);
      const errors = setting.check(value);
      if (errors) this.deps.log.warn({ path: row.path }, `the stored setting ${row.path} no longer fits its schema: the config file's value applies`);
      else stored.set(row.path, value);
    }
    this.stored = stored;
    this.revision = revision ?? 0;
    this.optionsCache.clear();
    const changed: string[] = [];
    for (const s of this.catalogue.list) {
      const json = JSON.stringify(this.get(s.path) ?? null);
      if (this.current.has(s.path) && this.current.get(s.path) !== json) changed.push(s.path);
      this.current.set(s.path, json);
    }
    if (!changed.length) return;
    this.deps.log.info({ changed }, 'settings changed');
    for (const fn of this.listeners) {
      await Promise.resolve().then(() => fn(changed)).catch((err) => this.deps.log.error({ err, changed }, 'applying changed settings failed'));
    }
  }
}

function invalid(errors: FieldError[]) {
  return problem(422, `invalid settings: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, { code: 'invalid-settings', errors });
}

export type { Setting };
