// The certificates plugin: ACME issuance (HTTP-01 through the edge, DNS-01 through DNS providers), uploads, renewal, and handing certificates to the edge.
import { readFileSync } from 'node:fs';
import { defineJob, definePlugin, Type, type Actor, type AttentionItem } from '../../sdk/index.ts';
import { problems } from './problems.ts';
import { edgePlugin } from '../edge/api.ts';
import { createIssuer } from './acme.ts';
import { AutoHttps } from './auto.ts';
import { dnsProviders, type CertificatesApi } from './api.ts';
import { providerList } from './dns.ts';
import { rfc2136Provider } from './rfc2136.ts';
import { certificateRoutes } from './routes.ts';
import { createStore, type CertificateRow } from './store.ts';
import { statusOf } from './view.ts';

export type { CertificatesApi, DnsProvider } from './api.ts';

const Ms = (d: number, description: string, minimum = 1) => Type.Integer({ minimum, default: d, description });
const Options = Type.Object({
  directoryUrl: Type.String({ minLength: 1, default: 'https://acme-v02.api.letsencrypt.org/directory', description: 'the ACME directory (Let\'s Encrypt production by default; staging: https://acme-staging-v02.api.letsencrypt.org/directory)' }),
  email: Type.Optional(Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$', description: 'the account\'s contact address' })),
  externalAccountBinding: Type.Optional(Type.Object({ kid: Type.String({ minLength: 1 }), hmacKey: Type.String({ minLength: 1, description: 'base64url, as the CA hands it out' }) }, { description: 'EAB for CAs that need one' })),
  caFile: Type.Optional(Type.String({ minLength: 1, description: 'a PEM file of CAs trusted for the directory, besides Node\'s roots and NODE_EXTRA_CA_CERTS' })),
  renewBefore: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, default: 1 / 3, description: 'renew when this fraction of the lifetime is left' }),
  expiringDays: Type.Number({ minimum: 0, default: 14, description: 'a certificate this close to its end is "expiring" (event and attention)' }),
  sweepIntervalMs: Ms(3_600_000, 'how often renewals and expiry are checked', 1000),
  sweepBatch: Type.Integer({ minimum: 1, default: 50, description: 'renewals started by one sweep at most' }),
  attemptTimeoutMs: Ms(3_600_000, 'a renewal is not started again within this time while it runs'),
  retryMinMs: Ms(600_000, 'the wait after a first failed renewal (doubling per failure)'),
  retryMaxMs: Ms(86_400_000, 'the longest wait between failed renewals'),
  pollMinMs: Ms(2000, 'first wait when polling the CA for a challenge or order'),
  pollMaxMs: Ms(30_000, 'longest wait when polling the CA'),
  pollAttempts: Type.Integer({ minimum: 1, default: 10, description: 'polls of one challenge or order before giving up' }),
  auto: Type.Optional(Type.Boolean({ description: 'automatic HTTPS: every hostname a stack, site or preview routes gets a certificate without a request (default: on once `email` is set)' })),
  autoChallenge: Type.Union([Type.Literal('http-01'), Type.Literal('dns-01')], { default: 'http-01', description: 'how automatic certificates are validated: dns-01 where a DNS provider handles the hostname\'s zone (http-01 for the others)' }),
  autoIntervalMs: Ms(60_000, 'how often automatic HTTPS compares the routed hostnames with the certificates besides when a route changes here (changes made by another instance, failed first issuances past their backoff)', 100),
  dnsPropagationMs: Type.Integer({ minimum: 0, default: 5000, description: 'wait after publishing a dns-01 record before the CA is asked to check it (secondaries)' }),
  dns: Type.Object({
    rfc2136: Type.Optional(Type.Object({
      server: Type.String({ minLength: 1, description: 'host or host:port of the primary accepting updates' }),
      zone: Type.String({ minLength: 1 }),
      keyName: Type.String({ minLength: 1 }),
      keyAlgorithm: Type.String({ default: 'hmac-sha256' }),
      keySecret: Type.String({ minLength: 1, description: 'base64' }),
    })),
  }, { default: {} }),
}, { additionalProperties: false });

