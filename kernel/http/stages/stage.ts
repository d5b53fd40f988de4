// A pipeline stage and its polka middleware: a stage works on the request's exchange; a throw or a rejection is the request's problem.
import type { ServerResponse } from 'node:http';
import type { ApiRequest, Exchange } from '../exchange.ts';

/** one step of the request's path; it answers only by throwing a problem (respond and onError write the answer) */
export type Stage = (x: Exchange) => void | Promise<void>;

/** polka's middleware signature: `next()` runs the next stage, `next(err)` goes to polka's onError */
export type Middleware = (req: ApiRequest, res: ServerResponse, next: (err?: unknown) => void) => void;

/** a stage as polka middleware; a stage that needs nothing asynchronous costs no promise and no extra turn */
export function middleware(stage: Stage): Middleware {
  return (req, _res, next) => {
    let pending: void | Promise<void>;
    try {
      pending = stage(req.exchange);
    } catch (err) {
      next(err);
      return;
    }
    if (pending) pending.then(() => next(), next);
    else next();
  };
}
