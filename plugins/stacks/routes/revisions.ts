// The stack endpoints on a stack's revision history: list, read one, restore one.
import { pageOf, Nullable, problem, Type, type RouteDef } from '../../../sdk/index.ts';
import { mayWrite } from '../access.ts';
import { StackDetailSchema, visibleSettings, visibleVariables } from '../view.ts';
import { Params, RevisionEntry, RevisionParams, Settings, Values, type RouteDeps, type StackRouteKit } from './kit.ts';

export function revisionRoutes({ ctx, core, store, hiddenVariables }: RouteDeps, { stackRoute, fullView }: StackRouteKit): RouteDef<any, any, any, any, any>[] {
  return [
    stackRoute('read', {
      method: 'GET', path: '/stacks/:name/revisions', scopes: ['stacks:read'], params: Params, page: true, summary: 'The revision history, newest first',
      response: Type.Object(RevisionEntry),
      cursor: Type.String({ pattern: '^[1-9][0-9]{0,8}$', description: 'the revision number of the last entry of the previous page' }),
      handler: async ({ params, page }) => {
        const before = page.cursor === undefined ? undefined : Number(page.cursor);
        if (before !== undefined && !(Number.isInteger(before) && before > 0 && before <= 2_147_483_647)) throw problem(400, 'the cursor is not one this server gave out');
        const { shown, next } = pageOf(await ctx.revisions.list('stack', params.name, { limit: page.limit + 1, before }), page.limit, (r) => r.revision);
        return { items: shown.map((r) => ({ id: r.revision, ...r })), next };
      },
    }),
    stackRoute('read', {
      method: 'GET', path: '/stacks/:name/revisions/:id', scopes: ['stacks:read'], params: RevisionParams, summary: 'One revision: compose, variables, settings, author',
      response: Type.Object({ ...RevisionEntry, compose: Type.String(), values: Values, redacted: Type.Array(Type.String()), template: Nullable(Type.String()), settings: Settings }),
      handler: async ({ params, principal }, row) => {
        const found = await ctx.revisions.get('stack', params.name, params.id);
        if (!found) throw problem(404, `stack "${params.name}" has no revision ${params.id}`);
        const content = store.contentOf(found.snapshot);
        return {
          id: found.revision, revision: found.revision, author: found.author, message: found.message, createdAt: found.createdAt,
          compose: content.compose, ...visibleVariables(content.env, mayWrite(principal, row.access, row.name), await hiddenVariables(row.name)), template: content.template, settings: visibleSettings(content.settings, mayWrite(principal, row.access, row.name)),
        };
      },
    }),
    stackRoute('deploy', {
      method: 'POST', path: '/stacks/:name/revisions/:id/restore', scopes: ['stacks:deploy'], params: RevisionParams, revision: 'optional', errors: [422],
      summary: 'Restore a revision: a new revision whose compose, variables and settings equal it (deploy to apply it)',
      response: StackDetailSchema,
      activity: 'stack.restore', resource: 'stack:{name}',
      handler: async ({ params, revision, principal }, row) => {
        await core.restore(row, params.id, revision, principal);
        return fullView(row.name);
      },
    }),
  ];
}
