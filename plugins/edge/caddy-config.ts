// The one JSON document Caddy runs: built from the edge's data and the live upstream addresses, nothing else (no hand-edited files).
import { compareText } from '../../sdk/index.ts';
import { covers } from './hostnames.ts';
import type { Upstreams } from './network.ts';
import { scryptParams } from './passwords.ts';
import type { CertificateRow, RouteRow, StaticTarget } from './store.ts';

export interface ConfigInput {
  /** Caddy's admin section, kept in every document (a /load without it would move the admin endpoint) */
  admin: Record<string, unknown> | null;
  httpPort: number;
  httpsPort: number;
  /** where Caddy keeps its own files (storage), and where the logs go */
  storageDir: string;
  accessLog: string;
  caddyLog: string;
  roll: { sizeMb: number; keep: number; keepDays: number };
  challengeDir: string;
  routes: readonly RouteRow[];
  certificates: readonly Pick<CertificateRow, 'name' | 'domains' | 'certificate' | 'key'>[];
  /** `project/service` → the `ip:port`-less addresses of its running containers on the edge network, serving and fallback */
  addresses: ReadonlyMap<string, Upstreams>;
  /** whether plain HTTP of a secured hostname redirects to HTTPS (default yes), and the hostnames it does not for */
  redirect?: { enabled: boolean; except: readonly string[] };
}

type Json = Record<string, unknown>;
export const accessLogger = 'dockwright';

/**
 * How a request tries the upstreams of its route. A failed connection (a container that just stopped, or crashed, or is
 * too busy to accept) is tried again on another upstream, or on the same once the edge has moved on: the client sees a
 * slower answer, not a 502. A connection attempt times out after `dialTimeoutMs`, Caddy's default: a SYN that a busy
 * container's full accept queue dropped is sent again after 1 s, so a 1 s timeout cut off the very connections that
 * would have been taken (bench:edge, a proxied container under 32 connections: 0.38× a hand-written Caddy at 1 s, 1.1×
 * at 3 s). An upstream that failed is skipped for `skipMs`; the tries last `tryMs`. A GET is tried again also when the
 * upstream failed after the request reached it (a process that died mid-answer); any other method only when the
 * connection failed. With fallbacks (the old container of a replacement), upstreams are taken in order: the new one
 * gets every request, the old one those the new one fails.
 */
export const upstreamTries = { dialTimeoutMs: 3000, skipMs: 7000, intervalMs: 100, tryMs: 15_000 };

/**
 * Caddy ends the tries of a request whose configuration was replaced while it waited to try again (the wait watches the
 * old handler's context), so a document that takes a dead container's address out waits this long after the death:
 * the attempts on that address under way by then have timed out and moved on to the other upstreams, and the skip of
 * `skipMs` (longer than this) keeps new ones away from it until the document is replaced.
 */
export const afterDeathHoldMs = 2 * upstreamTries.dialTimeoutMs + upstreamTries.intervalMs + 300;

const text = (status: number, body: string): Json => ({ handler: 'static_response', status_code: status, headers: { 'Content-Type': ['text/plain; charset=utf-8'] }, body });
const pathMatch = (path: string) => (path === '/' ? {} : { path: [path, `${path}/*`] });

function handlersOf(r: RouteRow, addresses: ConfigInput['addresses']): Json[] {
  if (r.kind === 'static') {
    const { root, basicAuth } = r.target as StaticTarget;
    const auth = basicAuth ? [{
      handler: 'authentication',
      providers: { http_basic: { hash: { algorithm: 'scrypt', ...scryptParams }, realm: basicAuth.realm ?? 'restricted', accounts: [{ username: basicAuth.username, password: basicAuth.hash.hash, salt: basicAuth.hash.salt }] } },
    }] : [];
    return [...auth, ...(r.path === '/' ? [] : [{ handler: 'rewrite', strip_path_prefix: r.path }]), { handler: 'file_server', root }];
  }
  const t = r.target as { project: string; service: string; port: number };
  const ips = addresses.get(`${t.project}/${t.service}`) ?? { serving: [], fallback: [] };
  const dial = [...ips.serving, ...ips.fallback].map((ip) => ({ dial: `${ip.includes(':') ? `[${ip}]` : ip}:${t.port}` }));
  if (!dial.length) return [text(502, `${r.hostname}: no running container of service ${t.service} (stack ${t.project}) on the edge network\n`)];
  return [{
    handler: 'reverse_proxy', upstreams: dial, transport: { protocol: 'http', dial_timeout: `${upstreamTries.dialTimeoutMs}ms` },
    load_balancing: { try_duration: `${upstreamTries.tryMs}ms`, try_interval: `${upstreamTries.intervalMs}ms`, ...(ips.fallback.length ? { selection_policy: { policy: 'first' } } : {}) },
    health_checks: { passive: { fail_duration: `${upstreamTries.skipMs}ms` } },
  }];
}

