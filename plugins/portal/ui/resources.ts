// The page that shows a resource (`stack:web` → /stacks/web), from the paths each plugin's portal module contributes.
import { resourcePaths } from 'dockwright:pages';

/** the page a resource opens, or none when no plugin shows its kind */
export function resourceHref(resource: string | null | undefined): string | null {
  if (!resource) return null;
  const at = resource.indexOf(':');
  const path = resourcePaths[at < 0 ? resource : resource.slice(0, at)];
  return path ? path(at < 0 ? '' : resource.slice(at + 1)) : null;
}
