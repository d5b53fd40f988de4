// Path confinement for plugins: where a path really leads (the kernel's answer, not a textual one) and whether it stays below a root.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';

/**
 * The real path of the longest existing part of `p`, with the rest appended. The native realpath asks the kernel:
 * JavaScript's resolves link targets as text, and `..` inside a link target can then appear to stay in a tree.
 */
export function realExisting(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    const parent = dirname(p);
    return parent === p ? p : join(realExisting(parent), basename(p));
  }
}

/** true when `path` is `root` or lies below it, judged on where both really lead */
export function isWithin(root: string, path: string): boolean {
  const r = relative(realExisting(root), realExisting(path));
  return !r.startsWith('..') && !isAbsolute(r);
}

/**
 * The first symbolic link on the way from `root` down `rel` (a relative path) that leads out of `root`, with what it
 * points at; null when every step stays inside. Links that stay inside are followed, as a reader would; an absent part ends
 * the walk. For what a container or a user left in a folder: its parts are never trusted to stay where they are named.
 */
export function linkOutOf(root: string, rel: string): { link: string; target: string } | null {
  const top = realExisting(root);
  let at = top;
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
  for (let i = 0; i < parts.length; i++) {
    const next = join(at, parts[i]);
    const st = lstatSync(next, { throwIfNoEntry: false });
    if (!st) return null;
    if (st.isSymbolicLink()) {
      const real = realExisting(next);
      const r = relative(top, real);
      if (r.startsWith('..') || isAbsolute(r)) return { link: parts.slice(0, i + 1).join('/'), target: readlinkSync(next) };
      at = real;
    } else {
      at = next;
    }
  }
  return null;
}

/** the longest name (one part of a path) file systems store: 255 bytes */
export const maxNameBytes = 255;
/**
 * The longest relative path written below a plugin's folder, in bytes: the system's limit (4096) holds it with the folder
 * in front and room to spare.
 */
export const maxPathBytes = 1024;

/** why this relative `/`-separated path cannot be written (a name over 255 bytes, the whole over 1024), or null */
export function tooLong(path: string): string | null {
  const total = Buffer.byteLength(path);
  if (total > maxPathBytes) return `the path has ${total} bytes; a path may have at most ${maxPathBytes}`;
  for (const name of path.split('/')) {
    const bytes = Buffer.byteLength(name);
    if (bytes > maxNameBytes) return `the name ${JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name)} has ${bytes} bytes; a name (each part of a path) may have at most ${maxNameBytes}`;
  }
  return null;
}
