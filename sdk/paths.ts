// Path confinement for plugins: where a path really leads (the kernel's answer, not a textual one) and whether it stays below a root.
import { realpathSync } from 'node:fs';
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
