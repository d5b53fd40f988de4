// Compose files that name other files of the source tree: `include` (their resources join the project) and `extends` (a service built on another, in this file or another), with paths made relative to the tree.
import { dirname, join, normalize } from 'node:path';
import { projectEnv, readHead } from './environment.ts';
import { interpolateTree } from './interpolate.ts';
import { cycles } from './graph.ts';
import { Override } from './tags.ts';
import { composeLimits } from './limits.ts';
import { extendService } from './merge.ts';
import type { Issues } from './issues.ts';
import { inside, isObj, type Obj } from './shape.ts';
import { parseYaml } from './yaml.ts';

/** where a file of the tree is seen from the project: `.` for the top */
const dirOf = (file: string) => dirname(normalize(file));

/** `rel` (relative to the folder `dir` of the tree) relative to the top of the tree; absolute paths, URLs and `~` stay as they are */
function rebasePath(dir: string, rel: string): string {
  if (dir === '.' || rel.startsWith('/') || rel.startsWith('~') || /^[a-z][a-z0-9+.-]*:\/\//i.test(rel) || rel.startsWith('git@')) return rel;
  return `./${join(dir, rel)}`;
}

/** a bind source in short volume syntax is a path when it starts with `.`, `/` or `~`; anything else names a volume */
function rebaseVolume(dir: string, v: unknown): unknown {
  if (typeof v === 'string') {
    const colon = v.indexOf(':');
    if (colon > 0 && v.startsWith('.')) return rebasePath(dir, v.slice(0, colon)) + v.slice(colon);
    return v;
  }
  if (isObj(v) && v.type === 'bind' && typeof v.source === 'string') return { ...v, source: rebasePath(dir, v.source) };
  return v;
}

const rebaseFileList = (dir: string, v: unknown): unknown => {
  const one = (item: unknown) => (typeof item === 'string' ? rebasePath(dir, item) : isObj(item) && typeof item.path === 'string' ? { ...item, path: rebasePath(dir, item.path) } : item);
  return Array.isArray(v) ? v.map(one) : one(v);
};

/** a service of a file in folder `dir` of the tree, its paths made relative to the top of the tree */
function rebaseService(dir: string, service: unknown): unknown {
  if (dir === '.' || !isObj(service)) return service;
  const out: Obj = { ...service };
  if (typeof out.build === 'string') out.build = rebasePath(dir, out.build);
  else if (isObj(out.build) && typeof out.build.context === 'string') out.build = { ...out.build, context: rebasePath(dir, out.build.context) };
  if (out.env_file !== undefined) out.env_file = rebaseFileList(dir, out.env_file);
  if (out.label_file !== undefined) out.label_file = rebaseFileList(dir, out.label_file);
  if (Array.isArray(out.volumes)) out.volumes = out.volumes.map((v) => rebaseVolume(dir, v));
  if (isObj(out.extends) && typeof out.extends.file === 'string') out.extends = { ...out.extends, file: rebasePath(dir, out.extends.file) };
  return out;
}

/** the resources of a file in folder `dir`, with their paths relative to the top of the tree */
function rebaseDocument(dir: string, doc: Obj): Obj {
  const out: Obj = { ...doc };
  if (isObj(doc.services)) out.services = Object.fromEntries(Object.entries(doc.services).map(([k, v]) => [k, rebaseService(dir, v)]));
  for (const key of ['secrets', 'configs']) {
    if (!isObj(doc[key])) continue;
    out[key] = Object.fromEntries(Object.entries(doc[key] as Obj).map(([k, v]) => [k, isObj(v) && typeof v.file === 'string' ? { ...v, file: rebasePath(dir, v.file) } : v]));
  }
  if (Array.isArray(doc.include)) out.include = doc.include.map((i) => (typeof i === 'string' ? rebasePath(dir, i) : i));
  return out;
}

/**
 * The other compose files of the project, each read, parsed and interpolated once (the limits count every file). A file's
 * paths come back relative to the top of the tree, so the services it holds load like the main file's.
 */
export class ProjectFiles {
  private readonly documents = new Map<string, Obj | null>();
  private readonly refused = new Set<string>();

  constructor(private readonly workdir: string | undefined, private readonly variables: Record<string, string>, private readonly issues: Issues) {}

  /** the document of `file` (relative to the top of the tree), or null after an error reported at `path` */
  read(file: string, path: string, variables = this.variables): Obj | null {
    const key = normalize(file);
    if (this.documents.has(key)) return this.documents.get(key)!;
    // a file outside the tree is reported once per place that names it (the cycle search and the merge both look)
    const refusedAt = `${key}\u0000${path}`;
    if (this.refused.has(refusedAt)) return null;
    const full = inside(this.workdir, file, path, this.issues, 'compose file');
    if (!full) { this.refused.add(refusedAt); return null; }
    this.issues.take('files', 1, path, 'other compose files (extends, include)');
    let read: { text: string; truncated: boolean };
    try {
      read = readHead(full, composeLimits.maxLength);
    } catch {
      this.issues.error(path, `the compose file "${file}" is not in the source tree`);
      this.documents.set(key, null);
      return null;
    }
    if (read.truncated) this.issues.stop('maxLength', path, `${file}: the compose file has more than ${composeLimits.maxLength.toLocaleString('en-US')} characters`);
    const parsed = parseYaml(read.text, this.issues, { path, file });
    let doc: Obj | null = null;
    if (isObj(parsed)) doc = rebaseDocument(dirOf(file), interpolateTree(parsed, key, { variables, issues: this.issues, warned: new Set() }) as Obj);
    else if (parsed !== undefined) this.issues.error(path, `${file}: a compose file must be a map`);
    this.documents.set(key, doc);
    return doc;
  }
}

const mergedKeys = ['services', 'networks', 'volumes', 'secrets', 'configs'] as const;

/**
 * `include:` — each named file (its paths relative to its own folder, or to project_directory; interpolated with its own
 * `.env` or env_file under the project's variables) adds its services, networks, volumes, secrets and configs to the
 * project. A resource the including file defines as well is a conflict, as in compose.
 */
export function applyInclude(raw: Obj, files: ProjectFiles, workdir: string | undefined, variables: Record<string, string>, issues: Issues, depth = 0): void {
  const list = raw.include;
  delete raw.include;
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) { issues.error('include', 'must be a list of files'); return; }
  list.forEach((entry, i) => {
    const path = `include[${i}]`;
    const spec = typeof entry === 'string' ? { path: entry } : entry;
    if (!isObj(spec)) { issues.error(path, 'must be a path or a map with path'); return; }
    const paths = typeof spec.path === 'string' ? [spec.path] : Array.isArray(spec.path) && spec.path.every((p) => typeof p === 'string') ? spec.path as string[] : null;
    if (!paths?.length) { issues.error(`${path}.path`, 'must be a path or a list of paths'); return; }
    if (spec.project_directory !== undefined && typeof spec.project_directory !== 'string') { issues.error(`${path}.project_directory`, 'must be a path'); return; }
    const projectDir = typeof spec.project_directory === 'string' ? normalize(spec.project_directory) : dirOf(paths[0]);
    const envFiles = spec.env_file === undefined ? null : (Array.isArray(spec.env_file) ? spec.env_file : [spec.env_file]);
    // the included project's own .env (or env_file), under what the including project sets
    const own = envFiles
      ? Object.assign({}, ...envFiles.map((f, j) => (typeof f === 'string' ? projectEnv(workdir, issues, f, `${path}.env_file[${j}]`, true) : {})))
      : projectEnv(workdir, issues, join(projectDir, '.env'), `${path}.path`);
    const scope = { ...own, ...variables };
    let doc: Obj | null = null;
    for (const [j, file] of paths.entries()) {
      const next = files.read(file, paths.length > 1 ? `${path}.path[${j}]` : `${path}.path`, scope);
      if (!next) return;
      // a list of files is one project: the later ones override the first, as compose's -f files do
      doc = doc ? mergeDocuments(doc, next) : { ...next };
    }
    if (!doc) return;
    if (depth >= 8) { issues.error(path, 'includes are nested more than 8 deep'); return; }
    applyInclude(doc, files, workdir, scope, issues, depth + 1);
    for (const key of mergedKeys) {
      if (!isObj(doc[key])) continue;
      const into = (raw[key] ??= {}) as Obj;
      for (const [name, value] of Object.entries(doc[key] as Obj)) {
        if (Object.hasOwn(into, name)) { issues.error(`${key}.${name}`, `is defined here and in the included file ${paths[0]}: a project defines it once`); continue; }
        into[name] = value;
      }
    }
  });
}

