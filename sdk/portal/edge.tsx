// The portal SDK's edge links: a hostname's address with the edge's port when it is not 80/443 (the Edge page), and an owner's hostnames as links from GET /edge/links (stack and site pages, any user).
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

/**
 * the hostnames an owner (`stack:web`, `site:blog`) holds on the edge, each a link that opens it; `only`: just these (a site's own, not its
 * preview's). `state` is the owner's live state (a stack's status and last job): when it changes the links are read again at once, so a
 * deploy that just routed a hostname never leaves it shown as not routed
 */
export function OwnerHostnames({ owner, only, state }: { owner: string; only?: string[]; state?: string }) {
  const links = useLoad(() => ok(api.GET('/api/v1/edge/links')), [owner, state], 10_000);
  const held = (links.data ?? []).filter((l) => l.owner === owner && (!only || only.includes(l.hostname)));
  if (!links.data) return only?.length ? <ul class="plain">{only.map((h) => <li><code>{h}</code></li>)}</ul> : <span class="muted">none</span>;
  if (!held.length) return <span class="muted">none</span>;
  return (
    <ul class="plain" data-testid="hostnames">{held.map((l) => (
      <li><a href={l.url} target="_blank" rel="noreferrer">{l.url}</a>{!l.routed && <span class="muted"> (not routed now)</span>}</li>
    ))}</ul>
  );
}
