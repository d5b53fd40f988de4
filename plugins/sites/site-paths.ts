// Paths inside a site: a relative path as written, and the folder a sync publishes (never one a link leads out of).
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { linkOutOf, problem, realExisting, isWithin } from '../../sdk/index.ts';

/** a relative path inside a site (normalised), or null when it is none; whether it can be written is tooLong()'s to say */
export function sitePath(value: string): string | null {
  if (typeof value !== 'string' || !value || value.length > 1024 || value.startsWith('/') || /[\x00-\x1f\x7f\\]/.test(value)) return null;
  const parts = value.split('/').filter((p) => p !== '' && p !== '.');
  if (!parts.length || parts.includes('..')) return null;
  return parts.join('/');
}

/**
 * The folder a sync publishes: `path` in a checked-out tree (`of: "source"`) or in a build's workspace after the
 * build (`of: "build"`). A symbolic link on the way that leads out of the tree is refused, naming it: what a repository
 * or a build container left there never decides which host folder is read.
 */
export async function folderIn(root: string, path: string, of: 'source' | 'build' = 'source'): Promise<string> {
  const out = linkOutOf(root, path);
  if (out) {
    const where = of === 'build' ? "the build's output" : 'source.path';
    throw problem(422, `${where} ${path}: ${out.link} is a symbolic link to ${out.target}, which leads out of the ${of === 'build' ? "build's workspace" : 'repository'}; refusing to publish it`, { code: 'link-out-of-tree' });
  }
  const real = realExisting(join(root, path));
  if (!isWithin(root, real) || !(await stat(real).then((s) => s.isDirectory(), () => false))) {
    throw problem(422, of === 'build' ? `the build left no folder ${path}` : `the source has no folder ${path}`, { code: 'no-such-folder' });
  }
  return real;
}
