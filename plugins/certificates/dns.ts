// The DNS-01 extension point: providers (RFC 2136 here, more from other plugins) that publish and remove _acme-challenge TXT records.

export interface DnsProvider {
  /** shown in job output: `rfc2136 (zone example.com)` */
  readonly label: string;
  /** whether it can publish records under this name (a hostname, no trailing dot) */
  handles(recordName: string): boolean;
  /** publishes the TXT record (adds; other values of the name stay) */
  addTxt(recordName: string, value: string): Promise<void>;
  /** removes exactly that value */
  removeTxt(recordName: string, value: string): Promise<void>;
}

export interface DnsProviders {
  add(provider: DnsProvider): void;
  /** the first provider that handles the name, or null */
  for(recordName: string): DnsProvider | null;
  list(): readonly DnsProvider[];
}

/** the providers dns-01 asks, in order: the configured ones, then those other plugins contribute */
export function providerList(): DnsProviders {
  const providers: DnsProvider[] = [];
  return {
    add(provider) { providers.push(provider); },
    for(recordName) { return providers.find((p) => p.handles(recordName)) ?? null; },
    list() { return providers; },
  };
}

/** the TXT record name a dns-01 challenge of this identifier is answered on (a wildcard's is its base name's) */
export function challengeRecord(identifier: string): string {
  return `_acme-challenge.${identifier.replace(/^\*\./, '')}`;
}
