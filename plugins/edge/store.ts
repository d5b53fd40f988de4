// The edge's data in PostgreSQL: hostnames and their owner (routed or reserved), routes, certificates (keys sealed), refusals and the change counter.
import type { Db, SecretsApi } from '../../sdk/index.ts';
import type { PasswordHash } from './types.ts';

export interface RouteRow {
  owner: string;
  hostname: string;
  path: string;
  kind: 'proxy' | 'static';
  target: { project: string; service: string; port: number } | StaticTarget;
}
export interface StaticTarget { root: string; basicAuth?: { username: string; hash: PasswordHash; realm?: string } }
export interface CertificateRow { name: string; domains: string[]; certificate: string; key: string; notAfter: string }
export interface Refused { at: string; error: string; generation: number }

export function createStore(db: Db, secrets: SecretsApi) {
  return {
    /** every route with its owner, in a stable order */
    async routes(q: Db = db): Promise<RouteRow[]> {
      const { rows } = await q.query<RouteRow>(
        `SELECT h.owner, r.hostname, r.path, r.kind, r.target FROM edge_routes r JOIN edge_hostnames h USING (hostname) ORDER BY r.hostname, r.path`);
      return rows;
    },
    async hostnames(q: Db = db): Promise<{ hostname: string; owner: string; claimedAt: string }[]> {
      const { rows } = await q.query<{ hostname: string; owner: string; claimedAt: string }>(
        'SELECT hostname, owner, claimed_at AS "claimedAt" FROM edge_hostnames ORDER BY hostname');
      return rows;
    },
    /** the hostnames some route serves */
    async routedHostnames(q: Db = db): Promise<string[]> {
      return (await q.query<{ hostname: string }>('SELECT DISTINCT hostname FROM edge_routes ORDER BY hostname')).rows.map((r) => r.hostname);
    },
    async owners(hostnames: readonly string[], q: Db = db): Promise<Map<string, string>> {
      if (!hostnames.length) return new Map();
      const { rows } = await q.query<{ hostname: string; owner: string }>('SELECT hostname, owner FROM edge_hostnames WHERE hostname = ANY($1)', [hostnames]);
      return new Map(rows.map((r) => [r.hostname, r.owner]));
    },
    /** replaces the owner's routes, and its hostnames but those it reserves (the caller checked ownership inside the same transaction, under lock) */
    async replace(tx: Db, owner: string, routes: readonly Omit<RouteRow, 'owner'>[]): Promise<void> {
      const hostnames = [...new Set(routes.map((r) => r.hostname))];
      await tx.query('DELETE FROM edge_routes r USING edge_hostnames h WHERE r.hostname = h.hostname AND h.owner = $1', [owner]);
      await tx.query('DELETE FROM edge_hostnames WHERE owner = $1 AND NOT reserved AND NOT (hostname = ANY($2))', [owner, hostnames]);
      if (!hostnames.length) return;
      await tx.query('INSERT INTO edge_hostnames (hostname, owner) SELECT unnest($1::text[]), $2 ON CONFLICT (hostname) DO NOTHING', [hostnames, owner]);
      await tx.query(
        `INSERT INTO edge_routes (hostname, path, kind, target)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[])`,
        [routes.map((r) => r.hostname), routes.map((r) => r.path), routes.map((r) => r.kind), routes.map((r) => JSON.stringify(r.target))]);
    },
    /**
     * makes `hostnames` the ones the owner reserves (its saved definition names them); a hostname it no longer names is
     * kept while a route of it still serves it. The caller holds the change lock and checked that no other owner has them.
     */
    async reserve(tx: Db, owner: string, hostnames: readonly string[]): Promise<void> {
      await tx.query('UPDATE edge_hostnames SET reserved = (hostname = ANY($2)) WHERE owner = $1', [owner, hostnames]);
      await tx.query('INSERT INTO edge_hostnames (hostname, owner, reserved) SELECT unnest($1::text[]), $2, true ON CONFLICT (hostname) DO NOTHING', [hostnames, owner]);
      await tx.query('DELETE FROM edge_hostnames h WHERE owner = $1 AND NOT reserved AND NOT EXISTS (SELECT 1 FROM edge_routes r WHERE r.hostname = h.hostname)', [owner]);
    },
    /** every hostname of the owner, with their routes */
    async release(tx: Db, owner: string): Promise<void> {
      await tx.query('DELETE FROM edge_hostnames WHERE owner = $1', [owner]);
    },
    /** the change lock without a change of the configuration: a hostname reservation waits for route changes, and they for it */
    async lock(tx: Db): Promise<void> {
      await tx.query('SELECT 1 FROM edge_state WHERE id = 1 FOR UPDATE');
    },
    /** takes the change lock (one change at a time across instances) and returns the next generation */
    async bump(tx: Db): Promise<number> {
      const { rows } = await tx.query<{ generation: number }>('UPDATE edge_state SET generation = generation + 1 WHERE id = 1 RETURNING generation');
      return rows[0].generation;
    },
    async state(q: Db = db): Promise<{ generation: number; refused: Refused | null }> {
      const { rows } = await q.query<{ generation: number; refused: Refused | null }>('SELECT generation, refused FROM edge_state WHERE id = 1');
      return rows[0];
    },
    async setRefused(refused: Refused | null): Promise<void> {
      await db.query('UPDATE edge_state SET refused = $1 WHERE id = 1', [refused === null ? null : JSON.stringify(refused)]);
    },
    async certificates(q: Db = db): Promise<CertificateRow[]> {
      const { rows } = await q.query<{ name: string; domains: string[]; certificate: string; key_sealed: string; notAfter: string }>(
        'SELECT name, domains, certificate, key_sealed, not_after AS "notAfter" FROM edge_certificates ORDER BY name');
      return rows.map((r) => ({ name: r.name, domains: r.domains, certificate: r.certificate, key: secrets.open(r.key_sealed), notAfter: r.notAfter }));
    },
    async certificateList(q: Db = db): Promise<Omit<CertificateRow, 'key' | 'certificate'>[]> {
      const { rows } = await q.query<{ name: string; domains: string[]; notAfter: string }>('SELECT name, domains, not_after AS "notAfter" FROM edge_certificates ORDER BY name');
      return rows;
    },
    async putCertificate(tx: Db, c: CertificateRow): Promise<void> {
      await tx.query(
        `INSERT INTO edge_certificates (name, domains, certificate, key_sealed, not_after) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (name) DO UPDATE SET domains = $2, certificate = $3, key_sealed = $4, not_after = $5, updated_at = now()`,
        [c.name, c.domains, c.certificate, secrets.seal(c.key), c.notAfter]);
    },
    async dropCertificate(tx: Db, name: string): Promise<boolean> {
      return (await tx.query('DELETE FROM edge_certificates WHERE name = $1', [name])).rowCount > 0;
    },
    async refusals(q: Db = db): Promise<{ owner: string; message: string; at: string }[]> {
      return (await q.query<{ owner: string; message: string; at: string }>('SELECT owner, message, at FROM edge_refusals ORDER BY owner')).rows;
    },
    async setRefusal(owner: string, message: string | null): Promise<void> {
      if (message === null) await db.query('DELETE FROM edge_refusals WHERE owner = $1', [owner]);
      else await db.query('INSERT INTO edge_refusals (owner, message) VALUES ($1, $2) ON CONFLICT (owner) DO UPDATE SET message = $2, at = now()', [owner, message]);
    },
  };
}
export type EdgeStore = ReturnType<typeof createStore>;
