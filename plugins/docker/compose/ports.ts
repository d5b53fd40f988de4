// Compose `ports`: the short syntax ("127.0.0.1:8080:80/udp", ranges) and the long one, as engine port bindings.
import type { NormalizedPort } from './model.ts';
import type { Issues } from './issues.ts';
import { isObj, scalar } from './shape.ts';

const protocols = new Set(['tcp', 'udp', 'sctp']);

function range(text: string): [number, number] | null {
  const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(text.trim());
  if (!m) return null;
  const a = Number(m[1]);
  const b = m[2] ? Number(m[2]) : a;
  return a >= 1 && b <= 65535 && a <= b ? [a, b] : null;
}

function expand(path: string, entry: number, issues: Issues, hostIp: string, published: string, target: string, protocol: string): NormalizedPort[] {
  if (!protocols.has(protocol)) { issues.error(path, `protocol "${protocol}" is not tcp, udp or sctp`); return []; }
  const t = range(target);
  if (!t) { issues.error(path, `container port "${target}" is not a port number (1-65535) or range`); return []; }
  const p = published === '' ? null : range(published);
  if (published !== '' && !p) { issues.error(path, `host port "${published}" is not a port number (1-65535) or range`); return []; }
  const count = t[1] - t[0] + 1;
  if (p && p[1] - p[0] + 1 !== count) {
    issues.error(path, `host ports ${published} and container ports ${target} are ranges of different lengths`);
    return [];
  }
  // counted before a range becomes one binding per port
  issues.take('ports', count, path, 'port bindings (a range counts each of its ports)');
  return Array.from({ length: count }, (_, i) => ({
    target: t[0] + i, published: p ? p[0] + i : null, hostIp, protocol: protocol as NormalizedPort['protocol'], entry,
  }));
}

function short(text: string, path: string, entry: number, issues: Issues): NormalizedPort[] {
  let rest = text.trim();
  let protocol = 'tcp';
  const slash = rest.lastIndexOf('/');
  if (slash >= 0) { protocol = rest.slice(slash + 1).toLowerCase(); rest = rest.slice(0, slash); }
  let hostIp = '';
  if (rest.startsWith('[')) {
    const end = rest.indexOf(']');
    if (end < 0 || rest[end + 1] !== ':') { issues.error(path, `"${text}" is not [ip]:host:container`); return []; }
    hostIp = rest.slice(1, end);
    rest = rest.slice(end + 2);
    const parts = rest.split(':');
    if (parts.length !== 2) { issues.error(path, `"${text}" is not [ip]:host:container`); return []; }
    return expand(path, entry, issues, hostIp, parts[0], parts[1], protocol);
  }
  const parts = rest.split(':');
  if (parts.length === 1) return expand(path, entry, issues, '', '', parts[0], protocol);
  if (parts.length === 2) return expand(path, entry, issues, '', parts[0], parts[1], protocol);
  if (parts.length === 3) return expand(path, entry, issues, parts[0], parts[1], parts[2], protocol);
  issues.error(path, `"${text}" is not container, host:container or ip:host:container`);
  return [];
}

export function ports(v: unknown, path: string, issues: Issues): NormalizedPort[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) { issues.error(path, 'must be a list'); return []; }
  return v.flatMap((item, i) => {
    const at = `${path}[${i}]`;
    const s = scalar(item);
    if (s !== null) return short(s, at, i, issues);
    if (!isObj(item)) { issues.error(at, 'must be a string like "8080:80" or a map with target'); return []; }
    const target = scalar(item.target);
    if (target === null) { issues.error(`${at}.target`, 'is required: the container port'); return []; }
    const published = item.published === undefined || item.published === null ? '' : scalar(item.published) ?? '';
    const hostIp = scalar(item.host_ip) ?? '';
    const protocol = (scalar(item.protocol) ?? 'tcp').toLowerCase();
    return expand(at, i, issues, hostIp, published, target, protocol);
  });
}