/** routes of these hostnames, longest path prefix first, then a 404 for any other host */
function routesOf(rows: readonly RouteRow[], addresses: ConfigInput['addresses']): Json[] {
  const ordered = [...rows].sort((a, b) => b.path.length - a.path.length || compareText(a.hostname, b.hostname) || compareText(a.path, b.path));
  return ordered.map((r) => ({ match: [{ host: [r.hostname], ...pathMatch(r.path) }], handle: handlersOf(r, addresses), terminal: true }));
}

const rolled = (filename: string, roll: ConfigInput['roll']) => ({
  output: 'file', filename, roll: true, roll_size_mb: roll.sizeMb, roll_keep: roll.keep, roll_keep_days: roll.keepDays,
});

export function buildConfig(input: ConfigInput): Json {
  const secured = new Set(input.routes.map((r) => r.hostname).filter((h) => input.certificates.some((c) => c.domains.some((d) => covers(d, h)))));
  const redirect = input.redirect ?? { enabled: true, except: [] };
  // a secured hostname without the redirect is served on both ports
  const redirected = new Set(redirect.enabled ? [...secured].filter((h) => !redirect.except.includes(h)) : []);
  const plain = input.routes.filter((r) => !redirected.has(r.hostname));
  const tlsRoutes = input.routes.filter((r) => secured.has(r.hostname));
  const notFound = { handle: [text(404, 'no route for this hostname\n')], terminal: true };
  const port = input.httpsPort === 443 ? '' : `:${input.httpsPort}`;
  const servers: Json = {
    http: {
      listen: [`:${input.httpPort}`],
      automatic_https: { disable: true },
      logs: { default_logger_name: accessLogger },
      routes: [
        // the HTTP-01 challenge answers on every hostname, before any redirect
        { match: [{ path: ['/.well-known/acme-challenge/*'] }], handle: [{ handler: 'rewrite', strip_path_prefix: '/.well-known/acme-challenge' }, { handler: 'file_server', root: input.challengeDir }], terminal: true },
        ...(redirected.size ? [{
          match: [{ host: [...redirected].sort() }],
          handle: [{ handler: 'static_response', status_code: 308, headers: { Location: [`https://{http.request.host}${port}{http.request.uri}`] } }],
          terminal: true,
        }] : []),
        ...routesOf(plain, input.addresses),
        notFound,
      ],
    },
  };
  if (secured.size) {
    servers.https = {
      listen: [`:${input.httpsPort}`],
      automatic_https: { disable: true },
      logs: { default_logger_name: accessLogger },
      tls_connection_policies: [{}],
      routes: [...routesOf(tlsRoutes, input.addresses), notFound],
    };
  }
  const config: Json = {
    logging: {
      logs: {
        default: { writer: rolled(input.caddyLog, input.roll), encoder: { format: 'json' }, exclude: [`http.log.access.${accessLogger}`] },
        access: { writer: rolled(input.accessLog, input.roll), encoder: { format: 'json' }, include: [`http.log.access.${accessLogger}`] },
      },
    },
    storage: { module: 'file_system', root: input.storageDir },
    apps: {
      http: { servers },
      ...(input.certificates.length ? {
        tls: {
          // certificates are Dockwright's: handed over as PEM, never obtained by Caddy (automatic HTTPS is off on every server)
          certificates: { load_pem: input.certificates.map((c) => ({ certificate: c.certificate, key: c.key, tags: [`dockwright:${c.name}`] })) },
        },
      } : {}),
    },
  };
  if (input.admin) config.admin = input.admin;
  return config;
}
