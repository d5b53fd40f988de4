// Taking an Upgrade request over as a WebSocket: the handshake's checks, the 101 on the request's own socket, the open connections (closed at a drain).
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { problem } from '../../sdk/index.ts';
import type { Head } from './answer.ts';
import type { ApiRequest } from './exchange.ts';
import { acceptKey, validKey, WebSocketConnection } from './websocket.ts';

/** a request asking for a WebSocket: an Upgrade request that came through the server's 'upgrade' event */
function wantsWebSocket(req: ApiRequest): boolean {
  return req.upgradeHead !== undefined && (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/** the handshake's Sec-WebSocket-Accept, once the request is a WebSocket upgrade this service speaks */
export function handshake(req: ApiRequest): string {
  if (!wantsWebSocket(req)) throw problem(426, 'this route is a WebSocket: send the upgrade request (Connection: Upgrade, Upgrade: websocket)', { headers: { Upgrade: 'websocket' } });
  if (req.headers['sec-websocket-version'] !== '13') throw problem(426, 'this service speaks WebSocket version 13', { headers: { 'Sec-WebSocket-Version': '13' } });
  const key = req.headers['sec-websocket-key'];
  if (!validKey(key)) throw problem(400, 'Sec-WebSocket-Key must be 16 bytes in base64');
  return acceptKey(key.trim());
}

/** the open WebSocket connections: closed (1001) when the server drains for a restart */
export class WebSockets {
  readonly #open = new Set<WebSocketConnection>();

  /** answers 101 on the request's own socket and hands it to a WebSocket connection (the ServerResponse stays unwritten) */
  open(req: ApiRequest, res: ServerResponse, accept: string, head: Head): WebSocketConnection {
    const socket = req.socket as Duplex & { setNoDelay?(on: boolean): void; setTimeout?(ms: number): void };
    const lines = ['HTTP/1.1 101 Switching Protocols', 'Upgrade: websocket', 'Connection: Upgrade', `Sec-WebSocket-Accept: ${accept}`];
    for (let i = 0; i < head.length; i += 2) lines.push(`${head[i]}: ${head[i + 1]}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    res.statusCode = 101;
    socket.setNoDelay?.(true);
    socket.setTimeout?.(0);
    const ws = new WebSocketConnection(socket, req.upgradeHead ?? Buffer.alloc(0));
    this.#open.add(ws);
    ws.once('close', () => this.#open.delete(ws));
    return ws;
  }

  closeAll(code: number, reason: string): void {
    for (const ws of this.#open) ws.close(code, reason);
  }
}
