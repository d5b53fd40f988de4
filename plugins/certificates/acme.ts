// ACME issuance with acme-client: account, order, authorizations, challenges (edge HTTP-01 files or DNS-01 providers), finalize, download.
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as tls from 'node:tls';
import type * as AcmeClient from 'acme-client';
import type { JobRun, ContextWith } from '../../sdk/index.ts';
import type { EdgeApi } from '../edge/index.ts';
import { challengeRecord, type DnsProviders } from './dns.ts';
import { chainDetails } from './pem.ts';
import type { CertificateStore, Issued } from './store.ts';

export interface AcmeOptions {
  directoryUrl: string;
  email?: string;
  externalAccountBinding?: { kid: string; hmacKey: string };
  /** a PEM file of extra CAs trusted for the directory (besides Node's roots and NODE_EXTRA_CA_CERTS) */
  caFile?: string;
  pollMinMs: number;
  pollMaxMs: number;
  pollAttempts: number;
  renewBefore: number;
  dnsPropagationMs: number;
}

export interface Issuer {
  issue(name: string, job: Pick<JobRun<unknown>, 'log' | 'redact' | 'signal'>): Promise<Issued>;
}

/** the moment a certificate enters its renewal window: `renewBefore` of its lifetime before it ends */
export function renewAfterOf(notBefore: string, notAfter: string, renewBefore: number): string {
  const start = Date.parse(notBefore);
  const end = Date.parse(notAfter);
  return new Date(end - (end - start) * renewBefore).toISOString();
}

/**
 * the CAs Node trusts by default: its bundled roots and the PEM file NODE_EXTRA_CA_CERTS names. That variable is a property of the
 * process Node read at start (not plugin configuration), so it comes from process.env; Node 22.15+ hands the store out itself.
 */
function nodeTrust(): string[] {
  const store = (tls as { getCACertificates?: (type: 'default') => string[] }).getCACertificates;
  if (store) return store('default');
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  let extraPem: string[] = [];
  // Node only warns about an unreadable file and goes on with its roots: so does this
  try { if (extra) extraPem = [readFileSync(extra, 'utf8')]; } catch { /* Node's roots alone */ }
  return [...tls.rootCertificates, ...extraPem];
}

