// Stage onRequest: a matched request's exchange (request id, client address, bearer) on the request.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hashToken, tokenPrefix, wellFormed } from '../../auth/tokens.ts';
import type { RouteMeter } from '../../services/metrics.ts';
import type { ClientResolver } from '../client.ts';
import { anonymous, defaultPage, type ApiRequest, type Exchange } from '../exchange.ts';
import { noParams } from '../router.ts';
import type { CompiledRoute } from '../routes.ts';
import type { Middleware } from './stage.ts';

/** the caller's X-Request-Id when it is a sensible one (kept, so a caller can follow its request in our log), else a new one */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return (typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) && given) || randomUUID();
}

function bearerOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : '';
}

/** the first stage of a route: its exchange, with what every later stage reads */
export function onRequest(entry: CompiledRoute, meter: RouteMeter | undefined, clients: ClientResolver): Middleware {
  function exchangeOf(req: ApiRequest, res: ServerResponse): Exchange {
    const bearer = bearerOf(req);
    return {
      req, res, entry, meter, started: performance.now(), requestId: requestIdOf(req), ip: clients.address(req), bearer,
      // a bearer that is not even shaped like a token has no budget of its own: it spends the address's
      tokenHash: bearer && wellFormed(bearer, tokenPrefix) ? hashToken(bearer) : undefined,
      rate: undefined, principal: anonymous,
      params: noParams, query: undefined, body: undefined, raw: undefined, revision: undefined, page: defaultPage,
      out: undefined, upgraded: false,
    };
  }

  return (req, res, next) => {
    try {
      req.exchange = exchangeOf(req, res);
    } catch (err) {
      next(err);
      return;
    }
    next();
  };
}
