// The stack endpoints that act on the engine: deploy, stop and pull as jobs, and the nightly autoupdate switch.
import { JobAcceptedSchema, reply, Type, type RouteDef } from '../../../sdk/index.ts';
import { Params, type RouteDeps, type StackRouteKit } from './kit.ts';

export function actionRoutes({ core, store, autoupdateCron }: RouteDeps, { stackRoute }: StackRouteKit): RouteDef<any, any, any, any, any>[] {
  const action = (verb: 'deploy' | 'stop' | 'pull', summary: string) => stackRoute('deploy', {
    method: 'POST', path: `/stacks/:name/${verb}`, scopes: ['stacks:deploy'], summary, params: Params, status: 202, response: JobAcceptedSchema,
    description: 'The job is queued even when the Docker engine does not answer; it then fails with the reason (see the overview).',
    activity: `stack.${verb}`, resource: 'stack:{name}',
    handler: async ({ principal }, stack) => {
      const job = await core.start(verb, stack.name, principal.actor);
      return reply(202, { ...job, jobId: job.id }, { Location: `/api/v1/jobs/${job.id}` });
    },
  });

  return [
    action('deploy', 'Deploy the stack (a job: 202 with its id)'),
    action('stop', "Stop the stack: remove its containers, keep its volumes (a job)"),
    action('pull', 'Pull the images of the stack (a job)'),
    stackRoute('write', {
      method: 'PUT', path: '/stacks/:name/autoupdate', scopes: ['stacks:write'], params: Params,
      summary: 'Nightly update on or off: pull, and redeploy only when an image changed',
      body: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
      response: Type.Object({ name: Type.String(), autoupdate: Type.Boolean(), schedule: Type.String() }),
      activity: 'stack.autoupdate', resource: 'stack:{name}',
      handler: async ({ body }, stack) => {
        await store.set(stack.name, { autoupdate: body.enabled });
        return { name: stack.name, autoupdate: body.enabled, schedule: autoupdateCron };
      },
    }),
  ];
}
