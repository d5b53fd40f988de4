// The certificates plugin's tables: certificates (chain, sealed key, renewal state) and ACME accounts (sealed keys).
import type { Db } from '../../sdk/index.ts';
import type { CertificateDetails } from './pem.ts';

export interface CertificateRow {
  name: string;
  domains: string[];
  source: 'acme' | 'upload';
  /** request: through POST /certificates/request; upload; auto: made by automatic HTTPS for one routed hostname */
  origin: 'request' | 'upload' | 'auto';
  challenge: 'http-01' | 'dns-01' | null;
  chain: string | null;
  keySealed: string | null;
  issuer: string | null;
  serial: string | null;
  notBefore: string | null;
  notAfter: string | null;
  renewAfter: string | null;
  state: 'pending' | 'issued' | 'failed';
  lastError: string | null;
  lastAttemptAt: string | null;
  failures: number;
  nextAttemptAt: string | null;
  notified: string | null;
  createdAt: string;
  updatedAt: string;
}

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null));
const rowOf = (r: Record<string, unknown>): CertificateRow => ({
  name: r.name as string, domains: r.domains as string[], source: r.source as CertificateRow['source'],
  origin: r.origin as CertificateRow['origin'],
  challenge: r.challenge as CertificateRow['challenge'], chain: r.chain as string | null, keySealed: r.key_sealed as string | null,
  issuer: r.issuer as string | null, serial: r.serial as string | null,
  notBefore: iso(r.not_before), notAfter: iso(r.not_after), renewAfter: iso(r.renew_after),
  state: r.state as CertificateRow['state'], lastError: r.last_error as string | null, lastAttemptAt: iso(r.last_attempt_at),
  failures: r.failures as number, nextAttemptAt: iso(r.next_attempt_at), notified: r.notified as string | null,
  createdAt: iso(r.created_at)!, updatedAt: iso(r.updated_at)!,
});

export interface Issued extends CertificateDetails { chain: string; keySealed: string; renewAfter: string | null }

