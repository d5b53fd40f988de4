// WebSocket connections on the server side through the `ws` library (RFC 6455, no extensions): one peer per upgraded socket, with bounded buffers both ways and a periodic check that its caller may still hold it.
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { WebSocketPeer } from '../../sdk/index.ts';

export interface WebSocketLimits {
  /** the largest message (all its fragments together); a larger one closes the connection with 1009 */
  maxMessage: number;
  /** bytes waiting to be sent above which send() says wait, and pings are no longer read until they leave */
  maxBuffered: number;
}

export const defaultWebSocketLimits: WebSocketLimits = { maxMessage: 1 << 20, maxBuffered: 1 << 20 };

/** a server that only takes over sockets handed to it (noServer): no compression, UTF-8 checked, pongs sent by the peer */
export function webSocketServer(limits: WebSocketLimits): WebSocketServer {
  return new WebSocketServer({
    noServer: true, clientTracking: false, perMessageDeflate: false, maxPayload: limits.maxMessage, autoPong: false, skipUTF8Validation: false,
  });
}

/**
 * One server-side connection: emits 'message' (text; a binary message as its UTF-8 text), 'close' (code, reason) once,
 * and 'drain' when what waited to be sent after send() returned false has left. A peer that stops reading is not read
 * either: its pings are answered only while the answers leave, and the socket is paused meanwhile.
 */
export class WebSocketConnection extends EventEmitter implements WebSocketPeer {
  readonly #ws: WebSocket;
  readonly #limits: WebSocketLimits;
  #closed = false;
  #waitingDrain = false;
  /** why the socket is not read: the peer asked (pause()), or it does not read what we send */
  #pausedBy = { peer: false, outbound: false };

  constructor(ws: WebSocket, limits: WebSocketLimits) {
    super();
    this.#ws = ws;
    this.#limits = limits;
    // a text message is checked as UTF-8 by ws (1007 otherwise); a binary one is read as UTF-8 text
    ws.on('message', (data: RawData) => this.emit('message', textOf(data)));
    ws.on('ping', (payload: Buffer) => this.#ping(payload));
    ws.on('close', (code: number, reason: Buffer) => this.#finish(code, reason.toString('utf8')));
    // a broken peer: ws sends the close frame itself (1002, 1007, 1009); the session ends now, the socket once answered (or cut off)
    ws.on('error', (err: Error) => { this.#cutOffLater(); this.#finish(statusOf(err), err.message); });
  }

  get open(): boolean {
    return !this.#closed && this.#ws.readyState === this.#ws.OPEN;
  }

  /** bytes written but not yet taken by the peer's side of the connection */
  get bufferedAmount(): number {
    return this.#ws.bufferedAmount;
  }

  send(text: string | Buffer): boolean {
    if (!this.open) return false;
    this.#ws.send(Buffer.isBuffer(text) ? text.toString('utf8') : text, () => this.#written());
    if (this.bufferedAmount < this.#limits.maxBuffered) return true;
    this.#waitingDrain = true;
    return false;
  }

  close(code = 1000, reason = ''): void {
    if (this.#closed) return;
    if (this.#ws.readyState === this.#ws.OPEN) {
      this.#ws.close(code, truncateUtf8(reason, 123));
      this.#cutOffLater();
    } else this.#ws.terminate();
    this.#finish(code, reason);
  }

  /** the peer answers a close with its own; one that does not (or does not read) is cut off */
  #cutOffLater(): void {
    const timer = setTimeout(() => this.#ws.terminate(), 2000);
    timer.unref();
    this.#ws.once('close', () => clearTimeout(timer));
  }

  /**
   * a ping to the peer: a connection that is not read (paused) would not notice a peer that went away, its write does
   * (and closes it). Skipped while much waits to be sent already.
   */
  heartbeat(): void {
    if (this.open && this.bufferedAmount < this.#limits.maxBuffered) this.#ws.ping();
  }

  /** stops reading the connection (what is already read is still delivered) until resume() */
  pause(): void {
    this.#pausedBy.peer = true;
    this.#ws.pause();
  }

  resume(): void {
    this.#pausedBy.peer = false;
    if (!this.#pausedBy.outbound) this.#ws.resume();
  }

  #ping(payload: Buffer): void {
    if (!this.open) return;
    this.#ws.pong(payload, false, () => this.#written());
    // a peer that pings without reading the pongs: stop reading its pings until the pongs have left
    if (this.bufferedAmount >= this.#limits.maxBuffered && !this.#pausedBy.outbound) {
      this.#pausedBy.outbound = true;
      this.#ws.pause();
    }
  }

  /** a write has left: once little waits, a held send may go on and a connection paused for its pongs is read again */
  #written(): void {
    if (this.bufferedAmount > this.#limits.maxBuffered / 4) return;
    if (this.#pausedBy.outbound) {
      this.#pausedBy.outbound = false;
      if (!this.#pausedBy.peer && this.open) this.#ws.resume();
    }
    if (this.#waitingDrain) {
      this.#waitingDrain = false;
      this.emit('drain');
    }
  }

  #finish(code: number, reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.emit('close', code, reason);
  }
}

/** the close code ws gives an error of the peer's (a symbol-keyed status on its errors), 1002 when it has none */
function statusOf(err: Error): number {
  const key = Object.getOwnPropertySymbols(err).find((s) => s.description === 'status-code');
  const code = key ? (err as unknown as Record<symbol, unknown>)[key] : undefined;
  return typeof code === 'number' ? code : 1002;
}

function textOf(data: RawData): string {
  return (Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8');
}

/** at most `max` bytes of UTF-8, never cutting a character in half */
function truncateUtf8(text: string, max: number): string {
  let out = text;
  while (Buffer.byteLength(out) > max) out = out.slice(0, -1);
  return out;
}

/** hands an upgrade request's socket to ws: the 101 (with `headers` added) written on it at once, the connection returned */
export function acceptWebSocket(server: WebSocketServer, limits: WebSocketLimits, req: IncomingMessage, socket: Duplex, head: Buffer, headers: string[]): WebSocketConnection {
  let accepted: WebSocket | undefined;
  const addHeaders = (lines: string[]) => { lines.push(...headers); };
  server.once('headers', addHeaders);
  try {
    server.handleUpgrade(req, socket, head, (ws) => { accepted = ws; });
  } finally {
    server.removeListener('headers', addHeaders);
  }
  if (!accepted) throw new Error('the WebSocket handshake did not complete');
  return new WebSocketConnection(accepted, limits);
}
