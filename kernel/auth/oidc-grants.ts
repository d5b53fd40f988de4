// The account of an identity and what its groups give: linked by (issuer, subject), made just in time, a role and teams from the mappings recomputed at each sign-in with removals, kept apart from an admin's grants.
import type { Db, Role } from '../../sdk/index.ts';
import type { Static } from '@sinclair/typebox';
import type { OidcProviderSchema } from '../config.ts';
import { accountName, tokensChannel } from './tokens.ts';
import { usersChanged } from './users.ts';

export type OidcProvider = Static<typeof OidcProviderSchema>;

/** a sign-in refused: `code` is shown to the browser, `reason` is for the activity log */
export class SignInRefused extends Error {
  constructor(readonly code: string, readonly reason: string) { super(reason); }
}

const rank: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** the groups at a dotted claim path (`groups`, `realm_access.roles`): an array of strings, or one string */
export function groupsOf(claims: Record<string, unknown>, path = 'groups'): string[] {
  let at: unknown = claims;
  for (const key of path.split('.')) at = at && typeof at === 'object' && !Array.isArray(at) ? (at as Record<string, unknown>)[key] : undefined;
  if (typeof at === 'string') return [at];
  return Array.isArray(at) ? at.filter((g): g is string => typeof g === 'string').slice(0, 1000) : [];
}

export interface Grants { role: Role | null; teams: string[]; groups: string[] }

/** the role (the highest mapped; else the provider's default, null when none) and the teams the groups map to */
export function grantsOf(provider: OidcProvider, claims: Record<string, unknown>): Grants {
  const groups = groupsOf(claims, provider.groupsClaim);
  const matched = (provider.mappings ?? []).filter((m) => groups.includes(m.group));
  let role: Role | null = null;
  for (const m of matched) if (m.role && (role === null || rank[m.role] > rank[role])) role = m.role;
  return { role: role ?? provider.defaultRole ?? null, teams: [...new Set(matched.flatMap((m) => (m.team ? [m.team] : [])))].sort(), groups };
}

export interface UserGrantRow { id: number; name: string; role: Role; teams: string[]; disabled: boolean; oidc_role: boolean; oidc_teams: string[] }
export type Applied = { user: UserGrantRow; detail: Record<string, unknown> } | { refused: string; detail: Record<string, unknown> };

/**
 * Applies a sign-in's grants to a user, in the caller's transaction: a role an admin gave stays (never mixed); one a
 * provider gave follows the mappings, and without a mapped or default role the sign-in is refused and the role
 * lowered to viewer. The teams a provider gave are replaced by those mapped now; an admin's stay.
 */
export async function applyGrants(tx: Db, user: UserGrantRow, grants: Grants): Promise<Applied> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('dockwright.users'))");
  const manual = user.teams.filter((t) => !user.oidc_teams.includes(t));
  const oidcTeams = grants.teams.filter((t) => !manual.includes(t));
  const teams = [...manual, ...oidcTeams];
  let role = user.role;
  let refused: string | null = null;
  if (user.oidc_role) {
    if (grants.role) role = grants.role;
    else { role = 'viewer'; refused = 'no mapping gives this account a role, and the provider has no default role'; }
  }
  if (user.role === 'admin' && role !== 'admin') {
    const { rows } = await tx.query<{ id: number }>(`SELECT id FROM users WHERE role = 'admin' AND NOT disabled AND id <> $1 LIMIT 1`, [user.id]);
    if (!rows.length) role = 'admin';
  }
  const detail: Record<string, unknown> = { groups: grants.groups.slice(0, 50) };
  if (role !== user.role) detail.role = { from: user.role, to: role };
  const added = oidcTeams.filter((t) => !user.teams.includes(t));
  const removed = user.oidc_teams.filter((t) => !oidcTeams.includes(t));
  if (added.length) detail.teamsAdded = added;
  if (removed.length) detail.teamsRemoved = removed;
  if (added.length) await tx.query('INSERT INTO teams (name) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING', [added]);
  if (role !== user.role || added.length || removed.length) {
    await tx.query('UPDATE users SET role = $2, teams = $3, oidc_teams = $4 WHERE id = $1', [user.id, role, teams, oidcTeams]);
    await tx.query('SELECT pg_notify($1, $2)', [tokensChannel, usersChanged]);
  }
  if (refused) return { refused, detail };
  return { user: { ...user, role, teams, oidc_teams: oidcTeams }, detail };
}

