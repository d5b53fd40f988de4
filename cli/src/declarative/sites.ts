// The site kind: hostnames and source (git URL, branch, path, build; credentials by reference, kept by the server when left without values).
import type { Client } from '../client.ts';
import { CliError, exitCodes } from '../errors.ts';
import { guarded } from './conflicts.ts';
import { expected, resolveSecrets, same } from './compare.ts';
import type { Change, Declared, KindHandler, Listed, Resolver } from './model.ts';

const seg = encodeURIComponent;
const path = (name: string) => `/api/v1/sites/${seg(name)}`;

interface Source { url: string; branch?: string; path?: string; build?: unknown; credentials?: Record<string, unknown> | null }

function sourceOf(declared: Declared, resolve: Resolver): { body: Source | null | undefined; credentials: { given: Record<string, string>; kept: string[] } } {
  const source = declared.spec!.source as Source | null | undefined;
  const none = { given: {}, kept: [] };
  if (source === undefined || source === null) return { body: source, credentials: none };
  if (typeof source !== 'object' || typeof source.url !== 'string') throw new CliError(`${declared.file}: site ${declared.name}: source needs a url`, exitCodes.refused);
  const credentials = resolveSecrets(source.credentials ?? undefined, resolve, `site ${declared.name} source.credentials`);
  const body: Source = { url: source.url, branch: source.branch ?? 'main', ...(source.path !== undefined ? { path: source.path } : {}), ...(source.build !== undefined ? { build: source.build } : {}) };
  if (Object.keys(credentials.given).length) body.credentials = { ...credentials.given };
  return { body, credentials };
}

export const siteKind: KindHandler = {
  kind: 'site',
  fields: ['hostnames', 'source'],

  async list(client) {
    const { body } = await client.any<any[]>('get', '/api/v1/sites', { query: { limit: 1000 } });
    return new Map(body.map((s) => [s.name, s as Listed]));
  },

  async plan(client, declared, resolve, current) {
    const name = declared.name;
    const hostnames = declared.spec!.hostnames as string[] | undefined;
    if (!Array.isArray(hostnames)) throw new CliError(`${declared.file}: site ${name} needs hostnames (a list, may be empty)`, exitCodes.refused);
    const { body: source, credentials } = sourceOf(declared, resolve);
    const fields: string[] = [];
    if (!current || !same([...hostnames].sort(), [...(current.hostnames as string[])].sort())) fields.push('hostnames');
    const had = current?.source as (Source & { credentials: { kind: string } | null }) | null | undefined;
    if (source === null ? had : source && (!had || had.url !== source.url || had.branch !== source.branch
      || (source.path !== undefined && source.path !== had.path) || (source.build !== undefined && !same(source.build, had.build)))) fields.push('source');
    // a secret cannot be read back: it is written when the server has none, or with any other change of the source
    if (source && Object.keys(credentials.given).length && !had?.credentials && !fields.includes('source')) fields.push('source.credentials');
    if (source && credentials.kept.length && !had?.credentials) throw new CliError(`site ${name} declares credentials without values, and the server has none`, exitCodes.refused, 'give them values, e.g. token: ${env:GIT_TOKEN}');
    if (current && !fields.length) return null;
    const marker = current ? current.updatedAt : null;
    const body = { hostnames, ...(source !== undefined ? { source } : current ? { source: had ? { url: had.url, branch: had.branch, path: had.path, ...(had.build ? { build: had.build } : {}) } : null } : {}) };
    return {
      kind: 'site', name, action: current ? 'update' : 'create', fields: current ? fields : ['hostnames', ...(source ? ['source'] : [])],
      apply: async () => { await guarded('site', name, () => client.any('put', path(name), { body, headers: expected(marker) })); },
    };
  },

  remove(client, listed): Change {
    return {
      kind: 'site', name: listed.name, action: 'delete', fields: [],
      apply: async () => { await guarded('site', listed.name, () => client.any('delete', path(listed.name), { headers: expected(listed.updatedAt) })); },
    };
  },

  async export(client: Client, name: string) {
    const site = (await client.any('get', path(name))).body;
    const spec: Record<string, unknown> = { hostnames: site.hostnames };
    if (site.source) {
      spec.source = { url: site.source.url, branch: site.source.branch, path: site.source.path, ...(site.source.build ? { build: site.source.build } : {}) };
      // credentials are never answered: omitted, the server keeps them
    }
    return { kind: 'site' as const, name, spec };
  },
};
