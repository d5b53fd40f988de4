// Portal sign-in sessions: passwords checked, sessions kept as hashes, a cookie plus CSRF header resolved to the user's principal.
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Db, Principal, Role } from '../../sdk/index.ts';
import { isProblem, problem } from '../../sdk/index.ts';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.ts';
import { passSignInSteps, type SignInSteps } from './sign-in-steps.ts';
import type { ScopeCatalogue } from './scopes.ts';
import type { SignInLimit } from './sign-in-limit.ts';
import type { TwoFactor } from './totp.ts';
import { hashToken, newSecretToken, wellFormed } from './tokens.ts';

export const sessionCookie = 'dw_session';
export const csrfHeader = 'x-dockwright-csrf';
const sessionPrefix = 'dws_';

export interface SessionOptions {
  /** lifetime of a session from sign-in */
  ttlMs: number;
  /** failed sign-ins per account and per address in a minute before both are refused */
  failedSignInsPerMinute: number;
  /** every user signs in with a second factor: one without an enrolment enrols during sign-in */
  requireTotp: boolean;
}

export type { SignInSteps } from './sign-in-steps.ts';

export interface SignedIn {
  id: string; cookie: string; csrf: string; expiresAt: Date; user: { name: string; role: Role };
  /** the recovery codes of an enrolment confirmed by this sign-in, shown this once */
  recoveryCodes?: string[];
  /** the sign-in replaced a one-time password */
  passwordChanged: boolean;
}

function cookieValue(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === sessionCookie) return part.slice(eq + 1).trim();
  }
  return undefined;
}

// the hash of a request's well-formed session cookie, worked out once: both the rate limit and the authentication ask for it
const cookieHashes = new WeakMap<IncomingMessage, string | null>();
/** the hash of the request's session cookie; null when it has one of another shape, undefined when it has none */
function cookieHash(req: IncomingMessage): string | null | undefined {
  let hash = cookieHashes.get(req);
  if (hash === undefined) {
    const cookie = cookieValue(req);
    if (cookie === undefined) return undefined;
    hash = wellFormed(cookie, sessionPrefix) ? hashToken(cookie) : null;
    cookieHashes.set(req, hash);
  }
  return hash;
}

/** the rate-limit key of a well-formed session cookie: a portal session has a request budget of its own, like a token */
export function sessionBudgetKey(req: IncomingMessage): string | undefined {
  const hash = cookieHash(req);
  return hash ? `s:${hash}` : undefined;
}