export function createIssuer(deps: { ctx: ContextWith<'outbound' | 'secrets'>; store: CertificateStore; edge: EdgeApi; providers: DnsProviders; options: () => AcmeOptions; extraCa: string | null }): Issuer {
  const { ctx, store, edge, providers } = deps;
  // acme-client sends every request through its one axios instance: pinned to the outbound policy's checked addresses
  // a `ca` list replaces Node's store: without caFile Node's own (roots + NODE_EXTRA_CA_CERTS) stays, with it caFile is added to that store
  const ca = deps.extraCa ? [...nodeTrust(), deps.extraCa] : undefined;
  // loaded at the first issuance, not at boot: acme-client and its axios cost the idle service about 10 MB of memory
  let loading: Promise<typeof AcmeClient> | undefined;
  const acmeClient = () => loading ??= import('acme-client').then((acme) => {
    acme.axios.defaults.httpsAgent = ctx.outbound.httpsAgent({ keepAlive: true, ...(ca ? { ca } : {}) });
    acme.axios.defaults.httpAgent = ctx.outbound.httpAgent();
    acme.axios.defaults.proxy = false;
    return acme;
  });

  /** the account of this directory (a new key on first use); `registered` once the CA knows it */
  async function client(acme: typeof AcmeClient): Promise<{ client: AcmeClient.Client; registered: boolean }> {
    const o = deps.options();
    const account = await store.account(o.directoryUrl);
    const keySealed = account?.keySealed ?? await store.saveAccount(o.directoryUrl, ctx.secrets.seal((await acme.crypto.createPrivateEcdsaKey()).toString()));
    const c = new acme.Client({
      directoryUrl: o.directoryUrl,
      accountKey: ctx.secrets.open(keySealed),
      ...(account?.accountUrl ? { accountUrl: account.accountUrl } : {}),
      ...(o.externalAccountBinding ? { externalAccountBinding: o.externalAccountBinding } : {}),
      backoffMin: o.pollMinMs, backoffMax: o.pollMaxMs, backoffAttempts: o.pollAttempts,
    });
    return { client: c, registered: Boolean(account?.accountUrl) };
  }

  return {
    async issue(name, job) {
      // the account settings (directory, email) as they are when the issuance starts: an admin may change them at run time
      const o = deps.options();
      const row = await store.get(name);
      if (!row || row.source !== 'acme') throw new Error(`the certificate ${name} is not an ACME certificate any more`);
      if (o.externalAccountBinding) job.redact(o.externalAccountBinding.hmacKey);
      // a refused CA fails at once: acme-client would take a refusal for a network error and try 5 times more in 75 s
      await ctx.outbound.check(new URL(o.directoryUrl).hostname);
      const acme = await acmeClient();
      const { client: c, registered } = await client(acme);
      if (!registered) {
        await c.createAccount({ termsOfServiceAgreed: true, ...(o.email ? { contact: [`mailto:${o.email}`] } : {}) }).catch((err: Error) => {
          throw new Error(`the CA refused the account: ${err.message}`);
        });
        await store.setAccountUrl(o.directoryUrl, c.getAccountUrl());
      }
      job.log(`account: ${registered ? 'registered' : 'new'} at ${o.directoryUrl}`);

      const order = await c.createOrder({ identifiers: row.domains.map((value) => ({ type: 'dns', value })) });
      job.log(`order: ${row.domains.join(', ')} (${order.status})`);
      const authorizations = await c.getAuthorizations(order);
      const cleanups: (() => Promise<void>)[] = [];
      try {
        for (const authz of authorizations) {
          job.signal.throwIfAborted();
          const identifier = `${authz.wildcard ? '*.' : ''}${authz.identifier.value}`;
          if (authz.status === 'valid') { job.log(`authorization ${identifier}: already valid`); continue; }
          const type = row.challenge ?? 'http-01';
          const challenge = authz.challenges.find((ch) => ch.type === type);
          if (!challenge) throw new Error(`the CA offers no ${type} challenge for ${identifier} (offered: ${authz.challenges.map((ch) => ch.type).join(', ')})${authz.wildcard ? ': wildcards need dns-01' : ''}`);
          const keyAuthorization = await c.getChallengeKeyAuthorization(challenge);
          if (type === 'http-01') {
            if (!/^[A-Za-z0-9_-]+$/.test(challenge.token)) throw new Error(`the CA sent a challenge token that is not base64url: refused`);
            const file = join(edge.challengeDir, challenge.token);
            await writeFile(file, keyAuthorization);
            cleanups.push(() => rm(file, { force: true }));
            job.log(`authorization ${identifier}: http-01 answered on http://${authz.identifier.value}/.well-known/acme-challenge/${challenge.token}`);
          } else {
            const record = challengeRecord(identifier);
            const provider = providers.for(record);
            if (!provider) throw new Error(`no DNS provider handles ${record}: configure plugins.certificates.options.dns.rfc2136 for its zone`);
            await provider.addTxt(record, keyAuthorization);
            cleanups.push(() => provider.removeTxt(record, keyAuthorization));
            job.log(`authorization ${identifier}: dns-01 TXT ${record} published through ${provider.label}`);
            // the CA may ask a secondary server: give the zone's NOTIFY/transfer time to carry the record there
            if (o.dnsPropagationMs > 0) await new Promise((resolve) => setTimeout(resolve, o.dnsPropagationMs));
          }
          await c.completeChallenge(challenge);
          try {
            await c.waitForValidStatus(challenge);
          } catch (err) {
            throw new Error(`the CA refused the ${type} challenge of ${identifier}: ${(err as Error).message}`);
          }
          job.log(`challenge ${identifier}: valid`);
        }
      } finally {
        for (const cleanup of cleanups) await cleanup().catch((err) => job.log(`cleanup: ${(err as Error).message}`));
      }

      job.signal.throwIfAborted();
      const keyPem = (await acme.crypto.createPrivateEcdsaKey()).toString();
      job.redact(keyPem);
      const [, csr] = await acme.crypto.createCsr({ altNames: row.domains }, keyPem);
      job.log('finalize: certificate signing request sent');
      const finalized = await c.finalizeOrder(order, csr);
      const chain = await c.getCertificate(finalized);
      const details = chainDetails(chain);
      job.log(`download: serial ${details.serial} from ${details.issuer}, valid ${details.notBefore} to ${details.notAfter}`);
      return { ...details, chain, keySealed: ctx.secrets.seal(keyPem), renewAfter: renewAfterOf(details.notBefore, details.notAfter, o.renewBefore) };
    },
  };
}
