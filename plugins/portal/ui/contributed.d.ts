// The build's virtual module: every plugin's contributed portal pages, overview cards and resource paths (scripts/portal/build.ts generates it).
declare module 'dockwright:pages' {
  import type { OverviewCard, PortalPage, ResourcePaths } from '../../../sdk/portal/kit.tsx';
  export const pages: PortalPage[];
  export const overviewCards: OverviewCard[];
  export const resourcePaths: ResourcePaths;
}
