// One API request on its way through the pipeline: what each stage found out, for the stages after it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../../sdk/index.ts';
import type { RateDecision } from '../rate-limit.ts';
import type { RouteMeter } from '../services/metrics.ts';
import type { CompiledRoute } from './routes.ts';

/** the request as polka hands it on: path, parsed query and route params; an Upgrade request also has its socket's first bytes */
export type ApiRequest = IncomingMessage & {
  params: Record<string, string>; query: Record<string, unknown>; path: string; upgradeHead?: Buffer;
  /** set by the first stage of a matched route */
  exchange: Exchange;
};

export interface Paging { limit: number; cursor: string | undefined }

/** the paging a route without `page` sees: the default, one frozen object rather than one per request */
export const defaultPage: Paging = Object.freeze({ limit: 100, cursor: undefined });

export const anonymous: Principal = Object.freeze({ actor: { kind: 'system' as const, name: 'anonymous' }, role: null, scopes: [], can: () => false });

/**
 * The exchange of one matched request, filled in stage by stage: onRequest makes it (one object literal, so every
 * exchange has the same shape), limits sets `rate`, authenticate `principal`, input the decoded request, the handler
 * stage `out` or `upgraded`, and respond reads it all.
 */
export interface Exchange {
  readonly req: ApiRequest;
  readonly res: ServerResponse;
  readonly entry: CompiledRoute;
  readonly meter: RouteMeter | undefined;
  /** performance.now() when the request came in */
  readonly started: number;
  readonly requestId: string;
  /** the client's address (behind a trusted proxy, the one it forwarded) */
  readonly ip: string;
  /** the Authorization bearer: undefined without the header, '' when it is not a bearer */
  readonly bearer: string | undefined;
  /** the bearer's hash when it is shaped like an API token, computed once (the rate limit keys on it too) */
  readonly tokenHash: string | undefined;
  /** the token's key in the rate limits (`t:` and its hash), made once for the two it is counted in */
  readonly tokenKey: string | undefined;
  /** limits: the limit whose headers the answer carries (the nearer of this instance's and the shared budget) */
  rate: RateDecision | undefined;
  /** authenticate: who is asking (anonymous until then, and on public routes) */
  principal: Principal;
  /** input: the decoded and validated request */
  params: Record<string, string>;
  query: unknown;
  body: unknown;
  raw: Buffer | undefined;
  revision: number | undefined;
  page: Paging;
  /** handler: what the route's handler returned, and whether it took the connection over as a WebSocket */
  out: unknown;
  upgraded: boolean;
  /** authenticate, on a WebSocket route: asks again whether the caller may still hold the connection */
  stillAllowed: (() => Promise<boolean>) | undefined;
}
