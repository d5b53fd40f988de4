// The stack endpoints of /api/v1: stacks, compose, variables, settings, deploy/stop/pull, revisions, access list, autoupdate, deploy webhook.
import { defineRoute, Type, type RouteDef } from '../../sdk/index.ts';
import { accessRoutes } from './routes/access.ts';
import { actionRoutes } from './routes/actions.ts';
import { contentRoutes } from './routes/content.ts';
import { Settings, stackRouteKit, type RouteDeps } from './routes/kit.ts';
import { revisionRoutes } from './routes/revisions.ts';
import { stackResourceRoutes } from './routes/stacks.ts';

export { Flag, isOn, StackName, type RouteDeps } from './routes/kit.ts';

/** every stack endpoint, by group in routes/, in the order the OpenAPI document lists them */
export function stackRoutes(deps: RouteDeps): RouteDef<any, any, any, any, any>[] {
  const kit = stackRouteKit(deps);
  return [
    ...stackResourceRoutes(deps, kit),
    ...contentRoutes(deps, kit),
    ...actionRoutes(deps, kit),
    ...revisionRoutes(deps, kit),
    ...accessRoutes(deps, kit),
    defineRoute({
      method: 'GET', path: '/stack-templates', scopes: ['stacks:read'], summary: 'Stack templates of the stacks plugin\'s options (PUT /stacks/{name}/compose with template and settings): a compose file and the schema of its inputs; the catalogues of the templates plugin are under /templates',
      response: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), compose: Type.String(), inputs: Settings })),
      handler: async () => deps.templates.list(),
    }),
  ];
}
