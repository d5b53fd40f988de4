// Draining the HTTP server at shutdown: requests in flight finish (up to a grace), new ones are answered 503 with Retry-After (or, on a socket systemd holds, still served), then the listener closes.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { problem } from '../../sdk/index.ts';

/** what a client is told to wait: about what a restart under a process manager takes */
const retryAfterSeconds = '3';
/** how long connections accepted before the listener closed may still send their request (and get the 503) */
const lingerMs = 250;

export interface Drain {
  readonly draining: boolean;
  readonly inFlight: number;
  /** answers new requests 503, waits for those in flight (at most graceMs; then they are cut), and closes the server */
  drain(graceMs: number): Promise<{ cut: number }>;
}

export interface DrainOptions {
  /**
   * The listening socket was handed over by systemd, which keeps it open across a restart: the drain stops accepting at
   * once (connections not accepted yet wait in the socket's queue for the next start, none is reset), and requests that
   * still come on open connections are served, each closing its connection, instead of being answered 503.
   */
  handedOver?: boolean;
}

/** wraps the server's request listener; call once, after the server is made and before it listens */
export function drainable(server: Server, { handedOver = false }: DrainOptions = {}): Drain {
  const listeners = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  const active = new Set<ServerResponse>();
  let draining = false;
  let settled: (() => void) | null = null;
  const connections = new Set<Socket>();
  let disconnected: (() => void) | null = null;
  if (handedOver) {
    server.on('connection', (socket: Socket) => {
      connections.add(socket);
      socket.once('close', () => {
        connections.delete(socket);
        if (connections.size === 0) disconnected?.();
      });
    });
  }

  // one listener for every answer (an answer closes once): no closure per request
  function closed(this: ServerResponse): void {
    active.delete(this);
    if (active.size === 0) settled?.();
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (draining && handedOver) res.shouldKeepAlive = false;
    else if (draining) {
      const body = JSON.stringify(problem(503, 'the service is restarting; retry in a moment', { code: 'shutting-down', title: 'Shutting down' }).toJSON(req.url?.split('?')[0]));
      // Connection: close, so that the client's next request opens a connection to whatever serves next
      res.writeHead(503, { 'Content-Type': 'application/problem+json', 'Content-Length': Buffer.byteLength(body), 'Retry-After': retryAfterSeconds, Connection: 'close' });
      res.end(body);
      return;
    }
    active.add(res);
    res.on('close', closed);
    for (const listener of listeners) listener(req, res);
  });

  return {
    get draining() { return draining; },
    get inFlight() { return active.size; },
    async drain(graceMs) {
      draining = true;
      // what holds a connection open beyond one answer (a WebSocket) closes it now
      server.emit('draining');
      // those still working end their connection with their answer
      for (const res of active) if (!res.headersSent) res.shouldKeepAlive = false;
      const deadline = Date.now() + graceMs;
      if (handedOver) NetServer.prototype.close.call(server);
      if (active.size > 0) {
        await new Promise<void>((resolve) => {
          settled = resolve;
          setTimeout(resolve, graceMs).unref();
        });
      }
      const cut = active.size;
      // on a handed-over socket, open connections get their next request served (and then close) for as long as a client
      // may keep one idle (the keep-alive timeout): closing one under a client about to reuse it would break its request
      if (handedOver && cut === 0 && connections.size > 0) {
        await new Promise<void>((resolve) => {
          disconnected = resolve;
          setTimeout(resolve, Math.max(0, Math.min(deadline - Date.now(), server.keepAliveTimeout))).unref();
        });
      }
      await new Promise<void>((resolve) => {
        // the listener alone (http's close() also destroys idle connections at once): a connection accepted a moment ago
        // whose request is not read yet would be reset with it unread; given a moment, it gets its 503 and a clean close
        if (handedOver) resolve();
        else NetServer.prototype.close.call(server, () => resolve());
        if (cut > 0) server.closeAllConnections();
        setTimeout(() => server.closeIdleConnections(), lingerMs).unref();
      });
      return { cut };
    },
  };
}
