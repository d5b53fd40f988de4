// The edge plugin's public API: the routes, certificates and challenge directory other plugins (stacks, sites, certificates) hand to the edge.
import type { Principal } from '../../sdk/index.ts';

/** a hostname and optional path prefix proxied to the containers of a compose service, on the edge network */
export interface ProxyRoute {
  kind: 'proxy';
  hostname: string;
  /** a path prefix such as `/api` (default `/`: everything) */
  path?: string;
  upstream: { project: string; service: string; port: number };
}
/** a hostname and optional path prefix served from a directory (the prefix is stripped) */
export interface StaticRoute {
  kind: 'static';
  hostname: string;
  path?: string;
  /** an absolute directory (a symbolic link to one is followed on every request, so renaming a new link over it switches atomically) */
  root: string;
  /** HTTP basic auth in front of the files (a preview host): the password only as a hash from EdgeApi.hashPassword */
  basicAuth?: { username: string; hash: PasswordHash; realm?: string };
}
/** a password as the edge stores it and Caddy checks it: never the password itself */
export interface PasswordHash { algorithm: 'scrypt'; hash: string; salt: string }
export type EdgeRoute = ProxyRoute | StaticRoute;

export interface EdgeCertificate {
  name: string;
  /** from the certificate's subject alternative names; `*.example.com` covers one level */
  domains: string[];
  notAfter: string;
}

/** a hostname another owner holds, as a caller may learn it */
export interface HostnameConflict {
  hostname: string;
  /** null when the caller may not see the owner (a stack hidden from them by its access list) */
  owner: string | null;
  /** "the hostname … belongs to <owner>", or "… is taken by another owner" */
  message: string;
}

/** every hostname `<prefix><label>.<domain>` (exactly one label below the domain) belongs to `owner(label)`, routed or not */
export interface HostnameNamespace {
  prefix: string;
  /** normalized (EdgeApi.normalizeHostname) */
  domain: string;
  owner(label: string): string;
  /** what the names are for, as in "reserved for the draft preview of site:docs" */
  purpose: string;
}

export interface EdgeApi {
  /**
   * Replaces every route of `owner` (`stack:<name>`, `site:<name>`, …); `[]` removes them and frees the hostnames.
   * Emits `edge.routes.changed` `{ owner }` in this process afterwards.
   * 400 for an invalid hostname, path or target, 409 naming the owner when a hostname is another owner's. Stored in
   * PostgreSQL and pushed to Caddy at once; when Caddy refuses the configuration, nothing changes (502).
   */
  setRoutes(owner: string, routes: readonly EdgeRoute[]): Promise<void>;
  /** reserves a namespace of hostnames (the sites' preview hosts) for the owners it names: no other owner gets one (during setup) */
  reserveNamespace(namespace: HostnameNamespace): void;
  /** a password hashed the way Caddy checks basic auth (random salt): what a StaticRoute's basicAuth carries */
  hashPassword(password: string): PasswordHash;
  /**
   * The hostnames (normalized) that an owner other than `owner` holds: by a route, or because a saved stack names them,
   * running or not. `viewer`: who asks, so that an owner hidden from them is not named (no viewer: none is named).
   */
  conflicts(owner: string, hostnames: readonly string[], viewer?: Principal): Promise<HostnameConflict[]>;
  /** the hostname in the form the edge stores (IDNA ASCII, lowercase, no trailing dot), or a reason it is not one */
  normalizeHostname(hostname: string, opts?: { wildcard?: boolean }): { ok: true; hostname: string } | { ok: false; reason: string };
  /**
   * Installs (or with null removes) a PEM certificate and key under a name; hostnames its domains cover are served on
   * HTTPS with it, and their plain HTTP redirects there (except the ACME challenge path, and unless the options
   * httpsRedirect / httpsRedirectExcept say otherwise). 400 when the PEM is unusable.
   */
  setCertificate(name: string, pem: { certificate: string; key: string } | null): Promise<EdgeCertificate | null>;
  /**
   * every hostname a route of the edge serves (normalized), for certificates to show which hostnames they serve; with a
   * viewer, those of owners it may see (a stack hidden by its access list keeps its hostnames to itself)
   */
  hostnames(viewer?: Principal): Promise<string[]>;
  /** every hostname an owner holds, routed or not (a saved stack that is stopped keeps its hostnames) */
  claimedHostnames(): Promise<string[]>;
  /** whether a certificate domain (possibly `*.x`, covering one label) covers a hostname */
  covers(domain: string, hostname: string): boolean;
  /** files below it answer `/.well-known/acme-challenge/<file>` on every hostname over plain HTTP */
  readonly challengeDir: string;
  /** the Docker network Caddy reaches services on */
  readonly network: string;
  /** the ports the edge listens on (plugins.edge.options httpPort, httpsPort): a link to a hostname names the port when it is not 80/443 */
  readonly ports: { readonly http: number; readonly https: number };
  /** the routes services declare with their labels (dockwright.http.*) as a stack's are read, and what is wrong with them */
  routesOf(project: string, services: readonly { name: string; labels: Record<string, string> }[]): { routes: ProxyRoute[]; issues: { path: string; message: string }[] };
}
