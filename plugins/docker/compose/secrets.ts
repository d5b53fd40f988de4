// Compose `secrets` and `configs`: the top-level definitions (a file of the source tree, a variable, inline content, external) and the services' references to them, short and long syntax.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { posix } from 'node:path';
import type { FileReference, NormalizedFileObject } from './model.ts';
import type { Issues } from './issues.ts';
import { bool, inside, isObj, mapOrList, type Obj, scalar, str } from './shape.ts';

type Kind = NormalizedFileObject['kind'];
const section = { secret: 'secrets', config: 'configs' } as const;
/** the swarm's own bounds of one secret and one config; the compose runtime keeps them, so a stack moves between runtimes as it is */
const maxBytes = { secret: 500 * 1024, config: 1000 * 1024 };
const namePattern = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

export interface FileObjectContext {
  project: string;
  workdir?: string;
  /** the stack's variables over the project's .env: what `environment:` names */
  variables: Record<string, string>;
  issues: Issues;
}

/** the whole file, unless it is larger than `max` (then null): its size is read first, and no more than it is read */
function readBounded(file: string, max: number): { bytes: Buffer | null; size: number } {
  const fd = openSync(file, 'r');
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
    if (stat.size > max) return { bytes: null, size: stat.size };
    const buffer = Buffer.alloc(stat.size);
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length;) {
      n = readSync(fd, buffer, length, buffer.length - length, null);
      length += n;
    }
    return { bytes: buffer.subarray(0, length), size: length };
  } finally {
    closeSync(fd);
  }
}

function fileContent(kind: Kind, file: string, path: string, ctx: FileObjectContext): Buffer | null {
  const full = inside(ctx.workdir, file, path, ctx.issues, `${kind} file`);
  if (!full) return null;
  let read: { bytes: Buffer | null; size: number };
  try {
    read = readBounded(full, Math.min(maxBytes[kind], ctx.issues.left('secretFileBytes')));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    ctx.issues.error(path, code === 'EISDIR' ? `${kind} file "${file}" is a folder: a ${kind} is one file` : `${kind} file "${file}" is not in the source tree`);
    return null;
  }
  if (!read.bytes && read.size > maxBytes[kind]) {
    ctx.issues.error(path, `${kind} file "${file}" holds ${read.size.toLocaleString('en-US')} bytes: a ${kind} holds at most ${maxBytes[kind].toLocaleString('en-US')}`);
    return null;
  }
  ctx.issues.take('secretFileBytes', read.bytes ? read.size : Infinity, path, 'bytes read from the files of secrets and configs');
  return read.bytes;
}

/** the top-level `secrets` (kind secret) or `configs` (kind config); a declared one that cannot be used (its error reported) is null */
export function fileObjects(doc: Obj, kind: Kind, ctx: FileObjectContext): Map<string, NormalizedFileObject | null> {
  const out = new Map<string, NormalizedFileObject | null>();
  const top = section[kind];
  const raw = doc[top] ?? {};
  if (!isObj(raw)) { ctx.issues.error(top, 'must be a map'); return out; }
  const { issues } = ctx;
  const entries = Object.entries(raw);
  issues.atMost('secretsAndConfigs', entries.length, top, `${top}`);
  for (const [key, value] of entries) {
    const path = `${top}.${key}`;
    out.set(key, null);
    if (!namePattern.test(key)) { issues.error(path, `the ${kind} name "${key}" may only hold letters, digits, "_", "." and "-"`); continue; }
    if (!isObj(value)) { issues.error(path, `must be a map with file, environment${kind === 'config' ? ', content' : ''} or external`); continue; }
    for (const k of Object.keys(value)) {
      if (k.startsWith('x-') || ['file', 'environment', 'content', 'external', 'name', 'labels'].includes(k)) continue;
      issues.error(`${path}.${k}`, ['driver', 'driver_opts', 'template_driver'].includes(k) ? `"${k}" is not supported: ${kind}s are stored by Dockwright` : `"${k}" is not a key of a ${kind}`);
    }
    const legacy = isObj(value.external) ? str(value.external.name, `${path}.external.name`, issues) : null;
    const external = isObj(value.external) ? true : bool(value.external, `${path}.external`, issues) ?? false;
    const given = (['file', 'environment', 'content'] as const).filter((k) => value[k] !== undefined && value[k] !== null);
    if (external && given.length) { issues.error(path, `an external ${kind} has no ${given.join(' or ')}: it exists already`); continue; }
    if (!external && given.length !== 1) {
      issues.error(path, given.length ? `sets ${given.join(' and ')}: a ${kind} has exactly one source` : `needs file, environment${kind === 'config' ? ', content' : ''} or external`);
      continue;
    }
    const name = str(value.name, `${path}.name`, issues) ?? legacy;
    const labels = Object.fromEntries(mapOrList(value.labels, `${path}.labels`, issues).map(([k, v]) => [k, v ?? '']));
    issues.atMost('labelsPerObject', Object.keys(labels).length, `${path}.labels`, 'labels');
    const object = (source: NormalizedFileObject['source'], from: string | null, bytes: Buffer | null): NormalizedFileObject => ({
      kind, key, name: name ?? (external ? key : `${ctx.project}_${key}`), external, source, from, labels,
      content: bytes ? () => bytes : null,
    });
    if (external) { out.set(key, object('external', null, null)); continue; }
    if (name !== null) issues.warn(`${path}.name`, `the name of a ${kind} that is not external is chosen by Dockwright; "${name}" is not used`);
    const [source] = given;
    if (source === 'file') {
      const file = str(value.file, `${path}.file`, issues);
      const bytes = file === null ? null : fileContent(kind, file, `${path}.file`, ctx);
      if (bytes) out.set(key, object('file', file, bytes));
    } else if (source === 'environment') {
      const variable = str(value.environment, `${path}.environment`, issues);
      if (variable === null) continue;
      const text = ctx.variables[variable];
      // a stack is created before its variables are set: an unset one fails the deploy, not the save. The message names the variable, never a value
      if (text === undefined) {
        issues.warn(`${path}.environment`, `the variable ${variable} is not set (neither among the stack's variables nor in the project's .env): a deploy fails until it is`);
        out.set(key, object('environment', variable, null));
        continue;
      }
      const bytes = Buffer.from(text);
      if (bytes.length > maxBytes[kind]) { issues.error(`${path}.environment`, `the variable ${variable} holds ${bytes.length.toLocaleString('en-US')} bytes: a ${kind} holds at most ${maxBytes[kind].toLocaleString('en-US')}`); continue; }
      out.set(key, object('environment', variable, bytes));
    } else {
      // inline content is in the file for everyone who reads it: compose allows it for configs only
      if (kind === 'secret') { issues.error(`${path}.content`, 'a secret cannot be inline content (compose allows content for configs only): use file or environment'); continue; }
      const text = str(value.content, `${path}.content`, issues);
      if (text !== null) out.set(key, object('content', null, Buffer.from(text)));
    }
  }
  return out;
}

