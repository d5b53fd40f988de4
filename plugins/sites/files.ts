// The files of sites on disk: one store of contents by sha256, versions and drafts as trees of hard links into it, and the atomic switch of a link.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, copyFile, link, lstat, mkdir, readdir, readlink, realpath, rename, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { isWithin, keyedLock } from '../../sdk/index.ts';

export interface FileEntry { sha256: string; size: number }
/** path (relative, `/`-separated) → content */
export type Manifest = Record<string, FileEntry>;

const hashOf = async (file: string): Promise<string> => {
  const h = createHash('sha256');
  await pipeline(createReadStream(file), h);
  return h.digest('hex');
};

export function createFiles(root: string) {
  const objects = join(root, 'objects');
  const siteDir = (site: string) => join(root, 'sites', site);
  const objectPath = (sha: string) => join(objects, sha.slice(0, 2), sha);
  // linking into a tree and removing unreferenced objects exclude each other: a removal must never take an object a new tree is about to link
  const objectsLock = keyedLock();
  const exclusive = <T>(fn: () => Promise<T>) => objectsLock('objects', fn);

  async function store(file: string, move: boolean): Promise<FileEntry> {
    const [sha256, { size }] = await Promise.all([hashOf(file), stat(file)]);
    const target = objectPath(sha256);
    const present = await stat(target).then(() => true, () => false);
    if (!present) {
      await mkdir(dirname(target), { recursive: true });
      // under a temporary name first: a half-copied object must never carry the name of its content
      const temporary = `${target}.${randomBytes(6).toString('hex')}`;
      if (move) await rename(file, temporary); else await copyFile(file, temporary);
      await chmod(temporary, 0o644);
      await rename(temporary, target);
    } else if (move) {
      await unlink(file);
    }
    return { sha256, size };
  }

  /** the regular files below `dir` (symbolic links inside the tree become the files they lead to) into the store */
  async function ingest(dir: string, opts: { move: boolean; skip?: (path: string) => boolean }): Promise<Manifest> {
    const manifest: Manifest = {};
    const links: { path: string; full: string }[] = [];
    const top = await realpath(dir);
    async function walk(at: string): Promise<void> {
      for (const d of await readdir(at, { withFileTypes: true })) {
        const full = join(at, d.name);
        const path = relative(top, full).split(sep).join('/');
        if (opts.skip?.(path)) continue;
        if (d.isDirectory()) await walk(full);
        else if (d.isFile()) manifest[path] = await store(full, opts.move);
        else if (d.isSymbolicLink()) links.push({ path, full });
      }
    }
    await exclusive(() => walk(top));
    for (const l of links) {
      const real = await realpath(l.full).catch(() => null);
      if (!real || !isWithin(top, real)) continue;
      const target = relative(top, real).split(sep).join('/');
      if (manifest[target]) { manifest[l.path] = manifest[target]; continue; }
      for (const [p, e] of Object.entries(manifest)) if (p.startsWith(`${target}/`)) manifest[`${l.path}/${p.slice(target.length + 1)}`] = e;
    }
    return manifest;
  }

  /** one content into the store */
  async function put(content: Buffer): Promise<FileEntry> {
    const sha256 = createHash('sha256').update(content).digest('hex');
    const target = objectPath(sha256);
    if (!(await stat(target).then(() => true, () => false))) {
      await mkdir(dirname(target), { recursive: true });
      const temporary = `${target}.${randomBytes(6).toString('hex')}`;
      await writeFile(temporary, content, { mode: 0o644 });
      await rename(temporary, target);
    }
    return { sha256, size: content.length };
  }

  /** a new tree of hard links at `dest` (which must not exist): built beside, renamed into place */
  async function build(manifest: Manifest, dest: string): Promise<void> {
    const building = `${dest}.building-${randomBytes(4).toString('hex')}`;
    await mkdir(building, { recursive: true });
    const dirs = new Set<string>();
    const paths = Object.keys(manifest);
    for (const p of paths) {
      const at = p.lastIndexOf('/');
      if (at > 0) dirs.add(p.slice(0, at));
    }
    for (const d of [...dirs].sort()) await mkdir(join(building, d), { recursive: true });
    await exclusive(async () => {
      // bounded parallelism: a thousand links at once would only queue in libuv's pool
      for (let i = 0; i < paths.length; i += 64) {
        await Promise.all(paths.slice(i, i + 64).map((p) => link(objectPath(manifest[p].sha256), join(building, p))));
      }
    });
    await rename(building, dest);
  }

  /** points `linkPath` at `target` in one step: a new link renamed over the old one (rename is atomic, ln -sfn is not) */
  async function switchLink(linkPath: string, target: string): Promise<void> {
    const temporary = `${linkPath}.${randomBytes(6).toString('hex')}`;
    await symlink(target, temporary);
    await rename(temporary, linkPath);
  }

  /** removes trees, then the objects only they held (a link count of 1: the store's own name) */
  async function removeTrees(dirs: readonly string[], manifests: readonly Manifest[]): Promise<void> {
    await exclusive(async () => {
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
      const hashes = new Set(manifests.flatMap((m) => Object.values(m).map((e) => e.sha256)));
      for (const sha of hashes) {
        const s = await lstat(objectPath(sha)).catch(() => null);
        if (s && s.nlink <= 1) await unlink(objectPath(sha)).catch(() => undefined);
      }
    });
  }

  return {
    objectPath,
    siteDir,
    /** what the edge serves for the site: a link to the published version's folder */
    servedLink: (site: string) => join(siteDir(site), 'current'),
    draftLink: (site: string) => join(siteDir(site), 'draft'),
    versionDir: (site: string, n: number) => join(siteDir(site), 'versions', String(n)),
    stagingDir: async () => {
      const dir = join(root, 'staging');
      await mkdir(dir, { recursive: true });
      return join(dir, randomBytes(8).toString('hex'));
    },
    ingest,
    put,
    build,
    switchLink,
    removeTrees,
    readlink: (p: string) => readlink(p).catch(() => null),
    async removeSite(site: string, manifests: readonly Manifest[]): Promise<void> {
      await removeTrees([siteDir(site)], manifests);
    },
    /** leftovers of an earlier process: staging folders and trees half built */
    async clean(): Promise<void> {
      await rm(join(root, 'staging'), { recursive: true, force: true });
      for (const site of await readdir(join(root, 'sites')).catch(() => [] as string[])) {
        for (const sub of ['versions', 'drafts']) {
          const dir = join(siteDir(site), sub);
          for (const name of await readdir(dir).catch(() => [] as string[])) if (name.includes('.building-')) await rm(join(dir, name), { recursive: true, force: true });
        }
      }
    },
  };
}
export type Files = ReturnType<typeof createFiles>;
