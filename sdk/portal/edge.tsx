// The portal SDK's edge links: a hostname's address with the edge's port when it is not 80/443, and an owner's hostnames as links (for stack and site pages).
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

/** the hostnames an owner (`stack:web`, `site:blog`) holds on the edge, each a link that opens it (`known`: the names the caller knows without the edge, shown as text to users who may not read it) */
export function OwnerHostnames({ owner, known = [] }: { owner: string; known?: string[] }) {
  const edge = useEdge().data;
  const routes = edge?.routes.filter((r) => r.owner === owner) ?? [];
  const held = edge ? [...new Set([...edge.hostnames.filter((h) => h.owner === owner).map((h) => h.hostname), ...known])] : known;
  if (!held.length) return <span class="muted">none</span>;
  return (
    <ul class="plain" data-testid="hostnames">{held.map((hostname) => {
      const served = routes.filter((r) => r.hostname === hostname);
      const url = edge && hostUrl(hostname, served.some((r) => r.https), edge.ports);
      return (
        <li>{url ? <a href={url} target="_blank" rel="noreferrer">{url}</a> : <code>{hostname}</code>}
          {edge && !served.length && <span class="muted"> (not routed now)</span>}
          {served.filter((r) => r.path !== '/').map((r) => <span class="muted"> {r.path}</span>)}</li>
      );
    })}</ul>
  );
}