export default definePlugin({
  name: 'certificates',
  version: '1.0.0',
  services: ['db', 'activity', 'secrets', 'events', 'outbound'],
  extensionPoints: [dnsProviders],
  description: 'Certificates: ACME (HTTP-01, DNS-01) and uploads, renewed before they end and served by the edge',
  requires: [edgePlugin],
  options: Options,
  settings: {
    directoryUrl: { label: 'ACME directory', group: 'Certificates' },
    email: { label: 'ACME account email', group: 'Certificates' },
    externalAccountBinding: { label: 'External account binding (kid, hmacKey)', group: 'Certificates', secret: true },
    auto: { label: 'Automatic HTTPS for every routed hostname', group: 'Certificates' },
  },
  problems,
  setup(ctx): CertificatesApi {
    const o = ctx.options;
    const edge = ctx.deps.edge;
    ctx.migrations.from(new URL('./migrations', import.meta.url));
    ctx.scopes.define({
      'certificates:read': { description: 'list certificates (never their keys)', role: 'viewer' },
      'certificates:write': { description: 'request, upload and delete certificates', role: 'admin' },
    });
    const store = createStore(ctx.db);
    const providers = providerList();
    // contributions are complete once every plugin has set up
    ctx.onStart(() => { for (const provider of ctx.extensions.of(dnsProviders)) providers.add(provider); });
    if (o.dns.rfc2136) providers.add(rfc2136Provider(o.dns.rfc2136, ctx.outbound));
    const expiringMs = o.expiringDays * 86_400_000;
    const issuer = createIssuer({ ctx, store, edge, providers, options: () => ctx.settings.options(), extraCa: o.caFile ? readFileSync(o.caFile, 'utf8') : null });

    async function toEdge(row: CertificateRow | null, name: string): Promise<void> {
      const usable = row?.chain && row.keySealed && row.notAfter && Date.parse(row.notAfter) > Date.now();
      await edge.setCertificate(name, usable ? { certificate: row.chain!, key: ctx.secrets.open(row.keySealed!) } : null);
    }

    /** the edge's certificates changed: automatic HTTPS looks again (a certificate that now covers a hostname, or one that went) */
    async function served(row: CertificateRow | null, name: string): Promise<void> {
      await toEdge(row, name);
      void auto.trigger();
    }

    const backoff = (failures: number) => new Date(Date.now() + Math.min(o.retryMinMs * 2 ** Math.max(0, failures - 1), o.retryMaxMs));

    /** announces what changed since the last sweep: expiring, expired (withdrawn from the edge), valid again */
    async function checkExpiry(): Promise<void> {
      for (const c of await store.expiryChanges(new Date(), expiringMs)) {
        if (c.current === 'valid') ctx.events.emit('certificate.valid', { certificate: c.name });
        else ctx.events.emit(`certificate.${c.current}`, { certificate: c.name, notAfter: c.notAfter });
        if (c.current === 'expired') await toEdge(null, c.name).catch((err) => ctx.log.warn({ err, certificate: c.name }, 'could not withdraw an expired certificate from the edge'));
        await store.notified(c.name, c.current);
      }
    }

    const issueJob = ctx.jobs.define(defineJob({
      type: 'certificates.issue',
      input: Type.Object({ name: Type.String() }),
      async run(job) {
        const { name } = job.input;
        const before = await store.get(name);
        if (!before) throw new Error(`the certificate ${name} was deleted`);
        const renewal = before.chain !== null;
        let issued;
        try {
          issued = await issuer.issue(name, job);
        } catch (err) {
          const error = (err as Error).message;
          const row = await store.failed(name, error, backoff(before.failures + 1));
          if (renewal) ctx.events.emit('certificate.renewal.failed', { certificate: name, error });
          else if (row?.origin === 'auto') ctx.events.emit('certificate.auto.failed', { certificate: name, hostname: row.domains[0], error });
          if (row?.nextAttemptAt && renewal) job.log(`next attempt after ${row.nextAttemptAt}`);
          throw err;
        }
        await store.issued(name, issued);
        const row = await store.get(name);
        if (!row?.chain) throw new Error(`the certificate ${name} was deleted while it was issued`);
        await served(row, name);
        job.log(`edge: serving ${row.domains.join(', ')} with serial ${issued.serial}`);
        if (renewal) ctx.events.emit('certificate.renewed', { certificate: name, notAfter: issued.notAfter });
        else ctx.events.emit('certificate.issued', { certificate: name, notAfter: issued.notAfter });
        await checkExpiry();
        return { certificate: name, serial: issued.serial, notAfter: issued.notAfter };
      },
    }));
    const startIssue = (name: string, actor: Actor) =>
      issueJob.enqueue({ name }, { actor, resource: `certificate:${name}`, serialKey: `certificate:${name}`, attachToQueued: true });

    for (const route of certificateRoutes({ ctx, store, edge, providers, expiringMs, startIssue, toEdge: served })) ctx.routes.add(route);

    /** a first issuance whose job ended without a word (a restart, an instance lost mid-job) is failed with the job's reason, not pending forever */
    async function settleInterrupted(): Promise<void> {
      for (const name of await store.pendingNames()) {
        const job = await ctx.jobs.latest('certificates.issue', `certificate:${name}`);
        if (job && !job.done) continue;
        const reason = job?.error ?? 'the issuance job is gone';
        const row = await store.get(name);
        if (row?.state === 'pending') await store.failed(name, `${reason} (request it again)`, new Date());
      }
    }

    async function sweep(): Promise<void> {
      await settleInterrupted();
      const now = new Date();
      const due = await store.claimDue(now, new Date(now.getTime() + o.attemptTimeoutMs), o.sweepBatch);
      for (const name of due) await startIssue(name, { kind: 'system', name: 'renewal' });
      await checkExpiry();
    }
    ctx.schedule.every('renewal', o.sweepIntervalMs, sweep);

    const auto = new AutoHttps({
      store, edge, providers, log: ctx.log, startIssue, emit: (event, payload) => ctx.events.emit(event, payload),
      withdraw: (name) => toEdge(null, name),
      // the live settings, read at every pass: a change made on the Settings page applies at the next one
      settings: () => { const now = ctx.settings.options(); return { enabled: now.auto ?? Boolean(now.email), challenge: now.autoChallenge }; },
    });
    ctx.events.on('edge.routes.changed', () => { void auto.trigger(); });
    ctx.schedule.every('automatic-https', o.autoIntervalMs, () => auto.trigger());

    ctx.overview.add({
      scope: 'certificates:read',
      async summary() { return { certificates: await store.counts() }; },
      async attention() {
        const now = new Date();
        const items: AttentionItem[] = [];
        for (const row of await store.attention(now, expiringMs)) {
          const status = statusOf(row, now, expiringMs);
          const resource = `certificate:${row.name}`;
          if (status === 'expired') items.push({ severity: 'critical', kind: 'certificate-expired', resource, message: `the certificate ${row.name} expired on ${row.notAfter}`, since: row.notAfter ?? undefined });
          else if (status === 'expiring') items.push({ severity: 'warning', kind: 'certificate-expiring', resource, message: `the certificate ${row.name} expires on ${row.notAfter}` });
          if (row.lastError) {
            items.push(row.chain
              ? { severity: status === 'valid' ? 'warning' : 'critical', kind: 'certificate-renewal-failed', resource, message: `the renewal of ${row.name} failed: ${row.lastError}`, since: row.lastAttemptAt ?? undefined }
              : { severity: 'critical', kind: 'certificate-failed', resource, message: `the certificate ${row.name} could not be issued: ${row.lastError}`, since: row.lastAttemptAt ?? undefined });
          }
        }
        return items;
      },
    });

    return { addDnsProvider: (provider) => providers.add(provider) };
  },
});
