// Who is calling and how they reached us: the client address and the base URL, from X-Forwarded-* only when the peer is a trusted proxy.
import { BlockList, isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

/** `::ffff:10.0.0.1` → `10.0.0.1`, so one rule covers both forms of an IPv4 peer */
function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

export class ClientResolver {
  private readonly trusted = new BlockList();
  private readonly any: boolean;

  /** `proxies`: addresses or CIDRs (`10.0.0.0/8`, `::1`) whose X-Forwarded-For, -Proto and -Host are believed. */
  constructor(proxies: readonly string[], private readonly publicUrl: string | null) {
    for (const entry of proxies) {
      const [address, bits, extra] = entry.trim().split('/');
      const family = isIP(address);
      const prefix = bits === undefined ? undefined : Number(bits);
      const max = family === 4 ? 32 : 128;
      if (!family || extra !== undefined || (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= max && /^\d+$/.test(bits)))) {
        throw new Error(`config: trustedProxies: "${entry}" is not an IP address or CIDR`);
      }
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (prefix === undefined) this.trusted.addAddress(plainAddress(address), type);
      else this.trusted.addSubnet(address, prefix, type);
    }
    this.any = proxies.length > 0;
  }

  isTrusted(address: string | undefined): boolean {
    if (!this.any || !address) return false;
    const plain = plainAddress(address);
    const family = isIP(plain);
    return family !== 0 && this.trusted.check(plain, family === 4 ? 'ipv4' : 'ipv6');
  }

  /** the caller: the peer, or behind trusted proxies the nearest X-Forwarded-For hop that is not one of them */
  address(req: IncomingMessage): string {
    const peer = plainAddress(req.socket.remoteAddress ?? 'unknown');
    if (!this.isTrusted(peer)) return peer;
    const hops = headerList(req.headers['x-forwarded-for']);
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = plainAddress(hops[i].replace(/^\[([^\]]+)\](?::\d+)?$/, '$1'));
      if (!isIP(hop)) return peer;  // a hop we cannot read ends what we can believe
      if (!this.isTrusted(hop)) return hop;
    }
    return peer;
  }

  /** where this service is reached from outside: publicUrl, else the Host (X-Forwarded-Host/-Proto from a trusted proxy) */
  baseUrl(req: IncomingMessage): string {
    if (this.publicUrl) return this.publicUrl.replace(/\/+$/, '');
    const trusted = this.isTrusted(req.socket.remoteAddress);
    const forwardedHost = trusted ? headerList(req.headers['x-forwarded-host'])[0] : undefined;
    const forwardedProto = trusted ? headerList(req.headers['x-forwarded-proto'])[0]?.toLowerCase() : undefined;
    const host = [forwardedHost, req.headers.host].find((h): h is string => typeof h === 'string' && /^[\w.-]{1,253}(:\d{1,5})?$|^\[[0-9a-fA-F:.]{2,45}\](:\d{1,5})?$/.test(h)) ?? 'localhost';
    const proto = forwardedProto === 'https' ? 'https' : 'http';
    return `${proto}://${host}`;
  }
}

/** the comma-separated values of a header that may be repeated */
function headerList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value.join(',') : value).split(',').map((v) => v.trim()).filter(Boolean);
}
