// The /certificates endpoints: list, read (with the chain), request through ACME (a job), upload a PEM chain and key, delete.
import { defineRoute, pageOf, keyedLock, Problem, problem, reply, Type, type Actor, type AnyRoute, type Job, type ContextWith, type Principal } from '../../sdk/index.ts';
import type { EdgeApi } from '../edge/index.ts';
import { challengeRecord, type DnsProviders } from './dns.ts';
import { checkUpload, pemBlocks } from './pem.ts';
import type { CertificateRow, CertificateStore } from './store.ts';
import { CertificateDetail, CertificateView, servedHostnames, viewOf } from './view.ts';

const NameText = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$', description: 'letters, digits, dot, underscore and hyphen; up to 128' });
const Params = Type.Object({ name: NameText });
const Pem = (description: string) => Type.String({ minLength: 1, maxLength: 65536, description });

const RequestBody = Type.Object({
  name: Type.Optional(NameText),
  domains: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { minItems: 1, maxItems: 100, description: 'the names it covers (SANs); `*.example.com` needs dns-01' }),
  challenge: Type.Optional(Type.Union([Type.Literal('http-01'), Type.Literal('dns-01')], { description: 'http-01 (default) is answered by the edge; dns-01 by a DNS provider' })),
}, { additionalProperties: false });
const UploadBody = Type.Object({
  name: NameText,
  certificate: Pem('the PEM certificate, optionally followed by its chain (leaf first)'),
  key: Pem('the PEM private key (unencrypted)'),
}, { additionalProperties: false });
const JobAnswer = Type.Object({ jobId: Type.String(), id: Type.String(), type: Type.String(), status: Type.String(), done: Type.Boolean() }, { additionalProperties: true, description: 'the issuance job' });

export interface RouteDeps {
  ctx: ContextWith<'activity' | 'secrets'>;
  store: CertificateStore;
  edge: EdgeApi;
  providers: DnsProviders;
  expiringMs: number;
  startIssue(name: string, actor: Actor): Promise<Job>;
  /** hands a held certificate to the edge, or withdraws it (null) */
  toEdge(row: CertificateRow | null, name: string): Promise<void>;
}

