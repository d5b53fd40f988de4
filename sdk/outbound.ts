// The outbound-address policy as plugins see it (`ctx.outbound`): where a plugin may connect, and connections pinned to the checked address.
import type { LookupFunction } from 'node:net';
import type { Agent as HttpAgent, AgentOptions as HttpAgentOptions } from 'node:http';
import type { Agent as HttpsAgent, AgentOptions as HttpsAgentOptions } from 'node:https';
import type { Agent as UndiciAgent } from 'undici';
import { Problem } from './problem.ts';

/** one address a host may be connected to */
export interface OutboundAddress { address: string; family: 4 | 6 }

/**
 * A connection the policy refuses (422, code `outbound-refused`): an address that is not global unicast and not in
 * `outbound.allow`, or a host name this install does not look up. Thrown before anything is sent anywhere.
 */
export class OutboundRefused extends Problem {
  constructor(readonly host: string, readonly reason: string) {
    super(422, `connections to ${host} are refused: ${reason}`, { code: 'outbound-refused' });
  }
}

/**
 * Every outbound connection a plugin makes for a user (git, registries, alert channels, ACME…) goes through this.
 * Only global unicast addresses are reached, unless `outbound.allow` lists the host or a CIDR holding the address.
 *
 * To connect, resolve once and connect to the answered address (so no second DNS answer can differ), or use the
 * agents below, which do exactly that for every connection. `check` is for saving a host a user gives (a registry,
 * a channel URL): refuse early with a clear 422; the connection checks again.
 */
export interface OutboundApi {
  /**
   * The addresses `host` (a name, or an IP literal in any form a resolver takes: `[::1]`, `0x7f.1`, `2130706433`; no port)
   * may be connected to. Throws OutboundRefused, or a Problem 502 (`host-not-found`) when a name does not resolve.
   */
  resolve(host: string): Promise<OutboundAddress[]>;
  /** throws OutboundRefused when the policy refuses the host now; a name that does not resolve (yet) is not refused */
  check(host: string): Promise<void>;
  /**
   * A `dns.lookup` for net/tls/http(s) options answering only allowed addresses. Node skips `lookup` for IP literals:
   * check those with `resolve` first, or use the agents.
   */
  readonly lookup: LookupFunction;
  /** an http.Agent whose every connection goes to a checked address (literals included; the first the resolver answers) */
  httpAgent(options?: HttpAgentOptions): HttpAgent;
  /** an https.Agent whose every connection goes to a checked address; TLS still verifies the host's own name */
  httpsAgent(options?: HttpsAgentOptions): HttpsAgent;
  /** an undici dispatcher for `fetch(url, { dispatcher })` (undici's fetch or Node's): every connection goes to a checked address */
  dispatcher(options?: UndiciAgent.Options): UndiciAgent;
}
