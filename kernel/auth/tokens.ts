// Users and personal tokens: creation, listing, revocation, and resolving a bearer token to a principal.
import { randomBytes, createHash, randomUUID } from 'node:crypto';
import * as crypto from 'node:crypto';
import type { Db, Principal, Role } from '../../sdk/index.ts';
import type { ScopeCatalogue } from './scopes.ts';

export const tokenPrefix = 'dw_';
/** the names of users and teams: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit */
export const accountName = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';

export function newSecretToken(prefix = tokenPrefix): string {
  return prefix + randomBytes(32).toString('base64url');
}
/** the shape newSecretToken gives (prefix + 43 base64url characters): any other bearer is refused without a database lookup */
export function wellFormed(token: string, prefix = tokenPrefix): boolean {
  return token.length === prefix.length + 43 && token.startsWith(prefix) && /^[\w-]+$/.test(token);
}
// crypto.hash (Node 20.12+) hashes in one call, without a Hash object per request
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;
export function hashToken(token: string): string {
  return oneShot ? oneShot('sha256', token, 'hex') : createHash('sha256').update(token).digest('hex');
}

export interface TokenRow {
  id: string; name: string; prefix: string; user: string; scopes: string[];
  expiresAt: string | null; revokedAt: string | null; lastUsedAt: string | null; createdAt: string;
}

export function principalOf(user: { id: number; name: string; role: Role; teams: readonly string[] }, token: { id: string; name: string; expiresAt: string | null }, scopes: string[]): Principal {
  const set = new Set(scopes);
  return {
    actor: { kind: 'user', name: user.name, tokenId: token.id },
    role: user.role,
    scopes,
    can: (scope) => set.has(scope),
    user,
    token,
  };
}

/** the channel on which token revocations are announced to every running process */
export const tokensChannel = 'dockwright_tokens';
const cacheMs = 30_000;
const cacheMax = 10_000;

export class Tokens {
  /** last_used_at is written at most once a minute per token: a write per request would cost more than the request. */
  private readonly touched = new Map<string, number>();
  /**
   * Live tokens by hash, so an authenticated request costs no query. Only used while revocations reach this process
   * (caching(true) after LISTEN works); every revocation clears it, and entries also age out after 30 s.
   */
  private readonly cache = new Map<string, { principal: Principal; until: number; expiresAt: number | null }>();
  private cacheOn = false;

  get cachingOn(): boolean {
    return this.cacheOn;
  }

  constructor(private readonly db: Db, private readonly scopes: ScopeCatalogue) {}

  /** a user (the CLI, tests): teams it names that do not exist yet are created */
  async addUser(name: string, role: Role, teams: readonly string[] = []): Promise<{ id: number; name: string; role: Role; teams: readonly string[] }> {
    const valid = new RegExp(accountName);
    if (!valid.test(name)) throw new Error(`user name "${name}" must be 1-64 letters, digits, '.', '_' or '-'`);
    const bad = teams.find((t) => !valid.test(t));
    if (bad !== undefined) throw new Error(`team name "${bad}" must be 1-64 letters, digits, '.', '_' or '-'`);
    const { rows } = await this.db.query<{ id: number }>(
      `WITH t AS (INSERT INTO teams (name) SELECT unnest($3::text[]) ON CONFLICT DO NOTHING)
       INSERT INTO users (name, role, teams) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING RETURNING id`, [name, role, teams]);
    if (!rows[0]) throw new Error(`user "${name}" already exists`);
    return { id: rows[0].id, name, role, teams };
  }

  async userCount(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users');
    return rows[0].n;
  }