export function certificateRoutes(deps: RouteDeps): AnyRoute[] {
  const { ctx, store, edge, providers, expiringMs } = deps;
  // one change of a name at a time: an upload, a request and a delete must not interleave between the check and the write
  const lock = keyedLock();

  async function audit<T>(actor: Actor, action: string, name: string, change: () => Promise<{ value: T; detail: Record<string, unknown> }>): Promise<T> {
    try {
      const { value, detail } = await change();
      await ctx.activity.record({ actor, action, resource: `certificate:${name}`, result: 'ok', detail });
      return value;
    } catch (err) {
      const status = err instanceof Problem ? err.status : 500;
      await ctx.activity.record({ actor, action, resource: `certificate:${name}`, result: status === 422 ? 'refused' : 'failed', detail: { status, ...(err instanceof Problem ? { reason: err.detail } : {}) } });
      throw err;
    }
  }

  /** the hostnames each certificate serves, of owners the viewer may see */
  async function usedByAll(viewer: Principal): Promise<Map<string, string[]>> {
    const [servable, hostnames] = await Promise.all([store.servable(new Date()), edge.hostnames(viewer)]);
    return servedHostnames(servable, hostnames, edge.covers);
  }

  function domainsOf(input: readonly string[]): string[] {
    const errors: { path: string; message: string }[] = [];
    const domains: string[] = [];
    input.forEach((d, i) => {
      const n = edge.normalizeHostname(d, { wildcard: true });
      if (!n.ok) errors.push({ path: `/domains/${i}`, message: n.reason });
      else if (!domains.includes(n.hostname)) domains.push(n.hostname);
    });
    if (errors.length) throw problem(400, `invalid domains: ${errors.map((e) => e.message).join('; ')}`, { code: 'invalid-request', errors });
    return domains;
  }

  return [
    defineRoute({
      method: 'GET', path: '/certificates', scopes: ['certificates:read'], page: true, response: CertificateView,
      summary: 'List the certificates: domains, source, issuer, validity, status, last renewal error and the edge hostnames each serves (never keys)',
      handler: async ({ page, principal }) => {
        const [rows, used] = await Promise.all([store.page(page.cursor, page.limit + 1), usedByAll(principal)]);
        const { shown, next } = pageOf(rows, page.limit, (r) => r.name);
        const now = new Date();
        return { items: shown.map((r) => viewOf(r, used.get(r.name) ?? [], now, expiringMs)), next };
      },
    }),
    defineRoute({
      method: 'GET', path: '/certificates/:name', scopes: ['certificates:read'], params: Params, response: CertificateDetail, errors: [404],
      summary: 'One certificate with its PEM chain (never its key)',
      handler: async ({ params, principal }) => {
        const [row, used] = await Promise.all([store.get(params.name), usedByAll(principal)]);
        if (!row) throw problem(404, `there is no certificate named ${params.name}`);
        return { ...viewOf(row, used.get(row.name) ?? [], new Date(), expiringMs), chain: row.chain };
      },
    }),
    defineRoute({
      method: 'POST', path: '/certificates/request', scopes: ['certificates:write'], body: RequestBody, response: JobAnswer, status: 202, errors: [409, 422], activity: false,
      summary: 'Request a certificate from the ACME CA (202 with the job: order, authorizations, challenges, finalize, download)',
      description: 'http-01 (default) is answered by the edge on /.well-known/acme-challenge of each name; dns-01 (required for wildcards) through the DNS provider of the '
        + 'name\'s zone. The name defaults to the first domain (`*.` becomes `wildcard.`). Requesting an existing ACME certificate again re-issues it; '
        + 'a name holding an upload answers 409. The job\'s failure names the CA\'s reason; the account and certificate keys are generated here and never answered.',
      handler: async ({ body, principal }) => {
        const domains = domainsOf(body.domains);
        const name = body.name ?? domains[0].replace(/^\*\./, 'wildcard.');
        const challenge = body.challenge ?? 'http-01';
        return lock(name, () => audit(principal.actor, 'certificate.request', name, async () => {
          const errors: { path: string; message: string }[] = [];
          domains.forEach((d, i) => {
            if (challenge === 'http-01' && d.startsWith('*.')) errors.push({ path: `/domains/${i}`, message: `${d} is a wildcard: the CA validates wildcards only with dns-01` });
            if (challenge === 'dns-01' && !providers.for(challengeRecord(d))) errors.push({ path: `/domains/${i}`, message: `no DNS provider handles ${challengeRecord(d)}: configure plugins.certificates.options.dns.rfc2136 for its zone` });
          });
          if (errors.length) throw problem(422, errors.map((e) => e.message).join('; '), { code: 'certificate-request-refused', errors });
          const { ok } = await store.request(name, domains, challenge);
          if (!ok) throw problem(409, `the certificate ${name} is an upload: delete it first, or request under another name`, { code: 'certificate-is-upload' });
          const job = await deps.startIssue(name, principal.actor);
          return { value: reply(202, { ...job, jobId: job.id }, { Location: `/api/v1/jobs/${job.id}` }), detail: { domains, challenge, jobId: job.id } };
        }));
      },
    }),
    defineRoute({
      method: 'POST', path: '/certificates/upload', scopes: ['certificates:write'], body: UploadBody, response: CertificateDetail, status: 201, successes: [200], errors: [409, 422], activity: false,
      summary: 'Upload a certificate chain and key (PEM): checked, stored sealed, and served by the edge for the names it covers',
      description: 'Refused with 422 and one errors[] element ({ rule, path, message }) per problem: unparsable (certificate or key), key-mismatch, expired, '
        + 'not-yet-valid, chain-order, chain-broken, no-hostname. 201 for a new name, 200 when it replaces an upload (or an automatic certificate) of that name; 409 when the name is a requested ACME certificate.',
      handler: async ({ body, principal }) => lock(body.name, () => audit(principal.actor, 'certificate.upload', body.name, async () => {
        const { problems, details } = checkUpload(body.certificate, body.key);
        if (!details) throw problem(422, `the certificate cannot be used: ${problems.map((p) => p.message).join('; ')}`, { code: 'certificate-refused', errors: problems });
        // checked before it is stored: the edge serves no name it refuses (localhost, say), so such a certificate would serve nothing
        if (!details.domains.some((d) => edge.normalizeHostname(d, { wildcard: true }).ok)) {
          const message = `the certificate names no hostname the edge can serve (${details.domains.join(', ')})`;
          throw problem(422, `the certificate cannot be used: ${message}`, { code: 'certificate-refused', errors: [{ rule: 'no-hostname', path: 'certificate[0]', message }] });
        }
        const existing = await store.get(body.name);
        // an automatic certificate of that name gives way: an upload for the same name wins
        if (existing && existing.source !== 'upload' && existing.origin !== 'auto') throw problem(409, `the certificate ${body.name} is an ACME certificate: delete it first, or upload under another name`, { code: 'certificate-is-acme' });
        // only the certificate blocks: text around them (openssl's "Bag Attributes", comments) is not Caddy's business
        const chain = pemBlocks(body.certificate).join('\n') + '\n';
        if (!(await store.upload(body.name, { ...details, chain, keySealed: ctx.secrets.seal(body.key), renewAfter: null }))) {
          throw problem(409, `the certificate ${body.name} is an ACME certificate`, { code: 'certificate-is-acme' });
        }
        const row = (await store.get(body.name))!;
        await deps.toEdge(row, row.name);
        const used = await usedByAll(principal);
        return { value: reply(existing ? 200 : 201, { ...viewOf(row, used.get(row.name) ?? [], new Date(), expiringMs), chain: row.chain }), detail: { domains: details.domains, serial: details.serial, replaced: Boolean(existing) } };
      })),
    }),
    defineRoute({
      method: 'DELETE', path: '/certificates/:name', scopes: ['certificates:write'], params: Params, status: 204, errors: [404], activity: false,
      summary: 'Delete a certificate: the edge stops serving it (its hostnames fall back to another matching certificate, or plain HTTP)',
      handler: async ({ params, principal }) => {
        await lock(params.name, () => audit(principal.actor, 'certificate.delete', params.name, async () => {
          const row = await store.remove(params.name);
          if (!row) throw problem(404, `there is no certificate named ${params.name}`);
          await deps.toEdge(null, params.name);
          return { value: undefined, detail: { domains: row.domains, source: row.source } };
        }));
      },
    }),
  ];
}
