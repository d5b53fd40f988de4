// The OpenAPI 3.1 document, derived from the route table alone: paths, schemas, scopes and error answers.
import type { TSchema } from '@sinclair/typebox';
import type { ScopeCatalogue } from '../auth/scopes.ts';
import { sessionCookie } from '../auth/sessions.ts';
import type { CompiledRoute } from './routes.ts';
import { ifMatchPattern } from './stages/input.ts';

const problemRef = { $ref: '#/components/schemas/Problem' };
const errorText: Record<number, string> = {
  400: 'the request does not match the schema, or holds a string that cannot be stored (NUL, a lone surrogate); errors[] has the paths',
  401: 'token missing, wrong, revoked or expired',
  403: 'the token lacks a required scope, or a session cookie came without its X-Dockwright-CSRF header',
  404: 'no such resource',
  409: 'conflicts with the current state (for a revisioned write: If-None-Match: * or revision 0, and it exists)',
  412: 'the revision sent is stale (currentRevision says the current one)',
  413: 'the body is larger than the limit',
  415: 'the body is not JSON',
  422: 'refused by the platform rules (one errors[] element per broken rule)',
  428: 'the write did not name its base revision',
  426: 'a WebSocket route asked without a WebSocket upgrade (version 13)',
  429: 'a rate limit (per token, per address after failed authentications, per webhook address or resource) or a webhook window is exceeded; Retry-After says when to retry',
  503: 'a backing service is unreachable: the database (a restart or failover; Retry-After says when to retry) or the Docker engine; or the service is shutting down (code shutting-down, Retry-After: its restart)',
  507: 'the disk (or quota) this write needed is full, the database\'s included: the write was not completed (type …/disk-full)',
};

function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema));
}

function parameters(schema: TSchema | undefined, where: 'path' | 'query'): unknown[] {
  const props = (schema as { properties?: Record<string, TSchema>; required?: string[] } | undefined)?.properties ?? {};
  const required = new Set((schema as { required?: string[] } | undefined)?.required ?? []);
  return Object.entries(props).map(([name, s]) => ({
    name, in: where, required: where === 'path' || required.has(name), schema: plain(s),
    ...(s.description ? { description: s.description } : {}),
  }));
}

const rateHeaders = {
  'RateLimit-Policy': { description: 'the budget: "<policy>";q=<requests>;w=<seconds>', schema: { type: 'string' } },
  RateLimit: { description: 'what is left of it: "<policy>";r=<remaining>;t=<seconds to reset>', schema: { type: 'string' } },
};
const retryAfter = { 'Retry-After': { description: 'seconds until a retry can succeed', schema: { type: 'integer', minimum: 1 } } };

/** the statuses an operation can answer besides its successes: the kernel's pipeline adds its own to what the route declares */
function errorStatuses(entry: CompiledRoute): number[] {
  const { route } = entry;
  const statuses = new Set<number>(route.errors ?? []);
  // any request may carry bad input (a NUL in a query string, a header the route reads)
  statuses.add(400);
  if (route.authenticated || route.scopes?.length || route.actionToken || (route.public && route.optionalScopes?.length)) statuses.add(401);
  // a portal session cookie without its CSRF header is refused with 403 on every authenticated route
  if (route.authenticated || route.scopes?.length) statuses.add(403);
  // the REST API has a per-token budget and every webhook a per-address and per-resource one
  statuses.add(429);
  if (route.body || route.upload || route.rawBody) statuses.add(413);
  if (route.body) statuses.add(415);
  if (route.revision) [409, 412].forEach((s) => statuses.add(s));
  if (route.revision === 'required') statuses.add(428);
  if (route.path.includes(':')) statuses.add(404);
  if (route.websocket) statuses.add(426);
  // every operation meets the database (its token, its resource, its activity entry), which may be restarting
  statuses.add(503);
  // whatever writes (a file, a row, a job) can meet a full disk
  if (route.method !== 'GET') statuses.add(507);
  return [...statuses].sort();
}

