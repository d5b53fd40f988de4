// The template endpoints of /api/v1: the catalogue (list, one template) and deploying a template as a new stack.
import { defineRoute, JobAcceptedSchema, problem, reply, Type, type RouteDef } from '../../sdk/index.ts';
import type { StacksApi } from '../stacks/api.ts';
import type { Catalogue } from './catalogue.ts';
import type { TemplateDeployer } from './deploy.ts';
import { TemplateId } from './format.ts';
import { SourceName } from './source-routes.ts';
import type { Sources } from './sources.ts';
import { summaryOf, TemplateSchema, TemplateSummarySchema, templateOf } from './views.ts';

const TemplateParams = Type.Object({ source: SourceName, id: Type.String({ pattern: TemplateId }) });

export function templateRoutes(deps: { catalogue: Catalogue; deployer: TemplateDeployer; stacks: StacksApi; sources: Sources }): RouteDef<any, any, any, any, any>[] {
  const { catalogue, deployer, sources } = deps;
  const find = async (source: string, id: string) => {
    await sources.sync();
    const t = catalogue.get(source, id);
    if (!t) throw problem(404, catalogue.source(source) ? `source ${source} has no template "${id}"` : `no template source "${source}"`);
    return t;
  };
  return [
    defineRoute({
      method: 'GET', path: '/templates', scopes: ['templates:read'], page: true, summary: 'Every template of every source, by name (an array, paged like every list)',
      cursor: Type.String({ pattern: '^[0-9]{1,6}$', description: 'how many templates the pages before held' }),
      query: Type.Object({
        q: Type.Optional(Type.String({ maxLength: 200, description: 'words the name, id or description holds' })),
        category: Type.Optional(Type.String({ maxLength: 100 })),
        source: Type.Optional(SourceName),
      }),
      response: TemplateSummarySchema,
      handler: async ({ query, page }) => {
        await sources.sync();
        const words = (query.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
        const items = catalogue.list().filter((t) => (!query.source || t.source === query.source) && (!query.category || t.categories.includes(query.category))
          && words.every((w) => `${t.id} ${t.name} ${t.description}`.toLowerCase().includes(w)));
        const from = Number(page.cursor ?? 0);
        const shown = items.slice(from, from + page.limit);
        return { items: shown.map(summaryOf), next: from + page.limit < items.length ? String(from + page.limit) : undefined };
      },
    }),
    defineRoute({
      method: 'GET', path: '/templates/:source/:id', scopes: ['templates:read'], params: TemplateParams, summary: 'One template: its typed variables and compose file',
      response: TemplateSchema,
      handler: async ({ params }) => templateOf(await find(params.source, params.id)),
    }),
    defineRoute({
      method: 'POST', path: '/templates/:source/:id/deploy', scopes: ['templates:read', 'stacks:write', 'stacks:deploy'], params: TemplateParams,
      summary: 'Create a stack from the template and deploy it (a job: 202); generated values are made once and never shown',
      description: 'Values not given take the variable\'s default, else its generator\'s value. Generated values and those typed secret are stored as the stack\'s variables and hidden from every answer (GET /stacks/{name}/env shows ***); edits, redeploys and updates keep them.',
      body: Type.Object({
        stack: deps.stacks.nameSchema,
        variables: Type.Record(Type.String({ maxLength: 128 }), Type.Union([Type.String({ maxLength: 65536 }), Type.Number(), Type.Boolean()]), { default: {}, maxProperties: 500 }),
      }, { additionalProperties: false }),
      status: 202, response: Type.Object({ ...JobAcceptedSchema.properties, stack: Type.String(), template: Type.Object({ source: Type.String(), id: Type.String(), version: Type.String() }), instructions: Type.Union([Type.String(), Type.Null()]) }),
      errors: [404, 409, 422], activity: 'template.deploy',
      handler: async ({ params, body, principal }) => {
        const t = await find(params.source, params.id);
        const { job, instructions } = await deployer.deploy(t, { stack: body.stack, variables: body.variables ?? {} }, principal);
        return reply(202, { ...job, jobId: job.id, stack: body.stack, template: { source: t.source, id: t.id, version: t.version }, instructions }, { Location: `/api/v1/jobs/${job.id}` });
      },
    }),
  ];
}
