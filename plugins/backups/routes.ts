// The backup endpoints of /api/v1: definitions, runs, snapshots, files and restores, by group in routes/.
import type { AnyRoute } from '../../sdk/index.ts';
import { databaseRoutes } from './routes/database.ts';
import { definitionRoutes } from './routes/definitions.ts';
import { backupRouteKit, type RouteDeps } from './routes/kit.ts';
import { restoreRoutes } from './routes/restores.ts';
import { runRoutes } from './routes/runs.ts';

export { BackupName, BackupViewSchema, backupView, resourceOf, type RouteDeps } from './routes/kit.ts';

/** every backup endpoint, in the order the OpenAPI document has listed them (the list first, then the database plan and downloads) */
export function backupRoutes(deps: RouteDeps): AnyRoute[] {
  const kit = backupRouteKit(deps);
  const [list, ...definitions] = definitionRoutes(deps, kit);
  return [list, ...databaseRoutes(deps, kit), ...definitions, ...runRoutes(deps, kit), ...restoreRoutes(deps, kit)];
}
