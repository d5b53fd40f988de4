// The files of sites on disk: one store of contents by sha256, versions and drafts as trees of hard links into it, and the atomic switch of a link.
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, closeSync, constants, existsSync, fstatSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readlink, realpath, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { isWithin, keyedLock, locate } from '../../sdk/index.ts';

export interface FileEntry { sha256: string; size: number }
/** path (relative, `/`-separated) → content */
export type Manifest = Record<string, FileEntry>;

/** runs a synchronous step over many items, yielding to the event loop between chunks so no request waits long */
async function chunked<T>(items: readonly T[], step: (item: T) => void, size = 256): Promise<void> {
  for (let i = 0; i < items.length; i += size) {
    for (const item of items.slice(i, i + size)) step(item);
    if (i + size < items.length) await new Promise((resolve) => setImmediate(resolve));
  }
}

/** one file into the store; synchronous on purpose: callers run it in chunks (a thousand small files cost a few ms, not a thread-pool round trip each) */
function storeSync(objectPath: (sha: string) => string, file: string, move: boolean, created?: string[]): FileEntry {
  // opened without following a link: a file the walk saw is read only as that file, never as where a link put in its place leads
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  let content: Buffer;
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${file} is not a regular file (any more)`);
    content = readFileSync(fd);
  } finally {
    closeSync(fd);
  }
  const sha256 = createHash('sha256').update(content).digest('hex');
  const target = objectPath(sha256);
  if (!existsSync(target)) {
    mkdirSync(dirname(target), { recursive: true });
    // under a temporary name first: a half-written object must never carry the name of its content
    const temporary = `${target}.${randomBytes(6).toString('hex')}`;
    try {
      if (move) renameSync(file, temporary); else writeFileSync(temporary, content);
      chmodSync(temporary, 0o644);
      renameSync(temporary, target);
    } catch (err) {
      // a full disk leaves the part written: it goes, so nothing half-written stays behind
      rmSync(temporary, { force: true });
      throw locate(err, temporary);
    }
    created?.push(sha256);
  } else if (move) {
    unlinkSync(file);
  }
  return { sha256, size: content.length };
}


/** the regular files below `top` (paths relative to it, `/`-separated), walked without following links; its links go to `links` */
async function walkTree(top: string, links: { path: string; full: string }[], skip?: (path: string) => boolean): Promise<string[]> {
  const regular: string[] = [];
  async function walk(at: string): Promise<void> {
    for (const d of await readdir(at, { withFileTypes: true })) {
      const full = join(at, d.name);
      const path = relative(top, full).split(sep).join('/');
      if (skip?.(path)) continue;
      if (d.isDirectory()) await walk(full);
      else if (d.isFile()) regular.push(path);
      else if (d.isSymbolicLink()) links.push({ path, full });
    }
  }
  await walk(top);
  return regular;
}

/** points `linkPath` at `target` in one step: a new link renamed over the old one (rename is atomic, ln -sfn is not) */
async function switchLink(linkPath: string, target: string): Promise<void> {
  const temporary = `${linkPath}.${randomBytes(6).toString('hex')}`;
  await symlink(target, temporary);
  await rename(temporary, linkPath);
}

export function createFiles(root: string) {
  const objects = join(root, 'objects');
  const siteDir = (site: string) => join(root, 'sites', site);
  const objectPath = (sha: string) => join(objects, sha.slice(0, 2), sha);
  // linking into a tree and removing unreferenced objects exclude each other: a removal must never take an object a new tree is about to link
  const objectsLock = keyedLock();
  const exclusive = <T>(fn: () => Promise<T>) => objectsLock('objects', fn);
  // contents stored for a publish that has not linked them yet: a removal skips them even when nothing links them
  const held = new Map<string, number>();
  const hold = (sha: string) => held.set(sha, (held.get(sha) ?? 0) + 1);
  /** ends the hold that ingest() and put() placed on these contents (call once their tree is built, or given up) */
  function release(entries: Iterable<FileEntry>): void {
    for (const sha256 of new Set([...entries].map((e) => e.sha256))) {
      const n = (held.get(sha256) ?? 0) - 1;
      if (n > 0) held.set(sha256, n); else held.delete(sha256);
    }
  }

  /**
   * The regular files below `dir` into the store. `dir` must really lie inside `within` (the folder it was made in: a
   * build's workspace, a staging folder): a link out of it is refused. Symbolic links inside the tree become the files
   * they lead to when those are inside it too; any other link is left out and told to `skipped`. Folders are walked
   * without following links, and each file is opened without following one.
   */
  async function ingest(dir: string, opts: { move: boolean; within: string; skip?: (path: string) => boolean; skipped?: (path: string, target: string) => void }): Promise<Manifest> {
    const manifest: Manifest = {};
    const links: { path: string; full: string }[] = [];
    const top = await realpath(dir);
    if (!isWithin(opts.within, top)) throw new Error(`${dir} leads out of ${opts.within} through a symbolic link; refusing to read it`);
    const regular = await walkTree(top, links, opts.skip);
    const created: string[] = [];
    await exclusive(async () => {
      try {
        await chunked(regular, (path) => { manifest[path] = storeSync(objectPath, join(top, path), opts.move, created); });
      } catch (err) {
        // what this call stored before it failed (the disk filled up, say) is nobody's: it goes, unless a tree links it meanwhile
        for (const sha of created) if (!held.has(sha) && (lstatSync(objectPath(sha), { throwIfNoEntry: false })?.nlink ?? 0) <= 1) rmSync(objectPath(sha), { force: true });
        throw err;
      }
    });
    for (const sha of new Set(Object.values(manifest).map((e) => e.sha256))) hold(sha);
    for (const l of links) {
      const real = await realpath(l.full).catch(() => null);
      if (!real || !isWithin(top, real)) { opts.skipped?.(l.path, await readlink(l.full).catch(() => '?')); continue; }
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
      try {
        await writeFile(temporary, content, { mode: 0o644 });
        await rename(temporary, target);
      } catch (err) {
        await rm(temporary, { force: true });
        throw locate(err, temporary);
      }
    }
    hold(sha256);
    return { sha256, size: content.length };
  }

  /** a new tree of hard links at `dest` (which must not exist): built beside, renamed into place */
  async function build(manifest: Manifest, dest: string): Promise<void> {
    const building = `${dest}.building-${randomBytes(4).toString('hex')}`;
    try {
      await mkdir(building, { recursive: true });
      const dirs = new Set<string>();
      const paths = Object.keys(manifest);
      for (const p of paths) {
        const at = p.lastIndexOf('/');
        if (at > 0) dirs.add(p.slice(0, at));
      }
      for (const d of [...dirs].sort()) await mkdir(join(building, d), { recursive: true });
      await exclusive(() => chunked(paths, (p) => linkSync(objectPath(manifest[p].sha256), join(building, p))));
      await rename(building, dest);
    } catch (err) {
      // a tree half built (a full disk, say) goes at once rather than at the next start
      await rm(building, { recursive: true, force: true });
      throw err;
    }
  }

  /** removes trees, then the objects only they held (a link count of 1: the store's own name) */
  async function removeTrees(dirs: readonly string[], manifests: readonly Manifest[]): Promise<void> {
    await exclusive(async () => {
      // one native call per tree: a thousand files go in milliseconds, where the promise version makes a round trip each
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      const hashes = [...new Set(manifests.flatMap((m) => Object.values(m).map((e) => e.sha256)))];
      await chunked(hashes, (sha) => {
        if (held.has(sha)) return;
        const s = lstatSync(objectPath(sha), { throwIfNoEntry: false });
        if (s && s.nlink <= 1) rmSync(objectPath(sha), { force: true });
      });
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
    release,
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
