// The Registry HTTP API v2, read only and through the outbound policy: a tag's manifest digest (HEAD) and a repository's tags (Link pagination), with Basic or Bearer auth from the saved logins.
import { Problem, type OutboundApi } from '../../sdk/index.ts';
import type { RegistryAuthProvider } from '../docker/api.ts';
import { policyHost } from '../docker/api.ts';

/** every manifest kind a tag may point at: OCI index, Docker manifest list, OCI and Docker image manifests */
export const manifestAccept = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

const timeoutMs = 15_000;
const maxPages = 50;

/** the registry's address for the API: Docker Hub's API host; loopback registries are spoken to over http, others over https (http when TLS fails) */
const apiHost = (registry: string) => (registry === 'docker.io' ? 'registry-1.docker.io' : registry);
const plainFirst = (registry: string) => /^(localhost|127\.|\[::1\])/.test(registry);

function challenge(header: string): { scheme: string; params: Record<string, string> } | null {
  const m = /^\s*(\w+)\s*(.*)$/s.exec(header);
  if (!m) return null;
  const params: Record<string, string> = {};
  for (const p of m[2].matchAll(/(\w+)\s*=\s*(?:"([^"]*)"|([^\s,]+))/g)) params[p[1].toLowerCase()] = p[2] ?? p[3];
  return { scheme: m[1].toLowerCase(), params };
}

/**
 * A client for one check: logins asked once per registry, Bearer tokens kept per repository, connections reused.
 * close() when done.
 */
export function registryClient(outbound: OutboundApi, auth: RegistryAuthProvider | null) {
  const dispatcher = outbound.dispatcher({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connections: 16 });
  const logins = new Map<string, Promise<{ username: string; password: string } | null>>();
  const schemes = new Map<string, string>();
  const tokens = new Map<string, Promise<string>>();
  const loginOf = (registry: string) => {
    if (!logins.has(registry)) logins.set(registry, auth ? auth(registry) : Promise.resolve(null));
    return logins.get(registry)!;
  };

  async function send(url: URL, init: { method: string; headers: Record<string, string> }) {
    const { request } = await import('undici');
    return request(url, { method: init.method as 'GET', headers: init.headers, dispatcher, signal: AbortSignal.timeout(timeoutMs) });
  }

  /** the scheme this registry answers on (asked once) */
  async function base(registry: string): Promise<string> {
    const known = schemes.get(registry);
    if (known) return known;
    await outbound.check(policyHost(registry));
    const order = plainFirst(registry) ? ['http', 'https'] : ['https', 'http'];
    let failure: unknown;
    for (const scheme of order) {
      try {
        const res = await send(new URL(`${scheme}://${apiHost(registry)}/v2/`), { method: 'GET', headers: {} });
        await res.body.dump();
        schemes.set(registry, scheme);
        return scheme;
      } catch (err) {
        if (err instanceof Problem) throw err;
        failure = err;
      }
    }
    throw new Error(`the registry ${registry} does not answer: ${(failure as Error)?.message ?? failure}`);
  }

  async function token(registry: string, repository: string, header: string): Promise<string> {
    const key = `${registry}/${repository}`;
    if (!tokens.has(key)) {
      tokens.set(key, (async () => {
        const c = challenge(header);
        const login = await loginOf(registry);
        if (c?.scheme === 'basic') {
          if (!login) throw new Error(`the registry ${registry} asks for a login, and none is saved (POST /api/v1/registries)`);
          return `Basic ${Buffer.from(`${login.username}:${login.password}`).toString('base64')}`;
        }
        if (c?.scheme !== 'bearer' || !c.params.realm) throw new Error(`the registry ${registry} asks for an authentication Dockwright does not speak (${header.slice(0, 80)})`);
        const url = new URL(c.params.realm);
        if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`the registry ${registry} names a token service that is not http(s)`);
        if (c.params.service) url.searchParams.set('service', c.params.service);
        url.searchParams.set('scope', `repository:${repository}:pull`);
        const res = await send(url, { method: 'GET', headers: login ? { authorization: `Basic ${Buffer.from(`${login.username}:${login.password}`).toString('base64')}` } : {} });
        if (res.statusCode !== 200) {
          await res.body.dump();
          throw new Error(`the token service of ${registry} answered ${res.statusCode}${login ? ` to the login of ${login.username}` : ''}`);
        }
        const body = await res.body.json() as { token?: string; access_token?: string };
        const t = body.token ?? body.access_token;
        if (!t) throw new Error(`the token service of ${registry} answered no token`);
        return `Bearer ${t}`;
      })());
      tokens.get(key)!.catch(() => tokens.delete(key));
    }
    return tokens.get(key)!;
  }

  /** one API call, authenticated when the registry asks (401 with WWW-Authenticate) */
  async function api(registry: string, repository: string, method: 'GET' | 'HEAD', path: string, accept?: string) {
    const url = new URL(`${await base(registry)}://${apiHost(registry)}${path}`);
    const headers: Record<string, string> = accept ? { accept } : {};
    const key = `${registry}/${repository}`;
    if (tokens.has(key)) headers.authorization = await tokens.get(key)!;
    let res = await send(url, { method, headers });
    if (res.statusCode === 401 && !headers.authorization) {
      await res.body.dump();
      const header = [res.headers['www-authenticate'] ?? []].flat().join(', ');
      headers.authorization = await token(registry, repository, header);
      res = await send(url, { method, headers });
    }
    return res;
  }

  return {
    /** the tag's manifest digest (Docker-Content-Digest), or null when the tag does not exist */
    async digest(registry: string, repository: string, tag: string): Promise<string | null> {
      const res = await api(registry, repository, 'HEAD', `/v2/${repository}/manifests/${encodeURIComponent(tag)}`, manifestAccept);
      await res.body.dump();
      if (res.statusCode === 404) return null;
      if (res.statusCode !== 200) throw new Error(`the registry ${registry} answered ${res.statusCode} for ${repository}:${tag}`);
      const digest = res.headers['docker-content-digest'];
      if (typeof digest !== 'string') throw new Error(`the registry ${registry} sent no Docker-Content-Digest for ${repository}:${tag}`);
      return digest;
    },
    /** every tag of the repository, following the Link header's next pages */
    async tags(registry: string, repository: string): Promise<string[]> {
      const tags: string[] = [];
      let path: string | null = `/v2/${repository}/tags/list?n=1000`;
      for (let page = 0; path && page < maxPages; page++) {
        const res = await api(registry, repository, 'GET', path);
        if (res.statusCode !== 200) {
          await res.body.dump();
          throw new Error(`the registry ${registry} answered ${res.statusCode} for the tags of ${repository}`);
        }
        const body = await res.body.json() as { tags?: string[] | null };
        tags.push(...(body.tags ?? []));
        const link = [res.headers.link ?? []].flat().join(', ');
        const next = /<([^>]+)>\s*;\s*rel="?next"?/.exec(link)?.[1] ?? null;
        path = next ? (next.startsWith('/') ? next : new URL(next).pathname + new URL(next).search) : null;
      }
      return tags;
    },
    close: () => dispatcher.close(),
  };
}
export type RegistryClient = ReturnType<typeof registryClient>;
