// Stage onRequest: a matched request's exchange (request id, client address, bearer) on the request.
import { randomFillSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { federatedPrefix } from '../../auth/federation.ts';
import { hashToken, tokenPrefix, wellFormed } from '../../auth/tokens.ts';
import type { RouteMeter } from '../../services/metrics.ts';
import type { ClientResolver } from '../client.ts';
import { anonymous, defaultPage, type ApiRequest, type Exchange } from '../exchange.ts';
import { noParams } from '../router.ts';
import type { CompiledRoute } from '../routes.ts';
import type { Middleware } from './stage.ts';

const random = Buffer.alloc(16 * 256);
let nextRandom = 256;
const text = Buffer.alloc(36, '-');
const hex = Buffer.from('0123456789abcdef', 'latin1');

/**
 * A new request id: a random (version 4) UUID, as randomUUID makes it, from the same kind of batch of random bytes;
 * written into a buffer and read as one flat string, where randomUUID joins twenty small strings (a request's id is
 * its largest allocation of its own, and young-generation garbage is most of what an answer costs past node:http).
 */
export function newRequestId(): string {
  if (nextRandom === 256) { randomFillSync(random); nextRandom = 0; }
  const r = nextRandom++ * 16;
  random[r + 6] = (random[r + 6] & 0x0f) | 0x40;
  random[r + 8] = (random[r + 8] & 0x3f) | 0x80;
  for (let i = 0, at = 0; i < 16; i++, at += 2) {
    if (i === 4 || i === 6 || i === 8 || i === 10) at++; // past a dash: 8-4-4-4-12
    text[at] = hex[random[r + i] >> 4];
    text[at + 1] = hex[random[r + i] & 15];
  }
  return text.toString('latin1', 0, 36);
}

/** the caller's X-Request-Id when it is a sensible one (kept, so a caller can follow its request in our log), else a new one */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return (typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) && given) || newRequestId();
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
    // a bearer that is not even shaped like a token has no budget of its own: it spends the address's
    const tokenHash = bearer && (wellFormed(bearer, tokenPrefix) || wellFormed(bearer, federatedPrefix)) ? hashToken(bearer) : undefined;
    return {
      req, res, entry, meter, started: performance.now(), requestId: requestIdOf(req), ip: clients.address(req), bearer,
      tokenHash, tokenKey: tokenHash && `t:${tokenHash}`,
      rate: undefined, principal: anonymous,
      params: noParams, query: undefined, body: undefined, raw: undefined, revision: undefined, page: defaultPage,
      out: undefined, upgraded: false, stillAllowed: undefined,
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
