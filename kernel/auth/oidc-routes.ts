// The OIDC sign-in endpoints: /auth/oidc/{provider} and its callback (beside /api, for the browser), the providers for the sign-in page, the session after a redirect.
import { Type } from '@sinclair/typebox';
import type { IncomingMessage } from 'node:http';
import { defineRoute, problem, reply, type AnyRoute, type Role } from '../../sdk/index.ts';
import { flowCookie, SignInRefused, type OidcSignIn } from './oidc.ts';
import { setCookie, type Sessions } from './sessions.ts';

function cookieOf(header: string | string[] | undefined, name: string): string | undefined {
  for (const part of String(header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
const flowCookieHeader = (value: string, maxAge: number, secure: boolean) =>
  `${flowCookie}=${value}; Path=/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
const ProviderName = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,31}$' });

export function oidcRootRoutes(oidc: OidcSignIn, sessions: Sessions): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET', path: '/auth/oidc/:provider', public: true, activity: false, status: 302, errors: [403, 404, 502],
      summary: 'Begin a portal sign-in with an identity provider: a redirect to it (authorization code with PKCE S256, state and nonce)',
      description: 'With ?link=1&csrf=<the session\'s CSRF value> from a signed-in portal, the identity is linked to that account instead.',
      params: Type.Object({ provider: ProviderName }),
      query: Type.Object({ link: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('true')])), csrf: Type.Optional(Type.String({ maxLength: 100 })) }),
      handler: async ({ params, query, headers, baseUrl }) => {
        let linkUserId: number | undefined;
        if (query.link) {
          const current = await sessions.current(headers as IncomingMessage['headers']);
          if (!current || query.csrf !== current.csrf) throw problem(403, 'linking an identity needs a signed-in portal session (and its CSRF value as ?csrf=)', { code: 'csrf' });
          linkUserId = current.userId;
        }
        try {
          const { url, cookie } = await oidc.begin(params.provider, baseUrl, linkUserId);
          return reply(302, undefined, { Location: url, 'Set-Cookie': flowCookieHeader(cookie, 600, baseUrl.startsWith('https:')), 'Cache-Control': 'no-store' });
        } catch (err) {
          if (err instanceof SignInRefused) throw problem(404, `no identity provider "${params.provider}"`);
          throw problem(502, `the identity provider "${params.provider}" could not be reached: ${reasonOf(err)}`, { code: 'provider-unreachable' });
        }
      },
    }),
    defineRoute({
      method: 'GET', path: '/auth/oidc/:provider/callback', public: true, activity: false, status: 302,
      summary: 'Where the identity provider sends the browser back: a session, then the portal (or the portal with ?signInError=<code>)',
      params: Type.Object({ provider: ProviderName }),
      query: Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 4096 })),
      handler: async ({ params, query, headers, ip, baseUrl }) => {
        const secure = baseUrl.startsWith('https:');
        try {
          const signed = await oidc.finish(params.provider, baseUrl, query as Record<string, string>, cookieOf(headers.cookie, flowCookie), ip);
          return reply(302, undefined, { Location: '/', 'Set-Cookie': setCookie(signed.cookie, Math.ceil(sessions.options.ttlMs / 1000), secure), 'Cache-Control': 'no-store' });
        } catch (err) {
          const code = err instanceof SignInRefused ? err.code : 'provider-error';
          return reply(302, undefined, { Location: `/?signInError=${encodeURIComponent(code)}`, 'Cache-Control': 'no-store' });
        }
      },
    }),
  ] as AnyRoute[];
}

export function oidcApiRoutes(oidc: OidcSignIn, sessions: Sessions, settings: { enforceSso(): boolean }, scopesOf: (role: Role) => string[]): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET', path: '/auth/oidc/providers', public: true, errors: [401], summary: 'The identity providers to sign in with (for the sign-in page\'s buttons)',
      response: Type.Object({
        providers: Type.Array(Type.Object({ name: Type.String(), label: Type.String(), url: Type.String({ description: 'where the button leads: /auth/oidc/{name}' }) })),
        enforceSso: Type.Boolean({ description: 'password sign-in is refused but for the break-glass admins' }),
      }),
      handler: async () => ({
        providers: oidc.providers().map((p) => ({ name: p.name, label: p.label ?? p.name, url: `/auth/oidc/${p.name}` })),
        enforceSso: settings.enforceSso(),
      }),
    }),
    defineRoute({
      method: 'POST', path: '/auth/oidc/providers/:name/test', scopes: ['settings:read'], activity: false, errors: [404, 502],
      summary: 'Test an identity provider: its discovery document fetched now, and the groups, role and teams the claims given would get (nothing changes)',
      params: Type.Object({ name: ProviderName }),
      body: Type.Object({ claims: Type.Optional(Type.Record(Type.String({ maxLength: 200 }), Type.Unknown(), { description: 'an ID token\'s claims, e.g. { "groups": ["ops"] }' })) }),
      response: Type.Object({
        issuer: Type.String(), authorizationEndpoint: Type.Union([Type.String(), Type.Null()]), tokenEndpoint: Type.Union([Type.String(), Type.Null()]),
        jwksUri: Type.Union([Type.String(), Type.Null()]), pkceS256: Type.Boolean(),
        grants: Type.Optional(Type.Object({ role: Type.Union([Type.String(), Type.Null()], { description: 'null: the sign-in would be refused' }), teams: Type.Array(Type.String()), groups: Type.Array(Type.String()) })),
      }),
      handler: async ({ params, body }) => {
        try {
          return await oidc.dryRun(params.name, body.claims as Record<string, unknown> | undefined);
        } catch (err) {
          if (err instanceof SignInRefused) throw problem(404, `no identity provider "${params.name}"`);
          throw problem(502, `the identity provider "${params.name}" could not be reached or its discovery document is unusable: ${reasonOf(err)}`, { code: 'provider-unreachable' });
        }
      },
    }),
    defineRoute({
      method: 'GET', path: '/session', public: true, errors: [401], summary: 'The portal session of this browser\'s cookie, with its CSRF value (after a sign-in through an identity provider)',
      description: 'Only a request from this service\'s own pages carries the cookie (SameSite=Strict); another site cannot read the answer.',
      response: Type.Object({ user: Type.Object({ name: Type.String(), role: Type.String() }), csrf: Type.String(), expiresAt: Type.String({ format: 'date-time' }), scopes: Type.Array(Type.String()) }),
      handler: async ({ headers }) => {
        const current = await sessions.current(headers as IncomingMessage['headers']);
        if (!current) throw problem(401, 'no portal session: sign in', { code: 'no-session' });
        return reply(200, { user: current.user, csrf: current.csrf, expiresAt: current.expiresAt.toISOString(), scopes: scopesOf(current.user.role) }, { 'Cache-Control': 'no-store' });
      },
    }),
  ] as AnyRoute[];
}

/** the innermost cause of a failed fetch says why (the outbound policy's refusal, a refused connection), not "fetch failed" */
function reasonOf(err: unknown): string {
  let at = err as Error & { cause?: unknown };
  for (let depth = 0; at?.cause instanceof Error && depth < 5; depth++) at = at.cause as Error & { cause?: unknown };
  return at?.message ?? String(err);
}
