// CI federation (RFC 8693): trust policies, a CI job's signed OIDC token checked and exchanged for a short token of at most a policy's scopes and stacks.
import { randomUUID } from 'node:crypto';
import { decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { ActivityApi, Db, Principal } from '../../sdk/index.ts';
import { problem } from '../../sdk/index.ts';
import { IssuerKeys, issuerProblem } from './issuer-keys.ts';
import type { ScopeCatalogue } from './scopes.ts';
import { hashToken, newSecretToken, tokensChannel } from './tokens.ts';

export const federatedPrefix = 'dwf_';
/** the payload on the tokens channel that makes every instance drop its cached trust policies */
export const policiesChanged = 'federation';
/** the signature algorithms a subject token may use: asymmetric only (never `none`, never a shared secret) */
export const allowedAlgorithms = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
export const defaultTtlSeconds = 15 * 60;
export const maxTtlSeconds = 60 * 60;
const maxTokenLength = 16 * 1024;
const clockToleranceSeconds = 30;

export interface PolicyInput { issuer: string; audience: string; subject: string; claims?: Record<string, string>; scopes: string[]; stacks?: string[]; ttl?: string }
export interface PolicyView {
  id: string; issuer: string; audience: string; subject: string; claims: Record<string, string>; scopes: string[];
  stacks: string[] | null; ttl: string; createdBy: string; createdAt: string;
}
interface PolicyRow { id: string; issuer: string; audience: string; subject: string; claims: Record<string, string>; scopes: string[]; stacks: string[] | null; ttl_seconds: number; created_by: string; created_at: string }

/** why a token was refused: `code` is safe to answer, `reason` is for the activity log only */
export class ExchangeRefused extends Error {
  constructor(readonly code: 'invalid-token' | 'token-expired' | 'no-matching-policy' | 'token-replayed', readonly reason: string, readonly issuer?: string) {
    super(reason);
  }
}

export interface Exchanged { accessToken: string; expiresIn: number; policy: string; subject: string; matched: Record<string, unknown> }

/** `5m`, `900s`, `1h` as seconds; null when it is no such duration */
export function parseTtl(ttl: string): number | null {
  const m = /^(\d{1,5})(s|m|h)$/.exec(ttl);
  return m ? Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] as 's' | 'm' | 'h'] : null;
}
const ttlText = (seconds: number) => (seconds % 3600 === 0 ? `${seconds / 3600}h` : seconds % 60 === 0 ? `${seconds / 60}m` : `${seconds}s`);

/** a glob as a whole-string test: `*` any run of characters (`:` and `/` included), `?` one character, everything else itself */
export function globTest(glob: string): (value: string) => boolean {
  const source = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  const re = new RegExp(`^${source}$`, 's');
  return (value) => re.test(value);
}

const claimText = (value: unknown): string | null => (typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : null);
const clip = (value: unknown) => (typeof value === 'string' ? value.slice(0, 300) : value);

const view = (r: PolicyRow): PolicyView => ({
  id: r.id, issuer: r.issuer, audience: r.audience, subject: r.subject, claims: r.claims, scopes: r.scopes, stacks: r.stacks,
  ttl: ttlText(r.ttl_seconds), createdBy: r.created_by, createdAt: r.created_at,
});

/** a policy's issuer, scopes and ttl checked (400 problems); answers its ttl in seconds */
function checkedPolicy(input: PolicyInput, scopes: ScopeCatalogue): number {
  const bad = (path: string, message: string) => problem(400, `${path.slice(6)} ${message}`, { code: 'invalid-policy', errors: [{ path, message }] });
  const issuerBad = issuerProblem(input.issuer);
  if (issuerBad) throw bad('/body/issuer', issuerBad);
  const unknown = scopes.unknown(input.scopes);
  if (unknown.length || input.scopes.includes('*')) throw problem(400, `unknown scope(s): ${(unknown.length ? unknown : ['*']).join(', ')} (name each scope; "*" is not taken here)`, { code: 'unknown-scope' });
  const wide = input.scopes.filter((s) => !scopes.effective([s], 'operator').length);
  if (wide.length) throw problem(400, `a federated token holds at most what an operator may: ${wide.join(', ')} need admin`, { code: 'scope-too-wide' });
  const ttl = input.ttl === undefined ? defaultTtlSeconds : parseTtl(input.ttl);
  if (ttl === null || ttl < 60 || ttl > maxTtlSeconds) throw bad('/body/ttl', 'must be a duration from 60s to 1h ("15m", "1h", "300s")');
  return ttl;
}

