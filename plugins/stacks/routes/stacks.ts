// The stack endpoints on stacks as a whole: list them, read one, remove one.
import { defineRoute, JobAcceptedSchema, reply, Type, type RouteDef } from '../../../sdk/index.ts';
import { canSee } from '../access.ts';
import type { StackSummary } from '../store.ts';
import { StackDetailSchema, stackView, StackViewSchema } from '../view.ts';
import { Flag, isOn, Params, StackName, VolumeFates, type RouteDeps, type StackRouteKit } from './kit.ts';

export function stackResourceRoutes({ core, store }: RouteDeps, { stackRoute, fullView }: StackRouteKit): RouteDef<any, any, any, any, any>[] {
  return [
    defineRoute({
      method: 'GET', path: '/stacks', scopes: ['stacks:read'], page: true, cursor: StackName, summary: 'List stacks with their live status',
      response: StackViewSchema,
      handler: async ({ page, principal }) => {
        const rows: StackSummary[] = [];
        let after = page.cursor;
        // invisible stacks are skipped, so a page may need more than one read
        for (let more = true; more && rows.length <= page.limit;) {
          const batch = await store.page(after, page.limit + 1);
          more = batch.length === page.limit + 1;
          after = batch.at(-1)?.name;
          rows.push(...batch.filter((r) => canSee(principal, r.access, r.name)));
        }
        const items = rows.slice(0, page.limit);
        const live = await core.live(items);
        return { items: items.map((r) => stackView(r, live)), next: rows.length > page.limit ? items.at(-1)!.name : undefined };
      },
    }),
    defineRoute({
      method: 'GET', path: '/stacks/:name', scopes: ['stacks:read'], params: Params,
      summary: 'One stack: revision, status, services with their containers, last deploy, webhooks, source',
      response: StackDetailSchema,
      handler: async ({ params, principal }) => fullView(params.name, await core.detailFor(params.name, principal, 'read')),
    }),
    stackRoute('write', {
      method: 'DELETE', path: '/stacks/:name', scopes: ['stacks:write'], params: Params, revision: 'required',
      query: Type.Object({ volumes: Flag('also remove the named volumes (default: keep them; GET /volumes lists what was kept)') }),
      summary: 'Stop and remove a stack (a job; answers when it is done, or 202 with the job after 30 s); its named volumes are kept unless ?volumes=1',
      description: 'Either answer names the stack\'s named volumes: `volumes.kept` stay on the engine (listed by GET /volumes, removed one by one with DELETE /volumes/{name}), `volumes.removed` are gone. The 202 answer names those the stack has when the call is made, by what the job will do with them; the job\'s result names them as done.',
      activity: 'stack.delete', resource: 'stack:{name}', status: 200, successes: [202],
      response: Type.Object({ removed: Type.String(), jobId: Type.String(), volumes: VolumeFates }),
      responses: { 202: Type.Object({ ...JobAcceptedSchema.properties, volumes: VolumeFates }) },
      handler: async ({ query, revision, principal }, stack) => {
        const removal = await core.remove(stack, revision!, isOn(query.volumes), principal.actor);
        if (!removal.done) return reply(202, { ...removal.job, jobId: removal.job.id, volumes: removal.volumes }, { Location: `/api/v1/jobs/${removal.job.id}` });
        return { removed: stack.name, jobId: removal.jobId, volumes: removal.volumes };
      },
    }),
  ];
}
