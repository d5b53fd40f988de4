// The HTTP server: polka runs each route's pipeline onRequest → limits → authenticate → input → handler → respond (onError, onNoMatch beside).
import { createServer, STATUS_CODES, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import polka from 'polka';
import type { ActivityApi, Logger } from '../../sdk/index.ts';
import { problem } from '../../sdk/index.ts';
import type { Metrics } from '../services/metrics.ts';
import { answerWriter } from './answer.ts';
import type { ApiRequest } from './exchange.ts';
import { Router } from './router.ts';
import type { RouteTable } from './routes.ts';
import { activityRecorder } from './stages/activity.ts';
import { authenticate, type AuthenticateOptions } from './stages/authenticate.ts';
import { onError } from './stages/errors.ts';
import { handler } from './stages/handler.ts';
import { input, type InputOptions } from './stages/input.ts';
import { limits, type LimitsOptions } from './stages/limits.ts';
import { onNoMatch } from './stages/not-found.ts';
import { onRequest } from './stages/request.ts';
import { respond } from './stages/respond.ts';
import { middleware, type Middleware } from './stages/stage.ts';
import { WebSockets } from './upgrade.ts';

/** what the HTTP server is made of: the route table, the services its stages call, its limits */
export interface HttpDeps extends LimitsOptions, AuthenticateOptions, InputOptions {
  table: RouteTable;
  log: Logger;
  activity: ActivityApi;
  /** answers requests outside the API (the portal's files); false: not found */
  web?(req: IncomingMessage, res: ServerResponse): boolean;
  /** counts every answer by route template and status, with its latency */
  metrics?: Metrics;
  /** the answers of one turn of the event loop written together at its end (config http.batchAnswers); default true */
  batchAnswers?: boolean;
  /** how long a request's headers, and the whole request, may take to arrive (config http.headersTimeoutMs, requestTimeoutMs) */
  timeouts?: { headersMs: number; requestMs: number };
}

/** a slow client's connection is looked at this often: it is cut at most this long after its timeout (Node's default: 30 s) */
const connectionsCheckingInterval = 1000;

const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** polka as this server uses it: routes found by `find`, each a list of middleware, and its request handler */
interface Polka {
  find(method: string, path: string): { params: Record<string, string>; handlers: Middleware[] } | null | false;
  handler(req: IncomingMessage, res: ServerResponse): void;
}

export function createHttpServer(deps: HttpDeps): Server {
  const router = new Router<Middleware[]>();
  const recordActivity = activityRecorder(deps);
  const webSockets = new WebSockets();
  const answers = answerWriter(deps.batchAnswers ?? true);
  // the stages every route shares, in the order of a request's path; onRequest, made per route, comes first
  const stages = [
    limits(deps),
    authenticate(deps),
    input(deps),
    handler({ clients: deps.clients, log: deps.log, webSockets }),
    respond({ log: deps.log, recordActivity, answers }),
  ].map(middleware);
  for (const entry of deps.table.routes) {
    const meter = deps.metrics?.route(entry.route.method, entry.fullPath);
    router.add(entry.route.method, entry.fullPath, [onRequest(entry, meter, deps.clients), ...stages]);
  }

  const app = polka({
    onError: onError({ log: deps.log, failures: deps.failures, recordActivity, answers }),
    onNoMatch: onNoMatch({ ...deps, answers, allowed: (path) => methods.filter((m) => router.find(m, path)) }),
  } as never) as unknown as Polka;
  // polka asks `find` for a request's route: ours (exact paths from a map, then polka's own patterns)
  app.find = (method, path) => router.find(method, path);

  // Node's defaults are 60 s for the headers and 300 s for the request, looked at every 30 s: a slow-header client held a
  // connection up to 90 s
  const { headersMs, requestMs } = deps.timeouts ?? { headersMs: 10_000, requestMs: 300_000 };
  const server = createServer({
    keepAliveTimeout: 5000, headersTimeout: headersMs, requestTimeout: Math.max(requestMs, headersMs), connectionsCheckingInterval,
  }, app.handler);
  // an Upgrade request goes through the same pipeline (and the drain) as any: its answer, unless a WebSocket route
  // upgrades it, is written on its socket, which then closes
  server.on('upgrade', (incoming: IncomingMessage, socket: Duplex, head: Buffer) => {
    const res = new ServerResponse(incoming);
    res.assignSocket(socket as never);
    res.shouldKeepAlive = false;
    res.once('finish', () => socket.end());
    socket.on('error', () => socket.destroy());
    (incoming as ApiRequest).upgradeHead = head;
    server.emit('request', incoming, res);
  });
  // at a restart, the WebSocket sessions are told so (1001) and closed: the drain waits for them like for any request
  server.on('draining', () => webSockets.closeAll(1001, 'the service is restarting'));
  // what the HTTP parser refuses (NUL in a header, an unknown method, a broken request line) is a problem too
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') { socket.destroy(); return; }
    const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const status = timedOut ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const detail = timedOut ? 'the request did not arrive in time' : `the request cannot be parsed (${err.code ?? 'bad request'})`;
    const body = JSON.stringify(problem(status, detail).toJSON());
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
  return server;
}
