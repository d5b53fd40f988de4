// Helpers of the alerts tests: a recording HTTP receiver on loopback, a watch on every outbound connection this process attempts.
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';

export interface Received { method: string; path: string; headers: http.IncomingHttpHeaders; body: string }

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  on(path: string): Received[];
  /** answers of a path other than 200 (a redirect, an error) */
  answer(path: string, status: number, headers?: Record<string, string>): void;
  /** stops listening (the port refuses connections) until up() */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const answers = new Map<string, { status: number; headers: Record<string, string> }>();
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ method: req.method ?? '', path, headers: req.headers, body });
      const a = answers.get(path.split('?')[0]) ?? { status: 200, headers: {} };
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      // a refusal quotes the path, as some receivers do: it may hold a token the sender must not repeat
      res.end(a.status < 300 ? '{"ok":true}' : JSON.stringify({ error: 'refused by the test receiver', path }));
    });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  const listen = (port: number) => new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, '127.0.0.1', () => resolve()); });
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  const shut = () => new Promise<void>((resolve) => { server.close(() => resolve()); for (const s of sockets) s.destroy(); });
  return {
    url: `http://127.0.0.1:${port}`, port, received,
    on: (path) => received.filter((r) => r.path === path),
    answer: (path, status, headers = {}) => { answers.set(path, { status, headers }); },
    down: shut,
    up: () => listen(port),
    close: () => (server.listening ? shut() : Promise.resolve()),
  };
}

/** every host this process tries to connect to (net and tls), to prove a refused address was never dialled */
export function watchConnections(): { hosts: string[]; restore(): void } {
  const hosts: string[] = [];
  const originals = { net: net.connect, netCreate: net.createConnection, tls: tls.connect };
  const record = (args: unknown[]) => {
    const [first, second] = args as [unknown, unknown];
    if (typeof first === 'object' && first !== null) hosts.push(String((first as { host?: string }).host ?? (first as { path?: string }).path ?? 'localhost'));
    else if (typeof first === 'number') hosts.push(typeof second === 'string' ? second : 'localhost');
  };
  const wrap = <F extends (...a: any[]) => any>(f: F) => ((...args: any[]) => { record(args); return f(...args); }) as F;
  net.connect = wrap(originals.net);
  net.createConnection = wrap(originals.netCreate);
  tls.connect = wrap(originals.tls);
  return {
    hosts,
    restore() {
      net.connect = originals.net;
      net.createConnection = originals.netCreate;
      tls.connect = originals.tls;
    },
  };
}
