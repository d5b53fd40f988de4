// Stage input: path parameters decoded, params and query validated, the body read (within its limit), parsed and validated, the revision and the paging read.
import type { IncomingMessage } from 'node:http';
import { problem } from '../../../sdk/index.ts';
import { readBody } from '../body.ts';
import type { ApiRequest, Exchange, Paging } from '../exchange.ts';
import { noParams } from '../router.ts';
import { assertStorable, storable } from '../storable.ts';
import type { Stage } from './stage.ts';

export interface InputOptions {
  /** the largest body a route takes, in bytes; `upload` for upload routes */
  limits: { body: number; upload: number };
}

/** what If-Match may hold: `"7"`, `W/"7"` or `7` (the OpenAPI document shows it as it is) */
export const ifMatchPattern = '^\\s*(?:W/)?"?([0-9]{1,9})"?\\s*$';
const ifMatch = new RegExp(ifMatchPattern);

function parseRevision(value: string | undefined): number | undefined {
  const match = value && ifMatch.exec(value);
  return match ? Number(match[1]) : undefined;
}

function revisionOf(req: IncomingMessage, body: unknown, required: boolean): number | undefined {
  if (req.headers['if-none-match']?.trim() === '*') return 0;
  const header = req.headers['if-match'];
  if (header !== undefined) {
    const n = parseRevision(header);
    if (n === undefined) throw problem(400, 'If-Match must hold a revision number in double quotes, e.g. If-Match: "3"');
    return n;
  }
  const fromBody = (body as { revision?: unknown } | undefined)?.revision;
  if (typeof fromBody === 'number' && Number.isInteger(fromBody) && fromBody >= 0) return fromBody;
  if (!required) return undefined;
  throw problem(428, 'this write must name the revision it is based on: If-Match: "N" (or If-None-Match: * to create), or a body field revision', { code: 'revision-required' });
}

/** a page route's limit and cursor, and the rest of its query (what the handler sees as query) */
function pagingOf(query: Record<string, unknown>): { page: Paging; rest: Record<string, unknown> } {
  const { limit, cursor, ...rest } = query as { limit?: number; cursor?: string };
  return { page: { limit: limit ?? 100, cursor }, rest };
}

function jsonType(req: IncomingMessage): boolean {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

/** the JSON a raw-body route was sent, for the storable check (the route parses and judges it itself) */
function parsedJsonOf(req: IncomingMessage, raw: Buffer): unknown {
  if (!jsonType(req)) return undefined;
  try { return JSON.parse(raw.toString('utf8')); } catch { return undefined; }
}

/** params and query: percent-decoded, storable, as their schemas say */
function readParamsAndQuery(x: Exchange, req: ApiRequest): void {
  const { check } = x.entry;
  const params = req.params === noParams ? noParams : { ...req.params };
  for (const name in params) {
    try { params[name] = decodeURIComponent(params[name]); } catch { throw problem(400, `path parameter ${name} is not valid percent-encoding`); }
  }
  const query = check.query ? { ...req.query } : req.query;
  if (!storable(params) || !storable(query) || !storable(req.headers)) assertStorable([['params', params], ['query', query], ['headers', req.headers]]);
  const paramErrors = check.params?.(params);
  const queryErrors = check.query?.(query);
  if (paramErrors || queryErrors) {
    const errors = [...(paramErrors ?? []).map((e) => ({ path: `/params${e.path}`, message: e.message })), ...(queryErrors ?? []).map((e) => ({ path: `/query${e.path}`, message: e.message }))];
    throw problem(400, 'the request does not match the schema', { code: 'invalid-request', errors });
  }
  x.params = params;
  x.query = query;
}

/** the revision a write is based on, and a page route's limit and cursor (its handler's query is the rest) */
function readRevisionAndPaging(x: Exchange): void {
  const { route } = x.entry;
  if (route.revision) x.revision = revisionOf(x.req, x.body, route.revision === 'required');
  if (route.page) {
    const paging = pagingOf(x.query as Record<string, unknown>);
    x.page = paging.page;
    x.query = paging.rest;
  }
}

export function input({ limits }: InputOptions): Stage {
  /** the body: whole in memory within its limit; a JSON body parsed and checked against its schema */
  async function readAndParseBody(x: Exchange): Promise<void> {
    const { entry: { route, check }, req } = x;
    const raw = await readBody(req, route.upload ? limits.upload : limits.body);
    if (route.body && !route.upload) {
      if (!jsonType(req)) throw problem(415, 'the body must be JSON (Content-Type: application/json)');
      let body: unknown;
      try { body = JSON.parse(raw.toString('utf8') || 'null'); } catch { throw problem(400, 'the body is not valid JSON', { code: 'invalid-json' }); }
      assertStorable([['body', body]]);
      const found = check.body!(body);
      if (found) throw problem(400, 'the body does not match the schema', { code: 'invalid-request', errors: found.map((e) => ({ path: `/body${e.path}`, message: e.message })) });
      x.body = body;
    }
    if (route.rawBody && !route.body && raw.length) assertStorable([['body', parsedJsonOf(req, raw)]]);
    if (route.rawBody || route.upload) x.raw = raw;
    readRevisionAndPaging(x);
  }

  return (x: Exchange) => {
    readParamsAndQuery(x, x.req);
    const { route } = x.entry;
    // a streamed upload is read by its handler
    if (route.upload !== 'stream' && (route.body || route.upload || route.rawBody)) return readAndParseBody(x);
    readRevisionAndPaging(x);
  };
}
