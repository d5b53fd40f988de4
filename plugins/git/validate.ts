// What users hand the git plugin, checked before it reaches git or the file system: repository URLs, branches, paths, commits.
import { resolve } from 'node:path';
import { isWithin } from '../../sdk/index.ts';

export interface RepoUrl {
  /** what git is given: never with a password in it */
  url: string;
  /** what answers show: no userinfo beyond an ssh user name */
  display: string;
  kind: 'https' | 'ssh' | 'local';
  /** a password or token found in an https URL: it moves to the sealed credentials */
  username?: string;
  password?: string;
}

/** a refusal that names the offending field */
export class Invalid extends Error {
  constructor(readonly field: string, message: string) { super(message); }
}

const printable = /^[\x21-\x7e]+$/;
const hostPattern = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]+\])$/;
const userPattern = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/;

function insideAny(path: string, roots: readonly string[]): boolean {
  // git follows symbolic links, so the real path is what must lie below a root
  return roots.some((root) => isWithin(resolve(root), resolve(path)));
}

function local(path: string, raw: string, roots: readonly string[]): RepoUrl {
  if (!roots.length) throw new Invalid('url', 'local repositories are not allowed on this install (an admin can allow folders with the git option allowedLocalRoots)');
  if (path.split('/').includes('..')) throw new Invalid('url', 'a local repository path may not contain ..');
  if (!insideAny(path, roots)) throw new Invalid('url', `${path} is not below a folder this install allows for local repositories`);
  return { url: raw.startsWith('file://') ? `file://${path}` : path, display: raw.startsWith('file://') ? `file://${path}` : path, kind: 'local' };
}

/** https://, ssh://, scp-like user@host:path, and (only below admin-allowed roots) file:// or an absolute path. */
export function parseRepoUrl(raw: string, allowedLocalRoots: readonly string[]): RepoUrl {
  if (!raw || raw.length > 2048) throw new Invalid('url', 'the repository URL must have 1 to 2048 characters');
  if (!printable.test(raw)) throw new Invalid('url', 'the repository URL may not contain spaces, control or non-ASCII characters');
  if (raw.startsWith('-')) throw new Invalid('url', 'the repository URL may not start with -');
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(raw)) throw new Invalid('url', 'git transport helpers (ext::, fd::, …) are not allowed');

  if (/^http:\/\//i.test(raw)) throw new Invalid('url', 'plain http:// is not allowed: it carries the code and any token unencrypted; use https:// or ssh://');
  if (/^git:\/\//i.test(raw)) throw new Invalid('url', 'the git:// protocol is not allowed: it is unauthenticated and unencrypted; use https:// or ssh://');
  if (/^https:\/\//i.test(raw)) {
    let u: URL;
    try { u = new URL(raw); } catch { throw new Invalid('url', 'not a valid https URL'); }
    if (!u.hostname || u.hostname.startsWith('-')) throw new Invalid('url', 'the https URL has no valid host');
    if (u.search || u.hash) throw new Invalid('url', 'the repository URL may not have a query or fragment');
    const username = decodeURIComponent(u.username);
    const password = decodeURIComponent(u.password);
    u.username = '';
    u.password = '';
    const clean = u.toString();
    return { url: clean, display: clean, kind: 'https', ...(password ? { username: username || undefined, password } : {}) };
  }
  if (/^ssh:\/\//i.test(raw)) {
    let u: URL;
    try { u = new URL(raw); } catch { throw new Invalid('url', 'not a valid ssh URL'); }
    if (!hostPattern.test(u.hostname)) throw new Invalid('url', 'the ssh URL has no valid host');
    if (u.password) throw new Invalid('url', 'ssh URLs carry no password: give a deploy key in credentials.sshKey');
    if (u.username && !userPattern.test(u.username)) throw new Invalid('url', 'the user name of the ssh URL is not valid');
    if (u.search || u.hash) throw new Invalid('url', 'the repository URL may not have a query or fragment');
    if (!u.pathname || u.pathname === '/' || u.pathname.startsWith('/-')) throw new Invalid('url', 'the ssh URL needs a repository path');
    return { url: raw, display: raw, kind: 'ssh' };
  }
  if (/^file:\/\//i.test(raw)) {
    let u: URL;
    try { u = new URL(raw); } catch { throw new Invalid('url', 'not a valid file URL'); }
    if (u.hostname && u.hostname !== 'localhost') throw new Invalid('url', 'a file URL may not name a host');
    return local(decodeURIComponent(u.pathname), raw, allowedLocalRoots);
  }
  if (raw.startsWith('/')) return local(raw, raw, allowedLocalRoots);

  // scp-like syntax: git takes it when the first colon comes before any slash
  // a bracketed host first: an IPv6 address holds colons
  const scp = /^(?:([^@/:]+)@)?(\[[^\]/]+\]|[^@/:[\]]+):(.+)$/.exec(raw);
  if (scp) {
    const [, user, host, path] = scp;
    if (user !== undefined && !userPattern.test(user)) throw new Invalid('url', 'the user name before @ is not valid');
    if (!hostPattern.test(host)) throw new Invalid('url', 'the host before : is not valid');
    if (path.startsWith('-') || path.startsWith('//')) throw new Invalid('url', 'the repository path after : is not valid');
    return { url: raw, display: raw, kind: 'ssh' };
  }
  throw new Invalid('url', 'use an https:// or ssh:// URL or user@host:path (http, git:// and other transports are not allowed)');
}