/** `uid`/`gid`: a number, as compose writes it (a string of digits) */
function id(v: unknown, path: string, issues: Issues): string | null {
  if (v === undefined || v === null) return null;
  const text = scalar(v);
  if (text === null || !/^\d{1,10}$/.test(text) || Number(text) > 0xffffffff) { issues.error(path, 'must be a numeric user or group id'); return null; }
  return String(Number(text));
}

/**
 * `mode`: octal as compose reads it. The YAML loader reads `0440` as the decimal 440, so a number whose digits are all
 * octal is read as octal (0440 and 440 both mean r--r-----); a string is octal (`"0440"`).
 */
function mode(v: unknown, path: string, issues: Issues): number {
  if (v === undefined || v === null) return 0o444;
  const text = typeof v === 'number' && Number.isInteger(v) && v >= 0 ? String(v) : typeof v === 'string' ? v.trim() : null;
  const n = text === null ? NaN : /^0?o?[0-7]{1,4}$/.test(text) ? parseInt(text.replace(/^0?o/, ''), 8) : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n > 0o777) { issues.error(path, 'must be a file mode in octal, like 0440 (permission bits only)'); return 0o444; }
  return n;
}

function target(kind: Kind, source: string, given: string | null, path: string, issues: Issues): string | null {
  const base = kind === 'secret' ? '/run/secrets' : '/';
  const t = posix.resolve(base, given ?? source);
  if (t === '/') { issues.error(path, `the target "${given ?? ''}" is not a file path`); return null; }
  return t;
}

/** a service's `secrets` or `configs`: `- name` or `- { source, target, uid, gid, mode }`, each naming a top-level one */
export function fileReferences(v: unknown, kind: Kind, path: string, defined: ReadonlyMap<string, NormalizedFileObject | null>, issues: Issues): FileReference[] {
  if (v === undefined || v === null) return [];
  const top = section[kind];
  if (!Array.isArray(v)) { issues.error(path, `must be a list of ${top}`); return []; }
  const out: FileReference[] = [];
  v.forEach((item, i) => {
    const at = `${path}[${i}]`;
    const spec: Obj | null = scalar(item) !== null ? { source: scalar(item) } : isObj(item) ? item : null;
    if (!spec) { issues.error(at, `must be the name of a ${kind} or a map with source, target, uid, gid and mode`); return; }
    for (const k of Object.keys(spec)) {
      if (!k.startsWith('x-') && !['source', 'target', 'uid', 'gid', 'mode'].includes(k)) issues.error(`${at}.${k}`, `"${k}" is not a key of a service's ${kind}`);
    }
    const source = str(spec.source, `${at}.source`, issues);
    if (source === null) { issues.error(at, `names no ${kind} (source)`); return; }
    if (!defined.has(source)) { issues.error(at, `refers to the ${kind} "${source}", which is not declared under the top-level ${top}`); return; }
    // declared but unusable: its own error was reported at the top level
    if (!defined.get(source)) return;
    const t = target(kind, source, str(spec.target, `${at}.target`, issues), `${at}.target`, issues);
    const uid = id(spec.uid, `${at}.uid`, issues);
    const gid = id(spec.gid, `${at}.gid`, issues);
    const m = mode(spec.mode, `${at}.mode`, issues);
    if (t) out.push({ source, target: t, uid, gid, mode: m });
  });
  return out;
}

/** two files (or a file and a mount) at one path of a container */
export function checkTargets(service: string, mounts: readonly { target: string }[], secrets: readonly FileReference[], configs: readonly FileReference[], issues: Issues): void {
  const seen = new Set(mounts.map((m) => m.target));
  for (const [kind, list] of [['secrets', secrets], ['configs', configs]] as const) {
    for (const f of list) {
      if (seen.has(f.target)) issues.error(`services.${service}.${kind}`, `two files or mounts target ${f.target}`);
      seen.add(f.target);
    }
  }
}
