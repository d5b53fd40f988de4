// The settings table: each stored value by its dotted path, a secret one sealed; a value read back counts only while it fits its schema.
import type { Db, Logger, SecretsApi } from '../../sdk/index.ts';
import type { SettingsCatalogue } from './catalogue.ts';

export class SettingsStore {
  constructor(private readonly db: Db, private readonly catalogue: SettingsCatalogue, private readonly secrets: SecretsApi, private readonly log: Logger) {}

  /** every stored value that is still a setting and fits its schema (one that no longer does is left to the config file, with a warning) */
  async read(): Promise<Map<string, unknown>> {
    const { rows } = await this.db.query<{ path: string; value: unknown }>('SELECT path, value FROM settings');
    const stored = new Map<string, unknown>();
    for (const row of rows) {
      const setting = this.catalogue.get(row.path);
      if (!setting) continue;
      const value = setting.secret ? JSON.parse(this.secrets.open((row.value as { sealed: string }).sealed)) : row.value;
      if (setting.check(value)) this.log.warn({ path: row.path }, `the stored setting ${row.path} no longer fits its schema: the config file's value applies`);
      else stored.set(row.path, value);
    }
    return stored;
  }

  /** writes `paths` as `next` holds them (absent: removed), within the caller's transaction */
  async write(tx: Db, paths: readonly string[], next: ReadonlyMap<string, unknown>, by: string): Promise<void> {
    for (const path of paths) {
      if (!next.has(path)) {
        await tx.query('DELETE FROM settings WHERE path = $1', [path]);
        continue;
      }
      const value = this.catalogue.get(path)?.secret ? { sealed: this.secrets.seal(JSON.stringify(next.get(path))) } : next.get(path);
      await tx.query(`INSERT INTO settings (path, value, updated_by) VALUES ($1, $2, $3)
        ON CONFLICT (path) DO UPDATE SET value = EXCLUDED.value, updated_by = EXCLUDED.updated_by, updated_at = now()`, [path, JSON.stringify(value), by]);
    }
  }
}
