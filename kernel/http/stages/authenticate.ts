// Stage authenticate: who is asking (a bearer token, a portal session, a webhook's action token), the shared per-token budget, the route's scopes.
import type { IncomingMessage } from 'node:http';
import type { Actor, Principal } from '../../../sdk/index.ts';
import { problem } from '../../../sdk/index.ts';
import { csrfHeader } from '../../auth/sessions.ts';
import { channelHeader } from '../../mcp/routes.ts';
import { wellFormed } from '../../auth/tokens.ts';
import { actionTokenPrefix } from '../../services/action-tokens.ts';
import type { RateDecision } from '../../rate-limit.ts';
import type { ClientResolver } from '../client.ts';
import type { Exchange } from '../exchange.ts';
import type { Stage } from './stage.ts';

export interface AuthenticateOptions {
  clients: ClientResolver;
  /** the principal of a bearer token; tokenHash: its hash, computed once per request */
  authenticate(bearer: string, tokenHash: string): Principal | null | Promise<Principal | null>;
  verifyActionToken(kind: string, resource: string, token: string): Promise<boolean>;
  /** the principal of a portal session cookie: undefined without one, null when it is not (or no longer) valid */
  session?(req: IncomingMessage): Promise<Principal | null | undefined>;
  /** the per-token budget shared with the other instances on this database (spent after the token is verified) */
  budget?: { readonly limit: number; take(key: string): RateDecision | Promise<RateDecision> };
}

export const unauthorizedHeaders = { 'WWW-Authenticate': 'Bearer realm="dockwright"' };
const noScopes: readonly string[] = Object.freeze([]);

/**
 * A portal session's WebSocket must come from the portal's own page: a browser sends the page's Origin, which must be
 * this service's, scheme and host: the Host it was reached at with the scheme it was reached by, or its public URL.
 * Another site's page could otherwise ride the cookie.
 */
function checkOrigin(req: IncomingMessage, baseUrl: string, scheme: string): void {
  const origin = req.headers.origin;
  let asked: string | undefined;
  try { asked = origin ? new URL(origin).origin : undefined; } catch { asked = undefined; }
  const originOf = (url: string) => { try { return new URL(url).origin; } catch { return undefined; } };
  const ours = new Set([originOf(`${scheme}://${req.headers.host ?? ''}`), originOf(baseUrl)]);
  if (!asked || asked === 'null' || !ours.has(asked)) {
    throw problem(403, `a WebSocket on a portal session must come from this service's own pages (Origin ${origin ?? 'missing'})`, { code: 'origin' });
  }
}

export function authenticate(options: AuthenticateOptions): Stage {
  const { budget } = options;

  /** without a bearer, a portal session cookie (with its CSRF header) stands in for one */
  async function session(x: Exchange): Promise<void> {
    const { entry: { route }, req } = x;
    // a browser's WebSocket sends no headers of its own: its session's CSRF value comes as the query parameter csrf
    if (route.websocket && req.headers[csrfHeader] === undefined && typeof req.query.csrf === 'string') req.headers[csrfHeader] = req.query.csrf;
    const who = await options.session?.(req);
    if (who === undefined) throw problem(401, 'missing bearer token: send Authorization: Bearer <token>', { headers: unauthorizedHeaders });
    if (route.websocket && who) checkOrigin(req, options.clients.baseUrl(req), (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http');
    if (!who) throw problem(401, 'the session has expired or was signed out: sign in again', { headers: unauthorizedHeaders });
    if (route.websocket) x.stillAllowed = async () => holds(x, await options.session?.(req));
    return admit(x, who);
  }

  /** a bearer token (its principal usually comes from this instance's cache, without a promise) */
  function token(x: Exchange, bearer: string): void | Promise<void> {
    const who = x.tokenHash ? options.authenticate(bearer, x.tokenHash) : null;
    if (x.entry.route.websocket) x.stillAllowed = async () => holds(x, x.tokenHash ? await options.authenticate(bearer, x.tokenHash) : null);
    return who instanceof Promise ? who.then((found) => admit(x, found)) : admit(x, who);
  }

  /** the principal found: the shared budget spent, the route's scopes checked */
  function admit(x: Exchange, who: Principal | null): void | Promise<void> {
    if (!who) throw problem(401, 'the token is wrong, revoked or expired', { headers: unauthorizedHeaders });
    // a call an MCP tool makes (dw mcp, POST /mcp) says so: the activity log shows it as made through MCP
    x.principal = x.req.headers[channelHeader] === 'mcp' && who.actor.kind === 'user' ? { ...who, actor: { ...who.actor, channel: 'mcp' } } : who;
    const { entry: { route, mount }, tokenKey } = x;
    if (budget && mount === 'api' && !route.upload && tokenKey) {
      const spending = budget.take(tokenKey);
      if (spending instanceof Promise) return spending.then((shared) => { spend(x, shared); checkScopes(x, who); });
      spend(x, spending);
    }
    checkScopes(x, who);
  }

  /** the per-token budget shared with the other instances: the nearer limit's headers go on the answer */
  function spend(x: Exchange, shared: RateDecision): void {
    if (!shared.allowed || shared.remaining < (x.rate?.remaining ?? Infinity)) x.rate = shared;
    if (!shared.allowed) throw problem(429, `more than ${budget!.limit} requests per minute with this token across all instances; retry after ${shared.reset} s`, { headers: { 'Retry-After': String(shared.reset) } });
  }

  /** a WebSocket's caller, asked again: still this user, still with the route's scopes */
  function holds(x: Exchange, who: Principal | null | undefined): boolean {
    const before = x.principal.user?.id;
    return !!who && who.user?.id === before && (x.entry.route.scopes ?? noScopes).every((s) => who.can(s));
  }

  function checkScopes(x: Exchange, who: Principal): void {
    const { route } = x.entry;
    const missing = route.scopes?.length ? route.scopes.filter((s) => !who.can(s)) : noScopes;
    if (missing.length) throw problem(403, `this token lacks the scope ${missing.join(', ')}`, { code: 'missing-scope', extra: { requiredScopes: route.scopes } });
  }

  /** a webhook's action token, for the resource its path names */
  async function webhook(x: Exchange, kind: string, param: string): Promise<void> {
    const resource = x.req.params[param] ?? '';
    const actor: Actor = { kind: 'webhook', name: resource, address: x.ip };
    x.principal = { actor, role: null, scopes: [], can: () => false };
    const { bearer } = x;
    if (!bearer || !wellFormed(bearer, actionTokenPrefix) || !(await options.verifyActionToken(kind, resource, bearer))) {
      throw problem(401, 'the webhook token is wrong, rotated or disabled', { headers: unauthorizedHeaders });
    }
  }

  return (x: Exchange) => {
    const { route } = x.entry;
    if (route.scopes?.length || route.authenticated) return x.bearer === undefined ? session(x) : token(x, x.bearer);
    // a public route that shows more to who authenticates: a bearer sent must hold; without one, the caller is anonymous
    if (route.public && route.optionalScopes?.length && x.bearer !== undefined) return token(x, x.bearer);
    if (route.actionToken) return webhook(x, route.actionToken.kind, route.actionToken.param);
  };
}
