// Users and teams as the API manages them: role, teams, disabled, one-time passwords; the last admin kept; tokens and sessions ended everywhere at once.
import type { Db, Role } from '../../sdk/index.ts';
import { problem } from '../../sdk/index.ts';
import { hashPassword } from './passwords.ts';
import { announce, checked, endSessions, join, keepAnAdmin, requireTeams, revokeTokens, serialise } from './user-writes.ts';

export interface UserView {
  name: string; role: Role; teams: string[]; disabled: boolean;
  /** the user has a portal password */
  passwordSet: boolean;
  /** an admin gave a one-time password: the next sign-in must choose a new one */
  mustChangePassword: boolean;
  totpEnrolled: boolean;
  createdAt: string;
}
export interface TeamView { name: string; description: string; members: string[]; createdAt: string }

export interface UserChange { role?: Role; teams?: string[]; disabled?: boolean; password?: string }
/** what a change did, for the activity log: never a password */
export type ChangeDetail = Record<string, unknown>;

export { usersChanged } from './user-writes.ts';

const userColumns = `u.id, u.name, u.role, u.teams, u.disabled, u.password_hash IS NOT NULL AS "passwordSet",
  u.must_change_password AS "mustChangePassword", u.totp_enrolled_at IS NOT NULL AS "totpEnrolled", u.created_at AS "createdAt"`;
type UserRow = UserView & { id: number };
const view = ({ id: _, ...user }: UserRow): UserView => user;

/** what grants by name (a stack's access list) forgets a user or team as it is removed, in the removal's transaction */
export type ForgetPrincipal = (principal: string, tx: Db) => Promise<void>;

export class Users {
  constructor(private readonly db: Db, private readonly forget: ForgetPrincipal = async () => undefined) {}

  async list(after: string | undefined, limit: number): Promise<UserView[]> {
    const { rows } = await this.db.query<UserRow>(
      `SELECT ${userColumns} FROM users u WHERE $1::text IS NULL OR u.name > $1 ORDER BY u.name LIMIT $2`, [after ?? null, limit]);
    return rows.map(view);
  }

  async get(name: string, conn: Db = this.db, lock = false): Promise<UserRow> {
    const { rows: [row] } = await conn.query<UserRow>(`SELECT ${userColumns} FROM users u WHERE u.name = $1${lock ? ' FOR UPDATE' : ''}`, [name]);
    if (!row) throw problem(404, `no user "${name}"`);
    return row;
  }

  async view(name: string): Promise<UserView> {
    return view(await this.get(name));
  }

  /** a new user; `password` is a one-time password (changed at the first sign-in) */
  async create(input: { name: string; role: Role; teams?: string[]; password?: string }): Promise<UserView> {
    const teams = [...new Set(input.teams ?? [])];
    const hash = input.password === undefined ? null : await hashPassword(checked(input.password));
    return this.db.tx(async (tx) => {
      await requireTeams(tx, teams);
      const { rows: [row] } = await tx.query<{ id: number }>(
        `INSERT INTO users (name, role, teams, password_hash, must_change_password) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (name) DO NOTHING RETURNING id`, [input.name, input.role, teams, hash, hash !== null]);
      if (!row) throw problem(409, `user "${input.name}" already exists`, { code: 'user-exists' });
      return view(await this.get(input.name, tx));
    });
  }

  /**
   * Changes a user. Disabling revokes its tokens and ends its portal sessions; a role or team change reaches every
   * instance's cached principals through the revocation channel, in the same commit. 409 when it would leave no
   * enabled admin.
   */
  async update(name: string, change: UserChange): Promise<{ user: UserView; detail: ChangeDetail }> {
    const hash = change.password === undefined ? undefined : await hashPassword(checked(change.password));
    return this.db.tx(async (tx) => {
      await serialise(tx);
      const before = await this.get(name, tx, true);
      const teams = change.teams === undefined ? undefined : [...new Set(change.teams)];
      if (teams) await requireTeams(tx, teams);
      const role = change.role ?? before.role;
      const disabled = change.disabled ?? before.disabled;
      if (before.role === 'admin' && !before.disabled && (role !== 'admin' || disabled)) {
        await keepAnAdmin(tx, before.id, disabled ? 'disable' : 'demote');
      }
      const detail: ChangeDetail = {};
      if (role !== before.role) detail.role = { from: before.role, to: role };
      if (teams && (teams.length !== before.teams.length || teams.some((t) => !before.teams.includes(t)))) detail.teams = { from: before.teams, to: teams };
      if (disabled !== before.disabled) detail.disabled = disabled;
      // an admin's role replaces one a provider gave; teams an admin leaves out are no provider's grant either
      await tx.query(`UPDATE users SET oidc_role = oidc_role AND role = $2, oidc_teams = ARRAY(SELECT unnest(oidc_teams) INTERSECT SELECT unnest($3::text[])),
                             role = $2, teams = $3, disabled = $4 WHERE id = $1`, [before.id, role, teams ?? before.teams, disabled]);
      if (hash !== undefined) {
        await tx.query('UPDATE users SET password_hash = $2, must_change_password = true WHERE id = $1', [before.id, hash]);
        detail.password = 'one-time password set';
      }
      // a new password, or a disabled account, ends the portal sessions; disabling also revokes every token
      if (hash !== undefined || (disabled && !before.disabled)) detail.sessionsEnded = await endSessions(tx, before.id);
      if (disabled && !before.disabled) detail.tokensRevoked = await revokeTokens(tx, before.id);
      if (Object.keys(detail).length) await announce(tx);
      return { user: view(await this.get(name, tx)), detail };
    });
  }

