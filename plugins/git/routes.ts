// The source endpoints of /api/v1: read, set and remove a stack's source; check, pin, unpin; archive upload; the push secret.
import type { AnyRoute } from '../../sdk/index.ts';
import { commitRoutes, gitSourceRoutes } from './git-source-routes.ts';
import { pushWebhookRoutes } from './push-webhook-routes.ts';
import { sourceRouteKit, type SourceRouteDeps } from './source-answer.ts';
import { uploadRoutes } from './upload-routes.ts';

/** every source endpoint, by group, in the order the OpenAPI document lists them */
export function sourceRoutes(deps: SourceRouteDeps): AnyRoute[] {
  const kit = sourceRouteKit(deps);
  return [...gitSourceRoutes(deps, kit), ...commitRoutes(deps, kit), ...uploadRoutes(deps, kit), ...pushWebhookRoutes(deps, kit)];
}
