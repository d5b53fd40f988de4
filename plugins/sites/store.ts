// The sites' rows in PostgreSQL: sites, their immutable versions (with the manifest of each) and drafts.
import type { Actor, Db } from '../../sdk/index.ts';
import type { Manifest } from './files.ts';
import type { PasswordHash } from '../edge/index.ts';

export interface Build { image: string; command: string[]; output: string }
export interface SourceSpec { url: string; display: string; branch: string; path: string; build?: Build }
export interface LastDeploy { at: string; version: number; commit: string | null }
export interface SiteRow {
  name: string;
  hostnames: string[];
  source: SourceSpec | null;
  credentialsSealed: string | null;
  version: number;
  nextVersion: number;
  lastDeploy: LastDeploy | null;
  lastError: string | null;
  syncedCommit: string | null;
  previewHash: PasswordHash | null;
  createdAt: string;
  updatedAt: string;
}
export type Origin = 'commit' | 'upload' | 'draft' | 'restore';
export interface VersionRow {
  number: number; at: string; actor: Actor; origin: Origin; commit: string | null; restoredFrom: number | null;
  fileCount: number; bytes: number;
}
export interface DraftRow { manifest: Manifest; basedOn: number; dir: string; changedAt: string }

const siteColumns = `name, hostnames, source, credentials_sealed AS "credentialsSealed", version, next_version AS "nextVersion",
  last_deploy AS "lastDeploy", last_error AS "lastError", synced_commit AS "syncedCommit", preview_hash AS "previewHash",
  created_at AS "createdAt", updated_at AS "updatedAt"`;
const versionColumns = `number, at, actor, origin, commit, restored_from AS "restoredFrom", file_count AS "fileCount", bytes::float8 AS bytes`;

