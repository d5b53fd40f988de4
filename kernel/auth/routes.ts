// The kernel's own account endpoints: portal sign-in and sign-out, the caller's password and two-factor enrolment, the caller's own tokens.
import { Type } from '@sinclair/typebox';
import type { ActivityApi, Actor, Principal } from '../../sdk/index.ts';
import { defineRoute, problem, reply, type AnyRoute } from '../../sdk/index.ts';
import type { ClientResolver } from '../http/client.ts';
import type { Sessions } from './sessions.ts';
import { setCookie } from './sessions.ts';
import type { ScopeCatalogue } from './scopes.ts';
import type { Tokens } from './tokens.ts';
import type { TwoFactor } from './totp.ts';

export interface AccountDeps { sessions: Sessions; tokens: Tokens; twoFactor: TwoFactor; scopes: ScopeCatalogue; activity: ActivityApi; clients: ClientResolver }

export const TotpEnrolmentSchema = Type.Object({
  secret: Type.String({ description: 'the secret as text (base32), for an authenticator that cannot read the QR code' }),
  otpauthUri: Type.String({ description: 'the otpauth://totp/ URI the QR code holds' }),
  qrCode: Type.String({ description: 'the URI as a QR code: an SVG image as a data: URL' }),
}, { description: 'a new authenticator secret: shown while it awaits its first code, never again once confirmed' });
const TotpStatusSchema = Type.Object({
  enrolled: Type.Boolean(), enrolledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  recoveryCodesLeft: Type.Integer({ description: 'unused recovery codes' }),
  required: Type.Boolean({ description: 'sessions.requireTotp: every sign-in needs a second factor' }),
});
const RecoveryCodes = Type.Array(Type.String(), { description: 'ten one-time recovery codes, each signs in once instead of a code: shown this once, only their hashes are kept' });

const SignedIn = Type.Object({
  user: Type.Object({ name: Type.String(), role: Type.String() }),
  csrf: Type.String({ description: 'send it as the X-Dockwright-CSRF header with every request that relies on the session cookie' }),
  expiresAt: Type.String({ format: 'date-time' }),
  scopes: Type.Array(Type.String()),
  recoveryCodes: Type.Optional(RecoveryCodes),
});
const TokenView = Type.Object({
  id: Type.String(), name: Type.String(), prefix: Type.String(), scopes: Type.Array(Type.String()),
  expiresAt: Type.Union([Type.String(), Type.Null()]), revokedAt: Type.Union([Type.String(), Type.Null()]),
  lastUsedAt: Type.Union([Type.String(), Type.Null()]), createdAt: Type.String(),
});

function userOf(principal: Principal): NonNullable<Principal['user']> {
  if (!principal.user) throw problem(403, 'only a user can do this');
  return principal.user;
}

