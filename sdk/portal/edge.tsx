// The portal SDK's edge links: a hostname's address with the edge's port when it is not 80/443 (the Edge page), and an owner's hostnames as links from GET /edge/links with their HTTPS state (stack and site pages, any user).
import { api, can, ok, useLoad, type paths } from './kit.tsx';

export type EdgeView = paths['/api/v1/edge']['get']['responses'][200]['content']['application/json'];

/** the address a browser opens for a hostname: https when a certificate covers it, the edge's port when it is not the scheme's own */
export function hostUrl(hostname: string, https: boolean, ports: EdgeView['ports'], path = '/'): string {
  const port = https ? ports.https : ports.http;
  return `${https ? 'https' : 'http'}://${hostname}${port === (https ? 443 : 80) ? '' : `:${port}`}${path}`;
}

/** the edge's answer, for users who may read it (admins); undefined data for the others */
export function useEdge() {
  return useLoad(async () => (can('edge:read') ? ok(api.GET('/api/v1/edge')) : undefined), [], 10_000);
}

type Certificate = paths['/api/v1/certificates']['get']['responses'][200]['content']['application/json'][number];
const covers = (domain: string, host: string) => domain === host || (domain.startsWith('*.') && host.slice(host.indexOf('.') + 1) === domain.slice(2) && host.indexOf('.') > 0);
const serving = (c: Certificate) => c.status === 'valid' || c.status === 'expiring';

/** the certificate that speaks for a hostname: one serving it (named exactly before a wildcard), else one under way or failed */
function certificateOf(certificates: readonly Certificate[], host: string): Certificate | undefined {
  const naming = certificates.filter((c) => c.domains.includes(host));
  const covering = certificates.filter((c) => c.domains.some((d) => covers(d, host)));
  return naming.find(serving) ?? covering.find(serving) ?? naming.find((c) => c.status === 'pending') ?? naming[0] ?? covering[0];
}

/** a hostname's HTTPS as one phrase: served (by which certificate, until when), being obtained, or why it failed */
function HttpsState({ certificate }: { certificate: Certificate | undefined }) {
  if (!certificate) return <span class="muted" data-testid="https-state"> · HTTP only</span>;
  const kind = certificate.origin === 'auto' ? 'automatic' : certificate.origin === 'upload' ? 'uploaded' : 'requested';
  if (serving(certificate)) return <span class="ok-text" data-testid="https-state" title={`certificate ${certificate.name}`}> · HTTPS ({kind}, until {certificate.notAfter?.slice(0, 10)}){certificate.status === 'expiring' ? ', expiring' : ''}</span>;
  if (certificate.status === 'pending') return <span class="muted" data-testid="https-state"> · HTTPS: certificate being obtained ({kind})</span>;
  const reason = certificate.lastError ?? '';
  return <span class="error-text" data-testid="https-state" title={`certificate ${certificate.name}: ${reason}`}> · HTTPS: {certificate.status}{reason ? `: ${reason.length > 120 ? `${reason.slice(0, 120)}…` : reason}` : ''}</span>;
}

/**
 * the hostnames an owner (`stack:web`, `site:blog`) holds on the edge, each a link that opens it with its HTTPS state; `only`: just these (a
 * site's own, not its preview's). `state` is the owner's live state (a stack's status and last job): when it changes, links and certificates
 * are read again at once, so a deploy that just routed a hostname never leaves it shown as not routed
 */
export function OwnerHostnames({ owner, only, state }: { owner: string; only?: string[]; state?: string }) {
  const links = useLoad(() => ok(api.GET('/api/v1/edge/links')), [owner, state], 10_000);
  const certificates = useLoad(async () => (can('certificates:read') ? ok(api.GET('/api/v1/certificates', { params: { query: { limit: 1000 } } })) : undefined), [owner, state], 10_000);
  const held = (links.data ?? []).filter((l) => l.owner === owner && (!only || only.includes(l.hostname)));
  if (!links.data) return only?.length ? <ul class="plain">{only.map((h) => <li><code>{h}</code></li>)}</ul> : <span class="muted">none</span>;
  if (!held.length) return <span class="muted">none</span>;
  return (
    <ul class="plain" data-testid="hostnames">{held.map((l) => (
      <li><a href={l.url} target="_blank" rel="noreferrer">{l.url}</a>{!l.routed && <span class="muted"> (not routed now)</span>}
        {certificates.data && <HttpsState certificate={certificateOf(certificates.data, l.hostname)} />}</li>
    ))}</ul>
  );
}
