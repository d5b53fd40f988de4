// The source endpoints on a stack's push webhook: rotate its secret, disable it, list its latest deliveries.
import { defineRoute, problem, Type, type AnyRoute } from '../../sdk/index.ts';
import { Text, type SourceRouteDeps, type SourceRouteKit } from './source-answer.ts';

const DeliverySchema = Type.Object({
  id: Type.Integer(), deliveryId: Text, provider: Type.String(), event: Type.String(), ref: Text, afterCommit: Text, address: Type.String(),
  outcome: Type.String(), reason: Text, jobId: Text, receivedAt: Type.String(),
});

export function pushWebhookRoutes({ stacks, store, actionTokens }: SourceRouteDeps, { Params }: SourceRouteKit): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST', path: '/stacks/:name/webhooks/push', scopes: ['stacks:write'], params: Params,
      summary: 'Enable or rotate the push webhook: the shared secret is shown this once; the previous one stops working at once',
      description: 'Configure the hosting service (GitHub, Gitea, Forgejo) with the url, content type application/json, this secret, and the push event.',
      response: Type.Object({ secret: Type.String(), url: Type.String(), contentType: Type.String(), events: Type.Array(Type.String()) }),
      activity: 'stack.webhook.push.rotate', resource: 'stack:{name}',
      errors: [409],
      handler: async ({ params, principal, baseUrl }) => {
        await stacks.access(params.name, principal, 'write');
        // pushes deploy a git source's new commits: a stack without one has nothing for them to do
        const row = await store.get(params.name);
        if (row?.kind !== 'git') {
          throw problem(409, `stack "${params.name}" has ${row ? 'an uploaded archive as its source' : 'no git source'}: a push webhook deploys the commits of a git source; PUT /api/v1/stacks/${params.name}/source sets one`, { code: 'not-git' });
        }
        const secret = await actionTokens.issueSecret(stacks.webhookKinds.push, params.name);
        return { secret, url: `${baseUrl}/api/stacks/${params.name}/github`, contentType: 'application/json', events: ['push'] };
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/stacks/:name/webhooks/push', scopes: ['stacks:write'], params: Params, summary: 'Disable the push webhook',
      response: Type.Object({ name: Type.String(), enabled: Type.Boolean() }),
      activity: 'stack.webhook.push.disable', resource: 'stack:{name}',
      handler: async ({ params, principal }) => {
        await stacks.access(params.name, principal, 'write');
        await actionTokens.revoke(stacks.webhookKinds.push, params.name);
        return { name: params.name, enabled: false };
      },
    }),
    defineRoute({
      method: 'GET', path: '/stacks/:name/webhooks/push/deliveries', scopes: ['stacks:read'], params: Params,
      summary: 'The latest push deliveries of the stack, newest first, with their outcome',
      response: Type.Array(DeliverySchema),
      query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })) }),
      handler: async ({ params, query, principal }) => {
        await stacks.access(params.name, principal, 'read');
        return store.deliveries(params.name, query.limit ?? 20);
      },
    }),
  ] as AnyRoute[];
}
