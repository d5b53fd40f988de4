// A build context given as a git URL, read as Docker reads one: `https://host/repo.git#ref:dir`, `git@host:repo.git#ref`, `ssh://…`, `github.com/owner/repo`.
import type { GitContext } from './model.ts';

/** a ref or folder as git and a tree path allow it: no option, no `..`, no control characters */
const refPattern = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/@+-]{1,200}$/;
const dirPattern = /^(?!\/)(?!.*(?:^|\/)\.\.(?:\/|$))[^\0-\x1f#]{1,500}$/;

/** true when `text` is a remote context (a URL, or Docker's shorthands for git) rather than a folder of the source tree */
export function isRemoteContext(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(text) || text.startsWith('git@') || text.startsWith('github.com/');
}

/**
 * The git repository, ref and folder of a remote build context; a string when it cannot be fetched, saying why. Docker's
 * rule tells git from other URLs: `git@`, `ssh://`, `github.com/`, or an https URL whose path ends in `.git`; any other
 * https URL is an archive or a Dockerfile to download.
 */
export function gitContext(text: string): GitContext | string {
  const hash = text.indexOf('#');
  const base = hash < 0 ? text : text.slice(0, hash);
  const fragment = hash < 0 ? '' : text.slice(hash + 1);
  let url: string;
  if (/^git:\/\//i.test(base)) return 'the git:// protocol is neither authenticated nor encrypted, and Dockwright does not fetch over it: give the https:// or ssh:// URL of the repository';
  if (/^http:\/\//i.test(base)) return 'plain http:// is not fetched: it carries the code and any token unencrypted; use https:// or ssh://';
  if (/^https:\/\//i.test(base)) {
    if (!/\.git\/?$/.test(base)) {
      return 'a build context given as the URL of an archive or a Dockerfile is not downloaded by Dockwright (not supported): give the URL of a git repository (ending in .git) or a folder of the source tree';
    }
    url = base;
  } else if (base.startsWith('github.com/')) url = `https://${base}`;
  else if (base.startsWith('git@') || /^ssh:\/\//i.test(base)) url = base;
  else return `"${base.split(':')[0]}:" URLs are not build contexts Docker or Dockwright fetch: give the https:// or ssh:// URL of a git repository, or a folder of the source tree`;
  const colon = fragment.indexOf(':');
  const ref = colon < 0 ? fragment : fragment.slice(0, colon);
  const dir = colon < 0 ? '' : fragment.slice(colon + 1).replace(/^\.\/|\/$/g, '');
  if (ref && !refPattern.test(ref)) return `"${ref}" is not a ref git can fetch (a branch, a tag, refs/… or a commit id)`;
  if (dir && dir !== '.' && !dirPattern.test(dir)) return `"${dir}" is not a folder inside the repository`;
  return { url, ref: ref || null, dir: dir && dir !== '.' ? dir : null };
}
