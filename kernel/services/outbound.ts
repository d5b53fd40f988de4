// The outbound-address policy: only global unicast addresses unless outbound.allow lists them, names looked up once, connections pinned to what was checked.
import { BlockList, isIP, isIPv6, type LookupFunction } from 'node:net';
import { lookup as systemLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { createRequire } from 'node:module';
import ipaddr from 'ipaddr.js';
import type { Agent as UndiciAgent } from 'undici';
import { OutboundRefused, problem, type OutboundAddress, type OutboundApi } from '../../sdk/index.ts';

export interface OutboundConfig {
  /** host names (`git.internal`, `*.corp.example`), addresses or CIDRs that may be reached although not global unicast */
  allow: string[];
  /** true: every name is looked up; false or a list: only these names (and those in allow) are, others are refused before any lookup */
  allowHostnames: boolean | string[];
}

/** answers the addresses of a host name (the system resolver in production, a table in tests) */
export type NameResolver = (name: string) => Promise<{ address: string; family: number }[]>;

// undici compiles its HTTP parser (WebAssembly) as it loads, some 18 MB of RSS: loaded when a dispatcher is first asked for
let undici: typeof import('undici') | undefined;
const loadUndici = () => (undici ??= createRequire(import.meta.url)('undici') as typeof import('undici'));

const systemResolver: NameResolver = (name) => systemLookup(name, { all: true, verbatim: true });

/**
 * The address an IP literal stands for, canonical, in every form a resolver reads as one: brackets, IPv6 with a zone,
 * and inet_aton's IPv4 forms (`0x7f.1`, `127.1`, `2130706433`, `0177.0.0.1`) which getaddrinfo, ssh and curl accept.
 * null for anything else (a name).
 */
export function ipLiteral(host: string): OutboundAddress | null {
  let h = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (h.includes(':')) {
    if (h.includes('%')) h = h.slice(0, h.indexOf('%'));
    // Node's URL parser is exact where ipaddr.js is not (it reads ::1.2.3.4 as IPv4-mapped)
    return isIPv6(h) ? { address: new URL(`http://[${h}]`).hostname.slice(1, -1), family: 6 } : null;
  }
  return ipaddr.IPv4.isValid(h) ? { address: ipaddr.IPv4.parse(h).toString(), family: 4 } : null;
}

interface Rule { list: BlockList; kind: string }
function rules(type: 'ipv4' | 'ipv6', table: [string, string][]): Rule[] {
  return table.map(([cidr, kind]) => {
    const [net, bits] = cidr.split('/');
    const list = new BlockList();
    list.addSubnet(net, Number(bits), type);
    return { list, kind: /\/(32|128)$/.test(cidr) ? kind : `${kind} (${cidr})` };
  });
}

// IANA's special-purpose registries: what is not global unicast; the most specific entries first
const special4 = rules('ipv4', [
  ['169.254.169.254/32', 'the cloud metadata address'],
  ['255.255.255.255/32', 'the broadcast address'],
  ['0.0.0.0/8', 'a "this network" address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a carrier-grade NAT address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'an IETF protocol assignment'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.88.99.0/24', 'a 6to4 relay address'],
  ['192.168.0.0/16', 'a private address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved address'],
]);
const mapped = rules('ipv6', [['::ffff:0:0/96', 'IPv4-mapped']])[0].list;
const nat64 = rules('ipv6', [['64:ff9b::/96', 'NAT64']])[0].list;
const special6 = rules('ipv6', [
  ['fd00:ec2::254/128', 'the cloud metadata address'],
  ['::/128', 'the unspecified address'],
  ['::1/128', 'the loopback address'],
  ['::ffff:0:0:0/96', 'an IPv4-translated address'],
  // 6to4, Teredo and IPv4-compatible addresses lead to whatever IPv4 address they carry, through relays: none is reached
  ['::/96', 'an IPv4-compatible address'],
  ['64:ff9b:1::/48', 'a local-use NAT64 address'],
  ['100::/64', 'a discard-only address'],
  ['2001::/32', 'a Teredo address'],
  ['2001::/23', 'an IETF protocol assignment'],
  ['2001:db8::/32', 'a documentation address'],
  ['2002::/16', 'a 6to4 address'],
  ['3fff::/20', 'a documentation address'],
  ['fc00::/7', 'a unique-local address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
]);
const globalUnicast6 = rules('ipv6', [['2000::/3', 'global unicast']])[0].list;

const embeddedIPv4 = (address: string) => ipaddr.IPv6.parse(address).toByteArray().slice(12).join('.');

/** what kind of address this is when it is not global unicast ("a loopback address (127.0.0.0/8)"), or null when it is */
export function nonGlobal({ address, family }: OutboundAddress): string | null {
  if (family === 4) return special4.find((r) => r.list.check(address, 'ipv4'))?.kind ?? null;
  for (const [list, form] of [[mapped, 'an IPv4-mapped'], [nat64, 'a NAT64']] as const) {
    if (!list.check(address, 'ipv6')) continue;
    const v4 = embeddedIPv4(address);
    const kind = nonGlobal({ address: v4, family: 4 });
    return kind && `${form} form of ${v4}, ${kind}`;
  }
  const kind = special6.find((r) => r.list.check(address, 'ipv6'))?.kind;
  if (kind) return kind;
  return globalUnicast6.check(address, 'ipv6') ? null : 'outside the global unicast range (2000::/3)';
}

const label = '(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)';
const namePattern = new RegExp(`^(?=.{1,253}$)${label}(?:\\.${label})*$`);
const patternPattern = new RegExp(`^(?:\\*\\.)?${label}(?:\\.${label})*$`);
const normalName = (host: string) => host.toLowerCase().replace(/\.$/, '');

/** host-name patterns: `name` matches itself, `*.name` every name below it */
function namesMatcher(patterns: readonly string[], where: string): (name: string) => boolean {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const raw of patterns) {
    const p = normalName(raw);
    if (!patternPattern.test(p)) throw new Error(`config: ${where}: "${raw}" is ${where === 'outbound.allow' ? 'neither a host name, an IP address nor a CIDR' : 'not a host name'}`);
    if (p.startsWith('*.')) suffixes.push(p.slice(1));
    else exact.add(p);
  }
  return (name) => exact.has(name) || suffixes.some((s) => name.endsWith(s));
}

const hint = 'only global unicast addresses are reached, unless an admin lists the host or its network in outbound.allow';

interface Policy {
  allowed: BlockList;
  trustedName(name: string): boolean;
  lookable(name: string): boolean;
}

/** the policy a configuration stands for; throws (naming the path) on an entry it cannot read */
export function compilePolicy(config: OutboundConfig): Policy {
  const allowed = new BlockList();
  const names: string[] = [];
  for (const entry of config.allow) {
    const [base, bits, extra] = entry.split('/');
    const family = isIP(base);
    if (!family) {
      if (bits !== undefined) throw new Error(`config: outbound.allow: "${entry}" is not a CIDR`);
      names.push(entry);
    } else if (bits === undefined) {
      allowed.addAddress(base, family === 4 ? 'ipv4' : 'ipv6');
    } else {
      const prefix = Number(bits);
      if (extra !== undefined || !/^\d{1,3}$/.test(bits) || prefix > (family === 4 ? 32 : 128)) throw new Error(`config: outbound.allow: "${entry}" is not a CIDR`);
      allowed.addSubnet(base, prefix, family === 4 ? 'ipv4' : 'ipv6');
    }
  }
  const trustedName = namesMatcher(names, 'outbound.allow');
  const lookable = config.allowHostnames === true ? () => true
    : namesMatcher(config.allowHostnames === false ? [] : config.allowHostnames, 'outbound.allowHostnames');
  return { allowed, trustedName, lookable };
}

/** the kernel's handle on the policy: the API plugins get, and `configure` for a change made through the settings */
export type LiveOutbound = OutboundApi & { configure(config: OutboundConfig): void };

/** the policy of this install; refuses a configuration it cannot read. Every check reads the policy as it is then (configure changes it live) */
export function createOutbound(config: OutboundConfig, resolveName: NameResolver = systemResolver): LiveOutbound {
  let policy = compilePolicy(config);
  const isAllowed = (a: OutboundAddress) => policy.allowed.check(a.address, a.family === 4 ? 'ipv4' : 'ipv6');

  async function resolve(host: string): Promise<OutboundAddress[]> {
    const literal = ipLiteral(host) ?? ipLiteral(host.replace(/\.$/, ''));
    if (literal) {
      const kind = isAllowed(literal) ? null : nonGlobal(literal);
      if (kind) throw new OutboundRefused(host, `it is ${host.replace(/^\[(.*)\]$/, '$1') === literal.address ? '' : `${literal.address}, `}${kind}; ${hint}`);
      return [literal];
    }
    const name = normalName(host);
    if (!namePattern.test(name)) {
      const withPort = /^(\[[^\]]*\]|[^:]*):\d+$/.test(host);
      throw new OutboundRefused(host, withPort ? 'give the host without its port' : 'it is neither a valid host name nor an IP address');
    }
    const trusted = policy.trustedName(name);
    if (!trusted && !policy.lookable(name)) {
      throw new OutboundRefused(host, 'host names are not looked up on this install, except those an admin lists in outbound.allow or outbound.allowHostnames');
    }
    let answers: { address: string; family: number }[];
    try {
      answers = await resolveName(host);
    } catch (err) {
      throw problem(502, `${host} could not be resolved (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { code: 'host-not-found' });
    }
    const found = answers.map((a) => ipLiteral(a.address)).filter((a): a is OutboundAddress => a !== null);
    if (!found.length) throw problem(502, `${host} could not be resolved (no address)`, { code: 'host-not-found' });
    if (!trusted) {
      // one refused answer refuses the name: a rebinding resolver must not get a second try with the next answer
      for (const a of found) {
        const kind = isAllowed(a) ? null : nonGlobal(a);
        if (kind) throw new OutboundRefused(host, `it resolves to ${a.address}, ${kind}; ${hint}`);
      }
    }
    return found;
  }

  const lookup = ((hostname: string, options: unknown, callback?: unknown) => {
    const done = (typeof options === 'function' ? options : callback) as (err: Error | null, address?: unknown, family?: number) => void;
    const opts = (typeof options === 'object' && options !== null ? options : { family: typeof options === 'number' ? options : 0 }) as { family?: number | string; all?: boolean };
    const family = opts.family === 'IPv4' ? 4 : opts.family === 'IPv6' ? 6 : Number(opts.family ?? 0);
    resolve(hostname).then((found) => {
      const fit = family ? found.filter((a) => a.family === family) : found;
      if (!fit.length) return done(Object.assign(new Error(`${hostname} has no allowed IPv${family} address`), { code: 'ENOTFOUND' }));
      if (opts.all) done(null, fit);
      else done(null, fit[0].address, fit[0].family);
    }, (err: Error) => done(err));
  }) as LookupFunction;

  /** the name TLS verifies: the host's own, never the address it was pinned to */
  const serverName = (host: string, given: string | undefined) => given || (ipLiteral(host) ? undefined : normalName(host));

  // a kept-alive connection was checked under the policy of its time: after a change it is closed, not reused
  const agents = new Set<WeakRef<http.Agent>>();
  const madeUnder = new WeakMap<object, Policy>();
  function closeIdleConnections(): void {
    for (const ref of agents) {
      const agent = ref.deref();
      if (!agent) { agents.delete(ref); continue; }
      for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
    }
  }

  function pinned<A extends http.Agent>(agent: A): A {
    const connect = agent.createConnection.bind(agent) as (o: http.ClientRequestArgs) => Duplex;
    const keep = agent.keepSocketAlive.bind(agent);
    agent.keepSocketAlive = (socket) => madeUnder.get(socket) === policy && keep(socket);
    agents.add(new WeakRef(agent));
    agent.createConnection = (options, done) => {
      const host = options.host ?? options.hostname ?? 'localhost';
      const checkedBy = policy;
      resolve(host).then(([first]) => {
        let socket: Duplex;
        try {
          socket = connect({ ...options, host: first.address, hostname: first.address, servername: serverName(host, (options as { servername?: string }).servername) } as http.ClientRequestArgs);
        } catch (err) {
          return done!(err as Error, undefined as never);
        }
        madeUnder.set(socket, checkedBy);
        done!(null, socket);
      }, (err: Error) => done!(err, undefined as never));
      return undefined;
    };
    return agent;
  }

  return Object.freeze({
    configure(next: OutboundConfig) {
      policy = compilePolicy(next);
      closeIdleConnections();
    },
    resolve,
    async check(host: string) {
      await resolve(host).catch((err) => {
        if (err instanceof OutboundRefused) throw err;
      });
    },
    lookup,
    httpAgent: (options?: http.AgentOptions) => pinned(new http.Agent(options)),
    httpsAgent: (options?: https.AgentOptions) => pinned(new https.Agent(options)),
    dispatcher(options: UndiciAgent.Options = {}) {
      const { connect: given, ...rest } = options;
      const { Agent, buildConnector, Dispatcher } = loadUndici();
      const base = typeof given === 'function' ? given : buildConnector(given ?? {});
      const make = () => new Agent({
        ...rest,
        connect: (opts, done) => {
          resolve(opts.hostname).then(
            ([first]) => base({ ...opts, hostname: first.address, servername: serverName(opts.hostname, opts.servername) }, done),
            (err: Error) => done(err, null),
          );
        },
      });
      // its pooled connections were checked under the policy of their time: after a change, a new pool (the old one closes once idle)
      let inner = make();
      let under = policy;
      class PolicyBound extends Dispatcher {
        dispatch(opts: Parameters<UndiciAgent['dispatch']>[0], handler: Parameters<UndiciAgent['dispatch']>[1]): boolean {
          if (under !== policy) {
            void inner.close().catch(() => undefined);
            inner = make();
            under = policy;
          }
          return inner.dispatch(opts, handler);
        }
        close(...args: unknown[]): any { return (inner.close as (...a: unknown[]) => unknown)(...args); }
        destroy(...args: unknown[]): any { return (inner.destroy as (...a: unknown[]) => unknown)(...args); }
      }
      return new PolicyBound() as unknown as UndiciAgent;
    },
  });
}
