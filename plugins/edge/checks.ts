// What the edge takes from other plugins, checked: routes (hostnames, paths, targets) and certificates with their keys.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { isAbsolute } from 'node:path';
import { problem } from '../../sdk/index.ts';
import { normalizeHostname, normalizePath } from './hostnames.ts';
import { validHash } from './passwords.ts';
import type { RouteRow } from './store.ts';
import type { EdgeRoute } from './types.ts';

/** the routes as rows to store; a 400 naming every route that is not right */
export function validRoutes(routes: readonly EdgeRoute[]): Omit<RouteRow, 'owner'>[] {
  const errors: { path: string; message: string }[] = [];
  const rows: Omit<RouteRow, 'owner'>[] = [];
  const seen = new Set<string>();
  routes.forEach((r, i) => {
    const host = normalizeHostname(r.hostname);
    const path = normalizePath(r.path);
    if (!host.ok) errors.push({ path: `routes[${i}].hostname`, message: host.reason });
    if (!path.ok) errors.push({ path: `routes[${i}].path`, message: path.reason });
    if (!host.ok || !path.ok) return;
    const key = `${host.hostname}${path.path}`;
    if (seen.has(key)) errors.push({ path: `routes[${i}]`, message: `${key} is routed twice` });
    seen.add(key);
    if (r.kind === 'static') {
      if (typeof r.root !== 'string' || !isAbsolute(r.root) || r.root.includes('\0')) errors.push({ path: `routes[${i}].root`, message: 'the root must be an absolute directory' });
      else if (r.basicAuth !== undefined && (!/^[A-Za-z0-9._-]{1,64}$/.test(r.basicAuth?.username ?? '') || !validHash(r.basicAuth?.hash) || !/^[\x20-\x7e]{0,100}$/.test(r.basicAuth.realm ?? '') || /"/.test(r.basicAuth.realm ?? ''))) {
        errors.push({ path: `routes[${i}].basicAuth`, message: 'basic auth is a user name (letters, digits, ._-) and a hash from hashPassword' });
      } else rows.push({ hostname: host.hostname, path: path.path, kind: 'static', target: { root: r.root, ...(r.basicAuth ? { basicAuth: { username: r.basicAuth.username, hash: r.basicAuth.hash, ...(r.basicAuth.realm ? { realm: r.basicAuth.realm } : {}) } } : {}) } });
    } else if (r.kind === 'proxy') {
      const u = r.upstream;
      if (!u || !/^[a-z0-9][a-z0-9_-]{0,62}$/.test(u.project) || !/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(u.service) || !Number.isInteger(u.port) || u.port < 1 || u.port > 65535) {
        errors.push({ path: `routes[${i}].upstream`, message: 'the upstream is a project, a service and a port (1 to 65535)' });
      } else rows.push({ hostname: host.hostname, path: path.path, kind: 'proxy', target: { project: u.project, service: u.service, port: u.port } });
    } else errors.push({ path: `routes[${i}].kind`, message: 'a route is "proxy" or "static"' });
  });
  if (errors.length) throw problem(400, `invalid routes: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { errors });
  return rows;
}

/** a certificate with its key as a row to store: its DNS names and expiry; a 400 when either is unusable */
export function certificateRow(name: string, pem: { certificate: string; key: string }) {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem.certificate);
    if (!cert.checkPrivateKey(createPrivateKey(pem.key))) throw new Error('the key does not belong to the certificate');
  } catch (err) {
    throw problem(400, `the certificate or key is unusable: ${(err as Error).message}`);
  }
  const names = (cert.subjectAltName ?? '').split(', ').filter((e) => e.startsWith('DNS:')).map((e) => e.slice(4));
  const domains = [...new Set(names.map((d) => normalizeHostname(d, { wildcard: true })).filter((d) => d.ok).map((d) => (d as { hostname: string }).hostname))];
  if (!domains.length) throw problem(400, 'the certificate names no DNS hostname (subject alternative names)');
  return { name, domains, certificate: pem.certificate, key: pem.key, notAfter: new Date(cert.validTo).toISOString() };
}
