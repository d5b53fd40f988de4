// What a route's handler receives: the validated request, its principal and paging, and (made only when read) its abort signal, logger and base URL.
import type { IncomingMessage } from 'node:http';
import type { Logger, Principal } from '../../sdk/index.ts';
import type { ClientResolver } from './client.ts';
import type { Exchange, Paging } from './exchange.ts';
import type { WebSocketConnection } from './websocket.ts';

/** what every call of a service shares */
export interface CallServices { clients: ClientResolver; log: Logger }

/** the client has left, or its answer was torn down */
export const gone = (x: Pick<Exchange, 'req' | 'res'>) => x.res.destroyed || x.req.socket.destroyed;

/**
 * A handler's request: getters on the prototype over the request's exchange. The abort signal, the request's logger
 * and the base URL are made only for the handlers that read them (most never do): no closures per request.
 */
export class Call {
  readonly #exchange: Exchange;
  readonly #services: CallServices;
  #abort: AbortController | undefined;
  #requestLog: Logger | undefined;

  constructor(x: Exchange, services: CallServices) {
    this.#exchange = x;
    this.#services = services;
  }

  // what the stages before the handler found, read from the exchange (a call is two references, not a copy of it)
  get params(): Record<string, string> { return this.#exchange.params; }
  get query(): unknown { return this.#exchange.query; }
  get body(): unknown { return this.#exchange.body; }
  get principal(): Principal { return this.#exchange.principal; }
  get headers(): IncomingMessage['headers'] { return this.#exchange.req.headers; }
  get ip(): string { return this.#exchange.ip; }
  get requestId(): string { return this.#exchange.requestId; }
  get revision(): number | undefined { return this.#exchange.revision; }
  get page(): Paging { return this.#exchange.page; }
  get rawBody(): Buffer | undefined { return this.#exchange.raw; }
  get bodyStream(): IncomingMessage | undefined { return this.#exchange.entry.route.upload === 'stream' ? this.#exchange.req : undefined; }

  get baseUrl(): string {
    return this.#services.clients.baseUrl(this.#exchange.req);
  }

  get signal(): AbortSignal {
    if (!this.#abort) {
      const controller = this.#abort = new AbortController();
      const x = this.#exchange;
      if (gone(x)) controller.abort();
      else x.res.once('close', () => { if (!x.res.writableFinished) controller.abort(); });
    }
    return this.#abort.signal;
  }

  get log(): Logger {
    return (this.#requestLog ??= this.#services.log.child({ requestId: this.requestId }));
  }

  /** set by the handler stage on a `websocket` route's upgrade request */
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
