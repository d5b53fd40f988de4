// The stack endpoints on who may act on a stack: its access list, and the deploy webhook's token.
import { Type, type RouteDef } from '../../../sdk/index.ts';
import { AccessEntrySchema, AccessEntryViewSchema, type AccessEntry } from '../access.ts';
import { deployKind } from '../core.ts';
import { Params, type RouteDeps, type StackRouteKit } from './kit.ts';

export function accessRoutes({ ctx, store }: RouteDeps, { stackRoute }: StackRouteKit): RouteDef<any, any, any, any, any>[] {
  return [
    stackRoute('read', {
      method: 'GET', path: '/stacks/:name/access', scopes: ['stacks:read'], params: Params, summary: 'The access list (empty: every user, by their role)',
      response: Type.Array(AccessEntryViewSchema),
      handler: async (_, row) => row.access,
    }),
    stackRoute('write', {
      method: 'POST', path: '/stacks/:name/access', scopes: ['stacks:write'], params: Params,
      summary: 'Replace the access list; managers and admins may change it',
      body: Type.Object({ entries: Type.Array(AccessEntrySchema, { maxItems: 200 }) }, { additionalProperties: false }),
      response: Type.Object({ name: Type.String(), entries: Type.Array(AccessEntrySchema) }),
      activity: 'stack.access.write', resource: 'stack:{name}',
      handler: async ({ body }, stack) => {
        const entries = [...new Map(body.entries.map((e) => [e.principal, e as AccessEntry])).values()];
        await store.set(stack.name, { access: entries });
        return { name: stack.name, entries };
      },
    }),
    stackRoute('write', {
      method: 'POST', path: '/stacks/:name/webhooks/deploy', scopes: ['stacks:write'], params: Params,
      summary: 'Enable or rotate the deploy webhook: the token is shown this once; the previous one stops working at once',
      response: Type.Object({ token: Type.String(), url: Type.String() }),
      activity: 'stack.webhook.deploy.rotate', resource: 'stack:{name}',
      handler: async ({ baseUrl }, stack) => {
        const token = await ctx.actionTokens.issue(deployKind, stack.name);
        return { token, url: `${baseUrl}/api/stacks/${stack.name}/deploy` };
      },
    }),
    stackRoute('write', {
      method: 'DELETE', path: '/stacks/:name/webhooks/deploy', scopes: ['stacks:write'], params: Params, summary: 'Disable the deploy webhook',
      response: Type.Object({ name: Type.String(), enabled: Type.Boolean() }),
      activity: 'stack.webhook.deploy.disable', resource: 'stack:{name}',
      handler: async (_, stack) => {
        await ctx.actionTokens.revoke(deployKind, stack.name);
        return { name: stack.name, enabled: false };
      },
    }),
  ];
}