  /** creates a token and returns it once, with its id; only its hash is kept. */
  async create(opts: { user: string; name: string; scopes: readonly string[]; expiresAt?: Date | null }): Promise<{ id: string; token: string }> {
    const unknown = this.scopes.unknown(opts.scopes);
    if (unknown.length) throw new Error(`unknown scope(s): ${unknown.join(', ')}`);
    if (!opts.scopes.length) throw new Error('a token needs at least one scope');
    const token = newSecretToken();
    const id = randomUUID();
    const { rowCount } = await this.db.query(
      `INSERT INTO tokens (id, user_id, name, prefix, hash, scopes, expires_at)
       SELECT $1, id, $3, $4, $5, $6, $7 FROM users WHERE name = $2`,
      [id, opts.user, opts.name, token.slice(0, tokenPrefix.length + 6), hashToken(token), opts.scopes, opts.expiresAt ?? null],
    );
    if (!rowCount) throw new Error(`no user "${opts.user}"`);
    return { id, token };
  }

  async list(user?: string): Promise<TokenRow[]> {
    const { rows } = await this.db.query<TokenRow>(
      `SELECT t.id, t.name, t.prefix, u.name AS "user", t.scopes, t.expires_at AS "expiresAt", t.revoked_at AS "revokedAt",
              t.last_used_at AS "lastUsedAt", t.created_at AS "createdAt"
         FROM tokens t JOIN users u ON u.id = t.user_id WHERE $1::text IS NULL OR u.name = $1 ORDER BY t.created_at`,
      [user ?? null],
    );
    return rows;
  }

  /** revokes by id or by the displayed prefix; true when a live token was revoked. */
  async revoke(idOrPrefix: string): Promise<boolean> {
    const isId = /^[0-9a-f-]{36}$/i.test(idOrPrefix);
    // the revocation and its announcement commit together: no instance can go on trusting its cache once it is visible
    const { rows } = await this.db.query<{ revoked: number }>(
      `WITH r AS (UPDATE tokens SET revoked_at = now() WHERE ${isId ? 'id = $1::uuid' : 'prefix = $1'} AND revoked_at IS NULL RETURNING 1)
       SELECT (SELECT count(*) FROM r)::int AS revoked, pg_notify($2, 'revoked')`,
      [idOrPrefix, tokensChannel],
    );
    this.cache.clear();
    return rows[0].revoked > 0;
  }

  caching(on: boolean): void {
    this.cacheOn = on;
    this.cache.clear();
  }

  forget(): void {
    this.cache.clear();
  }

  /** the principal of a live token, or null (unknown, revoked or expired); a cached one without a promise. */
  authenticate(bearer: string, hash = hashToken(bearer)): Principal | null | Promise<Principal | null> {
    if (!bearer.startsWith(tokenPrefix) || bearer.length > 200) return null;
    const now = Date.now();
    const hit = this.cacheOn ? this.cache.get(hash) : undefined;
    if (hit && hit.until > now && (hit.expiresAt === null || hit.expiresAt > now)) {
      this.touch(hit.principal.token!.id);
      return hit.principal;
    }
    return this.lookup(hash, now);
  }

  private async lookup(hash: string, now: number): Promise<Principal | null> {
    const { rows } = await this.db.query<{ id: string; name: string; scopes: string[]; expires_at: string | null; user_id: number; user_name: string; role: Role; teams: string[] }>(
      `SELECT t.id, t.name, t.scopes, t.expires_at, u.id AS user_id, u.name AS user_name, u.role, u.teams
         FROM tokens t JOIN users u ON u.id = t.user_id
        WHERE t.hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now()) AND NOT u.disabled`,
      [hash],
    );
    const row = rows[0];
    if (!row) return null;
    this.touch(row.id);
    const principal = principalOf({ id: row.user_id, name: row.user_name, role: row.role, teams: row.teams }, { id: row.id, name: row.name, expiresAt: row.expires_at },
      this.scopes.effective(row.scopes, row.role));
    if (this.cacheOn) {
      if (this.cache.size >= cacheMax) this.cache.clear();
      this.cache.set(hash, { principal, until: now + cacheMs, expiresAt: row.expires_at ? Date.parse(row.expires_at) : null });
    }
    return principal;
  }

  private touch(id: string): void {
    const now = Date.now();
    if ((this.touched.get(id) ?? 0) > now - 60_000) return;
    this.touched.set(id, now);
    this.db.query('UPDATE tokens SET last_used_at = now() WHERE id = $1', [id]).catch(() => undefined);
  }
}
