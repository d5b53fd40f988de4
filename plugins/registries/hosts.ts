// Registry host names: one spelling per registry (lowercase, Docker Hub's aliases folded into docker.io, the port kept) and the address the engine logs in to.
import { isIPv6 } from 'node:net';

export const dockerHub = 'docker.io';
const dockerHubAliases = new Set([dockerHub, 'index.docker.io', 'registry-1.docker.io']);

const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const ipv4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export type HostCheck = { ok: true; host: string } | { ok: false; message: string };

/** `host[:port]` as `docker login` takes it, normalised; anything else (a scheme, a path, a bad port) is refused with the reason. */
export function normaliseHost(input: string): HostCheck {
  const text = input.toLowerCase();
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(text) || text.includes('/')) {
    return { ok: false, message: 'give the registry as host or host:port (e.g. ghcr.io or registry.example.com:5000), without a scheme or a path' };
  }
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(text);
  const colons = text.split(':').length - 1;
  if (!bracketed && colons > 1) return { ok: false, message: 'a registry host has at most one ":", before its port (an IPv6 address goes in brackets: [::1]:5000)' };
  const [name, port] = bracketed ? [bracketed[1], bracketed[2]] : [text.split(':')[0], colons ? text.split(':')[1] : undefined];
  if (bracketed ? !isIPv6(name) : !(ipv4.test(name) || (name.length <= 253 && name.split('.').every((l) => label.test(l))))) {
    return { ok: false, message: `"${name}" is not a host name or IP address` };
  }
  let portPart = '';
  if (port !== undefined) {
    const n = /^\d{1,5}$/.test(port) ? Number(port) : 0;
    if (!(n >= 1 && n <= 65535)) return { ok: false, message: `the port "${port}" is not a number between 1 and 65535` };
    portPart = `:${n}`;
  }
  const host = bracketed ? `[${name}]${portPart}` : `${name}${portPart}`;
  return { ok: true, host: dockerHubAliases.has(host) ? dockerHub : host };
}

/** what the engine's /auth and X-Registry-Config name a registry by: Docker Hub by its historical index address */
export function serverAddressOf(host: string): string {
  return host === dockerHub ? 'https://index.docker.io/v1/' : host;
}
