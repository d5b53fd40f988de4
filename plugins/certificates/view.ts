// What GET /certificates answers: the status a certificate is in now, and the hostnames of the edge it serves; never its key.
import { Type, type Static } from '../../sdk/index.ts';
import type { CertificateRow } from './store.ts';

export type Status = 'pending' | 'valid' | 'expiring' | 'expired' | 'failed';

const Time = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
export const CertificateView = Type.Object({
  name: Type.String(),
  domains: Type.Array(Type.String(), { description: 'the names it covers (`*.x` covers one label)' }),
  source: Type.Union([Type.Literal('acme'), Type.Literal('upload')]),
  origin: Type.Union([Type.Literal('request'), Type.Literal('upload'), Type.Literal('auto')], {
    description: 'request: asked for through POST /certificates/request; upload; auto: made by automatic HTTPS for a routed hostname (plugins.certificates.options.auto), '
      + 'removed when a requested or uploaded certificate covers that hostname or no owner holds it any more',
  }),
  challenge: Type.Union([Type.Literal('http-01'), Type.Literal('dns-01'), Type.Null()], { description: 'how an ACME certificate is validated' }),
  issuer: Type.Union([Type.String(), Type.Null()]),
  serial: Type.Union([Type.String(), Type.Null()], { description: 'hexadecimal, lowercase' }),
  notBefore: Time,
  notAfter: Time,
  status: Type.Union([Type.Literal('pending'), Type.Literal('valid'), Type.Literal('expiring'), Type.Literal('expired'), Type.Literal('failed')], {
    description: 'pending: first issuance under way; failed: issuance failed and nothing is held; expiring: within the expiry warning (14 days by default); '
      + 'a renewal that failed while a certificate is held keeps its status and shows lastError',
  }),
  lastError: Type.Union([Type.String(), Type.Null()], { description: 'why the last issuance or renewal failed (null after a success)' }),
  lastAttemptAt: Time,
  renewAfter: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when the renewal window opens (ACME only)' }),
  nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'after a failed renewal: the earliest next attempt (backoff)' }),
  usedBy: Type.Array(Type.String(), { description: 'hostnames of the edge this certificate serves (exact names before wildcards)' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}, { description: 'a certificate; its private key is never answered' });
export const CertificateDetail = Type.Intersect([CertificateView, Type.Object({
  chain: Type.Union([Type.String(), Type.Null()], { description: 'the PEM chain, leaf first' }),
})]);

export function statusOf(row: CertificateRow, now: Date, expiringMs: number): Status {
  if (!row.chain || !row.notAfter) return row.state === 'failed' ? 'failed' : 'pending';
  const left = Date.parse(row.notAfter) - now.getTime();
  if (left <= 0) return 'expired';
  return left <= expiringMs ? 'expiring' : 'valid';
}

/**
 * The hostnames each certificate serves: for every hostname the held, unexpired certificate naming it exactly wins;
 * otherwise one covering it by wildcard (the same choice Caddy makes by SNI).
 */
export function servedHostnames(usable: readonly { name: string; domains: string[] }[], hostnames: readonly string[], covers: (d: string, h: string) => boolean): Map<string, string[]> {
  const served = new Map<string, string[]>();
  for (const host of hostnames) {
    const best = usable.find((r) => r.domains.includes(host)) ?? usable.find((r) => r.domains.some((d) => covers(d, host)));
    if (best) served.set(best.name, [...(served.get(best.name) ?? []), host]);
  }
  return served;
}

export function viewOf(row: CertificateRow, usedBy: string[], now: Date, expiringMs: number): Static<typeof CertificateView> {
  return {
    name: row.name, domains: row.domains, source: row.source, origin: row.origin, challenge: row.challenge, issuer: row.issuer, serial: row.serial,
    notBefore: row.notBefore, notAfter: row.notAfter, status: statusOf(row, now, expiringMs), lastError: row.lastError,
    lastAttemptAt: row.lastAttemptAt, renewAfter: row.renewAfter, nextAttemptAt: row.nextAttemptAt, usedBy,
    createdAt: row.createdAt, updatedAt: row.updatedAt,
  };
}
