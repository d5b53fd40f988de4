// The address space of the bridge networks this installation creates: a small subnet each, from a range Dockwright owns, chosen against every network the engine has (other installations' too) and the host's routes, and free again once its network is gone.
import { readFile } from 'node:fs/promises';
import type Dockerode from 'dockerode';
import { reasonOf } from './client.ts';

export interface AddressPoolOptions {
  /** the IPv4 range subnets are taken from, e.g. 10.208.0.0/13 */
  range: string;
  /** the prefix length of a network's subnet when its containers fit (26: 64 addresses) */
  prefix: number;
}

/** how many addresses the networks in the range take */
export interface PoolUsage { range: string; usedAddresses: number; totalAddresses: number; networks: number }

export interface AddressPool {
  /**
   * creates a network with a free subnet of the range, sized for `containers` containers (twice that while a start-first
   * replacement runs beside the old one), by calling `create` with it; a subnet another creator took meanwhile (the engine
   * answers that pools overlap) is given up for the next free one
   */
  create(containers: number, create: (subnet: string) => Promise<void>): Promise<string>;
  usage(): Promise<PoolUsage>;
}

/** a range of IPv4 addresses as numbers, both ends included */
interface Span { from: number; to: number }

export function parseCidr(cidr: string): Span & { prefix: number } {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr.trim());
  if (!m) throw new Error(`"${cidr}" is not an IPv4 range like 10.208.0.0/13`);
  const octets = m.slice(1, 5).map(Number);
  const prefix = Number(m[5]);
  if (octets.some((o) => o > 255) || prefix > 32) throw new Error(`"${cidr}" is not an IPv4 range like 10.208.0.0/13`);
  const address = octets.reduce((n, o) => n * 256 + o, 0);
  const size = 2 ** (32 - prefix);
  const from = address - (address % size);
  return { from, to: from + size - 1, prefix };
}

const dotted = (n: number) => [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');

/** the prefix length of a subnet that holds `containers` containers twice over, plus network, gateway and broadcast addresses */
export function prefixFor(containers: number, preferred: number): number {
  const needed = 2 * Math.max(1, containers) + 3;
  return Math.max(16, Math.min(preferred, 32 - Math.ceil(Math.log2(needed))));
}

/** the host's IPv4 routes other than the default route (/proc/net/route: little-endian hex destination and mask) */
export async function hostRoutes(file = '/proc/net/route'): Promise<Span[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const spans: Span[] = [];
  for (const line of text.split('\n').slice(1)) {
    const [, destination, , , , , , mask] = line.trim().split(/\s+/);
    if (!destination || !mask) continue;
    const le = (hex: string) => { const b = Buffer.from(hex.padStart(8, '0'), 'hex'); return b.readUInt32LE(0); };
    const [from, bits] = [le(destination), le(mask)];
    if (bits === 0) continue;
    spans.push({ from, to: from + (2 ** 32 - bits) - 1 });
  }
  return spans;
}

/** every IPv4 subnet the engine's networks use, whoever made them */
async function engineSubnets(docker: Dockerode): Promise<Span[]> {
  const networks = await docker.listNetworks();
  return networks.flatMap((n) => (n.IPAM?.Config ?? []).flatMap((c) => {
    try { return c.Subnet && c.Subnet.includes('.') ? [parseCidr(c.Subnet)] : []; } catch { return []; }
  }));
}

/** the first subnet of `size` addresses in `range` that overlaps none of `taken` (sorted by start) */
export function firstFree(range: Span, size: number, taken: readonly Span[]): Span | null {
  let at = range.from;
  for (const t of taken) {
    if (t.to < at) continue;
    if (t.from > range.to) break;
    if (t.from >= at + size) break;
    // the candidate overlaps t: the next one starts after t, on a boundary of its size
    at = Math.ceil((t.to + 1) / size) * size;
    if (at + size - 1 > range.to) return null;
  }
  return at + size - 1 <= range.to ? { from: at, to: at + size - 1 } : null;
}

const overlapRefused = (err: unknown) => /overlap/i.test(reasonOf(err));

export function createAddressPool(docker: Dockerode, options: AddressPoolOptions): AddressPool {
  const range = parseCidr(options.range);
  /** one choice at a time in this process: two networks of one deploy never pick the same subnet */
  let turn: Promise<unknown> = Promise.resolve();
  const taken = async () => [...await engineSubnets(docker), ...await hostRoutes()];

  async function pick(containers: number, also: readonly Span[]): Promise<string> {
    const prefix = prefixFor(containers, options.prefix);
    const free = firstFree(range, 2 ** (32 - prefix), [...await taken(), ...also].sort((a, b) => a.from - b.from));
    if (!free) {
      throw new Error(`no free /${prefix} subnet is left in the address pool ${options.range}: remove stacks or previews you no longer need, `
        + 'or give a larger range in plugins.docker.options.addressPool.range');
    }
    return `${dotted(free.from)}/${prefix}`;
  }

  return {
    create(containers, create) {
      const run = turn.then(async () => {
        const refused: Span[] = [];
        for (let attempt = 0; ; attempt++) {
          const subnet = await pick(containers, refused);
          try {
            await create(subnet);
            return subnet;
          } catch (err) {
            // another installation (or instance) took it between our look and the creation
            if (!overlapRefused(err) || attempt >= 8) throw err;
            refused.push(parseCidr(subnet));
          }
        }
      });
      turn = run.catch(() => undefined);
      return run;
    },
    async usage() {
      const inRange = (await engineSubnets(docker)).filter((s) => s.from >= range.from && s.to <= range.to);
      return {
        range: options.range, networks: inRange.length,
        usedAddresses: inRange.reduce((n, s) => n + s.to - s.from + 1, 0), totalAddresses: range.to - range.from + 1,
      };
    },
  };
}