/** the Set-Cookie value: HttpOnly and SameSite=Strict always, Secure whenever the browser reached us over HTTPS */
export function setCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${sessionCookie}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class Sessions {
  private readonly touched = new Map<string, number>();
  /** why a password sign-in of this user is refused (enforced single sign-on), or null: set by the OIDC sign-in */
  passwordRefused: (user: { name: string; role: Role }) => string | null = () => null;

  constructor(private readonly db: Db, private readonly scopes: ScopeCatalogue, readonly options: SessionOptions,
    private readonly failures: SignInLimit, private readonly twoFactor: TwoFactor) {}

  /**
   * Sets the user's password and, in the same statement, ends its portal sessions: all of them, or all but `keep` (the
   * session that made the change). Sessions are read from the database on every request, so every instance sees the
   * end at once. Answers how many sessions ended.
   */
  async setPassword(user: string, password: string, keep?: string): Promise<number> {
    const bad = passwordProblem(password);
    if (bad) throw problem(400, bad, { code: 'weak-password' });
    const { rows } = await this.db.query<{ users: number; ended: number }>(
      `WITH u AS (UPDATE users SET password_hash = $2, must_change_password = false WHERE name = $1 RETURNING id),
            s AS (DELETE FROM sessions WHERE user_id IN (SELECT id FROM u) AND id IS DISTINCT FROM $3::uuid RETURNING 1)
       SELECT (SELECT count(*) FROM u)::int AS users, (SELECT count(*) FROM s)::int AS ended`,
      [user, await hashPassword(password), keep ?? null]);
    if (!rows[0].users) throw problem(404, `no user "${user}"`);
    return rows[0].ended;
  }

  async checkPassword(user: string, password: string): Promise<boolean> {
    const { rows } = await this.db.query<{ password_hash: string | null }>('SELECT password_hash FROM users WHERE name = $1', [user]);
    return verifyPassword(password, rows[0]?.password_hash ?? null);
  }

  /**
   * A signed-in user's current password, checked under the sign-in limits (a stolen session or token cannot guess it
   * faster than a sign-in could): a 429 past them, a 403 when wrong, which counts as a failed sign-in. The failure is
   * counted before the check and given back when the password is right, so parallel guesses cannot pass the limit.
   */
  async confirmPassword(user: string, password: string, address: string): Promise<void> {
    const failure = await this.failures.reserve(user, address, 'wrong passwords');
    if (!(await this.checkPassword(user, password))) throw problem(403, 'the current password is wrong', { code: 'wrong-password' });
    await failure.release();
  }

  /**
   * A new session, after every step the account asks for; the steps are checked in this order and nothing changes
   * until all pass, so a caller repeats the same call with what the last answer asked for:
   * - the password: 401 `sign-in-failed` (the same for an unknown user, a wrong password and a disabled account);
   * - a one-time password given by an admin: 401 `password-change-required` until `newPassword` is sent;
   * - an enrolled authenticator: 401 `totp-required` until `code` is sent (a code of the authenticator or a recovery
   *   code); a wrong one is 401 `totp-failed`;
   * - with sessions.requireTotp and no enrolment: 401 `totp-enrolment-required` carrying a new secret (`totp`), until
   *   `code` confirms it; the answer then holds the enrolment's recovery codes.
   * Wrong passwords and wrong codes count against the account's and the address's sign-in limit (429 past it): each
   * attempt counts as failed before anything is checked and gives it back unless its password or its code was wrong.
   */
  async signIn(username: string, password: string, address: string, steps: SignInSteps = {}): Promise<SignedIn> {
    const failure = await this.failures.reserve(username, address, 'failed sign-ins');
    try {
      const signed = await this.signInSteps(username, password, address, steps);
      await failure.release();
      return signed;
    } catch (err) {
      if (!(isProblem(err) && (err.code === 'sign-in-failed' || err.code === 'totp-failed'))) await failure.release();
      throw err;
    }
  }

  private async signInSteps(username: string, password: string, address: string, steps: SignInSteps): Promise<SignedIn> {
    const account = { db: this.db, twoFactor: this.twoFactor, requireTotp: this.options.requireTotp, passwordRefused: this.passwordRefused };
    const { user, recoveryCodes } = await passSignInSteps(account, username, password, steps);
    if (user.must_change_password) await this.setPassword(user.name, steps.newPassword!);
    const opened = await this.open(user, address);
    return { ...opened, recoveryCodes, passwordChanged: user.must_change_password };
  }

  /** a new session of a user whose sign-in is done (a password and its steps, or an identity provider) */
  async open(user: { id: number; name: string; role: Role }, address: string): Promise<SignedIn> {
    const cookie = newSecretToken(sessionPrefix);
    const csrf = randomBytes(24).toString('base64url');
    const id = randomUUID();
    const expiresAt = new Date(Date.now() + this.options.ttlMs);
    await this.db.query('INSERT INTO sessions (id, hash, csrf, user_id, address, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [id, hashToken(cookie), csrf, user.id, address, expiresAt]);
    return { id, cookie, csrf, expiresAt, user: { name: user.name, role: user.role }, passwordChanged: false };
  }

  /**
   * The session of a request's cookie as the portal needs it after a redirect sign-in (its CSRF value included), or
   * null. Only a same-site request carries the cookie (SameSite=Strict), and another site cannot read the answer.
   */
  async current(headers: IncomingMessage['headers']): Promise<{ userId: number; user: { name: string; role: Role }; csrf: string; expiresAt: Date } | null> {
    const hash = cookieHash({ headers } as IncomingMessage);
    if (!hash) return null;
    const { rows: [row] } = await this.db.query<{ csrf: string; expires_at: Date; id: number; name: string; role: Role }>(
      `SELECT s.csrf, s.expires_at, u.id, u.name, u.role FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.hash = $1 AND s.expires_at > now() AND NOT u.disabled`, [hash]);
    return row ? { userId: row.id, user: { name: row.name, role: row.role }, csrf: row.csrf, expiresAt: new Date(row.expires_at) } : null;
  }

  /**
   * The principal of the request's session cookie: undefined without a cookie (the caller then asks for a bearer),
   * null for an unknown, expired or signed-out session, a 403 when the CSRF header is missing or wrong.
   */
  async authenticate(req: IncomingMessage): Promise<Principal | null | undefined> {
    const hash = cookieHash(req);
    if (hash === undefined) return undefined;
    if (hash === null) return null;
    const { rows } = await this.db.query<{ id: string; csrf: string; expires_at: string; user_id: number; name: string; role: Role; teams: string[] }>(
      `SELECT s.id, s.csrf, s.expires_at, u.id AS user_id, u.name, u.role, u.teams
         FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.hash = $1 AND s.expires_at > now() AND NOT u.disabled`, [hash]);
    const row = rows[0];
    if (!row) return null;
    const sent = req.headers[csrfHeader];
    if (typeof sent !== 'string' || !same(sent, row.csrf)) {
      throw problem(403, `a session cookie is only accepted with the ${csrfHeader} header given at sign-in`, { code: 'csrf' });
    }
    this.touch(row.id);
    const scopes = this.scopes.effective(['*'], row.role);
    const set = new Set(scopes);
    return {
      actor: { kind: 'user', name: row.name, channel: 'portal' },
      role: row.role, scopes, can: (s) => set.has(s),
      user: { id: row.user_id, name: row.name, role: row.role, teams: row.teams },
      session: { id: row.id, expiresAt: row.expires_at },
    };
  }

  async signOut(id: string): Promise<void> {
    await this.db.query('DELETE FROM sessions WHERE id = $1', [id]);
  }

  /** ends every session of the user ("sign out everywhere"); answers how many there were */
  async signOutEverywhere(userId: number): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM sessions WHERE user_id = $1', [userId]);
    await this.db.query('DELETE FROM sessions WHERE expires_at < now()');
    return rowCount;
  }

  private touch(id: string): void {
    const now = Date.now();
    if ((this.touched.get(id) ?? 0) > now - 60_000) return;
    if (this.touched.size > 10_000) this.touched.clear();
    this.touched.set(id, now);
    this.db.query('UPDATE sessions SET last_seen_at = now() WHERE id = $1', [id]).catch(() => undefined);
  }
}
