// A site as one service: its definition, published versions, drafts and answers (each in a file of its own) joined, with uploads and the site's lock.
import type { Actor } from '../../sdk/index.ts';
import { siteContext, type SiteDeps } from './site-context.ts';
import { siteDefinitions } from './site-definitions.ts';
import { siteDrafts } from './site-drafts.ts';
import { folderIn } from './site-paths.ts';
import { sitePublishing } from './site-publishing.ts';
import { siteViews } from './site-views.ts';

export { checkKind, previewPrefix, siteOwner, type SiteSettings } from './site-context.ts';
export type { SourceInput } from './site-definitions.ts';
export { sitePath } from './site-paths.ts';

export function createSites(deps: SiteDeps) {
  const cx = siteContext(deps);
  const { files, routesOf, rowOf, previewUrl, lock } = cx;
  const { view, viewOf, listViews } = siteViews(cx);
  const { put, remove, rotatePreviewToken } = siteDefinitions(cx);
  const { publishLocked, publish, manifestOfArchive, restore, repair } = sitePublishing(cx);
  const { writeDraft, writeDraftFiles, publishDraft, discardDraft } = siteDrafts(cx, { publishLocked });

  async function upload(name: string, archive: Buffer, opts: { strip: number; draft: boolean; actor: Actor }) {
    await rowOf(name);
    // refused archives stop here, before the site's files or rows are touched
    const manifest = await manifestOfArchive(archive, opts.strip);
    try {
      if (opts.draft) return { draft: await writeDraft(name, () => manifest) };
      return await publish(name, manifest, { origin: 'upload', actor: opts.actor });
    } finally {
      files.release(Object.values(manifest));
    }
  }

  return {
    routesOf, view, viewOf, listViews, rowOf, put, remove, rotatePreviewToken, publish, upload, writeDraft, writeDraftFiles, publishDraft, discardDraft, restore, folderIn, manifestOfArchive, previewUrl,
    /** runs `work` holding the site's lock: no publish, draft write or removal of replaced trees meanwhile */
    locked: <T>(name: string, work: () => Promise<T>) => lock(name, work),
    repair,
  };
}
export type Sites = ReturnType<typeof createSites>;
