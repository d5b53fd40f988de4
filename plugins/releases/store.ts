// The releases plugin's tables: releases per stack, the last update check of each stack, and the updates applied on top of compose files.
import type { Actor, Db } from '../../sdk/index.ts';

export type Policy = 'digest' | 'patch' | 'minor' | 'major' | 'none';

/** a service as a release ran it */
export interface ReleaseService {
  service: string;
  /** the reference deployed (the compose file's, or an update's tag) */
  image: string;
  /** the repository digest it ran (null: an image from no registry, e.g. built here) */
  digest: string | null;
  /** the local image id */
  imageId: string | null;
  policy: Policy;
  monitorSeconds: number;
  /** why it ran this image: its compose file, or an update on top of it */
  origin: 'compose' | 'update';
}

export interface Release {
  stack: string;
  number: number;
  createdAt: string;
  actor: Actor;
  jobId: string | null;
  kind: 'deploy' | 'rollback' | 'update';
  rolledBackTo: number | null;
  revision: number;
  commit: string | null;
  compose: string;
  variablesSealed: string;
  services: ReleaseService[];
}

export interface ServiceCheck {
  service: string;
  image: string;
  policy: Policy;
  tag: string | null;
  digest: string | null;
  candidate: { tag: string; digest: string } | null;
  available: boolean;
  origin: 'compose' | 'update';
  error: string | null;
  /** the candidate digest an update-available alert was raised for */
  alerted: string | null;
}

export interface ImageUpdate { service: string; composeImage: string; image: string; digest: string }

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string));
const releaseOf = (r: Record<string, unknown>): Release => ({
  stack: r.stack as string, number: r.number as number, createdAt: iso(r.created_at), actor: r.actor as Actor, jobId: (r.job_id as string | null) ?? null,
  kind: r.kind as Release['kind'], rolledBackTo: (r.rolled_back_to as number | null) ?? null, revision: r.revision as number, commit: (r.commit as string | null) ?? null,
  compose: r.compose as string, variablesSealed: r.variables_sealed as string, services: r.services as ReleaseService[],
});

export function createStore(db: Db) {
  return {
    /** the next number of the stack (deploys of one stack run one at a time, so numbers do not race) */
    async add(r: Omit<Release, 'number' | 'createdAt'>): Promise<Release> {
      const { rows } = await db.query(
        `INSERT INTO stack_releases (stack, number, actor, job_id, kind, rolled_back_to, revision, commit, compose, variables_sealed, services)
         SELECT $1, COALESCE(MAX(number), 0) + 1, $2, $3, $4, $5, $6, $7, $8, $9, $10 FROM stack_releases WHERE stack = $1
         RETURNING *`,
        [r.stack, JSON.stringify(r.actor), r.jobId, r.kind, r.rolledBackTo, r.revision, r.commit, r.compose, r.variablesSealed, JSON.stringify(r.services)]);
      return releaseOf(rows[0]);
    },
    /** newest first, before the number `before`; one more than `limit` tells whether there is a next page */
    async page(stack: string, before: number | undefined, limit: number): Promise<Release[]> {
      const { rows } = await db.query('SELECT * FROM stack_releases WHERE stack = $1 AND ($2::int IS NULL OR number < $2) ORDER BY number DESC LIMIT $3', [stack, before ?? null, limit]);
      return rows.map(releaseOf);
    },
    async get(stack: string, number: number): Promise<Release | null> {
      const { rows } = await db.query('SELECT * FROM stack_releases WHERE stack = $1 AND number = $2', [stack, number]);
      return rows[0] ? releaseOf(rows[0]) : null;
    },
    async latest(stack: string): Promise<Release | null> {
      return (await this.page(stack, undefined, 1))[0] ?? null;
    },
    /** the images of the newest `keep` releases of every stack: what pruning must leave alone */
    /** the image id of every service of every release, and whether the release is one of the last `keep` of its stack (one query) */
    async releasedImages(keep: number): Promise<{ stack: string; number: number; imageId: string; kept: boolean }[]> {
      const { rows } = await db.query(
        `SELECT DISTINCT r.stack, r.number, s->>'imageId' AS "imageId", r.n <= $1 AS kept
           FROM (SELECT stack, number, services, row_number() OVER (PARTITION BY stack ORDER BY number DESC) AS n FROM stack_releases) r,
           jsonb_array_elements(r.services) s WHERE s->>'imageId' IS NOT NULL ORDER BY r.stack, r.number`, [keep]);
      return rows as { stack: string; number: number; imageId: string; kept: boolean }[];
    },
    async keptImages(keep: number): Promise<string[]> {
      const { rows } = await db.query(
        `SELECT DISTINCT s->>'imageId' AS id FROM (SELECT services, row_number() OVER (PARTITION BY stack ORDER BY number DESC) AS n FROM stack_releases) r,
           jsonb_array_elements(r.services) s WHERE r.n <= $1 AND s->>'imageId' IS NOT NULL`, [keep]);
      return rows.map((r) => r.id as string);
    },
    async check(stack: string): Promise<{ checkedAt: string; jobId: string | null; services: ServiceCheck[] } | null> {
      const { rows } = await db.query('SELECT * FROM stack_update_checks WHERE stack = $1', [stack]);
      return rows[0] ? { checkedAt: iso(rows[0].checked_at), jobId: (rows[0].job_id as string | null) ?? null, services: rows[0].services as ServiceCheck[] } : null;
    },
    async putCheck(stack: string, jobId: string | null, services: ServiceCheck[], at?: string): Promise<void> {
      await db.query(
        `INSERT INTO stack_update_checks (stack, checked_at, job_id, services) VALUES ($1, COALESCE($4::timestamptz, now()), $2, $3)
         ON CONFLICT (stack) DO UPDATE SET checked_at = EXCLUDED.checked_at, job_id = EXCLUDED.job_id, services = EXCLUDED.services`,
        [stack, jobId, JSON.stringify(services), at ?? null]);
    },
    async updates(stack: string): Promise<ImageUpdate[]> {
      const { rows } = await db.query('SELECT * FROM stack_image_updates WHERE stack = $1 ORDER BY service', [stack]);
      return rows.map((r) => ({ service: r.service as string, composeImage: r.compose_image as string, image: r.image as string, digest: r.digest as string }));
    },
    async putUpdates(stack: string, jobId: string, updates: ImageUpdate[]): Promise<void> {
      for (const u of updates) {
        await db.query(
          `INSERT INTO stack_image_updates (stack, service, compose_image, image, digest, job_id) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (stack, service) DO UPDATE SET compose_image = EXCLUDED.compose_image, image = EXCLUDED.image, digest = EXCLUDED.digest, applied_at = now(), job_id = EXCLUDED.job_id`,
          [stack, u.service, u.composeImage, u.image, u.digest, jobId]);
      }
    },
    async dropUpdates(stack: string, services?: readonly string[]): Promise<void> {
      await db.query('DELETE FROM stack_image_updates WHERE stack = $1 AND ($2::text[] IS NULL OR service = ANY($2))', [stack, services ?? null]);
    },
    async removeStack(tx: Db, stack: string): Promise<void> {
      for (const table of ['stack_releases', 'stack_update_checks', 'stack_image_updates']) await tx.query(`DELETE FROM ${table} WHERE stack = $1`, [stack]);
    },
  };
}
export type ReleaseStore = ReturnType<typeof createStore>;
