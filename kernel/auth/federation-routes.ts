// The CI federation endpoints: trust policies (admin) and the RFC 8693 token exchange a CI job calls with its own OIDC token.
import { Type } from '@sinclair/typebox';
import { defineRoute, problem, reply, type AnyRoute } from '../../sdk/index.ts';
import { ExchangeRefused, type Federation } from './federation.ts';

export const tokenExchangeGrant = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const jwtTokenType = 'urn:ietf:params:oauth:token-type:jwt';

const Glob = (description: string) => Type.String({ minLength: 1, maxLength: 500, description });
const PolicyBody = Type.Object({
  issuer: Type.String({ minLength: 1, maxLength: 500, description: 'the CI system\'s OIDC issuer, as its tokens name it in iss (https; http only on loopback), e.g. https://token.actions.githubusercontent.com' }),
  audience: Type.String({ minLength: 1, maxLength: 500, description: 'the audience the CI job asks its token for; one of the token\'s aud values must equal it' }),
  subject: Glob('a glob the token\'s sub must match whole: * any run of characters, ? one character, e.g. repo:acme/shop:ref:refs/heads/main'),
  claims: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Glob('a glob the claim\'s value must match whole'), { description: 'further claims and the glob each must match (a missing claim or one that is no string, number or boolean fails)' })),
  scopes: Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 100, description: 'the scopes of the exchanged token: named one by one, at most what an operator may hold' }),
  stacks: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 500, description: 'the only stacks the token may reach (any other: 403); absent: every stack without an access list' })),
  ttl: Type.Optional(Type.String({ pattern: '^\\d{1,5}(s|m|h)$', description: 'the exchanged token\'s lifetime, 60s to 1h (default 15m)' })),
}, { additionalProperties: false });
const PolicyView = Type.Object({
  id: Type.String({ format: 'uuid' }), issuer: Type.String(), audience: Type.String(), subject: Type.String(),
  claims: Type.Record(Type.String(), Type.String()), scopes: Type.Array(Type.String()), stacks: Type.Union([Type.Array(Type.String()), Type.Null()]),
  ttl: Type.String(), createdBy: Type.String(), createdAt: Type.String({ format: 'date-time' }),
});

/** an RFC 6749 error as a problem: `error` and `error_description` beside the problem's own fields */
function oauthError(status: number, error: string, description: string, code: string) {
  return problem(status, description, { code, extra: { error, error_description: description }, headers: { 'Cache-Control': 'no-store' } });
}

function formOf(raw: Buffer | undefined, contentType: string | string[] | undefined): URLSearchParams {
  const type = String(contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw oauthError(400, 'invalid_request', 'the body must be a form (Content-Type: application/x-www-form-urlencoded)', 'invalid-request');
  return new URLSearchParams(raw?.toString('utf8') ?? '');
}

export function federationRoutes(federation: Federation): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET', path: '/auth/federation', scopes: ['federation:read'], summary: 'The trust policies: which CI tokens may be exchanged for a Dockwright token',
      response: Type.Array(PolicyView),
      handler: async () => federation.list(),
    }),
    defineRoute({
      method: 'POST', path: '/auth/federation', scopes: ['federation:write'], status: 201, activity: 'kernel.federation.create', resource: 'federation',
      summary: 'Add a trust policy: a CI token from this issuer, for this audience, whose subject and claims match, is exchanged for a short token',
      description: 'The exchanged token holds at most the policy\'s scopes (each one an operator may hold) and reaches only its stacks, for ttl (at most 1h, default 15m).',
      body: PolicyBody, response: PolicyView, errors: [400],
      handler: async ({ body, principal }) => reply(201, await federation.create(body, principal.actor.name ?? principal.actor.kind)),
    }),
    defineRoute({
      method: 'DELETE', path: '/auth/federation/:id', scopes: ['federation:write'], status: 204, activity: 'kernel.federation.remove', resource: 'federation:{id}',
      summary: 'Remove a trust policy; every token exchanged under it stops working at once',
      params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
      handler: async ({ params }) => {
        const removed = await federation.remove(params.id);
        if (!removed) throw problem(404, `no trust policy ${params.id}`);
        federation.keys.forget(removed.issuer);
      },
    }),
    defineRoute({
      method: 'POST', path: '/auth/token', public: true, rawBody: true, activity: false, errors: [400, 401],
      summary: 'Exchange a CI job\'s OIDC token for a short Dockwright token (RFC 8693 token exchange)',
      description: `A form (application/x-www-form-urlencoded): grant_type=${tokenExchangeGrant}, subject_token=<the JWT>, subject_token_type=${jwtTokenType}. `
        + 'The JWT\'s signature is checked with its issuer\'s published keys (fetched through the outbound policy), then its issuer, audience, expiry and jti; '
        + 'the first trust policy whose audience, subject and claims match gives the token. 401 when none accepts it, with a code that says only '
        + 'invalid-token, token-expired, token-replayed or no-matching-policy; the activity log holds the reason.',
      response: Type.Object({
        access_token: Type.String({ description: 'a bearer token for the API: Authorization: Bearer <access_token>' }),
        issued_token_type: Type.Literal('urn:ietf:params:oauth:token-type:access_token'),
        token_type: Type.Literal('Bearer'), expires_in: Type.Integer({ description: 'seconds until it expires' }),
      }),
      handler: async ({ rawBody, headers, ip }) => {
        const form = formOf(rawBody, headers['content-type']);
        if (form.get('grant_type') !== tokenExchangeGrant) throw oauthError(400, 'unsupported_grant_type', `grant_type must be ${tokenExchangeGrant}`, 'unsupported-grant-type');
        const subjectToken = form.get('subject_token');
        if (!subjectToken) throw oauthError(400, 'invalid_request', 'subject_token is missing', 'invalid-request');
        if (form.get('subject_token_type') !== jwtTokenType) throw oauthError(400, 'invalid_request', `subject_token_type must be ${jwtTokenType}`, 'invalid-request');
        try {
          const done = await federation.exchange(subjectToken, ip);
          return reply(200, { access_token: done.accessToken, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' as const, token_type: 'Bearer' as const, expires_in: done.expiresIn },
            { 'Cache-Control': 'no-store' });
        } catch (err) {
          if (err instanceof ExchangeRefused) throw oauthError(401, 'invalid_grant', `the subject token was refused (${err.code})`, err.code);
          throw err;
        }
      },
    }),
  ] as AnyRoute[];
}