export function createStore(db: Db) {
  return {
    async list(q: Db = db): Promise<SiteRow[]> {
      return (await q.query<SiteRow>(`SELECT ${siteColumns} FROM sites ORDER BY name`)).rows;
    },
    async get(name: string, q: Db = db, lock = false): Promise<SiteRow | null> {
      return (await q.query<SiteRow>(`SELECT ${siteColumns} FROM sites WHERE name = $1${lock ? ' FOR UPDATE' : ''}`, [name])).rows[0] ?? null;
    },
    async create(tx: Db, row: { name: string; hostnames: string[]; source: SourceSpec | null; credentialsSealed: string | null; previewHash: PasswordHash | null }): Promise<boolean> {
      const r = await tx.query(`INSERT INTO sites (name, hostnames, source, credentials_sealed, preview_hash) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING`,
        [row.name, row.hostnames, row.source && JSON.stringify(row.source), row.credentialsSealed, row.previewHash && JSON.stringify(row.previewHash)]);
      return r.rowCount > 0;
    },
    async update(tx: Db, name: string, row: { hostnames: string[]; source: SourceSpec | null; credentialsSealed: string | null }): Promise<void> {
      await tx.query(`UPDATE sites SET hostnames = $2, source = $3, credentials_sealed = $4, updated_at = now() WHERE name = $1`,
        [name, row.hostnames, row.source && JSON.stringify(row.source), row.credentialsSealed]);
    },
    async setPreviewHash(name: string, hash: PasswordHash): Promise<void> {
      await db.query('UPDATE sites SET preview_hash = $2, updated_at = now() WHERE name = $1', [name, JSON.stringify(hash)]);
    },
    async remove(tx: Db, name: string): Promise<boolean> {
      return (await tx.query('DELETE FROM sites WHERE name = $1', [name])).rowCount > 0;
    },
    async recordSync(name: string, change: { lastError: string | null; lastDeploy?: LastDeploy; syncedCommit?: string }): Promise<void> {
      await db.query(`UPDATE sites SET last_error = $2, last_deploy = COALESCE($3, last_deploy), synced_commit = COALESCE($4, synced_commit), updated_at = now() WHERE name = $1`,
        [name, change.lastError, change.lastDeploy ? JSON.stringify(change.lastDeploy) : null, change.syncedCommit ?? null]);
    },
    /** a new version row and the site pointing at it, in the caller's transaction (the site row is locked) */
    async addVersion(tx: Db, site: string, v: Omit<VersionRow, 'at' | 'number'> & { manifest: Manifest }): Promise<number> {
      const { rows } = await tx.query<{ n: number }>('UPDATE sites SET next_version = next_version + 1 WHERE name = $1 RETURNING next_version - 1 AS n', [site]);
      const n = rows[0].n;
      await tx.query(`INSERT INTO site_versions (site, number, actor, origin, commit, restored_from, file_count, bytes, manifest) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [site, n, JSON.stringify(v.actor), v.origin, v.commit, v.restoredFrom, v.fileCount, v.bytes, JSON.stringify(v.manifest)]);
      await tx.query(`UPDATE sites SET version = $2, last_deploy = $3, updated_at = now() WHERE name = $1`,
        [site, n, JSON.stringify({ at: new Date().toISOString(), version: n, commit: v.commit })]);
      return n;
    },
    async versions(site: string, q: Db = db): Promise<VersionRow[]> {
      return (await q.query<VersionRow>(`SELECT ${versionColumns} FROM site_versions WHERE site = $1 ORDER BY number DESC`, [site])).rows;
    },
    async manifest(site: string, number: number, q: Db = db): Promise<Manifest | null> {
      return (await q.query<{ manifest: Manifest }>('SELECT manifest FROM site_versions WHERE site = $1 AND number = $2', [site, number])).rows[0]?.manifest ?? null;
    },
    async manifests(site: string, q: Db = db): Promise<Manifest[]> {
      return (await q.query<{ manifest: Manifest }>('SELECT manifest FROM site_versions WHERE site = $1', [site])).rows.map((r) => r.manifest);
    },
    /** removes the versions beyond the newest `keep` (never the published one); answers their numbers and manifests */
    async prune(tx: Db, site: string, keep: number, published: number): Promise<{ number: number; manifest: Manifest }[]> {
      return (await tx.query<{ number: number; manifest: Manifest }>(
        `DELETE FROM site_versions WHERE site = $1 AND number <> $3 AND number NOT IN (SELECT number FROM site_versions WHERE site = $1 ORDER BY number DESC LIMIT $2)
         RETURNING number, manifest`, [site, keep, published])).rows;
    },
    async draft(site: string, q: Db = db): Promise<DraftRow | null> {
      return (await q.query<DraftRow>('SELECT manifest, based_on AS "basedOn", dir, changed_at AS "changedAt" FROM site_drafts WHERE site = $1', [site])).rows[0] ?? null;
    },
    async drafts(sites: readonly string[]): Promise<Map<string, DraftRow>> {
      const { rows } = await db.query<DraftRow & { site: string }>('SELECT site, manifest, based_on AS "basedOn", dir, changed_at AS "changedAt" FROM site_drafts WHERE site = ANY($1)', [sites]);
      return new Map(rows.map((r) => [r.site, r]));
    },
    async setDraft(site: string, d: { manifest: Manifest; basedOn: number; dir: string }, q: Db = db): Promise<void> {
      await q.query(`INSERT INTO site_drafts (site, manifest, based_on, dir) VALUES ($1, $2, $3, $4)
        ON CONFLICT (site) DO UPDATE SET manifest = $2, dir = $4, changed_at = now()`, [site, JSON.stringify(d.manifest), d.basedOn, d.dir]);
    },
    async dropDraft(site: string, q: Db = db): Promise<DraftRow | null> {
      return (await q.query<DraftRow>('DELETE FROM site_drafts WHERE site = $1 RETURNING manifest, based_on AS "basedOn", dir, changed_at AS "changedAt"', [site])).rows[0] ?? null;
    },
  };
}
export type SiteStore = ReturnType<typeof createStore>;