  /** removes a user with its tokens and sessions (409 for the last enabled admin); answers what ended with it */
  async remove(name: string): Promise<ChangeDetail> {
    return this.db.tx(async (tx) => {
      await serialise(tx);
      const user = await this.get(name, tx, true);
      if (user.role === 'admin' && !user.disabled) await keepAnAdmin(tx, user.id, 'remove');
      const tokensRevoked = await revokeTokens(tx, user.id);
      const sessionsEnded = await endSessions(tx, user.id);
      await tx.query('DELETE FROM users WHERE id = $1', [user.id]);
      await this.forget(`user:${user.name}`, tx);
      await announce(tx);
      return { role: user.role, tokensRevoked, sessionsEnded };
    });
  }

  // ------------------------------------------------------------ teams

  async teams(after: string | undefined, limit: number): Promise<TeamView[]> {
    const { rows } = await this.db.query<TeamView>(
      `SELECT t.name, t.description, t.created_at AS "createdAt",
              coalesce((SELECT array_agg(u.name ORDER BY u.name) FROM users u WHERE t.name = ANY(u.teams)), '{}') AS members
         FROM teams t WHERE $1::text IS NULL OR t.name > $1 ORDER BY t.name LIMIT $2`, [after ?? null, limit]);
    return rows;
  }

  async team(name: string, conn: Db = this.db): Promise<TeamView> {
    const { rows: [row] } = await conn.query<TeamView>(
      `SELECT t.name, t.description, t.created_at AS "createdAt",
              coalesce((SELECT array_agg(u.name ORDER BY u.name) FROM users u WHERE t.name = ANY(u.teams)), '{}') AS members
         FROM teams t WHERE t.name = $1`, [name]);
    if (!row) throw problem(404, `no team "${name}"`);
    return row;
  }

  async createTeam(input: { name: string; description?: string; members?: string[] }): Promise<TeamView> {
    return this.db.tx(async (tx) => {
      const { rowCount } = await tx.query('INSERT INTO teams (name, description) VALUES ($1, $2) ON CONFLICT DO NOTHING', [input.name, input.description ?? '']);
      if (!rowCount) throw problem(409, `team "${input.name}" already exists`, { code: 'team-exists' });
      // in name order, as every transaction locks several users: two of them cannot wait for each other
      for (const member of [...new Set(input.members ?? [])].sort()) await join(tx, input.name, member);
      if (input.members?.length) await announce(tx);
      return this.team(input.name, tx);
    });
  }

  /** removes a team and every membership of it; answers its members */
  async removeTeam(name: string): Promise<string[]> {
    return this.db.tx(async (tx) => {
      const { members } = await this.team(name, tx);
      await tx.query('UPDATE users SET teams = array_remove(teams, $1) WHERE $1 = ANY(teams)', [name]);
      await tx.query('DELETE FROM teams WHERE name = $1', [name]);
      await this.forget(`team:${name}`, tx);
      if (members.length) await announce(tx);
      return members;
    });
  }

  async addMember(team: string, user: string): Promise<TeamView> {
    return this.db.tx(async (tx) => {
      await this.team(team, tx);
      if (await join(tx, team, user)) await announce(tx);
      return this.team(team, tx);
    });
  }

  async removeMember(team: string, user: string): Promise<void> {
    await this.db.tx(async (tx) => {
      await this.team(team, tx);
      const { rowCount } = await tx.query('UPDATE users SET teams = array_remove(teams, $2) WHERE name = $1 AND $2 = ANY(teams)', [user, team]);
      if (!rowCount) throw problem(404, `"${user}" is not a member of team "${team}"`);
      await announce(tx);
    });
  }
}
