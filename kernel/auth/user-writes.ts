// The statements a change of users and teams runs in its transaction: the rules it checks, the memberships, the tokens and sessions it ends.
import type { Db } from '../../sdk/index.ts';
import { problem } from '../../sdk/index.ts';
import { passwordProblem } from './passwords.ts';
import { tokensChannel } from './tokens.ts';

/** the payload that makes every instance drop the principals it cached (a role, the teams or a user's tokens changed) */
export const usersChanged = 'users';

export async function join(tx: Db, team: string, user: string): Promise<boolean> {
  const { rows: [row] } = await tx.query<{ member: boolean }>('SELECT $2 = ANY(teams) AS member FROM users WHERE name = $1 FOR UPDATE', [user, team]);
  if (!row) throw problem(404, `no user "${user}"`);
  if (row.member) return false;
  await tx.query('UPDATE users SET teams = array_append(teams, $2) WHERE name = $1', [user, team]);
  return true;
}

export async function requireTeams(tx: Db, teams: string[]): Promise<void> {
  if (!teams.length) return;
  const { rows } = await tx.query<{ name: string }>('SELECT name FROM teams WHERE name = ANY($1)', [teams]);
  const missing = teams.filter((t) => !rows.some((r) => r.name === t));
  if (missing.length) throw problem(400, `no team ${missing.map((t) => `"${t}"`).join(', ')}: create it first (POST /api/v1/teams)`, { code: 'unknown-team' });
}

/** 409 unless another enabled admin remains (changes of users are serialised: two cannot each leave the other as the last) */
export async function keepAnAdmin(tx: Db, userId: number, what: 'demote' | 'disable' | 'remove'): Promise<void> {
  const { rows } = await tx.query<{ id: number }>(`SELECT id FROM users WHERE role = 'admin' AND NOT disabled`);
  if (rows.some((r) => r.id !== userId)) return;
  throw problem(409, `cannot ${what} the last enabled admin: make another user admin first`, { code: 'last-admin' });
}

export async function revokeTokens(tx: Db, userId: number): Promise<number> {
  const { rowCount } = await tx.query('UPDATE tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL', [userId]);
  return rowCount;
}

export async function endSessions(tx: Db, userId: number): Promise<number> {
  const { rowCount } = await tx.query('DELETE FROM sessions WHERE user_id = $1', [userId]);
  return rowCount;
}

export function checked(password: string): string {
  const bad = passwordProblem(password);
  if (bad) throw problem(400, bad, { code: 'weak-password' });
  return password;
}

/**
 * Changes of a user's role, state or existence wait for each other until commit, on every instance: two demotions of
 * the last two admins cannot both count the other as remaining (and row locks taken in two orders cannot deadlock).
 */
export async function serialise(tx: Db): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('dockwright.users'))");
}

/** every instance drops its cached principals when this commits (sessions are read from the database on each request) */
export async function announce(tx: Db): Promise<void> {
  await tx.query('SELECT pg_notify($1, $2)', [tokensChannel, usersChanged]);
}