export function accountRoutes(deps: AccountDeps): AnyRoute[] {
  const { sessions, tokens, scopes, twoFactor } = deps;
  const secure = (baseUrl: string) => baseUrl.startsWith('https:');
  const clear = (baseUrl: string) => ({ 'Set-Cookie': setCookie('', 0, secure(baseUrl)) });
  return [
    defineRoute({
      method: 'POST', path: '/session', public: true, activity: false,
      summary: 'Sign in to the portal: sets the HttpOnly session cookie and answers the CSRF value to send with it',
      description: 'A sign-in may need more than the password; each further step is a 401 problem naming it, and the same call with what it asks for continues: '
        + '`password-change-required` (a one-time password from an admin: send newPassword), `totp-required` (send code: the authenticator\'s six digits or a recovery code), '
        + '`totp-enrolment-required` (sessions.requireTotp and no authenticator yet: the problem\'s `totp` holds a new secret; send its current code as code, and the answer holds '
        + 'the recovery codes, this once). Wrong passwords and wrong codes are limited per account and per client address (kernel config sessions.failedSignInsPerMinute). '
        + 'With auth.oidc.enforceSso, a right password is answered 403 `sso-required` but for the admins named in auth.oidc.breakGlass.',
      body: Type.Object({
        username: Type.String({ minLength: 1, maxLength: 64 }), password: Type.String({ minLength: 1, maxLength: 256 }),
        code: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'a code of the authenticator app, or a recovery code' })),
        newPassword: Type.Optional(Type.String({ maxLength: 256, description: 'replaces a one-time password' })),
      }),
      response: SignedIn, status: 201, errors: [400, 401, 403, 429],
      handler: async ({ body, ip, baseUrl }) => {
        const signed = await sessions.signIn(body.username, body.password, ip, { code: body.code, newPassword: body.newPassword });
        const actor: Actor = { kind: 'user', name: signed.user.name, channel: 'portal', address: ip };
        if (signed.passwordChanged) await deps.activity.record({ actor, action: 'kernel.password.set', resource: `user:${signed.user.name}`, result: 'ok', detail: { replaced: 'one-time password' } });
        if (signed.recoveryCodes) await deps.activity.record({ actor, action: 'kernel.totp.enrol', resource: `user:${signed.user.name}`, result: 'ok', detail: { atSignIn: true } });
        await deps.activity.record({ actor, action: 'kernel.session.create', resource: `user:${signed.user.name}`, result: 'ok' });
        return reply(201, { user: signed.user, csrf: signed.csrf, expiresAt: signed.expiresAt.toISOString(), scopes: scopes.effective(['*'], signed.user.role), ...(signed.recoveryCodes ? { recoveryCodes: signed.recoveryCodes } : {}) },
          { 'Set-Cookie': setCookie(signed.cookie, Math.ceil(sessions.options.ttlMs / 1000), secure(baseUrl)), 'Cache-Control': 'no-store' });
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/session', authenticated: true, status: 204, activity: 'kernel.session.delete', resource: 'session',
      summary: 'Sign out: ends the session of this cookie and clears it', errors: [400],
      handler: async ({ principal, baseUrl }) => {
        if (!principal.session) throw problem(400, 'this request was made with a token, not a portal session: revoke the token instead');
        await sessions.signOut(principal.session.id);
        return reply(204, undefined, clear(baseUrl));
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/sessions', scopes: ['account:write'], activity: 'kernel.sessions.delete', resource: 'sessions',
      summary: 'Sign out everywhere: ends every portal session of the calling user',
      response: Type.Object({ ended: Type.Integer() }),
      handler: async ({ principal, baseUrl }) => reply(200, { ended: await sessions.signOutEverywhere(userOf(principal).id) }, principal.session ? clear(baseUrl) : {}),
    }),
    defineRoute({
      method: 'PUT', path: '/me/password', scopes: ['account:write'], status: 204, activity: 'kernel.password.set', resource: 'password', errors: [400, 403, 429],
      summary: "Change the caller's own password (the current one is required); the user's other portal sessions end",
      description: 'Every portal session of the user ends but the one making the change (made with a token: every one). A wrong current password '
        + 'counts as a failed sign-in: past the sign-in limit for the account or the address (sessions.failedSignInsPerMinute), 429 with Retry-After.',
      body: Type.Object({ current: Type.String({ maxLength: 256 }), password: Type.String({ maxLength: 256 }) }),
      handler: async ({ principal, body, ip }) => {
        const user = userOf(principal);
        await sessions.confirmPassword(user.name, body.current, ip);
        await sessions.setPassword(user.name, body.password, principal.session?.id);
      },
    }),
    defineRoute({
      method: 'GET', path: '/me/totp', authenticated: true, summary: "The caller's two-factor sign-in: enrolled or not, recovery codes left",
      response: TotpStatusSchema,
      handler: async ({ principal }) => ({ ...(await twoFactor.status(userOf(principal).id)), required: sessions.options.requireTotp }),
    }),
    defineRoute({
      method: 'POST', path: '/me/totp', scopes: ['account:write'], activity: false, errors: [409],
      summary: 'Start enrolling an authenticator app: a new secret (text, otpauth URI and QR code), confirmed by POST /me/totp/confirm',
      description: 'A second call replaces the secret awaiting confirmation. 409 while an authenticator is enrolled: remove it first (DELETE /me/totp).',
      response: TotpEnrolmentSchema,
      handler: async ({ principal }) => {
        const user = userOf(principal);
        if (await twoFactor.enrolled(user.id)) throw problem(409, 'an authenticator is enrolled already: remove it first (DELETE /api/v1/me/totp with your password)', { code: 'totp-enrolled' });
        return reply(200, await twoFactor.begin(user.id, user.name), { 'Cache-Control': 'no-store' });
      },
    }),
    defineRoute({
      method: 'POST', path: '/me/totp/confirm', scopes: ['account:write'], activity: 'kernel.totp.enrol', resource: 'totp', errors: [400],
      summary: 'Confirm the new authenticator with one of its codes: sign-ins then ask for a code; answers ten recovery codes, this once',
      body: Type.Object({ code: Type.String({ minLength: 6, maxLength: 16 }) }),
      response: Type.Object({ recoveryCodes: RecoveryCodes }),
      handler: async ({ principal, body }) => reply(200, { recoveryCodes: await twoFactor.confirm(userOf(principal).id, body.code) }, { 'Cache-Control': 'no-store' }),
    }),
    defineRoute({
      method: 'DELETE', path: '/me/totp', scopes: ['account:write'], status: 204, activity: 'kernel.totp.remove', resource: 'totp', errors: [403, 404, 429],
      summary: "Remove the caller's authenticator and recovery codes (the current password is required)",
      description: 'A wrong password counts as a failed sign-in (sessions.failedSignInsPerMinute). With sessions.requireTotp, the next sign-in enrols again.',
      body: Type.Object({ password: Type.String({ maxLength: 256 }) }),
      handler: async ({ principal, body, ip }) => {
        const user = userOf(principal);
        await sessions.confirmPassword(user.name, body.password, ip);
        if (!(await twoFactor.reset(user.id))) throw problem(404, 'no authenticator is enrolled');
      },
    }),
    defineRoute({
      method: 'GET', path: '/tokens', authenticated: true, optionalScopes: ['tokens:read'], summary: "The caller's own personal tokens (never their secret)",
      description: 'With tokens:read (a portal session has it), every token of the owner; without it, only the calling token.',
      response: Type.Array(TokenView),
      handler: async ({ principal }) => {
        const own = await tokens.list(userOf(principal).name);
        return own.filter((t) => principal.can('tokens:read') || t.id === principal.token?.id).map(({ user: _, ...t }) => t) as never;
      },
    }),
    defineRoute({
      method: 'POST', path: '/tokens', scopes: ['tokens:write'], status: 201, activity: 'kernel.token.create', resource: 'tokens', errors: [400],
      summary: 'Create a personal token; the answer holds it this once, only its hash is kept',
      description: 'scopes may only name scopes the caller holds itself ("*": every scope of the caller\'s role, only when the caller holds them all).',
      body: Type.Object({
        name: Type.String({ minLength: 1, maxLength: 100 }),
        scopes: Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 200 }),
        expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
      }),
      response: Type.Object({ id: Type.String(), token: Type.String(), name: Type.String(), scopes: Type.Array(Type.String()), expiresAt: Type.Union([Type.String(), Type.Null()]) }),
      handler: async ({ principal, body }) => {
        const user = userOf(principal);
        const unknown = scopes.unknown(body.scopes);
        if (unknown.length) throw problem(400, `unknown scope(s): ${unknown.join(', ')}`, { code: 'unknown-scope' });
        const all = scopes.effective(['*'], user.role);
        const wanted = body.scopes.includes('*') ? all : body.scopes;
        const beyond = wanted.filter((s) => !principal.can(s));
        if (beyond.length) throw problem(403, `a token cannot hold more than its creator: ${beyond.join(', ')}`, { code: 'missing-scope' });
        const expiresAt = body.expiresInDays ? new Date(Date.now() + body.expiresInDays * 86_400_000) : null;
        const { id, token } = await tokens.create({ user: user.name, name: body.name, scopes: body.scopes, expiresAt });
        return { id, token, name: body.name, scopes: body.scopes, expiresAt: expiresAt?.toISOString() ?? null };
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/tokens/:id', authenticated: true, optionalScopes: ['tokens:write'], status: 204, activity: 'kernel.token.revoke', resource: 'tokens',
      params: Type.Object({ id: Type.String({ format: 'uuid' }) }), summary: 'Revoke one of the caller\'s own tokens',
      description: 'With tokens:write (a portal session has it), any token of the owner; without it, only the calling token (403 for any other).',
      handler: async ({ principal, params }) => {
        if (!principal.can('tokens:write') && params.id !== principal.token?.id) {
          throw problem(403, 'this token lacks the scope tokens:write: without it, a token can revoke only itself', { code: 'missing-scope', extra: { requiredScopes: ['tokens:write'] } });
        }
        const own = (await tokens.list(userOf(principal).name)).find((t) => t.id === params.id && !t.revokedAt);
        if (!own) throw problem(404, `you have no active token ${params.id}`);
        await tokens.revoke(params.id);
      },
    }),
  ] as AnyRoute[];
}
