// The build's virtual module: every plugin's contributed portal pages (scripts/portal/build.ts generates it).
declare module 'dockwright:pages' {
  import type { PortalPage } from '../../../sdk/portal/kit.tsx';
  export const pages: PortalPage[];
}
