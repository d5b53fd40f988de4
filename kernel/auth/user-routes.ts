// The /users and /teams endpoints (scopes users:read, users:write): every change is in the activity log with what it changed, never a password.
import { Type } from '@sinclair/typebox';
import type { ActivityApi, Actor, Role } from '../../sdk/index.ts';
import { defineRoute, pageOf, Problem, roles, type AnyRoute } from '../../sdk/index.ts';
import type { TwoFactor } from './totp.ts';
import { accountName } from './tokens.ts';
import type { Users } from './users.ts';

export interface UserRouteDeps { users: Users; twoFactor: TwoFactor; activity: ActivityApi }

const Name = Type.String({ pattern: accountName, description: "1-64 letters, digits, '.', '_' or '-'" });
const RoleSchema = Type.Union(roles.map((r) => Type.Literal(r)));
const Teams = Type.Array(Name, { maxItems: 100, description: 'names of existing teams' });
const OneTimePassword = Type.String({ minLength: 1, maxLength: 256, description: 'a one-time password (at least 10 characters): the next sign-in must replace it; the user\'s portal sessions end' });

const UserSchema = Type.Object({
  name: Type.String(), role: RoleSchema, teams: Type.Array(Type.String()), disabled: Type.Boolean(),
  passwordSet: Type.Boolean({ description: 'the user has a portal password' }),
  mustChangePassword: Type.Boolean({ description: 'the password is a one-time password: the next sign-in replaces it' }),
  totpEnrolled: Type.Boolean({ description: 'sign-ins need a code of an authenticator app' }),
  createdAt: Type.String({ format: 'date-time' }),
}, { description: 'a user (never its password, authenticator secret or recovery codes)' });
const TeamSchema = Type.Object({
  name: Type.String(), description: Type.String(), members: Type.Array(Type.String()), createdAt: Type.String({ format: 'date-time' }),
});
const UserParams = Type.Object({ name: Name });
const NameCursor = Type.String({ pattern: accountName });

