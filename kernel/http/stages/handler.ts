// Stage handler: the route's handler runs with its Call; on a WebSocket route it may take the connection over.
import { Call, type CallServices } from '../call.ts';
import type { Exchange } from '../exchange.ts';
import { handshake, type WebSockets } from '../upgrade.ts';
import { answerHead } from './respond.ts';
import type { Stage } from './stage.ts';

export interface HandlerOptions extends CallServices { webSockets: WebSockets }

export function handler(options: HandlerOptions): Stage {
  function allowUpgrade(x: Exchange, call: Call): void {
    handshake(x.req);
    call.upgrader = () => {
      x.upgraded = true;
      return options.webSockets.open(x.req, x.res, answerHead(x), x.stillAllowed);
    };
  }

  return (x: Exchange) => {
    const call = new Call(x, options);
    const { route } = x.entry;
    if (route.websocket) allowUpgrade(x, call);
    const out: unknown = route.handler(call as never);
    // most handlers are async; one that answers at once costs no promise
    if (typeof (out as PromiseLike<unknown> | undefined)?.then !== 'function') { x.out = out; return; }
    return Promise.resolve(out).then((value) => { x.out = value; });
  };
}
