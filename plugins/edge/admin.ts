// Caddy's admin API as Dockwright uses it: over a unix socket (empty Host, which Caddy's origin check accepts) or a loopback TCP address.
import { request } from 'node:http';

export interface AdminEndpoint {
  /** for messages */
  label: string;
  socketPath?: string;
  host?: string;
  port?: number;
  /** the `admin.listen` value this endpoint is */
  listen: string;
}

/** `unix//path`, `unix:/path`, `host:port` or `http://host:port` */
export function parseAdminAddress(address: string): AdminEndpoint {
  const unix = /^unix:?\/?(\/.+)$/.exec(address);
  if (unix) return { label: address, socketPath: unix[1], listen: `unix/${unix[1]}` };
  const url = new URL(/^https?:\/\//.test(address) ? address : `http://${address}`);
  if (url.protocol !== 'http:' || !url.port || (url.pathname !== '/' && url.pathname !== '')) throw new Error(`"${address}" is not an admin address (host:port or unix//path)`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return { label: address, host, port: Number(url.port), listen: `${url.hostname}:${url.port}` };
}

export class AdminError extends Error {
  constructor(message: string, readonly status: number | null) { super(message); }
}

/** one admin call; `status` null when Caddy did not answer at all */
export function adminCall(endpoint: AdminEndpoint, method: string, path: string, body?: string, timeoutMs = 10_000): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: endpoint.socketPath ? '' : `${endpoint.host!.includes(':') ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}` };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    // setHost: false, or Node would fill the empty Host with `localhost`, which Caddy's origin check refuses on a socket
    const req = request({ socketPath: endpoint.socketPath, host: endpoint.host, port: endpoint.port, method, path, headers, setHost: false, agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => reject(new AdminError(`Caddy's admin API at ${endpoint.label}: ${err.message}`, null)));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err) => reject(new AdminError(`Caddy's admin API at ${endpoint.label} does not answer: ${err.message}`, null)));
    req.end(body);
  });
}

/** POST /load: the whole document at once; Caddy keeps running the previous one when it refuses this one */
export async function load(endpoint: AdminEndpoint, config: string, timeoutMs?: number): Promise<void> {
  const res = await adminCall(endpoint, 'POST', '/load', config, timeoutMs);
  if (res.status === 200) return;
  let message = res.text.trim();
  try { message = (JSON.parse(res.text) as { error?: string }).error ?? message; } catch { /* plain text */ }
  throw new AdminError(`Caddy refused the configuration (${res.status}): ${message}`, res.status);
}

/** the admin section the running Caddy has (an external one's own, which every /load must repeat) */
export async function currentAdmin(endpoint: AdminEndpoint, timeoutMs?: number): Promise<Record<string, unknown> | null> {
  const res = await adminCall(endpoint, 'GET', '/config/admin', undefined, timeoutMs);
  if (res.status !== 200) throw new AdminError(`Caddy's admin API at ${endpoint.label} answered ${res.status}: ${res.text.trim()}`, res.status);
  return JSON.parse(res.text) as Record<string, unknown> | null;
}