/** the signature (with the issuer's keys, asymmetric algorithms only), the issuer, the time claims, and sub, exp and jti present */
async function verifySubjectToken(token: string, issuer: string, keys: IssuerKeys): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, keys.keyFor(issuer), {
      issuer, algorithms: allowedAlgorithms, clockTolerance: clockToleranceSeconds, requiredClaims: ['exp', 'sub', 'aud', 'jti'],
    });
    if (typeof payload.jti !== 'string' || !payload.jti || payload.jti.length > 300) throw new ExchangeRefused('invalid-token', 'the jti claim is missing or longer than 300 characters', issuer);
    return payload;
  } catch (err) {
    if (err instanceof ExchangeRefused) throw err;
    if (err instanceof joseErrors.JWTExpired) throw new ExchangeRefused('token-expired', 'the token has expired', issuer);
    if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'nbf') throw new ExchangeRefused('token-expired', 'the token is not valid yet (nbf)', issuer);
    throw new ExchangeRefused('invalid-token', `${(err as Error).name}: ${(err as Error).message}`, issuer);
  }
}

export class Federation {
  private exchanges = 0;
  /** trust policies by issuer, so an exchange costs one query less; kept only while changes reach this process (caching(true)) */
  private readonly policies = new Map<string, PolicyRow[]>();
  private cacheOn = false;

  constructor(private readonly db: Db, private readonly scopes: ScopeCatalogue, readonly keys: IssuerKeys, private readonly activity: ActivityApi) {}

  async list(): Promise<PolicyView[]> {
    const { rows } = await this.db.query<PolicyRow>('SELECT * FROM federation_policies ORDER BY created_at, id');
    return rows.map(view);
  }

  caching(on: boolean): void {
    this.cacheOn = on;
    this.policies.clear();
  }

  forget(): void {
    this.policies.clear();
  }

  private async policiesOf(issuer: string): Promise<PolicyRow[]> {
    const hit = this.cacheOn ? this.policies.get(issuer) : undefined;
    if (hit) return hit;
    const { rows } = await this.db.query<PolicyRow>('SELECT * FROM federation_policies WHERE issuer = $1 ORDER BY created_at, id', [issuer]);
    if (this.cacheOn && rows.length) {
      if (this.policies.size > 1000) this.policies.clear();
      this.policies.set(issuer, rows);
    }
    return rows;
  }

  /** a new trust policy (400 for a bad issuer, pattern, scope or ttl); federated tokens never hold more than an operator may */
  async create(input: PolicyInput, createdBy: string): Promise<PolicyView> {
    const ttl = checkedPolicy(input, this.scopes);
    const id = randomUUID();
    // the change and its announcement commit together: no instance goes on with the policies it cached
    const { rows: [row] } = await this.db.query<PolicyRow>(
      `WITH p AS (INSERT INTO federation_policies (id, issuer, audience, subject, claims, scopes, stacks, ttl_seconds, created_by)
                  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *)
       SELECT p.*, pg_notify($10, $11) FROM p`,
      [id, input.issuer, input.audience, input.subject, JSON.stringify(input.claims ?? {}), [...new Set(input.scopes)], input.stacks ? [...new Set(input.stacks)] : null, ttl, createdBy, tokensChannel, policiesChanged]);
    this.policies.clear();
    return view(row);
  }

  /** removes a policy and ends every token exchanged under it; false when there was none */
  async remove(id: string): Promise<PolicyView | null> {
    const { rows: [row] } = await this.db.query<PolicyRow>(
      'WITH p AS (DELETE FROM federation_policies WHERE id = $1 RETURNING *) SELECT p.*, pg_notify($2, $3) FROM p', [id, tokensChannel, policiesChanged]);
    this.policies.clear();
    return row ? view(row) : null;
  }

  /** the token exchange itself: every outcome is in the activity log, with the claims a policy matched */
  async exchange(subjectToken: string, address: string): Promise<Exchanged> {
    try {
      const match = await this.check(subjectToken);
      // the token and its audit entry commit together (one commit: an exchange costs one disk flush)
      return await this.db.tx(async (tx) => {
        const done = await this.issue(tx, match);
        await this.activity.record({
          actor: { kind: 'federation', name: done.subject.slice(0, 200), tokenId: done.tokenId, address },
          action: 'kernel.federation.exchange', resource: `federation:${done.policy}`, result: 'ok',
          detail: { matched: done.matched, scopes: done.scopes, stacks: done.stacks, expiresIn: done.expiresIn },
        }, tx);
        return done;
      });
    } catch (err) {
      if (!(err instanceof ExchangeRefused)) throw err;
      await this.activity.record({
        actor: { kind: 'federation', address }, action: 'kernel.federation.exchange', resource: null, result: 'refused',
        detail: { code: err.code, reason: err.reason.slice(0, 500), ...(err.issuer ? { issuer: err.issuer.slice(0, 300) } : {}) },
      });
      throw err;
    }
  }

