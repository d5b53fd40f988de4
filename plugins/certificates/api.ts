// The certificates plugin's public API: what a plugin that requires it gets as ctx.deps.certificates, and its extension points.
import { extensionPoint, pluginRef, type PluginRef } from '../../sdk/index.ts';
import type { DnsProvider } from './dns.ts';

export type { DnsProvider };

/** what other plugins may do with certificates */
export interface CertificatesApi {
  /** @deprecated contribute to the extension point dnsProviders instead: `ctx.extensions.add(dnsProviders, provider)` (this file) */
  addDnsProvider(provider: DnsProvider): void;
}

/** a DNS provider for dns-01 challenges (publishes and removes _acme-challenge TXT records), tried after the configured ones */
export const dnsProviders = extensionPoint<DnsProvider>('certificates', 'dns-providers', { resource: 'DNS provider' });

/** `requires: [certificatesPlugin]` types ctx.deps.certificates */
export const certificatesPlugin: PluginRef<'certificates', CertificatesApi> = pluginRef('certificates');
