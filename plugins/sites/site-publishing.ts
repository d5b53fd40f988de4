// A site's published versions: each one immutable, the served link moved to it in one rename; restore, archives, and repair at start.
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { problem, type Actor } from '../../sdk/index.ts';
import type { Manifest } from './files.ts';
import type { Origin } from './store.ts';
import { siteNotFound, type SiteContext } from './site-context.ts';

const totals = (m: Manifest) => {
  const entries = Object.values(m);
  return { fileCount: entries.length, bytes: entries.reduce((n, e) => n + e.size, 0) };
};

export function sitePublishing({ ctx, store, files, git, settings, lock, later, rowOf }: SiteContext) {
  /**
   * A new immutable version from a manifest, then the served link moved to it in one rename; caller holds the site lock.
   * `tree`: a folder that already holds exactly the manifest as links into the store (the draft's): it becomes the
   * version by one rename instead of a new tree of links, and goes back if the version is not committed.
   */
  async function publishLocked(name: string, manifest: Manifest, meta: { origin: Origin; actor: Actor; commit?: string | null; restoredFrom?: number | null; tree?: string }) {
    const { fileCount, bytes } = totals(manifest);
    let pruned: { number: number; manifest: Manifest }[] = [];
    let moved: { from: string; to: string } | null = null;
    const number = await ctx.db.tx(async (tx) => {
      if (!(await store.get(name, tx, true))) throw siteNotFound(name);
      const n = await store.addVersion(tx, name, { actor: meta.actor, origin: meta.origin, commit: meta.commit ?? null, restoredFrom: meta.restoredFrom ?? null, fileCount, bytes, manifest });
      const dir = files.versionDir(name, n);
      // a folder of this number can only be left over from a transaction that did not commit
      await rm(dir, { recursive: true, force: true });
      if (meta.tree) {
        await mkdir(dirname(dir), { recursive: true });
        await rename(meta.tree, dir);
        moved = { from: meta.tree, to: dir };
      } else {
        await files.build(manifest, dir);
      }
      pruned = await store.prune(tx, name, settings.keepVersions, n);
      return n;
    }).catch(async (err) => {
      const back = moved as { from: string; to: string } | null;
      if (back) await rename(back.to, back.from).catch(() => undefined);
      throw err;
    });
    await files.switchLink(files.servedLink(name), join('versions', String(number)));
    if (pruned.length) later(name, () => files.removeTrees(pruned.map((p) => files.versionDir(name, p.number)), pruned.map((p) => p.manifest)));
    return { version: number, fileCount, bytes };
  }

  const publish = (name: string, manifest: Manifest, meta: Parameters<typeof publishLocked>[2]) => lock(name, () => publishLocked(name, manifest, meta));

  async function manifestOfArchive(archive: Buffer, strip: number): Promise<Manifest> {
    const staging = await files.stagingDir();
    try {
      await git.unpack(archive, staging, { strip });
      return await files.ingest(staging, { move: true, within: staging });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  async function restore(name: string, version: number, actor: Actor) {
    return lock(name, async () => {
      await rowOf(name);
      const manifest = await store.manifest(name, version);
      if (!manifest) throw problem(404, `site "${name}" has no version ${version} (it was never made or is no longer kept)`, { code: 'no-such-version' });
      return publishLocked(name, manifest, { origin: 'restore', actor, restoredFrom: version });
    });
  }

  /** the served link of every site points at its published version (a crash between commit and rename, say) */
  async function repair(): Promise<void> {
    await files.clean();
    for (const row of await store.list()) {
      if (!row.version) continue;
      const want = join('versions', String(row.version));
      if ((await files.readlink(files.servedLink(row.name))) === want) continue;
      const manifest = await store.manifest(row.name, row.version);
      if (!manifest) continue;
      const dir = files.versionDir(row.name, row.version);
      if (!(await stat(dir).then(() => true, () => false))) await files.build(manifest, dir);
      await files.switchLink(files.servedLink(row.name), want);
    }
  }

  return { publishLocked, publish, manifestOfArchive, restore, repair };
}
