// The HTTP server: routing and the pipeline request id → rate limit → auth → scope → validate → revision → handler → reply.
import { createServer, STATUS_CODES, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { parse as parseQuery } from 'node:querystring';
import type { Actor, ActivityApi, Logger, Page, Principal } from '../../sdk/index.ts';
import { diskFull, isProblem, isReply, Problem, problem } from '../../sdk/index.ts';
import type { RateDecision, RateLimiter } from '../rate-limit.ts';
import { hashToken, tokenPrefix, wellFormed } from '../auth/tokens.ts';
import { csrfHeader, sessionBudgetKey } from '../auth/sessions.ts';
import { actionTokenPrefix } from '../action-tokens.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { readBody } from './body.ts';
import type { ClientResolver } from './client.ts';
import { assertStorable, storable } from './storable.ts';
import type { CompiledRoute, RouteTable } from './routes.ts';
import type { Metrics, RouteMeter } from '../metrics.ts';
import { noParams, Router } from './router.ts';
import { acceptKey, validKey, WebSocketConnection } from './websocket.ts';

/** the paging a route without `page` sees: the default, one frozen object rather than one per request */
const defaultPage: { limit: number; cursor: string | undefined } = Object.freeze({ limit: 100, cursor: undefined });

/** a page route's limit and cursor, and the rest of its query (what the handler sees as query) */
function pagingOf(query: Record<string, unknown>): { page: { limit: number; cursor: string | undefined }; rest: Record<string, unknown> } {
  const { limit, cursor, ...rest } = query as { limit?: number; cursor?: string };
  return { page: { limit: limit ?? 100, cursor }, rest };
}

export interface HttpDeps {
  table: RouteTable;
  log: Logger;
  limiter: RateLimiter;
  /** failed authentications per client address: past the budget, the address's bearers are refused before any lookup */
  failures: RateLimiter;
  /** webhook calls per client address and per resource */
  webhooks: RateLimiter;
  /** the per-token budget shared with the other instances on this database (spent after the token is verified) */
  budget?: { readonly limit: number; take(key: string): RateDecision | Promise<RateDecision> };
  clients: ClientResolver;
  activity: ActivityApi;
  limits: { body: number; upload: number };
  /** tokenHash: the bearer's hash, computed once per request (the rate limit keys on it too) */
  authenticate(bearer: string, tokenHash: string): Principal | null | Promise<Principal | null>;
  verifyActionToken(kind: string, resource: string, token: string): Promise<boolean>;
  /** the principal of a portal session cookie: undefined without one, null when it is not (or no longer) valid */
  session?(req: IncomingMessage): Promise<Principal | null | undefined>;
  /** answers requests outside the API (the portal's files); false: not found */
  web?(req: IncomingMessage, res: ServerResponse): boolean;
  /** counts every answer by route template and status, with its latency */
  metrics?: Metrics;
}

type Req = IncomingMessage & { params: Record<string, string>; query: Record<string, unknown>; path: string; upgradeHead?: Buffer };

const anonymous: Principal = Object.freeze({ actor: { kind: 'system' as const, name: 'anonymous' }, role: null, scopes: [], can: () => false });
const unauthorizedHeaders = { 'WWW-Authenticate': 'Bearer realm="dockwright"' };

/** headers as node:http takes them in one writeHead: a flat list of names and values */
type Head = string[];

/** `headers` added to `head`; one of the same name already there is replaced (a 429's Retry-After, a reply's own ETag) */
function headOf(headers: Record<string, string>, head: Head = []): Head {
  for (const name in headers) {
    let i = 0;
    while (i < head.length && head[i] !== name) i += 2;
    head[i] = name;
    head[i + 1] = headers[name];
  }
  return head;
}

/**
 * The answers made in this turn of the event loop, as a flat list of responses and bodies, written together at its
 * end. Written one at a time, as each is made, every write to an idle client wakes it; a write that follows others
 * closely finds it awake. Over loopback (the edge in front of the API, a script on the same host) that wake-up is
 * paid inside our own write, and on a small virtual machine it costs more than the rest of a small answer: under
 * load, answers written together take about a fifth less CPU each. An answer waits at most for the rest of its turn.
 */
const leaving: (ServerResponse | string | Buffer | undefined)[] = [];

function leave(): void {
  const answers = leaving.splice(0);
  for (let i = 0; i < answers.length; i += 2) {
    const res = answers[i] as ServerResponse;
    try {
      res.end(answers[i + 1]);
    } catch (err) {
      res.destroy(err as Error);
    }
  }
}

/**
 * Writes a whole answer. Its status line and headers go to node:http in one writeHead with a flat list, which skips
 * the per-header bookkeeping of setHeader; nothing else sets headers on an API answer before this. The head is made
 * (and checked) now; the answer leaves at the end of this turn of the event loop, with the others made in it.
 */
function send(res: ServerResponse, status: number, body: unknown, head: Head, type = 'application/json'): void {
  if (res.headersSent) { res.end(); return; }
  let text: string | Buffer | undefined;
  if (body !== undefined && status !== 204) {
    const json = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    // a long answer is encoded once: its length is then the buffer's, not a second pass over the text
    text = typeof json === 'string' && json.length > 4096 ? Buffer.from(json) : json;
    head.push('Content-Type', type, 'Content-Length', String(typeof text === 'string' ? Buffer.byteLength(text) : text.length));
  }
  res.writeHead(status, head);
  if (leaving.push(res, text) === 2) setImmediate(leave);
}

/** a problem answer; `head` holds what every answer of its route carries (request id, rate limit) */
function sendProblem(res: ServerResponse, p: Problem, instance?: string, head: Head = []): void {
  send(res, p.status, p.toJSON(instance), headOf(p.headers ?? {}, head), 'application/problem+json');
}

/** the caller's X-Request-Id when it is a sensible one (kept, so a caller can follow its request in our log), else a new one */
function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return (typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) && given) || randomUUID();
}

function bearerOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : '';
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

const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** `/api/stacks/web/deploy` of `/api/stacks/:name/deploy` → `/api/stacks/web`: the resource a webhook acts on */
function webhookResource(fullPath: string, params: Record<string, string>): string {
  const cut = fullPath.indexOf('/:');
  if (cut < 0) return fullPath;
  const param = /^\/:([^/]+)/.exec(fullPath.slice(cut))![1];
  return `${fullPath.slice(0, cut)}/${params[param] ?? ''}`;
}

function pageLink(req: Req, next: string, limit: number): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(req.query)) if (k !== 'cursor' && k !== 'limit' && v !== undefined) params.set(k, String(v));
  params.set('limit', String(limit));
  params.set('cursor', next);
  return `<${req.path}?${params}>; rel="next"`;
}

const noScopes: readonly string[] = Object.freeze([]);
const gone = (req: IncomingMessage, res: ServerResponse) => res.destroyed || req.socket.destroyed;

/**
 * What a handler receives. The abort signal, the request's logger and the base URL are getters on the prototype, made
 * only for the handlers that read them (most never do): no closures per request.
 */
class Call {
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #clients: ClientResolver;
  readonly #log: Logger;
  #abort: AbortController | undefined;
  #requestLog: Logger | undefined;

  constructor(
    readonly params: Record<string, string>, readonly query: unknown, readonly body: unknown, readonly principal: Principal,
    readonly headers: IncomingMessage['headers'], readonly ip: string, readonly requestId: string, readonly revision: number | undefined,
    readonly page: { limit: number; cursor: string | undefined }, readonly rawBody: Buffer | undefined,
    req: IncomingMessage, res: ServerResponse, clients: ClientResolver, log: Logger,
  ) {
    this.#req = req;
    this.#res = res;
    this.#clients = clients;
    this.#log = log;
  }

  get baseUrl(): string {
    return this.#clients.baseUrl(this.#req);
  }