export function createStore(db: Db) {
  return {
    async page(after: string | undefined, limit: number): Promise<CertificateRow[]> {
      const { rows } = await db.query('SELECT * FROM certificates WHERE $1::text IS NULL OR name > $1 ORDER BY name LIMIT $2', [after ?? null, limit]);
      return rows.map(rowOf);
    },
    async get(name: string, q: Db = db): Promise<CertificateRow | null> {
      const { rows } = await q.query('SELECT * FROM certificates WHERE name = $1', [name]);
      return rows[0] ? rowOf(rows[0]) : null;
    },
    /** the certificates the edge may serve now (held, not expired): what `usedBy` is worked out from */
    async servable(now: Date): Promise<{ name: string; domains: string[] }[]> {
      const { rows } = await db.query<{ name: string; domains: string[] }>('SELECT name, domains FROM certificates WHERE chain IS NOT NULL AND not_after > $1 ORDER BY name', [now]);
      return rows;
    },
    /**
     * Claims the ACME certificates due for renewal (inside their window, past any backoff) until `until`, so no other
     * sweep (here or on another instance) starts a second renewal of one; oldest due first.
     */
    async claimDue(now: Date, until: Date, limit: number): Promise<string[]> {
      const { rows } = await db.query<{ name: string }>(
        `UPDATE certificates SET next_attempt_at = $2 WHERE name IN (
           SELECT name FROM certificates WHERE source = 'acme' AND chain IS NOT NULL AND renew_after <= $1
             AND (next_attempt_at IS NULL OR next_attempt_at <= $1) ORDER BY renew_after LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING name`, [now, until, limit]);
      return rows.map((r) => r.name);
    },
    /** held certificates whose expiry state (valid, expiring, expired) differs from the last one announced */
    async expiryChanges(now: Date, expiringMs: number): Promise<{ name: string; notAfter: string; current: string; notified: string | null }[]> {
      const { rows } = await db.query<{ name: string; not_after: Date; current: string; notified: string | null }>(
        `SELECT * FROM (SELECT name, not_after, notified, CASE WHEN not_after <= $1::timestamptz THEN 'expired'
             WHEN not_after <= $1::timestamptz + $2::double precision * interval '1 millisecond' THEN 'expiring' ELSE 'valid' END AS current
           FROM certificates WHERE chain IS NOT NULL) c
         WHERE current IS DISTINCT FROM coalesce(notified, 'valid') ORDER BY name`, [now, expiringMs]);
      return rows.map((r) => ({ name: r.name, notAfter: iso(r.not_after)!, current: r.current, notified: r.notified }));
    },
    /** what the overview shows: failures and certificates near or past their end */
    async attention(now: Date, expiringMs: number): Promise<CertificateRow[]> {
      const { rows } = await db.query(
        `SELECT * FROM certificates WHERE last_error IS NOT NULL OR not_after <= $1::timestamptz + $2::double precision * interval '1 millisecond' ORDER BY name`, [now, expiringMs]);
      return rows.map(rowOf);
    },
    async counts(): Promise<{ total: number; acme: number; upload: number; auto: number }> {
      const { rows } = await db.query<{ total: number; acme: number; upload: number; auto: number }>(
        `SELECT count(*)::int AS total, count(*) FILTER (WHERE source = 'acme')::int AS acme, count(*) FILTER (WHERE source = 'upload')::int AS upload,
           count(*) FILTER (WHERE origin = 'auto')::int AS auto FROM certificates`);
      return rows[0];
    },
    /** every certificate without its chain and key: what automatic HTTPS compares the routed hostnames with */
    async summaries(): Promise<CertificateRow[]> {
      const { rows } = await db.query(`SELECT name, domains, source, origin, challenge, NULL AS chain, NULL AS key_sealed, issuer, serial, not_before, not_after,
         renew_after, state, last_error, last_attempt_at, failures, next_attempt_at, notified, created_at, updated_at, chain IS NOT NULL AS held FROM certificates ORDER BY name`);
      return rows.map((r) => ({ ...rowOf(r), chain: r.held ? '' : null }));
    },
    /** the certificate automatic HTTPS makes for a hostname; false when the name is taken (by another instance's, or by a request or upload) */
    async autoRequest(hostname: string, challenge: string): Promise<boolean> {
      const { rows } = await db.query(
        `INSERT INTO certificates (name, domains, source, origin, challenge, state) VALUES ($1, $2, 'acme', 'auto', $3, 'pending')
         ON CONFLICT (name) DO NOTHING RETURNING name`, [hostname, [hostname], challenge]);
      return rows.length > 0;
    },
    /** a failed automatic certificate whose backoff has passed: pending again, claimed by one caller */
    async autoRetry(name: string, now: Date): Promise<boolean> {
      const { rows } = await db.query(
        `UPDATE certificates SET state = 'pending', updated_at = now() WHERE name = $1 AND origin = 'auto' AND chain IS NULL AND state = 'failed'
           AND (next_attempt_at IS NULL OR next_attempt_at <= $2) RETURNING name`, [name, now]);
      return rows.length > 0;
    },
    /** an automatic certificate no longer needed (its hostname went, or another certificate covers it) */
    async removeAuto(name: string): Promise<boolean> {
      return (await db.query(`DELETE FROM certificates WHERE name = $1 AND origin = 'auto' RETURNING name`, [name])).rows.length > 0;
    },
    /** a new ACME certificate, or a renewed request of an existing ACME one (an automatic one becomes requested); false when the name belongs to an upload */
    async request(name: string, domains: readonly string[], challenge: string): Promise<{ ok: boolean; created: boolean }> {
      const { rows } = await db.query(
        `INSERT INTO certificates (name, domains, source, challenge, state) VALUES ($1, $2, 'acme', $3, 'pending')
         ON CONFLICT (name) DO UPDATE SET domains = EXCLUDED.domains, challenge = EXCLUDED.challenge, origin = 'request', updated_at = now(),
           state = CASE WHEN certificates.chain IS NULL THEN 'pending' ELSE certificates.state END
         WHERE certificates.source = 'acme'
         RETURNING (xmax = 0) AS created`, [name, domains, challenge]);
      return rows[0] ? { ok: true, created: rows[0].created as boolean } : { ok: false, created: false };
    },
    async upload(name: string, issued: Issued, q: Db = db): Promise<boolean> {
      const { rows } = await q.query(
        `INSERT INTO certificates (name, domains, source, origin, chain, key_sealed, issuer, serial, not_before, not_after, state)
         VALUES ($1, $2, 'upload', 'upload', $3, $4, $5, $6, $7, $8, 'issued')
         ON CONFLICT (name) DO UPDATE SET domains = EXCLUDED.domains, chain = EXCLUDED.chain, key_sealed = EXCLUDED.key_sealed,
           issuer = EXCLUDED.issuer, serial = EXCLUDED.serial, not_before = EXCLUDED.not_before, not_after = EXCLUDED.not_after,
           state = 'issued', last_error = NULL, updated_at = now(), source = 'upload', origin = 'upload', challenge = NULL,
           renew_after = NULL, failures = 0, next_attempt_at = NULL
         WHERE certificates.source = 'upload' OR certificates.origin = 'auto'
         RETURNING name`,
        [name, issued.domains, issued.chain, issued.keySealed, issued.issuer, issued.serial, issued.notBefore, issued.notAfter]);
      return rows.length > 0;
    },
    async issued(name: string, issued: Issued, q: Db = db): Promise<void> {
      await q.query(
        `UPDATE certificates SET chain = $2, key_sealed = $3, issuer = $4, serial = $5, not_before = $6, not_after = $7, renew_after = $8,
           state = 'issued', last_error = NULL, last_attempt_at = now(), failures = 0, next_attempt_at = NULL, updated_at = now()
         WHERE name = $1 AND source = 'acme'`,
        [name, issued.chain, issued.keySealed, issued.issuer, issued.serial, issued.notBefore, issued.notAfter, issued.renewAfter]);
    },
    /** a failed issuance or renewal: the held chain (if any) stays, the next attempt waits `retryAt` */
    async failed(name: string, error: string, retryAt: Date): Promise<CertificateRow | null> {
      const { rows } = await db.query(
        `UPDATE certificates SET state = 'failed', last_error = $2, last_attempt_at = now(), failures = failures + 1, next_attempt_at = $3, updated_at = now()
         WHERE name = $1 AND source = 'acme' RETURNING *`, [name, error, retryAt]);
      return rows[0] ? rowOf(rows[0]) : null;
    },
    /** first issuances pending for a while (a just-made request has its job enqueued a moment later) */
    async pendingNames(): Promise<string[]> {
      return (await db.query<{ name: string }>(`SELECT name FROM certificates WHERE state = 'pending' AND updated_at < now() - interval '10 seconds' ORDER BY name`)).rows.map((r) => r.name);
    },
    async notified(name: string, what: string | null): Promise<void> {
      await db.query('UPDATE certificates SET notified = $2 WHERE name = $1', [name, what]);
    },
    async remove(name: string, q: Db = db): Promise<CertificateRow | null> {
      const { rows } = await q.query('DELETE FROM certificates WHERE name = $1 RETURNING *', [name]);
      return rows[0] ? rowOf(rows[0]) : null;
    },
    async account(directoryUrl: string): Promise<{ keySealed: string; accountUrl: string | null } | null> {
      const { rows } = await db.query<{ key_sealed: string; account_url: string | null }>('SELECT key_sealed, account_url FROM certificate_accounts WHERE directory_url = $1', [directoryUrl]);
      return rows[0] ? { keySealed: rows[0].key_sealed, accountUrl: rows[0].account_url } : null;
    },
    /** keeps the first account stored for a directory (two first requests at once race here) and answers the one kept */
    async saveAccount(directoryUrl: string, keySealed: string): Promise<string> {
      const { rows } = await db.query<{ key_sealed: string }>(
        `INSERT INTO certificate_accounts (directory_url, key_sealed) VALUES ($1, $2)
         ON CONFLICT (directory_url) DO UPDATE SET directory_url = EXCLUDED.directory_url RETURNING key_sealed`, [directoryUrl, keySealed]);
      return rows[0].key_sealed;
    },
    async setAccountUrl(directoryUrl: string, accountUrl: string): Promise<void> {
      await db.query('UPDATE certificate_accounts SET account_url = $2 WHERE directory_url = $1', [directoryUrl, accountUrl]);
    },
  };
}
export type CertificateStore = ReturnType<typeof createStore>;