export function userRoutes(deps: UserRouteDeps): AnyRoute[] {
  const { users, twoFactor } = deps;

  /** the change and its result in the activity log, refusals included (the kernel's own entry cannot carry what changed) */
  async function audit<T>(actor: Actor, action: string, resource: string, change: () => Promise<{ value: T; detail?: Record<string, unknown> }>): Promise<T> {
    try {
      const { value, detail } = await change();
      await deps.activity.record({ actor, action, resource, result: 'ok', detail });
      return value;
    } catch (err) {
      const status = err instanceof Problem ? err.status : 500;
      await deps.activity.record({ actor, action, resource, result: status === 409 || status === 403 ? 'refused' : 'failed', detail: { status, ...(err instanceof Problem ? { reason: err.detail } : {}) } });
      throw err;
    }
  }

  return [
    defineRoute({
      method: 'GET', path: '/users', scopes: ['users:read'], page: true, cursor: NameCursor, response: UserSchema, summary: 'List the users by name',
      handler: async ({ page }) => {
        const { shown, next } = pageOf(await users.list(page.cursor, page.limit + 1), page.limit, (u) => u.name);
        return { items: shown, next };
      },
    }),
    defineRoute({
      method: 'POST', path: '/users', scopes: ['users:write'], status: 201, activity: false, errors: [409],
      summary: 'Create a user; with password, a one-time password the first sign-in replaces',
      description: 'Without a password the user signs in only once an admin sets one (PATCH, or the CLI). Teams must exist.',
      body: Type.Object({ name: Name, role: RoleSchema, teams: Type.Optional(Teams), password: Type.Optional(OneTimePassword) }, { additionalProperties: false }),
      response: UserSchema,
      handler: async ({ body, principal }) => audit(principal.actor, 'kernel.user.create', `user:${body.name}`, async () => {
        const user = await users.create(body);
        return { value: user, detail: { role: user.role, teams: user.teams, password: body.password === undefined ? 'none' : 'one-time password set' } };
      }),
    }),
    defineRoute({
      method: 'GET', path: '/users/:name', scopes: ['users:read'], params: UserParams, response: UserSchema, summary: 'One user',
      handler: async ({ params }) => users.view(params.name),
    }),
    defineRoute({
      method: 'PATCH', path: '/users/:name', scopes: ['users:write'], activity: false, params: UserParams, errors: [409],
      summary: 'Change a user: role, teams, disabled, or a one-time password',
      description: 'Disabling revokes every token of the user and ends its portal sessions at once, on every instance; enabling again gives none back. '
        + 'A one-time password ends the user\'s portal sessions, and the next sign-in must replace it. '
        + 'The last enabled admin cannot be demoted or disabled (409 last-admin).',
      body: Type.Object({
        role: Type.Optional(RoleSchema), teams: Type.Optional(Teams), disabled: Type.Optional(Type.Boolean()), password: Type.Optional(OneTimePassword),
      }, { additionalProperties: false, minProperties: 1 }),
      response: UserSchema,
      handler: async ({ params, body, principal }) => audit(principal.actor, 'kernel.user.update', `user:${params.name}`, async () => {
        const { user, detail } = await users.update(params.name, { ...body, role: body.role as Role | undefined });
        return { value: user, detail };
      }),
    }),
    defineRoute({
      method: 'DELETE', path: '/users/:name', scopes: ['users:write'], activity: false, status: 204, params: UserParams, errors: [409],
      summary: 'Remove a user: its tokens are revoked and its portal sessions end at once, on every instance',
      description: 'The last enabled admin cannot be removed (409 last-admin). What the user did stays in the activity log under its name.',
      handler: async ({ params, principal }) => {
        await audit(principal.actor, 'kernel.user.delete', `user:${params.name}`, async () => ({ value: undefined, detail: await users.remove(params.name) }));
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/users/:name/totp', scopes: ['users:write'], activity: false, status: 204, params: UserParams,
      summary: "Reset a user's two-factor sign-in (a lost device): its authenticator and recovery codes are removed",
      description: 'The user signs in with the password alone, or enrols again at sign-in when sessions.requireTotp is on.',
      handler: async ({ params, principal }) => {
        await audit(principal.actor, 'kernel.totp.reset', `user:${params.name}`, async () => {
          const user = await users.get(params.name);
          return { value: undefined, detail: { wasEnrolled: await twoFactor.reset(user.id) } };
        });
      },
    }),

    defineRoute({
      method: 'GET', path: '/teams', scopes: ['users:read'], page: true, cursor: NameCursor, response: TeamSchema, summary: 'List the teams with their members',
      handler: async ({ page }) => {
        const { shown, next } = pageOf(await users.teams(page.cursor, page.limit + 1), page.limit, (t) => t.name);
        return { items: shown, next };
      },
    }),
    defineRoute({
      method: 'POST', path: '/teams', scopes: ['users:write'], status: 201, activity: false, errors: [404, 409],
      summary: 'Create a team, optionally with members', description: 'Access lists name a team as team:<name>.',
      body: Type.Object({ name: Name, description: Type.Optional(Type.String({ maxLength: 500 })), members: Type.Optional(Type.Array(Name, { maxItems: 1000 })) }, { additionalProperties: false }),
      response: TeamSchema,
      handler: async ({ body, principal }) => audit(principal.actor, 'kernel.team.create', `team:${body.name}`, async () => {
        const team = await users.createTeam(body);
        return { value: team, detail: { members: team.members } };
      }),
    }),
    defineRoute({
      method: 'GET', path: '/teams/:name', scopes: ['users:read'], params: UserParams, response: TeamSchema, summary: 'One team with its members',
      handler: async ({ params }) => users.team(params.name),
    }),
    defineRoute({
      method: 'DELETE', path: '/teams/:name', scopes: ['users:write'], activity: false, status: 204, params: UserParams,
      summary: 'Remove a team: its members leave it (access list entries naming it grant nothing from then on)',
      handler: async ({ params, principal }) => {
        await audit(principal.actor, 'kernel.team.delete', `team:${params.name}`, async () => ({ value: undefined, detail: { members: await users.removeTeam(params.name) } }));
      },
    }),
    defineRoute({
      method: 'POST', path: '/teams/:name/members', scopes: ['users:write'], activity: false, params: UserParams, errors: [404],
      summary: 'Add a user to a team (already a member: nothing changes)',
      body: Type.Object({ user: Name }, { additionalProperties: false }),
      response: TeamSchema,
      handler: async ({ params, body, principal }) => audit(principal.actor, 'kernel.team.member.add', `team:${params.name}`, async () => ({
        value: await users.addMember(params.name, body.user), detail: { user: body.user },
      })),
    }),
    defineRoute({
      method: 'DELETE', path: '/teams/:name/members/:user', scopes: ['users:write'], activity: false, status: 204,
      params: Type.Object({ name: Name, user: Name }),
      summary: 'Remove a user from a team',
      handler: async ({ params, principal }) => {
        await audit(principal.actor, 'kernel.team.member.remove', `team:${params.name}`, async () => {
          await users.removeMember(params.name, params.user);
          return { value: undefined, detail: { user: params.user } };
        });
      },
    }),
  ] as AnyRoute[];
}
