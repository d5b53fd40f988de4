// The RFC 2136 DNS provider: TXT records added and removed by DNS UPDATE over TCP, signed with a TSIG key (RFC 8945).
import { createHmac, randomInt } from 'node:crypto';
import { connect } from 'node:net';
import type { OutboundApi } from '../../sdk/index.ts';
import type { DnsProvider } from './dns.ts';

export interface Rfc2136Options {
  /** host or host:port of the primary server accepting updates (port 53 by default) */
  server: string;
  zone: string;
  keyName: string;
  /** hmac-sha256 (default), hmac-sha512, hmac-sha384, hmac-sha224 or hmac-sha1 */
  keyAlgorithm?: string;
  /** the key's secret, base64 */
  keySecret: string;
}

const algorithms: Record<string, string> = { 'hmac-sha1': 'sha1', 'hmac-sha224': 'sha224', 'hmac-sha256': 'sha256', 'hmac-sha384': 'sha384', 'hmac-sha512': 'sha512' };
const rcodes: Record<number, string> = { 1: 'FORMERR', 2: 'SERVFAIL', 3: 'NXDOMAIN', 4: 'NOTIMP', 5: 'REFUSED', 6: 'YXDOMAIN', 7: 'YXRRSET', 8: 'NXRRSET', 9: 'NOTAUTH (the key or its signature was refused)', 10: 'NOTZONE' };
const TXT = 16, SOA = 6, TSIG = 250, IN = 1, NONE = 254, ANY = 255;

const bare = (name: string) => name.toLowerCase().replace(/\.$/, '');

function nameBytes(name: string): Buffer {
  const labels = bare(name).split('.').filter(Boolean);
  return Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([Buffer.byteLength(l)]), Buffer.from(l)])), Buffer.from([0])]);
}
const u16 = (n: number) => { const b = Buffer.alloc(2); b.writeUInt16BE(n); return b; };
const u32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
const u48 = (n: number) => { const b = Buffer.alloc(6); b.writeUIntBE(n, 0, 6); return b; };

function txtData(value: string): Buffer {
  const bytes = Buffer.from(value);
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length || i === 0; i += 255) {
    const chunk = bytes.subarray(i, i + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
    if (bytes.length === 0) break;
  }
  return Buffer.concat(parts);
}

/** one signed UPDATE message: the zone, then one TXT record added (class IN) or that exact record deleted (class NONE) */
export function updateMessage(o: Rfc2136Options, record: string, value: string, add: boolean, id = randomInt(0, 65536), now = Date.now()): Buffer {
  const algorithm = (o.keyAlgorithm ?? 'hmac-sha256').toLowerCase();
  const hash = algorithms[algorithm];
  if (!hash) throw new Error(`the TSIG algorithm ${algorithm} is not supported (use ${Object.keys(algorithms).join(', ')})`);
  const rdata = txtData(value);
  const header = (additional: number) => Buffer.concat([u16(id), u16(5 << 11), u16(1), u16(0), u16(1), u16(additional)]);
  const body = Buffer.concat([
    nameBytes(o.zone), u16(SOA), u16(IN),
    nameBytes(record), u16(TXT), u16(add ? IN : NONE), u32(add ? 60 : 0), u16(rdata.length), rdata,
  ]);
  const signedAt = Math.floor(now / 1000);
  const fudge = 300;
  const variables = Buffer.concat([nameBytes(o.keyName), u16(ANY), u32(0), nameBytes(algorithm), u48(signedAt), u16(fudge), u16(0), u16(0)]);
  const mac = createHmac(hash, Buffer.from(o.keySecret, 'base64')).update(Buffer.concat([header(0), body, variables])).digest();
  const tsig = Buffer.concat([nameBytes(algorithm), u48(signedAt), u16(fudge), u16(mac.length), mac, u16(id), u16(0), u16(0)]);
  return Buffer.concat([header(1), body, nameBytes(o.keyName), u16(TSIG), u16(ANY), u32(0), u16(tsig.length), tsig]);
}

function hostPort(server: string): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(server) ?? /^([^:]+)(?::(\d+))?$/.exec(server);
  if (!m) throw new Error(`"${server}" is not host or host:port`);
  return { host: m[1], port: m[2] ? Number(m[2]) : 53 };
}

/** sends one message over TCP (length-prefixed) and answers the response code */
async function exchange(outbound: OutboundApi, server: string, message: Buffer, timeoutMs: number): Promise<number> {
  const { host, port } = hostPort(server);
  const [address] = await outbound.resolve(host);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address.address, port, family: address.family });
    let received = Buffer.alloc(0);
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`the DNS server ${server} did not answer within ${timeoutMs} ms`)));
    socket.on('connect', () => socket.end(Buffer.concat([u16(message.length), message])));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 2 && received.length >= 2 + received.readUInt16BE(0)) {
        socket.destroy();
        if (received.readUInt16BE(2) !== message.readUInt16BE(0)) reject(new Error(`the DNS server ${server} answered another message`));
        else resolve(received.readUInt16BE(4) & 0xf);
      }
    });
    socket.on('error', (err) => reject(new Error(`the DNS server ${server}: ${err.message}`)));
    socket.on('close', () => reject(new Error(`the DNS server ${server} closed the connection without an answer`)));
  });
}

export function rfc2136Provider(o: Rfc2136Options, outbound: OutboundApi, timeoutMs = 10_000): DnsProvider {
  const zone = bare(o.zone);
  const send = async (record: string, value: string, add: boolean) => {
    const rcode = await exchange(outbound, o.server, updateMessage(o, record, value, add), timeoutMs);
    if (rcode !== 0) throw new Error(`the DNS server ${o.server} refused the update of ${record}: ${rcodes[rcode] ?? `rcode ${rcode}`}`);
  };
  return {
    label: `rfc2136 (zone ${zone} at ${o.server})`,
    handles: (recordName) => { const n = bare(recordName); return n === zone || n.endsWith(`.${zone}`); },
    addTxt: (record, value) => send(record, value, true),
    removeTxt: (record, value) => send(record, value, false),
  };
}