/** a free account name for a new user: the provider's preferred name (or the e-mail's local part), never an existing account's */
export async function freeName(db: Db, claims: Record<string, unknown>, subject: string): Promise<string> {
  const wanted = [claims.preferred_username, typeof claims.email === 'string' ? claims.email.split('@')[0] : undefined, `user-${subject}`]
    .find((v): v is string => typeof v === 'string' && v.length > 0)!;
  let base = wanted.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 56) || 'user';
  if (!new RegExp(accountName).test(base)) base = 'user';
  const { rows } = await db.query<{ name: string }>(`SELECT name FROM users WHERE name = $1 OR name LIKE $2`, [base, `${base}-%`]);
  const taken = new Set(rows.map((r) => r.name));
  if (!taken.has(base)) return base;
  for (let n = 2; n < 1000; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
  throw new Error(`no free account name near ${base}`);
}

/** with allowedDomains, a verified e-mail address in one of them */
export function checkDomain(provider: OidcProvider, claims: Record<string, unknown>): void {
  if (!provider.allowedDomains?.length) return;
  const email = typeof claims.email === 'string' ? claims.email.toLowerCase() : '';
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (claims.email_verified !== true || !email.includes('@') || !provider.allowedDomains.some((d) => d.toLowerCase() === domain)) {
    throw new SignInRefused('domain-not-allowed', `the e-mail address ${email.slice(0, 200) || '(none)'} is not verified or not in an allowed domain`);
  }
}

/** the account linked to (issuer, subject): linked now to the signed-in user who asked, or made (JIT); then the grants applied */
export async function linkedAccount(db: Db, provider: OidcProvider, claims: Record<string, unknown> & { iss: string; sub: string }, linkUserId: number | null) {
  type Result = { user: UserGrantRow; detail: Record<string, unknown> } | { refusedWith: string };
  const result = await db.tx(async (tx): Promise<Result> => {
    const columns = 'u.id, u.name, u.role, u.teams, u.disabled, u.oidc_role, u.oidc_teams';
    let { rows: [user] } = await tx.query<UserGrantRow>(
      `SELECT ${columns} FROM oidc_identities i JOIN users u ON u.id = i.user_id WHERE i.issuer = $1 AND i.subject = $2 FOR UPDATE OF u`, [claims.iss, claims.sub]);
    let created = false;
    if (user && linkUserId !== null && user.id !== linkUserId) throw new SignInRefused('linked-elsewhere', `this identity is linked to another account (${user.name})`);
    if (!user && linkUserId !== null) {
      ({ rows: [user] } = await tx.query<UserGrantRow>(`SELECT ${columns} FROM users u WHERE u.id = $1 FOR UPDATE`, [linkUserId]));
      await tx.query('INSERT INTO oidc_identities (issuer, subject, provider, user_id) VALUES ($1, $2, $3, $4)', [claims.iss, claims.sub, provider.name, linkUserId]);
    }
    const grants = grantsOf(provider, claims);
    if (!user) {
      if (provider.jit === false) throw new SignInRefused('no-account', 'no account is linked to this identity, and this provider makes none');
      if (!grants.role) throw new SignInRefused('no-mapping', 'no mapping gives this identity a role, and the provider has no default role');
      const name = await freeName(tx, claims, claims.sub);
      ({ rows: [user] } = await tx.query<UserGrantRow>(
        `INSERT INTO users (name, role, teams, oidc_role) VALUES ($1, $2, '{}', true) RETURNING id, name, role, teams, disabled, oidc_role, oidc_teams`, [name, grants.role]));
      await tx.query('INSERT INTO oidc_identities (issuer, subject, provider, user_id) VALUES ($1, $2, $3, $4)', [claims.iss, claims.sub, provider.name, user.id]);
      created = true;
    }
    if (user.disabled) throw new SignInRefused('account-disabled', `the account ${user.name} is disabled`);
    const applied = await applyGrants(tx, user, grants);
    if ('refused' in applied) {
      // the lowered role stays (this transaction commits), the sign-in does not happen
      return { refusedWith: applied.refused };
    }
    await tx.query('UPDATE oidc_identities SET last_sign_in_at = now() WHERE issuer = $1 AND subject = $2', [claims.iss, claims.sub]);
    return { user: applied.user, detail: { ...applied.detail, ...(created ? { created: true } : {}), ...(linkUserId !== null ? { linked: true } : {}) } };
  });
  if ('refusedWith' in result) throw new SignInRefused('no-mapping', result.refusedWith);
  return result;
}
