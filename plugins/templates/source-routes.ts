// The template source endpoints: list the sources with their own errors, add one (read at once), remove one, refresh one.
import { defineRoute, Nullable, problem, reply, Type, type RouteDef } from '../../sdk/index.ts';
import type { Catalogue, SourceState } from './catalogue.ts';
import type { SourceDef } from './source-store.ts';
import type { Sources } from './sources.ts';
import type { SourceStore } from './source-store.ts';

export const SourceName = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,39}$', description: 'lowercase letters, digits and - (at most 40)' });
const Format = Type.Union([Type.Literal('dockwright'), Type.Literal('dokploy'), Type.Literal('portainer')], { description: 'the catalogue\'s format (default dockwright)' });
const GitRef = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2000, description: 'https://, ssh:// or (admins, allowed folders) a local path' }),
  ref: Type.String({ minLength: 1, maxLength: 250, description: 'the branch to read' }),
  path: Type.Optional(Type.String({ maxLength: 500, description: 'the folder (or index file) in the repository; default its top' })),
}, { additionalProperties: false });
const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'the sha256 the index file (index.json, meta.json, the v3 JSON) must have' });

const SourceView = Type.Object({
  name: Type.String(),
  kind: Type.Union([Type.Literal('bundled'), Type.Literal('folder'), Type.Literal('url'), Type.Literal('git')]),
  format: Format,
  url: Type.Optional(Type.String()),
  git: Type.Optional(GitRef),
  sha256: Type.Optional(Type.String()),
  commit: Type.Optional(Nullable(Type.String({ description: 'a git source: the commit last read' }))),
  templates: Type.Integer({ description: 'templates it offers (of its last good read)' }),
  error: Nullable(Type.String({ description: 'why its last read failed (its templates are then those of the read before)' })),
  invalid: Type.Array(Type.Object({ template: Nullable(Type.String()), path: Type.String(), message: Type.String() }), { description: 'entries of it that could not be read' }),
  fetchedAt: Nullable(Type.String({ description: 'its last good read' })),
  checkedAt: Type.Optional(Nullable(Type.String({ description: 'its last read, good or not' }))),
});

const viewOf = (s: SourceState) => ({
  name: s.name, kind: s.kind, format: s.format,
  ...(s.def?.url ? { url: s.def.url } : {}), ...(s.def?.git ? { git: s.def.git } : {}), ...(s.def?.sha256 ? { sha256: s.def.sha256 } : {}),
  ...(s.kind === 'git' ? { commit: s.commit ?? null } : {}), ...(s.def ? { checkedAt: s.checkedAt ?? null } : {}),
  templates: s.templates.size, error: s.error, invalid: s.invalid, fetchedAt: s.fetchedAt,
});

export function sourceRoutes(deps: { catalogue: Catalogue; sources: Sources; store: SourceStore }): RouteDef<any, any, any, any, any>[] {
  const { catalogue, sources, store } = deps;
  const added = async (name: string) => {
    const row = await store.get(name);
    if (!row) {
      if (catalogue.source(name)) throw problem(409, `source ${name} comes from the configuration (plugins.templates.options); change it there`);
      throw problem(404, `no template source "${name}"`);
    }
    return row;
  };
  const Params = Type.Object({ name: SourceName });
  return [
    defineRoute({
      method: 'GET', path: '/templates/sources', scopes: ['templates:read'], summary: 'The template sources, each with its own last error and the entries it could not read',
      response: Type.Array(SourceView),
      handler: async () => {
        await sources.sync();
        return catalogue.all().map(viewOf).sort((a, b) => (a.name < b.name ? -1 : 1));
      },
    }),
    defineRoute({
      method: 'POST', path: '/templates/sources', scopes: ['templates:write'], status: 201, errors: [409, 422],
      summary: 'Add a source (an HTTPS index URL or a git repository at a ref); it is read at once, and a failed read shows as its error',
      body: Type.Object({ name: SourceName, url: Type.Optional(Type.String({ maxLength: 2000 })), git: Type.Optional(GitRef), sha256: Type.Optional(Sha256), format: Type.Optional(Format) }, { additionalProperties: false }),
      response: SourceView, activity: 'template.source.add', resource: 'template-source:{name}',
      handler: async ({ body }) => {
        if (body.name === 'sources') throw problem(400, 'the name "sources" is taken by the API path', { errors: [{ path: '/body/name', message: 'is reserved' }] });
        if (!body.url === !body.git) throw problem(400, 'give either url or git', { errors: [{ path: '/body', message: 'exactly one of url and git' }] });
        const def: SourceDef = { name: body.name, url: body.url ?? null, git: body.git ?? null, sha256: body.sha256 ?? null, format: body.format ?? 'dockwright' };
        if (catalogue.source(def.name) && !(await store.get(def.name))) throw problem(409, `source ${def.name} comes from the configuration`);
        await sources.check(def);
        if (!(await store.add(def))) throw problem(409, `source ${def.name} already exists`);
        await sources.refresh(def);
        return reply(201, viewOf(catalogue.source(def.name)!), { Location: `/api/v1/templates/sources/${def.name}` });
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/templates/sources/:name', scopes: ['templates:write'], params: Params, status: 204, errors: [409],
      summary: 'Remove a source; stacks made from its templates keep running and keep their provenance',
      activity: 'template.source.remove', resource: 'template-source:{name}',
      handler: async ({ params }) => {
        await added(params.name);
        await sources.remove(params.name);
        return reply(204);
      },
    }),
    defineRoute({
      method: 'POST', path: '/templates/sources/:name/refresh', scopes: ['templates:write'], params: Params, errors: [409],
      summary: 'Read a source again now (sources are also read on a schedule); the answer shows the read\'s error, if any',
      response: SourceView, activity: 'template.source.refresh', resource: 'template-source:{name}',
      handler: async ({ params }) => {
        await sources.refresh(await added(params.name));
        return viewOf(catalogue.source(params.name)!);
      },
    }),
  ];
}
