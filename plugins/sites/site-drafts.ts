// A site's draft: files written and deleted on a copy of the published version, previewed, then published or discarded.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { problem, tooLong, type Actor } from '../../sdk/index.ts';
import type { Manifest } from './files.ts';
import type { DraftRow } from './store.ts';
import type { SiteContext } from './site-context.ts';
import type { sitePublishing } from './site-publishing.ts';
import { sitePath } from './site-paths.ts';

export function siteDrafts({ store, files, lock, later, previewUrl, rowOf }: SiteContext, { publishLocked }: { publishLocked: ReturnType<typeof sitePublishing>['publishLocked'] }) {
  /** the draft replaced by `change` of its files (a new first draft starts from the published version), built and linked atomically */
  async function writeDraft(name: string, change: (current: Manifest) => Manifest | Promise<Manifest>) {
    return lock(name, async () => {
      const row = await rowOf(name);
      const before = await store.draft(name);
      const base = before?.manifest ?? (row.version ? await store.manifest(name, row.version) ?? {} : {});
      const manifest = await change({ ...base });
      const dir = join('drafts', randomBytes(6).toString('hex'));
      await files.build(manifest, join(files.siteDir(name), dir));
      await files.switchLink(files.draftLink(name), dir);
      await store.setDraft(name, { manifest, basedOn: before?.basedOn ?? row.version, dir });
      if (before) later(name, () => files.removeTrees([join(files.siteDir(name), before.dir)], [before.manifest]));
      const draft = (await store.draft(name))!;
      return { files: Object.keys(manifest).length, changedAt: draft.changedAt, basedOn: draft.basedOn, previewUrl: previewUrl(name) };
    });
  }

  async function writeDraftFiles(name: string, body: { files?: Record<string, { content: string; encoding?: 'utf8' | 'base64' }>; delete?: string[]; base?: Record<string, string | null> }) {
    const writes: [string, Buffer][] = [];
    const errors: { path: string; message: string }[] = [];
    const unwritable: { path: string; message: string }[] = [];
    for (const [raw, f] of Object.entries(body.files ?? {})) {
      const path = sitePath(raw);
      if (!path) { errors.push({ path: `/body/files/${raw}`, message: 'a file path is relative, without .., control characters or backslashes' }); continue; }
      const long = tooLong(path);
      if (long) unwritable.push({ path: `/body/files/${raw}`, message: long });
      if (f.encoding === 'base64' && !/^[A-Za-z0-9+/]*={0,2}$/.test(f.content.replace(/\s/g, ''))) { errors.push({ path: `/body/files/${raw}/content`, message: 'not base64' }); continue; }
      writes.push([path, Buffer.from(f.content, f.encoding === 'base64' ? 'base64' : 'utf8')]);
    }
    const deletes: string[] = [];
    (body.delete ?? []).forEach((raw, i) => {
      const path = sitePath(raw);
      if (!path) errors.push({ path: `/body/delete/${i}`, message: 'a file path is relative, without .., control characters or backslashes' });
      else deletes.push(path);
    });
    for (const raw of Object.keys(body.base ?? {})) if (!sitePath(raw)) errors.push({ path: `/body/base/${raw}`, message: 'a file path is relative, without .., control characters or backslashes' });
    if (errors.length) throw problem(400, `invalid draft files: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { errors });
    // refused before any content is stored: the file system would refuse the name halfway (ENAMETOOLONG)
    if (unwritable.length) throw problem(422, `file names too long: ${unwritable.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { code: 'name-too-long', errors: unwritable });
    if (!writes.length && !deletes.length) throw problem(400, 'nothing to write: give files or delete');
    const stored = await Promise.all(writes.map(async ([path, content]) => [path, await files.put(content)] as const));
    try {
      return await writeDraft(name, (m) => {
        const changed = Object.entries(body.base ?? {}).map(([raw, sha]) => [sitePath(raw)!, sha] as const)
          .filter(([path, sha]) => (m[path]?.sha256 ?? null) !== sha).map(([path]) => ({ path, sha256: m[path]?.sha256 ?? null }));
        if (changed.length) throw problem(412, `changed since you read it: ${changed.map((c) => c.path).join(', ')}`, { code: 'draft-changed', extra: { changed } });
        const missing = deletes.filter((d) => !m[d] && !Object.keys(m).some((p) => p.startsWith(`${d}/`)));
        if (missing.length) throw problem(422, `the draft has no file ${missing.join(', ')}`, { code: 'no-such-file' });
        for (const d of deletes) for (const p of Object.keys(m)) if (p === d || p.startsWith(`${d}/`)) delete m[p];
        for (const [path, entry] of stored) {
          const clash = Object.keys(m).find((p) => p.startsWith(`${path}/`) || path.startsWith(`${p}/`));
          if (clash) throw problem(422, `${path} and ${clash} cannot both exist (one would be a folder)`, { code: 'path-conflict' });
          m[path] = entry;
        }
        return m;
      });
    } finally {
      files.release(stored.map(([, entry]) => entry));
    }
  }

  async function dropDraftTree(name: string, draft: DraftRow) {
    await rm(files.draftLink(name), { force: true });
    later(name, () => files.removeTrees([join(files.siteDir(name), draft.dir)], [draft.manifest]));
  }

  async function publishDraft(name: string, actor: Actor) {
    return lock(name, async () => {
      await rowOf(name);
      const draft = await store.draft(name);
      if (!draft) throw problem(409, `site "${name}" has no draft`, { code: 'no-draft' });
      const published = await publishLocked(name, draft.manifest, { origin: 'draft', actor, tree: join(files.siteDir(name), draft.dir) });
      await store.dropDraft(name);
      // its tree is the new version now: only the preview link goes
      await rm(files.draftLink(name), { force: true });
      return published;
    });
  }

  async function discardDraft(name: string) {
    return lock(name, async () => {
      await rowOf(name);
      const draft = await store.dropDraft(name);
      if (!draft) throw problem(404, `site "${name}" has no draft`, { code: 'no-draft' });
      await dropDraftTree(name, draft);
    });
  }

  return { writeDraft, writeDraftFiles, publishDraft, discardDraft };
}
