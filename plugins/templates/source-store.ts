// Where the templates plugin keeps the sources an admin added, and what each one's last read gave.
import type { Db } from '../../sdk/index.ts';
import type { SourceError, SourceFormat, SourceState } from './catalogue.ts';
import type { Template } from './format.ts';

export interface SourceDef {
  name: string;
  url: string | null;
  git: { url: string; ref: string; path?: string } | null;
  sha256: string | null;
  format: SourceFormat;
}

export interface SourceRow extends SourceDef {
  templates: Template[];
  invalid: SourceError[];
  error: string | null;
  commit: string | null;
  fetchedAt: string | null;
  checkedAt: string | null;
}

type Raw = { name: string; url: string | null; git: SourceDef['git']; sha256: string | null; format: SourceFormat; templates: Template[]; invalid: SourceError[]; error: string | null; commit: string | null; fetched_at: Date | string | null; checked_at: Date | string | null };
/** a timestamp as ISO text, however the driver hands it over */
const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());
const fromRaw = (r: Raw): SourceRow => ({
  name: r.name, url: r.url, git: r.git, sha256: r.sha256, format: r.format, templates: r.templates, invalid: r.invalid, error: r.error, commit: r.commit,
  fetchedAt: iso(r.fetched_at), checkedAt: iso(r.checked_at),
});

export const stateOf = (row: SourceRow): SourceState & { def: SourceDef; commit: string | null; checkedAt: string | null } => ({
  name: row.name, kind: row.git ? 'git' : 'url', format: row.format, templates: new Map(row.templates.map((t) => [t.id, t])),
  error: row.error, invalid: row.invalid, fetchedAt: row.fetchedAt, commit: row.commit, checkedAt: row.checkedAt,
  def: { name: row.name, url: row.url, git: row.git, sha256: row.sha256, format: row.format },
});

export class SourceStore {
  constructor(private readonly db: Db) {}

  async all(): Promise<SourceRow[]> {
    return (await this.db.query<Raw>('SELECT * FROM template_sources ORDER BY name')).rows.map(fromRaw);
  }

  async get(name: string): Promise<SourceRow | null> {
    const { rows } = await this.db.query<Raw>('SELECT * FROM template_sources WHERE name = $1', [name]);
    return rows[0] ? fromRaw(rows[0]) : null;
  }

  /** when each source was last read: what another instance compares with what it holds */
  async versions(): Promise<Map<string, string>> {
    const { rows } = await this.db.query<{ name: string; checked_at: Date | string | null }>('SELECT name, checked_at FROM template_sources');
    return new Map(rows.map((r) => [r.name, iso(r.checked_at) ?? '']));
  }

  /** false when the name is taken */
  async add(def: SourceDef): Promise<boolean> {
    const { rowCount } = await this.db.query(
      'INSERT INTO template_sources (name, url, git, sha256, format) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING',
      [def.name, def.url, def.git ? JSON.stringify(def.git) : null, def.sha256, def.format]);
    return rowCount === 1;
  }

  async remove(name: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM template_sources WHERE name = $1', [name])).rowCount === 1;
  }

  async saveRead(name: string, read: { templates: Template[]; invalid: SourceError[]; commit: string | null }): Promise<void> {
    await this.db.query('UPDATE template_sources SET templates = $2, invalid = $3, commit = $4, error = NULL, fetched_at = now(), checked_at = now() WHERE name = $1',
      [name, JSON.stringify(read.templates), JSON.stringify(read.invalid), read.commit]);
  }

  async saveError(name: string, error: string): Promise<void> {
    await this.db.query('UPDATE template_sources SET error = $2, checked_at = now() WHERE name = $1', [name, error]);
  }
}