/** the host and port git connects to for a URL parseRepoUrl accepted; null for a local repository */
export function remoteEndpoint(url: string): { kind: 'https' | 'ssh'; host: string; port: number } | null {
  if (/^(https|ssh):\/\//i.test(url)) {
    const u = new URL(url);
    const https = u.protocol === 'https:';
    return { kind: https ? 'https' : 'ssh', host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(u.port || (https ? 443 : 22)) };
  }
  const scp = url.startsWith('/') || /^file:/i.test(url) ? null : /^(?:[^@/:]+@)?(\[[^\]/]+\]|[^@/:[\]]+):/.exec(url);
  return scp ? { kind: 'ssh', host: scp[1].replace(/^\[(.*)\]$/, '$1'), port: 22 } : null;
}

/** the rules of `git check-ref-format --branch`, and no leading - (it would read as an option). */
export function branchError(name: string): string | null {
  if (!name || name.length > 255) return 'a branch name has 1 to 255 characters';
  if (name.startsWith('-')) return 'a branch name may not start with -';
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return 'a branch name may not contain spaces, control characters or any of ~ ^ : ? * [ \\';
  if (name.includes('..')) return 'a branch name may not contain ..';
  if (name.includes('@{') || name === '@') return 'a branch name may not contain @{ or be @';
  if (name === 'HEAD') return 'HEAD is not a branch name';
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//')) return 'a branch name may not start or end with / or contain //';
  if (name.endsWith('.')) return 'a branch name may not end with .';
  for (const part of name.split('/')) {
    if (part.startsWith('.')) return 'no part of a branch name may start with .';
    if (part.endsWith('.lock')) return 'no part of a branch name may end with .lock';
  }
  return null;
}

/** a relative path inside a tree, normalised (no `..`, not absolute); the message names what is wrong. */
export function treePath(value: string, what = 'path'): string {
  if (!value || value.length > 1024) throw new Invalid(what, `${what} must have 1 to 1024 characters`);
  if (/[\x00-\x1f\x7f\\]/.test(value)) throw new Invalid(what, `${what} may not contain control characters or backslashes`);
  if (value.startsWith('/')) throw new Invalid(what, `${what} must be relative to the root of the tree`);
  const parts = value.split('/').filter((p) => p !== '' && p !== '.');
  if (!parts.length) throw new Invalid(what, `${what} must name a file`);
  if (parts.includes('..')) throw new Invalid(what, `${what} may not contain ..`);
  if (parts[0].startsWith('-')) throw new Invalid(what, `${what} may not start with -`);
  return parts.join('/');
}

/** a full or abbreviated commit id (SHA-1 or SHA-256), lower case */
export function commitId(value: string): string {
  if (!/^[0-9a-fA-F]{7,64}$/.test(value)) throw new Invalid('commit', 'a commit is given by its id: 7 to 64 hexadecimal digits');
  return value.toLowerCase();
}

export const isFullCommit = (id: string) => id.length === 40 || id.length === 64;

/** a token goes into an HTTP header: printable, no line breaks */
export function tokenError(token: string): string | null {
  return printable.test(token) && token.length <= 4096 ? null : 'a token has 1 to 4096 printable characters and no spaces';
}

export function sshKeyError(key: string): string | null {
  if (key.length > 16384) return 'the deploy key is too long';
  if (!/^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----\r?\n[\s\S]+\r?\n-----END [A-Z0-9 ]*PRIVATE KEY-----\s*$/.test(key.trim() + '\n')) {
    return 'the deploy key must be a private key in PEM or OpenSSH format (-----BEGIN … PRIVATE KEY-----)';
  }
  return null;
}
