// The endpoints on a stack's template: the update to its newer version (three-way plan, apply as a release) and saving the stack as a template.
import { defineRoute, problem, reply, Type, JobAcceptedSchema, type RouteDef } from '../../sdk/index.ts';
import type { StacksApi } from '../stacks/api.ts';
import type { Catalogue } from './catalogue.ts';
import { exportTemplate } from './export.ts';
import { TemplateId } from './format.ts';
import type { ProvenanceStore } from './store.ts';
import type { TemplateUpdates } from './updates.ts';

const ConflictSchema = Type.Object({
  line: Type.Integer({ description: 'where it starts in compose (its <<<<<<< line)' }),
  current: Type.Array(Type.String(), { description: 'the stack\'s lines' }),
  base: Type.Array(Type.String(), { description: 'the lines of the version it was made from' }),
  template: Type.Array(Type.String(), { description: 'the lines of the new version' }),
});
const PlanSchema = Type.Object({
  from: Type.String(), to: Type.String(),
  compose: Type.String({ description: 'the merged compose file; conflicts between <<<<<<< and >>>>>>> lines' }),
  conflicts: Type.Array(ConflictSchema),
  variables: Type.Object({ added: Type.Array(Type.String()), removed: Type.Array(Type.String()) }),
});

export function updateRoutes(deps: { stacks: StacksApi; updates: TemplateUpdates; store: ProvenanceStore; catalogue: Catalogue }): RouteDef<any, any, any, any, any>[] {
  const { stacks, updates } = deps;
  const Params = Type.Object({ name: stacks.nameSchema });
  return [
    defineRoute({
      method: 'GET', path: '/stacks/:name/template/update', scopes: ['stacks:read', 'templates:read'], params: Params, errors: [404, 409],
      summary: 'The update of a stack to its template\'s current version: old template → new template, merged with the stack\'s compose file',
      response: PlanSchema,
      handler: async ({ params, principal }) => (await updates.plan(params.name, principal)).plan,
    }),
    defineRoute({
      method: 'POST', path: '/stacks/:name/template/update', scopes: ['stacks:write', 'stacks:deploy', 'templates:read'], params: Params, revision: 'optional',
      status: 202, errors: [404, 409, 412, 422],
      summary: 'Apply the update as a new revision and deploy it as a release (409 while the merge has conflicts: send the resolved compose file)',
      description: 'Variables the new version adds take `variables`, else their default, else their generator (made once, hidden like the others). Rollback: POST /stacks/{name}/rollback (the releases plugin).',
      body: Type.Object({
        revision: Type.Optional(Type.Integer({ minimum: 1 })),
        compose: Type.Optional(Type.String({ maxLength: 256 * 1024, description: 'the merged compose file with its conflicts resolved' })),
        variables: Type.Optional(Type.Record(Type.String({ maxLength: 128 }), Type.String({ maxLength: 65536 }), { maxProperties: 500 })),
      }, { additionalProperties: false }),
      response: Type.Object({ ...JobAcceptedSchema.properties, from: Type.String(), to: Type.String() }),
      activity: 'template.update', resource: 'stack:{name}',
      handler: async ({ params, body, principal, revision }) => {
        const { job, plan } = await updates.apply(params.name, principal, { ...body, revision: revision ?? body.revision });
        return reply(202, { ...job, jobId: job.id, from: plan.from, to: plan.to }, { Location: `/api/v1/jobs/${job.id}` });
      },
    }),
    defineRoute({
      method: 'GET', path: '/stacks/:name/template/export', scopes: ['stacks:read', 'templates:read'], params: Params, errors: [404, 422],
      summary: 'The stack as a template of our format: its compose file with an x-dockwright block; secret values are never written (they become generators)',
      query: Type.Object({
        id: Type.Optional(Type.String({ pattern: TemplateId })), name: Type.Optional(Type.String({ maxLength: 200 })),
        version: Type.Optional(Type.String({ maxLength: 100 })), description: Type.Optional(Type.String({ maxLength: 2000 })),
      }),
      response: Type.Object({ id: Type.String(), version: Type.String(), template: Type.String() }),
      handler: async ({ params, query, principal }) => {
        await stacks.access(params.name, principal, 'read');
        const content = await stacks.content(params.name);
        if (!content) throw problem(404, `no stack "${params.name}"`);
        const p = await deps.store.get(params.name);
        const meta = { id: query.id ?? params.name, name: query.name ?? params.name, version: query.version ?? '1.0.0', ...(query.description ? { description: query.description } : {}) };
        const template = exportTemplate({ stack: params.name, compose: content.compose, variables: content.variables, hidden: p?.hidden ?? [], from: p ? deps.catalogue.get(p.source, p.id) : undefined, meta });
        return { id: meta.id, version: meta.version, template };
      },
    }),
  ];
}