  get signal(): AbortSignal {
    if (!this.#abort) {
      const controller = this.#abort = new AbortController();
      const res = this.#res;
      if (gone(this.#req, res)) controller.abort();
      else res.once('close', () => { if (!res.writableFinished) controller.abort(); });
    }
    return this.#abort.signal;
  }

  get log(): Logger {
    return (this.#requestLog ??= this.#log.child({ requestId: this.requestId }));
  }

  /** set by the pipeline on a `websocket` route's upgrade request */
  upgrader: (() => WebSocketConnection) | undefined;

  /** a getter, so that a handler may take it out of its request (`({ upgrade }) => …`) like the other members */
  get upgrade(): () => WebSocketConnection {
    return () => {
      if (!this.upgrader) throw new Error('upgrade() is only for websocket routes, and only once');
      const upgrade = this.upgrader;
      this.upgrader = undefined;
      return upgrade();
    };
  }
}

/** a request asking for a WebSocket: an Upgrade request that came through the server's 'upgrade' event */
function wantsWebSocket(req: Req): boolean {
  return req.upgradeHead !== undefined && (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/**
 * A portal session's WebSocket must come from the portal's own page: a browser sends the page's Origin, which must be
 * this service's (the Host it was reached at, or its public URL). Another site's page could otherwise ride the cookie.
 */
function checkOrigin(req: IncomingMessage, baseUrl: string): void {
  const origin = req.headers.origin;
  let host: string | undefined;
  try { host = origin ? new URL(origin).host : undefined; } catch { host = undefined; }
  const ours = new Set([req.headers.host, (() => { try { return new URL(baseUrl).host; } catch { return undefined; } })()]);
  if (!host || !ours.has(host)) {
    throw problem(403, `a WebSocket on a portal session must come from this service's own pages (Origin ${origin ?? 'missing'})`, { code: 'origin' });
  }
}

export function createHttpServer(deps: HttpDeps): Server {
  const { log } = deps;
  const onNoMatch = (req: Req, res: ServerResponse) => {
    const path = req.path;
    if (!path.startsWith('/api/') && deps.web?.(req, res)) return;
    // the REST API answers with its rate-limit headers everywhere, unknown routes included; an unverified bearer buys no budget of its own
    const ip = deps.clients.address(req);
    const head: Head = ['X-Request-Id', requestIdOf(req)];
    // an unknown route is never refused for the rate: the headers tell the budget, without a Retry-After
    if (path.startsWith('/api/v1/')) deps.limiter.hit(`a:${ip}`).addTo(head, false);
    const allowed = methods.filter((m) => router.find(m, path));
    if (allowed.length) {
      sendProblem(res, problem(405, `${req.method} is not allowed on ${path}; it answers ${allowed.join(', ')}`), path, head.concat('Allow', allowed.join(', ')));
      return;
    }
    sendProblem(res, problem(404, `no route for ${req.method} ${path}`), path, head);
  };

  /** 429 before any lookup: this address failed to authenticate too often */
  function refuseBlockedAddress(ip: string): void {
    const key = `f:${ip}`;
    if (!deps.failures.spent(key)) return;
    const blocked = deps.failures.peek(key);
    throw problem(429, `too many failed authentications from ${ip}; retry after ${blocked.reset} s`, { headers: { ...blocked.headers, 'Retry-After': String(blocked.reset) } });
  }

  /** what every answer of a route carries, success or problem: its request id and the rate limit it was counted against */
  function answerHead(requestId: string, rate: RateDecision | undefined): Head {
    const head: Head = ['X-Request-Id', requestId];
    rate?.addTo(head);
    return head;
  }

  async function handle(entry: CompiledRoute, req: Req, res: ServerResponse): Promise<void> {
    const { route } = entry;
    const requestId = requestIdOf(req);
    const bearer = bearerOf(req);
    const ip = deps.clients.address(req);
    // a bearer that is not even shaped like a token has no budget of its own: it spends the address's
    const tokenHash = bearer && wellFormed(bearer, tokenPrefix) ? hashToken(bearer) : undefined;
    // the limit whose headers the answer carries: the nearer of this instance's and the shared budget
    let rate: RateDecision | undefined;
    let principal: Principal = anonymous;
    try {
      if (bearer !== undefined || entry.mount === 'webhook') refuseBlockedAddress(ip);
      if (entry.mount === 'api' && !route.upload) {
        const decision = rate = deps.limiter.hit(tokenHash ? `t:${tokenHash}` : (bearer === undefined && sessionBudgetKey(req)) || `a:${ip}`, `a:${ip}`);
        if (!decision.allowed) throw problem(429, `more than ${deps.limiter.limit} requests per minute with this token; retry after ${decision.reset} s`, { headers: { 'Retry-After': String(decision.reset) } });
      } else if (entry.mount === 'webhook') {
        const byAddress = deps.webhooks.hit(`a:${ip}`);
        const byResource = byAddress.allowed ? deps.webhooks.hit(`r:${webhookResource(entry.fullPath, req.params)}`) : byAddress;
        const decision = rate = byResource.remaining < byAddress.remaining || !byResource.allowed ? byResource : byAddress;
        if (!decision.allowed) {
          const who = byAddress.allowed ? 'for this resource' : 'from this address';
          throw problem(429, `more than ${deps.webhooks.limit} webhook calls per minute ${who}; retry after ${decision.reset} s`, { headers: { 'Retry-After': String(decision.reset) } });
        }
      }

      if (route.scopes?.length || route.authenticated) {
        // a browser's WebSocket sends no headers of its own: its session's CSRF value comes as the query parameter csrf
        if (route.websocket && bearer === undefined && req.headers[csrfHeader] === undefined && typeof req.query.csrf === 'string') req.headers[csrfHeader] = req.query.csrf;
        // without a bearer, a portal session cookie (with its CSRF header) may stand in for one
        const session = bearer === undefined ? await deps.session?.(req) : undefined;
        if (route.websocket && session) checkOrigin(req, deps.clients.baseUrl(req));
        if (bearer === undefined && session === undefined) throw problem(401, 'missing bearer token: send Authorization: Bearer <token>', { headers: unauthorizedHeaders });
        const pending = bearer === undefined ? session! : tokenHash ? deps.authenticate(bearer, tokenHash) : null;
        const who = pending instanceof Promise ? await pending : pending;
        if (!who) throw problem(401, bearer === undefined ? 'the session has expired or was signed out: sign in again' : 'the token is wrong, revoked or expired', { headers: unauthorizedHeaders });
        principal = who;
        if (deps.budget && entry.mount === 'api' && !route.upload && tokenHash) {
          const spending = deps.budget.take(`t:${tokenHash}`);
          const shared = spending instanceof Promise ? await spending : spending;
          if (!shared.allowed || shared.remaining < (rate?.remaining ?? Infinity)) rate = shared;
          if (!shared.allowed) throw problem(429, `more than ${deps.budget.limit} requests per minute with this token across all instances; retry after ${shared.reset} s`, { headers: { 'Retry-After': String(shared.reset) } });
        }
        const missing = route.scopes?.length ? route.scopes.filter((s) => !who.can(s)) : noScopes;
        if (missing.length) throw problem(403, `this token lacks the scope ${missing.join(', ')}`, { code: 'missing-scope', extra: { requiredScopes: route.scopes } });
      } else if (route.actionToken) {
        const resource = req.params[route.actionToken.param] ?? '';
        const actor: Actor = { kind: 'webhook', name: resource, address: ip };
        principal = { actor, role: null, scopes: [], can: () => false };
        if (!bearer || !wellFormed(bearer, actionTokenPrefix) || !(await deps.verifyActionToken(route.actionToken.kind, resource, bearer))) {
          throw problem(401, 'the webhook token is wrong, rotated or disabled', { headers: unauthorizedHeaders });
        }
      }

      const params = req.params === noParams ? noParams : { ...req.params };
      for (const name in params) {
        try { params[name] = decodeURIComponent(params[name]); } catch { throw problem(400, `path parameter ${name} is not valid percent-encoding`); }
      }
      const query = entry.check.query ? { ...req.query } : req.query;
      if (!storable(params) || !storable(query) || !storable(req.headers)) assertStorable([['params', params], ['query', query], ['headers', req.headers]]);
      const paramErrors = entry.check.params?.(params);
      const queryErrors = entry.check.query?.(query);
      if (paramErrors || queryErrors) {
        const errors = [...(paramErrors ?? []).map((e) => ({ path: `/params${e.path}`, message: e.message })), ...(queryErrors ?? []).map((e) => ({ path: `/query${e.path}`, message: e.message }))];
        throw problem(400, 'the request does not match the schema', { code: 'invalid-request', errors });
      }

      const raw = route.body || route.upload || route.rawBody ? await readBody(req, route.upload ? deps.limits.upload : deps.limits.body) : undefined;
      let body: unknown;
      if (route.body && !route.upload) {
        const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        if (type !== 'application/json' && !type.endsWith('+json')) throw problem(415, 'the body must be JSON (Content-Type: application/json)');
        try { body = JSON.parse(raw!.toString('utf8') || 'null'); } catch { throw problem(400, 'the body is not valid JSON', { code: 'invalid-json' }); }
        assertStorable([['body', body]]);
        const found = entry.check.body!(body);
        if (found) throw problem(400, 'the body does not match the schema', { code: 'invalid-request', errors: found.map((e) => ({ path: `/body${e.path}`, message: e.message })) });
      }
      if (route.rawBody && !route.body && raw?.length) assertStorable([['body', parsedJsonOf(req, raw)]]);
      const revision = route.revision ? revisionOf(req, body, route.revision === 'required') : undefined;
      const paging = route.page ? pagingOf(query) : undefined;

      const call = new Call(params, paging ? paging.rest : query, body, principal, req.headers, ip, requestId, revision,
        paging ? paging.page : defaultPage, route.rawBody || route.upload ? raw : undefined, req, res, deps.clients, log);
      let upgraded = false;
      if (route.websocket) {
        if (!wantsWebSocket(req)) throw problem(426, 'this route is a WebSocket: send the upgrade request (Connection: Upgrade, Upgrade: websocket)', { headers: { Upgrade: 'websocket' } });
        if (req.headers['sec-websocket-version'] !== '13') throw problem(426, 'this service speaks WebSocket version 13', { headers: { 'Sec-WebSocket-Version': '13' } });
        const key = req.headers['sec-websocket-key'];
        if (!validKey(key)) throw problem(400, 'Sec-WebSocket-Key must be 16 bytes in base64');
        call.upgrader = () => {
          upgraded = true;
          return upgradeTo(req, res, acceptKey(key.trim()), answerHead(requestId, rate));
        };
      }
      const out = await route.handler(call as never);
      if (upgraded) return;

      let status = route.status ?? (out === undefined ? 204 : 200);
      let payload: unknown = out;
      const head = answerHead(requestId, rate);
      if (isReply(out)) {
        status = out.status;
        payload = out.body;
        if (out.headers) headOf(out.headers, head);
        if (out.stream) {
          const stream = out.stream;
          // the client may have left while the handler ran: a follow stream would otherwise live on
          if (gone(req, res)) { stream.destroy(); return; }
          head.push('Content-Type', out.contentType ?? 'application/octet-stream');
          res.writeHead(status, head);
          pipeline(stream, res).catch((err: NodeJS.ErrnoException) => {
            if (err.code !== 'ERR_STREAM_PREMATURE_CLOSE') log.warn({ err, requestId }, 'stream failed');
          });
          return;
        }
      } else if (route.page && out && typeof out === 'object' && 'items' in out) {
        const page = out as Page<unknown>;
        payload = page.items;
        if (page.next) head.push('Link', pageLink(req, page.next, call.page.limit));
      }
      const rev = (payload as { revision?: unknown } | null)?.revision;
      if (typeof rev === 'number' && status < 300 && !(isReply(out) && out.headers?.ETag)) head.push('ETag', `"${rev}"`);
      // recorded before the answer leaves: whoever reads the log after a write finds the write in it
      if (route.method !== 'GET') await recordActivity(entry, principal, params, status < 400 ? 'ok' : 'failed');
      send(res, status, payload, head);
    } catch (err) {
      const p = isProblem(err) ? err : toProblem(err, requestId);
      // a token (or webhook signature) that failed verification counts against the caller's address
      if (p.status === 401 && (bearer !== undefined || entry.mount === 'webhook')) deps.failures.hit(`f:${ip}`);
      if (p.code === 'database-unavailable') log.warn({ requestId, err: (err as Error).message }, 'request failed: the database is unreachable');
      else if (!isProblem(err)) log.error({ err, requestId, route: `${route.method} ${entry.fullPath}` }, 'request failed');
      // refused webhook calls are activity too; the REST API's 401 and 429 are noise an attacker could flood it with
      if (route.method !== 'GET' && (route.actionToken || (p.status !== 401 && p.status !== 429))) await recordActivity(entry, principal, req.params, p.status === 403 ? 'refused' : 'failed', p.status);
      sendProblem(res, p, req.path, answerHead(requestId, rate));
    }
  }

  function recordActivity(entry: CompiledRoute, principal: Principal, params: Record<string, string>, result: string, status?: number): Promise<void> {
    if (entry.route.activity === false) return Promise.resolve();
    const action = entry.route.activity ?? `${entry.owner}.${entry.route.method.toLowerCase()} ${entry.route.path}`;
    const resource = entry.route.resource
      ? entry.route.resource.replace(/\{([^}]+)\}/g, (_, k) => params[k] ?? k)
      : Object.keys(params).length ? entry.route.path.replace(/:([^/]+)/g, (_, k) => params[k] ?? k) : null;
    return deps.activity.record({ actor: principal.actor, action, resource, result, detail: status ? { status } : undefined })
      .catch((err) => log.error({ err }, 'recording activity failed'));
  }

  /** the open WebSocket connections: closed (1001) when the server drains for a restart */
  const sockets = new Set<WebSocketConnection>();

  /** answers 101 on the request's own socket and hands it to a WebSocket connection (the ServerResponse stays unwritten) */
  function upgradeTo(req: Req, res: ServerResponse, accept: string, head: Head): WebSocketConnection {
    const socket = req.socket as Duplex & { setNoDelay?(on: boolean): void; setTimeout?(ms: number): void };
    const lines = ['HTTP/1.1 101 Switching Protocols', 'Upgrade: websocket', 'Connection: Upgrade', `Sec-WebSocket-Accept: ${accept}`];
    for (let i = 0; i < head.length; i += 2) lines.push(`${head[i]}: ${head[i + 1]}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    res.statusCode = 101;
    socket.setNoDelay?.(true);
    socket.setTimeout?.(0);
    const ws = new WebSocketConnection(socket, req.upgradeHead ?? Buffer.alloc(0));
    sockets.add(ws);
    ws.once('close', () => sockets.delete(ws));
    return ws;
  }

  const router = new Router<CompiledRoute>();
  const meters = new Map<CompiledRoute, RouteMeter>();
  for (const entry of deps.table.routes) {
    router.add(entry.route.method, entry.fullPath, entry);
    if (deps.metrics) meters.set(entry, deps.metrics.route(entry.route.method, entry.fullPath));
  }

  const onRequest = (incoming: IncomingMessage, res: ServerResponse) => {
    const req = incoming as Req;
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    req.path = mark < 0 ? url : url.slice(0, mark);
    req.query = mark < 0 ? {} : parseQuery(url.slice(mark + 1));
    const found = router.find(req.method ?? 'GET', req.path);
    const started = performance.now();
    if (!found) {
      onNoMatch(req, res);
      deps.metrics?.unmatched.observe(res.statusCode, (performance.now() - started) / 1000);
      return;
    }
    req.params = found.params;
    const meter = meters.get(found.handler);
    // every rejected handler ends here
    handle(found.handler, req, res).then(() => {
      // the status of an answer is set as soon as its head is written; a stream counts when its head leaves
      meter?.observe(res.statusCode, (performance.now() - started) / 1000);
    }, (err) => {
      meter?.observe(500, (performance.now() - started) / 1000);
      log.error({ err }, 'unhandled request failure');
      if (!res.headersSent) sendProblem(res, problem(500, 'internal error'));
      else res.destroy();
    });
  };
  const server = createServer({ keepAliveTimeout: 5000 }, onRequest);
  // an Upgrade request goes through the same pipeline (and the drain) as any: its answer, unless a WebSocket route
  // upgrades it, is written on its socket, which then closes
  server.on('upgrade', (incoming: IncomingMessage, socket: Duplex, head: Buffer) => {
    const res = new ServerResponse(incoming);
    res.assignSocket(socket as never);
    res.shouldKeepAlive = false;
    res.once('finish', () => socket.end());
    socket.on('error', () => socket.destroy());
    (incoming as Req).upgradeHead = head;
    server.emit('request', incoming, res);
  });
  // at a restart, the WebSocket sessions are told so (1001) and closed: the drain waits for them like for any request
  server.on('draining', () => {
    for (const ws of sockets) ws.close(1001, 'the service is restarting');
  });
  // what the HTTP parser refuses (NUL in a header, an unknown method, a broken request line) is a problem too
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') { socket.destroy(); return; }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = JSON.stringify(problem(status, `the request cannot be parsed (${err.code ?? 'bad request'})`).toJSON());
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
  return server;
}

/** the JSON a raw-body route was sent, for the storable check (the route parses and judges it itself) */
function parsedJsonOf(req: IncomingMessage, raw: Buffer): unknown {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) return undefined;
  try { return JSON.parse(raw.toString('utf8')); } catch { return undefined; }
}

/** how long a client is asked to wait when the database is out of reach (a restart takes a second or two) */
const databaseRetryAfter = '2';

function toProblem(err: unknown, requestId: string): Problem {
  if (isDatabaseUnavailable(err)) {
    return problem(503, `the database is unreachable (${(err as Error).message}); retry in a moment`, {
      code: 'database-unavailable', title: 'Database unavailable', headers: { 'Retry-After': databaseRetryAfter },
    });
  }
  // a full disk (or quota, or the database's disk) on any write path says so, instead of an internal error
  const full = diskFull(err);
  if (full) return full;
  const status = (err as { status?: unknown })?.status;
  if (typeof status === 'number' && status >= 400 && status < 600 && (err as { expose?: boolean }).expose) return problem(status, (err as Error).message);
  return problem(500, `internal error; the log has the details under request id ${requestId}`);
}
