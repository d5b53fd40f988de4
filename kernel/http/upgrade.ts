// Taking an Upgrade request over as a WebSocket: the handshake's checks (answered as problems before the upgrade), the 101 through ws on the request's own socket, the open connections (re-checked while open, closed at a drain).
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { problem } from '../../sdk/index.ts';
import type { Head } from './answer.ts';
import type { ApiRequest } from './exchange.ts';
import { acceptWebSocket, defaultWebSocketLimits, webSocketServer, type WebSocketConnection, type WebSocketLimits } from './websocket.ts';

/** a request asking for a WebSocket: an Upgrade request that came through the server's 'upgrade' event */
function wantsWebSocket(req: ApiRequest): boolean {
  return req.upgradeHead !== undefined && (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/** a well-formed Sec-WebSocket-Key: 16 bytes in base64 */
function validKey(key: unknown): key is string {
  return typeof key === 'string' && /^[A-Za-z0-9+/]{22}==$/.test(key);
}

/** throws the problem that answers a request this service cannot take over as a WebSocket (version 13 only) */
export function handshake(req: ApiRequest): void {
  if (!wantsWebSocket(req)) throw problem(426, 'this route is a WebSocket: send the upgrade request (Connection: Upgrade, Upgrade: websocket)', { headers: { Upgrade: 'websocket' } });
  if (req.headers['sec-websocket-version'] !== '13') throw problem(426, 'this service speaks WebSocket version 13', { headers: { 'Sec-WebSocket-Version': '13' } });
  if (!validKey(req.headers['sec-websocket-key'])) throw problem(400, 'Sec-WebSocket-Key must be 16 bytes in base64');
}

/** whether the caller that opened a connection may still hold it: its token or session live, its user enabled, its scopes kept */
export type StillAllowed = () => Promise<boolean>;

export interface WebSocketsOptions extends Partial<WebSocketLimits> {
  /** how often each open connection's caller is checked again (ms) */
  recheckMs?: number;
}

/** the open WebSocket connections: re-checked and pinged every few seconds (1008 once the caller lost access; a peer gone is noticed), closed (1001) when the server drains for a restart */
export class WebSockets {
  readonly #open = new Map<WebSocketConnection, StillAllowed | undefined>();
  readonly #limits: WebSocketLimits;
  readonly #server: WebSocketServer;
  readonly #recheckMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: WebSocketsOptions = {}) {
    this.#limits = { maxMessage: options.maxMessage ?? defaultWebSocketLimits.maxMessage, maxBuffered: options.maxBuffered ?? defaultWebSocketLimits.maxBuffered };
    this.#server = webSocketServer(this.#limits);
    this.#recheckMs = options.recheckMs ?? 5000;
  }

  /** answers 101 on the request's own socket and hands it to a WebSocket connection (the ServerResponse stays unwritten) */
  open(req: ApiRequest, res: ServerResponse, head: Head, stillAllowed?: StillAllowed): WebSocketConnection {
    const headers: string[] = [];
    for (let i = 0; i < head.length; i += 2) headers.push(`${head[i]}: ${head[i + 1]}`);
    const ws = acceptWebSocket(this.#server, this.#limits, req, req.socket as Duplex, req.upgradeHead ?? Buffer.alloc(0), headers);
    res.statusCode = 101;
    this.#open.set(ws, stillAllowed);
    ws.once('close', () => { this.#open.delete(ws); if (this.#open.size === 0) this.#stopChecks(); });
    this.#startChecks();
    return ws;
  }

  get size(): number {
    return this.#open.size;
  }

  closeAll(code: number, reason: string): void {
    for (const ws of this.#open.keys()) ws.close(code, reason);
  }

  #startChecks(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.#recheck(), this.#recheckMs);
    this.#timer.unref();
  }

  #stopChecks(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #recheck(): Promise<void> {
    await Promise.all([...this.#open].map(async ([ws, stillAllowed]) => {
      ws.heartbeat();
      if (!stillAllowed) return;
      // an error (the database away a moment) is no verdict: the next round asks again
      const allowed = await stillAllowed().catch(() => true);
      if (!allowed) ws.close(1008, 'access ended: the token was revoked, the session signed out or the user disabled');
    }));
  }
}
