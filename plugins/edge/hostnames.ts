// Hostname rules of the edge: IDNA to ASCII, length limits, and wildcards only where certificates allow them.
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** the stored form of a hostname, or why it is none; `*.` (one leftmost label) only when `wildcard` */
export function normalizeHostname(input: string, opts: { wildcard?: boolean } = {}): { ok: true; hostname: string } | { ok: false; reason: string } {
  if (typeof input !== 'string' || input.length === 0) return { ok: false, reason: 'a hostname is required' };
  if (input.length > 1000) return { ok: false, reason: 'the hostname is too long' };
  let text = input.trim().replace(/\.$/, '');
  let prefix = '';
  if (text.startsWith('*.')) {
    if (!opts.wildcard) return { ok: false, reason: `"${input}" is a wildcard: only certificates may cover wildcards, routes name one hostname` };
    prefix = '*.';
    text = text.slice(2);
  }
  if (text.includes('*')) return { ok: false, reason: `"${input}" has a wildcard that is not the whole leftmost label` };
  if (isIP(text) || isIP(text.replace(/^\[|\]$/g, ''))) return { ok: false, reason: `"${input}" is an IP address, not a hostname` };
  if (/[:/?#@\s]/.test(text)) return { ok: false, reason: `"${input}" is not a bare hostname (no port, path or scheme)` };
  const ascii = domainToASCII(text);
  if (!ascii) return { ok: false, reason: `"${input}" is not a valid internationalized domain name` };
  if (ascii.length > 253 - prefix.length) return { ok: false, reason: `"${input}" is longer than 253 characters` };
  const labels = ascii.split('.');
  const bad = labels.find((l) => !label.test(l));
  if (bad !== undefined) return { ok: false, reason: `"${input}" has the label "${bad}": labels are 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen` };
  if (/^\d+$/.test(labels[labels.length - 1])) return { ok: false, reason: `"${input}" ends in a numeric label` };
  // RFC 6761: localhost and every name below it resolve to the loopback address of whoever asks, never to the edge
  if (labels[labels.length - 1] === 'localhost') return { ok: false, reason: `"${input}" is localhost or a name under it: it names the asking machine itself, not a host the edge serves` };
  if (prefix && labels.length < 2) return { ok: false, reason: `"${input}" is a wildcard over a top-level domain` };
  return { ok: true, hostname: prefix + ascii };
}

/** whether a certificate domain (possibly `*.x`) covers a hostname: wildcards cover exactly one label */
export function covers(domain: string, hostname: string): boolean {
  if (domain === hostname) return true;
  if (!domain.startsWith('*.')) return false;
  const dot = hostname.indexOf('.');
  return dot > 0 && hostname.slice(dot + 1) === domain.slice(2);
}

/** a route path prefix: `/` or `/segment[/segment…]` without a trailing slash, dots-only segments or wildcards */
export function normalizePath(input: string | undefined): { ok: true; path: string } | { ok: false; reason: string } {
  if (input === undefined || input === '' || input === '/') return { ok: true, path: '/' };
  const path = input.replace(/\/+$/, '');
  if (!/^(\/[A-Za-z0-9._~%!$&'()+,;=:@-]+)+$/.test(path) || path.split('/').some((s) => s === '.' || s === '..')) {
    return { ok: false, reason: `"${input}" is not a path prefix such as /api (letters, digits and ._~-, no wildcards)` };
  }
  return path.length > 512 ? { ok: false, reason: 'the path prefix is longer than 512 characters' } : { ok: true, path };
}
