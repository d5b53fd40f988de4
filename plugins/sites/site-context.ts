// What the site services share: the site lock, replaced trees removed after the answer, preview hostnames, the edge's routes of a site, and its row.
import { keyedLock, problem, type ContextWith } from '../../sdk/index.ts';
import type { EdgeApi, StaticRoute } from '../edge/index.ts';
import type { GitApi } from '../git/index.ts';
import type { Files } from './files.ts';
import type { SiteRow, SiteStore } from './store.ts';

export interface SiteSettings { previewDomain: string | null; keepVersions: number }
export const siteOwner = (name: string) => `site:${name}`;
/** a site's preview hostname is `draft--<site>.<previewDomain>` */
export const previewPrefix = 'draft--';
export const checkKind = 'site.check';
/** the 404 of a site that does not exist */
export const siteNotFound = (name: string) => problem(404, `no site "${name}"`, { code: 'site-not-found' });
export interface SiteDeps { ctx: ContextWith<'actionTokens' | 'db' | 'secrets'>; store: SiteStore; files: Files; edge: EdgeApi; git: GitApi; settings: SiteSettings }

/** the dependencies with the lock and the helpers every site service uses */
export type SiteContext = ReturnType<typeof siteContext>;

export function siteContext(deps: SiteDeps) {
  const { ctx, store, files, edge, settings } = deps;
  const lock = keyedLock();
  /**
   * Removing replaced trees is not part of a publish: it runs after the answer, under the site's lock, so the next
   * change of the site waits for it and a removal never races a build.
   */
  const later = (name: string, work: () => Promise<void>) => {
    void lock(name, work).catch((err) => ctx.log.warn({ err, site: name }, 'removing replaced site files failed; the next start cleans up'));
  };

  const previewHost = (name: string) => (settings.previewDomain ? `${previewPrefix}${name}.${settings.previewDomain}` : null);
  /** any site's preview hostname, the site's own included: they are served only as previews */
  const isPreviewHost = (hostname: string) => settings.previewDomain !== null && hostname.endsWith(`.${settings.previewDomain}`)
    && hostname.startsWith(previewPrefix) && !hostname.slice(0, -(settings.previewDomain.length + 1)).includes('.');
  /** the preview's address, with the edge's port when it is not 80 */
  const previewUrl = (name: string) => { const h = previewHost(name); return h ? `http://${h}${edge.ports.http === 80 ? '' : `:${edge.ports.http}`}/` : null; };

  function routesOf(row: Pick<SiteRow, 'name' | 'hostnames' | 'previewHash'>): StaticRoute[] {
    const routes: StaticRoute[] = row.hostnames.map((hostname) => ({ kind: 'static', hostname, root: files.servedLink(row.name) }));
    const preview = previewHost(row.name);
    if (preview && row.previewHash) {
      routes.push({ kind: 'static', hostname: preview, root: files.draftLink(row.name), basicAuth: { username: 'preview', hash: row.previewHash, realm: `draft of ${row.name}` } });
    }
    return routes;
  }

  async function rowOf(name: string): Promise<SiteRow> {
    const row = await store.get(name);
    if (!row) throw siteNotFound(name);
    return row;
  }

  return { ...deps, lock, later, previewHost, isPreviewHost, previewUrl, routesOf, rowOf };
}

/** a site's ETag: the time of its last change (every write of a site moves it) */
export const siteTag = (updatedAt: string | Date): string => `"${new Date(updatedAt).toISOString()}"`;

/** If-Match (the ETag the caller read) or If-None-Match: * ('absent'), checked against the site as the writing transaction sees it */
export function checkExpected(name: string, before: { updatedAt: string | Date } | null | undefined, expected: string | undefined): void {
  if (expected === undefined) return;
  if (expected === 'absent') {
    if (before) throw problem(412, `site "${name}" exists already (If-None-Match: *)`, { code: 'site-changed', headers: { ETag: siteTag(before.updatedAt) } });
    return;
  }
  if (!before) throw problem(412, `site "${name}" does not exist (If-Match)`, { code: 'site-changed' });
  if (siteTag(before.updatedAt) !== expected) throw problem(412, `site "${name}" changed since it was read: read it again (its ETag is now ${siteTag(before.updatedAt)})`, { code: 'site-changed', headers: { ETag: siteTag(before.updatedAt) } });
}
