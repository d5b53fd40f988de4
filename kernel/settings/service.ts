// Live settings: what admins set through the Settings API, stored in the database over the config file's base, validated, and announced to every instance (LISTEN/NOTIFY).
import type { Actor, Db, Logger, PluginDef, RevisionsApi, SecretsApi } from '../../sdk/index.ts';
import type { Config } from '../config.ts';
import { asStale, checkValues, operators, refuseUnknownOrLocked, type Checked, type SettingSource } from './checks.ts';
import { compileCoercing, type Check, type FieldError } from '../http/validate.ts';
import { SettingsCatalogue, valueAt, type Setting } from './catalogue.ts';
import { SettingsStore } from './store.ts';

export const settingsChannel = 'dockwright_settings';
const revisionKind = 'settings';
const revisionKey = 'installation';

type Listener = (changed: readonly string[]) => void | Promise<void>;

export class LiveSettings implements Checked {
  private stored = new Map<string, unknown>();
  private revision = 0;
  private current = new Map<string, string>();
  private readonly atStart = new Map<string, string>();
  private readonly listeners = new Set<Listener>();
  /** each plugin's options check (coercing, defaults filled in), compiled once */
  private readonly optionChecks = new Map<string, Check>();
  private readonly optionsCache = new Map<string, unknown>();
  private reloading: Promise<void> = Promise.resolve();
  private readonly store: SettingsStore;

  constructor(private readonly deps: { db: Db; config: Config; secrets: SecretsApi; revisions: RevisionsApi; log: Logger; plugins: readonly { def: PluginDef }[] },
    readonly catalogue = new SettingsCatalogue(deps.plugins)) {
    for (const { def } of deps.plugins) if (def.options) this.optionChecks.set(def.name, compileCoercing(def.options));
    this.store = new SettingsStore(deps.db, catalogue, deps.secrets, deps.log);
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
    return open ? this.stored.get(path) : this.base(path);
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

  /** the settings that wait for a restart: changed since this instance started, and read only as it starts */
  restartNeeded(): string[] {
    return this.catalogue.list.filter((s) => s.restart && this.current.get(s.path) !== this.atStart.get(s.path)).map((s) => s.path);
  }

  /**
   * PATCH /settings: `changes` by dotted path (null: back to the config file's value), all or nothing, based on revision
   * `expected`. 422 for an unknown path or a bad value, 409 for a path the config file or environment sets, 412 when stale.
   */
  async write(changes: Record<string, unknown>, expected: number, actor: Actor): Promise<{ revision: number; changed: string[] }> {
    const paths = Object.keys(changes);
    refuseUnknownOrLocked(paths, this);
    const next = new Map(this.stored);
    for (const [path, value] of Object.entries(changes)) {
      if (value === null) next.delete(path);
      else next.set(path, value);
    }
    checkValues(paths, next, this);
    const revision = await this.deps.revisions.write({
      kind: revisionKind, key: revisionKey, expected, actor, message: `settings: ${paths.join(', ')}`,
      apply: async (tx, revision) => {
        await this.store.write(tx, paths, next, actor.name ?? actor.kind);
        await tx.query('SELECT pg_notify($1, $2)', [settingsChannel, String(revision)]);
        return { changed: paths };
      },
    }).catch(asStale);
    await this.reload();
    return { revision, changed: paths };
  }

  base(path: string): unknown {
    return valueAt(this.deps.config, path.split('.')).value;
  }

  optionErrors(plugin: string, stored: ReadonlyMap<string, unknown>): FieldError[] | null {
    return this.checkOptions(plugin, this.rawPluginOptions(plugin, stored));
  }

  private rawPluginOptions(plugin: string, stored: ReadonlyMap<string, unknown>): Record<string, unknown> {
    const raw = structuredClone(this.deps.config.plugins[plugin]?.options ?? {}) as Record<string, unknown>;
    for (const s of this.catalogue.list) {
      if (s.plugin !== plugin || !stored.has(s.path) || operators(this.source(s.path))) continue;
      raw[s.option!] = structuredClone(stored.get(s.path));
    }
    return raw;
  }

  private checkOptions(plugin: string, raw: Record<string, unknown>): FieldError[] | null {
    return this.optionChecks.get(plugin)?.(raw) ?? null;
  }

  /** one read of the table and the revision; the listeners hear of the paths whose value changed */
  private async read(): Promise<void> {
    const [stored, revision] = await Promise.all([this.store.read(), this.deps.revisions.current(revisionKind, revisionKey)]);
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

export type { Setting, SettingSource };
