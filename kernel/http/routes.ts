// The route table: every route value with its owner and mount point, checked once at boot and compiled into validators.
import { Type, type TSchema } from '@sinclair/typebox';
import type { AnyRoute } from '../../sdk/index.ts';
import { compileCoercing, compileStrict, type Check } from './validate.ts';

/** the REST API, the webhooks beside it, and the root (the kernel's /healthz, /readyz and /metrics) */
export type Mount = 'api' | 'webhook' | 'root';
export const mountBase: Record<Mount, string> = { api: '/api/v1', webhook: '/api', root: '' };

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'page size' })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'opaque cursor from the Link header of the previous page' })),
};

/** what a WebSocket route's query also takes: a browser's WebSocket cannot send the CSRF header */
export const WebSocketQuery = {
  csrf: Type.Optional(Type.String({ maxLength: 200, description: 'a portal session\'s CSRF value (what X-Dockwright-CSRF holds elsewhere): a browser\'s WebSocket sends no headers of its own' })),
};

export interface CompiledRoute {
  owner: string;
  mount: Mount;
  route: AnyRoute;
  fullPath: string;
  query?: TSchema;
  check: { params?: Check; query?: Check; body?: Check };
}

/** `Type.Object` query schemas of paged routes gain limit and cursor. */
function queryOf(route: AnyRoute): TSchema | undefined {
  if (route.websocket) {
    const base = (route.query as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {};
    return Type.Object({ ...base, ...WebSocketQuery }, { additionalProperties: false });
  }
  if (!route.page) return route.query;
  const base = (route.query as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {};
  const cursor = route.cursor ? { cursor: Type.Optional(Type.Unsafe({ ...route.cursor, description: PageQuery.cursor.description })) } : {};
  return Type.Object({ ...base, ...PageQuery, ...cursor }, { additionalProperties: false });
}

export class RouteTable {
  readonly routes: CompiledRoute[] = [];
  private readonly keys = new Map<string, string>();

  add(owner: string, mount: Mount, route: AnyRoute): void {
    const where = `${owner}: ${route.method} ${route.path}`;
    if (!route.path.startsWith('/')) throw new Error(`${where}: path must start with /`);
    const auth = [route.public, route.authenticated, route.scopes?.length, route.actionToken].filter(Boolean).length;
    if (auth !== 1) throw new Error(`${where}: a route needs exactly one of scopes, authenticated, public or actionToken`);
    if (route.optionalScopes?.length && !route.authenticated && !route.public) throw new Error(`${where}: optionalScopes widen an authenticated or public route; with scopes, list them there`);
    if (route.websocket && (route.method !== 'GET' || route.page || route.body || !route.scopes?.length)) throw new Error(`${where}: a websocket route is a GET with scopes, without page or body`);
    if (mount === 'api' && route.actionToken) throw new Error(`${where}: action-token routes belong under webhooks`);
    if (route.actionToken && !route.path.includes(`:${route.actionToken.param}`)) throw new Error(`${where}: actionToken param :${route.actionToken.param} is not in the path`);
    const fullPath = mountBase[mount] + route.path;
    const key = `${route.method} ${fullPath.replace(/:[^/]+/g, ':')}`;
    const existing = this.keys.get(key);
    if (existing) throw new Error(`${where}: duplicate route, already defined by ${existing}`);
    this.keys.set(key, owner);
    const query = queryOf(route);
    this.routes.push({
      owner, mount, route, fullPath, query,
      check: {
        params: route.params && compileCoercing(route.params),
        query: query && compileCoercing(query),
        body: route.body && compileStrict(route.body),
      },
    });
  }
}
