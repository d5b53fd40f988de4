// Shape checks shared by the compose normalizers: the "string or list", "map or KEY=VALUE list" forms.
import { isAbsolute, relative, resolve } from 'node:path';
import { isWithin, realExisting } from '../../../sdk/index.ts';
import type { Issues } from './issues.ts';

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** strings, numbers and booleans as text (compose accepts `PORT: 80`); null when the value is none of them. */
export function scalar(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

export function str(v: unknown, path: string, issues: Issues): string | null {
  if (v === undefined || v === null) return null;
  const s = scalar(v);
  if (s === null) issues.error(path, 'must be a string');
  return s;
}

export function bool(v: unknown, path: string, issues: Issues): boolean | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  issues.error(path, 'must be true or false');
  return null;
}

export function int(v: unknown, path: string, issues: Issues, min = 0): number | null {
  if (v === undefined || v === null) return null;
  const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
  if (typeof n === 'number' && Number.isInteger(n) && n >= min) return n;
  issues.error(path, `must be an integer of at least ${min}`);
  return null;
}

/** a string or a list of strings → list */
export function strList(v: unknown, path: string, issues: Issues): string[] {
  if (v === undefined || v === null) return [];
  if (scalar(v) !== null) return [scalar(v)!];
  if (!Array.isArray(v)) { issues.error(path, 'must be a string or a list of strings'); return []; }
  const out: string[] = [];
  v.forEach((item, i) => {
    const s = scalar(item);
    if (s === null) issues.error(`${path}[${i}]`, 'must be a string');
    else out.push(s);
  });
  return out;
}

/**
 * `{ KEY: value }` or `["KEY=value", "KEY"]` → entries; a missing value (null, or no `=`) is `undefined`.
 * `sep` also accepts "host:ip" for extra_hosts.
 */
export function mapOrList(v: unknown, path: string, issues: Issues, seps = '='): [string, string | undefined][] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) {
    const out: [string, string | undefined][] = [];
    v.forEach((item, i) => {
      const s = scalar(item);
      if (s === null) { issues.error(`${path}[${i}]`, 'must be a "KEY=value" string'); return; }
      const at = [...seps].map((c) => s.indexOf(c)).filter((n) => n > 0).sort((a, b) => a - b)[0];
      out.push(at === undefined ? [s, undefined] : [s.slice(0, at), s.slice(at + 1)]);
    });
    return out;
  }
  if (isObj(v)) {
    return Object.entries(v).map(([k, val]) => {
      if (val === null || val === undefined) return [k, undefined];
      const s = scalar(val);
      if (s === null) issues.error(`${path}.${k}`, 'must be a string, a number or a boolean');
      return [k, s ?? ''];
    });
  }
  issues.error(path, 'must be a map or a list of "KEY=value" strings');
  return [];
}

/** a path inside the source tree, or null after an error: `..`, absolute paths and links leading out are refused. */
export function inside(workdir: string | undefined, rel: string, path: string, issues: Issues, what: string): string | null {
  if (!workdir) {
    issues.error(path, `${what} "${rel}" needs a source tree, and this stack has none`);
    return null;
  }
  const root = resolve(workdir);
  const target = resolve(root, rel);
  const escapes = (from: string, to: string) => { const r = relative(from, to); return r.startsWith('..') || isAbsolute(r); };
  if (escapes(root, target)) {
    issues.error(path, `${what} "${rel}" points outside the source tree`);
    return null;
  }
  // a symlink inside the tree may still lead out of it, even when what it leads to does not exist (yet)
  const real = realExisting(target);
  if (!isWithin(root, real)) {
    issues.error(path, `${what} "${rel}" leads outside the source tree through a symbolic link`);
    return null;
  }
  // the engine gets the resolved path: it would follow links again, and they may change
  return real;
}