function mergeDocuments(base: Obj, over: Obj): Obj {
  const out: Obj = { ...base };
  for (const key of mergedKeys) {
    if (!isObj(over[key])) continue;
    const merged: Obj = { ...(isObj(base[key]) ? base[key] as Obj : {}) };
    for (const [name, value] of Object.entries(over[key] as Obj)) {
      const merges = key === 'services' && isObj(merged[name]) && !(merged[name] instanceof Override) && isObj(value) && !(value instanceof Override);
      merged[name] = merges ? extendService(merged[name] as Obj, value as Obj) : value;
    }
    out[key] = merged;
  }
  return out;
}

/**
 * `extends:` of every service, resolved: the service it names (in this file, or in `file` of the tree) is itself resolved
 * first, then this one is merged over it by compose's rules. A chain that comes back to itself is refused. Answers the
 * services whose extends failed (reported already: they are not loaded further).
 */
export function applyExtends(services: Obj, files: ProjectFiles, issues: Issues): Set<string> {
  const failed = new Set<string>();
  /** by `<file>\0<service>` (the file '' is this one): the service with what it extends merged in, null when that failed */
  const resolved = new Map<string, Obj | null>();
  const keyOf = (fileKey: string, name: string) => `${fileKey}\u0000${name}`;
  const whereOf = (fileKey: string, name: string) => (fileKey === '' ? `services.${name}.extends` : `${fileKey}: services.${name}.extends`);
  /** the services of a file already read (files are read once: later reads answer the same document) */
  const poolOf = (fileKey: string): Obj => {
    const doc = fileKey === '' ? { services } : files.read(fileKey, '');
    return isObj(doc?.services) ? doc.services : {};
  };

  /** what the service's `extends` names, as a pool and its file, or null after an error reported at `where` (`report`: report it) */
  const baseOf = (service: Obj, pool: Obj, fileKey: string, where: string, report: boolean): { name: string; pool: Obj; fileKey: string } | null => {
    const spec = typeof service.extends === 'string' ? { service: service.extends } : service.extends;
    const fail = (at: string, message: string) => { if (report) issues.error(at, message); return null; };
    if (!isObj(spec) || typeof spec.service !== 'string') return fail(where, 'must name a service: extends: <service> or { service, file }');
    if (spec.file !== undefined && typeof spec.file !== 'string') return fail(`${where}.file`, 'must be a path');
    let basePool = pool;
    let baseKey = fileKey;
    if (typeof spec.file === 'string') {
      const doc = files.read(spec.file, `${where}.file`);
      if (!doc) return null;
      basePool = isObj(doc.services) ? doc.services : {};
      baseKey = normalize(spec.file);
    }
    if (!isObj(basePool[spec.service])) {
      return fail(where, `extends the service "${spec.service}", which ${typeof spec.file === 'string' ? `${spec.file} does not define` : 'this file does not define'}`);
    }
    return { name: spec.service, pool: basePool, fileKey: baseKey };
  };

  // a chain that comes back to itself fails, every service on it
  const next = (key: string): string[] => {
    const [fileKey, name] = key.split('\u0000');
    const pool = poolOf(fileKey);
    const service = pool[name];
    if (!isObj(service) || service.extends === undefined) return [];
    const base = baseOf(service, pool, fileKey, whereOf(fileKey, name), false);
    return base ? [keyOf(base.fileKey, base.name)] : [];
  };
  for (const cycle of cycles(Object.keys(services).map((name) => keyOf('', name)), next)) {
    const [fileKey, name] = cycle[0].split('\u0000');
    issues.error(whereOf(fileKey, name), `extends comes back to itself: ${cycle.map((k) => k.split('\u0000').filter(Boolean).join(' → ')).join(' → ')}`);
    for (const key of cycle) resolved.set(key, null);
  }

  const resolve = (name: string, pool: Obj, fileKey: string, depth: number): Obj | null => {
    const key = keyOf(fileKey, name);
    const known = resolved.get(key);
    if (known !== undefined) return known;
    const service = pool[name];
    if (!isObj(service) || service.extends === undefined) return isObj(service) ? service : null;
    const where = whereOf(fileKey, name);
    if (depth >= composeLimits.extendsDepth) issues.stop('extendsDepth', where, `more than ${composeLimits.extendsDepth} services in one chain of extends`);
    const base = baseOf(service, pool, fileKey, where, true);
    const baseService = base && resolve(base.name, base.pool, base.fileKey, depth + 1);
    const merged = baseService ? extendService(baseService, service) : null;
    resolved.set(key, merged);
    return merged;
  };

  for (const name of Object.keys(services)) {
    const merged = resolve(name, services, '', 0);
    if (merged) services[name] = merged;
    else if (isObj(services[name]) && (services[name] as Obj).extends !== undefined) failed.add(name);
  }
  return failed;
}