  /** the token verified and the first policy it matches (no write yet) */
  private async check(subjectToken: string) {
    if (subjectToken.length > maxTokenLength) throw new ExchangeRefused('invalid-token', 'the token is longer than 16 KiB');
    let unverified: JWTPayload;
    try { unverified = decodeJwt(subjectToken); } catch { throw new ExchangeRefused('invalid-token', 'not a JWT'); }
    const issuer = typeof unverified.iss === 'string' ? unverified.iss : '';
    const policies = await this.policiesOf(issuer);
    if (!policies.length) throw new ExchangeRefused('no-matching-policy', 'no policy trusts this issuer', issuer);
    const payload = await verifySubjectToken(subjectToken, issuer, this.keys);
    const audiences = typeof payload.aud === 'string' ? [payload.aud] : payload.aud ?? [];
    const subject = payload.sub!;
    const policy = policies.find((p) => audiences.includes(p.audience) && globTest(p.subject)(subject)
      && Object.entries(p.claims).every(([k, glob]) => { const v = claimText(payload[k]); return v !== null && globTest(glob)(v); }));
    if (!policy) throw new ExchangeRefused('no-matching-policy', `no policy of this issuer matches the audience ${JSON.stringify(audiences).slice(0, 200)}, the subject ${subject.slice(0, 200)} and the claims`, issuer);
    const matched: Record<string, unknown> = { iss: issuer, aud: policy.audience, sub: subject };
    for (const k of Object.keys(policy.claims)) matched[k] = clip(payload[k]);
    return { issuer, payload, subject, policy, matched };
  }

  /** the jti taken and the token written, in the caller's transaction */
  private async issue(tx: Db, { issuer, payload, subject, policy, matched }: Awaited<ReturnType<Federation['check']>>) {
    const accessToken = newSecretToken(federatedPrefix);
    const tokenId = randomUUID();
    const scopes = this.scopes.effective(policy.scopes, 'operator');
    // the jti taken and the token written in one statement: a replayed jti writes nothing; a policy removed meanwhile neither
    const { rows: [written] } = await tx.query<{ fresh: number; issued: number }>(
      `WITH j AS (INSERT INTO federation_jti (issuer, jti, expires_at) VALUES ($1, $2, to_timestamp($3) + interval '${clockToleranceSeconds} seconds') ON CONFLICT DO NOTHING RETURNING 1),
            t AS (INSERT INTO federation_tokens (id, policy_id, hash, subject, scopes, stacks, expires_at)
                  SELECT $4, id, $5, $6, $7, stacks, now() + make_interval(secs => ttl_seconds) FROM federation_policies WHERE id = $8 AND EXISTS (SELECT 1 FROM j) RETURNING 1)
       SELECT (SELECT count(*) FROM j)::int AS fresh, (SELECT count(*) FROM t)::int AS issued`,
      [issuer, payload.jti, payload.exp, tokenId, hashToken(accessToken), subject.slice(0, 1000), scopes, policy.id]);
    if (!written.fresh) throw new ExchangeRefused('token-replayed', `the jti ${String(payload.jti).slice(0, 100)} was exchanged before`, issuer);
    if (!written.issued) throw new ExchangeRefused('no-matching-policy', 'the policy was removed during the exchange', issuer);
    if (++this.exchanges % 100 === 1) this.sweep();
    return { accessToken, expiresIn: policy.ttl_seconds, policy: policy.id, subject, matched, tokenId, scopes, stacks: policy.stacks };
  }

  /** expired tokens and jti records removed, now and then, in the background */
  private sweep(): void {
    this.db.query('DELETE FROM federation_jti WHERE expires_at < now()').catch(() => undefined);
    this.db.query(`DELETE FROM federation_tokens WHERE expires_at < now() - interval '1 day'`).catch(() => undefined);
  }

  /** the principal of a live federated token: its scopes, limited to its policy's stacks; never a user, never an admin */
  async authenticate(tokenHash: string): Promise<Principal | null> {
    const { rows: [row] } = await this.db.query<{ id: string; policy_id: string; subject: string; scopes: string[]; stacks: string[] | null; expires_at: string }>(
      'SELECT id, policy_id, subject, scopes, stacks, expires_at FROM federation_tokens WHERE hash = $1 AND expires_at > now()', [tokenHash]);
    if (!row) return null;
    const scopes = this.scopes.effective(row.scopes, 'operator');
    const set = new Set(scopes);
    return {
      actor: { kind: 'federation', name: row.subject.slice(0, 200), tokenId: row.id },
      role: 'operator', scopes, can: (s) => set.has(s),
      token: { id: row.id, name: `federation:${row.policy_id}`, expiresAt: row.expires_at },
      ...(row.stacks ? { stacks: row.stacks } : {}),
    };
  }
}