function operation(entry: CompiledRoute): Record<string, unknown> {
  const { route } = entry;
  const success = route.status ?? (route.websocket ? 101 : 200);
  const contentOf = (schema: TSchema | undefined) => schema && { [route.mediaType ?? 'application/json']: { schema: route.page ? { type: 'array', items: plain(schema) } : plain(schema) } };
  const limited = entry.mount === 'webhook' || !route.upload;
  const responses: Record<string, unknown> = {};
  for (const s of [success, ...(route.successes ?? [])]) {
    const content = contentOf(route.responses?.[s] ?? route.response);
    responses[s] = {
      description: s === 101 ? 'switching protocols: the connection is a WebSocket from here on' : s === 202 && s !== success ? 'accepted: the work goes on as a job' : route.page ? 'one page; the next page is announced in the Link header' : 'success',
      ...(limited ? { headers: rateHeaders } : {}),
      ...(content ? { content } : {}),
    };
  }
  for (const s of errorStatuses(entry)) {
    responses[s] = {
      description: errorText[s] ?? 'error',
      ...(s === 429 ? { headers: { ...retryAfter, ...rateHeaders } } : s === 503 ? { headers: retryAfter } : {}),
      content: { 'application/problem+json': { schema: problemRef } },
    };
  }

  const requestBody = route.upload
    ? { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }
    : route.body ? { required: true, content: { 'application/json': { schema: plain(route.body) } } } : undefined;
  const headers: unknown[] = route.revision
    ? [
      { name: 'If-Match', in: 'header', required: false, description: 'the base revision in double quotes ("3"); or the body field revision', schema: { type: 'string', pattern: ifMatchPattern } },
      { name: 'If-None-Match', in: 'header', required: false, description: '* creates (the same as revision 0); other values are ignored', schema: { type: 'string' } },
    ]
    : [];
  const name = route.path.replace(/\/:?([a-z0-9]+)/gi, (_, p: string) => p[0].toUpperCase() + p.slice(1));

  return {
    // the webhooks under /api mirror paths of /api/v1: their ids say which mount they belong to
    operationId: `${entry.owner}.${entry.mount === 'webhook' ? 'webhook.' : ''}${route.method.toLowerCase()}${name}`,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [entry.owner],
    parameters: [...parameters(route.params, 'path'), ...parameters(entry.query, 'query'), ...headers],
    ...(requestBody ? { requestBody } : {}),
    responses,
    security: route.public ? (route.optionalScopes?.length ? [{}, { bearer: [] }] : []) : route.actionToken ? [{ webhookToken: [] }] : [{ bearer: route.scopes ?? [] }, { session: [] }],
    ...(route.scopes ? { 'x-required-scopes': route.scopes } : {}),
    ...(route.optionalScopes ? { 'x-optional-scopes': route.optionalScopes } : {}),
    ...(route.upload ? { 'x-rate-limit-exempt': true } : {}),
    // whether the write must name its base revision (428 without one) or may (a create with If-None-Match: *, say)
    ...(route.revision ? { 'x-revision': route.revision } : {}),
    ...(route.websocket ? { 'x-websocket': true } : {}),
  };
}

export function buildOpenApi(routes: readonly CompiledRoute[], scopes: ScopeCatalogue, version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const entry of routes) {
    const path = entry.fullPath.replace(/:([^/]+)/g, '{$1}');
    (paths[path] ??= {})[entry.route.method.toLowerCase()] = operation(entry);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Dockwright',
      version,
      description: 'Deployment management: the REST API under /api/v1 (personal bearer tokens with scopes) and single-action webhooks under /api. '
        + 'A method a path does not offer answers 405 with Allow. Bearers that fail verification count against the caller address; past its budget '
        + 'the address gets 429 before any lookup.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http', scheme: 'bearer',
          description: `Personal token (dw_…). Scopes: ${scopes.list().map((s) => `${s.name} (${s.role}+)`).join(', ')}`,
        },
        webhookToken: { type: 'http', scheme: 'bearer', description: 'A single-action webhook token (dwh_…) for exactly one action on one resource.' },
        session: {
          type: 'apiKey', in: 'cookie', name: sessionCookie,
          description: 'The portal\'s sign-in session (POST /api/v1/session), instead of a bearer: accepted only together with the header X-Dockwright-CSRF holding the csrf value of the sign-in answer (403 without it). It acts with every scope of the user\'s role.',
        },
      },
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail'],
          properties: {
            type: { type: 'string', format: 'uri' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' },
            instance: { type: 'string' }, errors: { type: 'array', items: {} }, jobId: { type: 'string' }, currentRevision: { type: 'integer' },
          },
        },
      },
    },
  };
}
