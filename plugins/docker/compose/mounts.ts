// Compose `volumes` and `tmpfs` of a service: named volumes, bind mounts (inside the source tree when relative) and tmpfs, short and long syntax.
import { homedir } from 'node:os';
import { isAbsolute } from 'node:path';
import type { NormalizedMount, NormalizedVolume } from './model.ts';
import type { Issues } from './issues.ts';
import { isObj, scalar, str, strList } from './shape.ts';
import { inside } from './shape.ts';
import { realExisting } from '../../../sdk/index.ts';
import { bytes } from './units.ts';

export interface MountContext {
  workdir?: string;
  volumes: Map<string, NormalizedVolume>;
  used: Set<string>;
  issues: Issues;
}

function bindSource(source: string, path: string, ctx: MountContext): string | null {
  if (source.startsWith('~')) {
    // the home of the user Dockwright runs as, then a host path like any other (allowed-bind-mounts judges it)
    const home = expandHome(source);
    if (home === null) { ctx.issues.error(path, `bind mount source "${source}": only ~ and ~/… (the home of the user Dockwright runs as) are expanded, not another user's`); return null; }
    return realExisting(home);
  }
  // resolved now, so the rules judge (and the engine mounts) where it really leads
  if (isAbsolute(source)) return realExisting(source);
  return inside(ctx.workdir, source, path, ctx.issues, 'bind mount source');
}

function volumeSource(name: string, path: string, ctx: MountContext): string | null {
  const declared = ctx.volumes.get(name);
  if (!declared) {
    ctx.issues.error(path, `refers to the volume "${name}", which is not declared under the top-level volumes`);
    return null;
  }
  ctx.used.add(name);
  return declared.name;
}

function target(t: string | null, path: string, ctx: MountContext): string | null {
  if (!t || !t.startsWith('/')) { ctx.issues.error(path, `the container path "${t ?? ''}" must be absolute`); return null; }
  return t;
}

function short(text: string, path: string, ctx: MountContext): NormalizedMount | null {
  const parts = text.split(':');
  if (parts.length === 1) {
    const t = target(parts[0], path, ctx);
    return t ? { type: 'volume', source: null, target: t, readOnly: false } : null;
  }
  if (parts.length > 3) { ctx.issues.error(path, `"${text}" is not source:target[:mode]`); return null; }
  const [source, tgt, mode = ''] = parts;
  const flags = mode.split(',').filter(Boolean);
  const t = target(tgt, path, ctx);
  if (!t) return null;
  const readOnly = flags.includes('ro');
  const isPath = source.startsWith('.') || source.startsWith('/') || source.startsWith('~');
  if (isPath) {
    const s = bindSource(source, path, ctx);
    return s ? { type: 'bind', source: s, target: t, readOnly, createHostPath: true } : null;
  }
  const s = volumeSource(source, path, ctx);
  return s ? { type: 'volume', source: s, target: t, readOnly, noCopy: flags.includes('nocopy') } : null;
}

function long(item: Record<string, unknown>, path: string, ctx: MountContext): NormalizedMount | null {
  const type = scalar(item.type) ?? 'volume';
  const t = target(scalar(item.target), `${path}.target`, ctx);
  if (!t) return null;
  const readOnly = item.read_only === true;
  const source = scalar(item.source);
  switch (type) {
    case 'volume': {
      if (!source) return { type: 'volume', source: null, target: t, readOnly };
      const s = volumeSource(source, `${path}.source`, ctx);
      const noCopy = isObj(item.volume) && item.volume.nocopy === true;
      return s ? { type: 'volume', source: s, target: t, readOnly, noCopy } : null;
    }
    case 'bind': {
      if (!source) { ctx.issues.error(`${path}.source`, 'a bind mount needs a source path'); return null; }
      const s = bindSource(source, `${path}.source`, ctx);
      const create = isObj(item.bind) && item.bind.create_host_path === true;
      const propagation = isObj(item.bind) ? str(item.bind.propagation, `${path}.bind.propagation`, ctx.issues) : null;
      if (propagation !== null && !['rprivate', 'private', 'rshared', 'shared', 'rslave', 'slave'].includes(propagation)) { ctx.issues.error(`${path}.bind.propagation`, `"${propagation}" is not a mount propagation (rprivate, private, rshared, shared, rslave, slave)`); return null; }
      if (isObj(item.bind) && item.bind.selinux !== undefined) ctx.issues.warn(`${path}.bind.selinux`, 'is not passed on: the engine relabels a bind for SELinux only through its short syntax (:z or :Z), and this host has no SELinux to relabel for');
      return s ? { type: 'bind', source: s, target: t, readOnly, createHostPath: create, ...(propagation ? { propagation } : {}) } : null;
    }
    case 'tmpfs': {
      const size = isObj(item.tmpfs) && item.tmpfs.size !== undefined ? bytes(item.tmpfs.size) : undefined;
      if (size === null) { ctx.issues.error(`${path}.tmpfs.size`, 'is not a size like 64m'); return null; }
      return { type: 'tmpfs', source: null, target: t, readOnly, ...(size !== undefined ? { tmpfsSize: size } : {}) };
    }
    default:
      ctx.issues.error(`${path}.type`, `volume type "${type}" is not supported (volume, bind or tmpfs)`);
      return null;
  }
}

export function mounts(v: unknown, tmpfs: unknown, path: string, ctx: MountContext): NormalizedMount[] {
  const out: NormalizedMount[] = [];
  if (v !== undefined && v !== null && !Array.isArray(v)) ctx.issues.error(`${path}.volumes`, 'must be a list');
  if (Array.isArray(v)) {
    // counted before each bind source is resolved on the host's file system
    ctx.issues.take('mounts', v.length, `${path}.volumes`, 'volumes and tmpfs mounts');
    v.forEach((item, i) => {
      const at = `${path}.volumes[${i}]`;
      const s = scalar(item);
      const m = s !== null ? short(s, at, ctx) : isObj(item) ? long(item, at, ctx) : (ctx.issues.error(at, 'must be "source:target[:ro]" or a map with type, source and target'), null);
      if (m) out.push(m);
    });
  }
  const tmpfsEntries = strList(tmpfs, `${path}.tmpfs`, ctx.issues);
  ctx.issues.take('mounts', tmpfsEntries.length, `${path}.tmpfs`, 'volumes and tmpfs mounts');
  tmpfsEntries.forEach((entry, i) => {
    const [where, opts = ''] = entry.split(/:(.*)/s);
    const t = target(where, `${path}.tmpfs[${i}]`, ctx);
    const size = /(?:^|,)size=([^,]+)/.exec(opts)?.[1];
    if (t) out.push({ type: 'tmpfs', source: null, target: t, readOnly: false, ...(size && bytes(size) !== null ? { tmpfsSize: bytes(size)! } : {}) });
  });
  const seen = new Set<string>();
  for (const m of out) {
    if (seen.has(m.target)) ctx.issues.error(`${path}.volumes`, `two mounts target ${m.target}`);
    seen.add(m.target);
  }
  return out;
}

/** the home of the user Dockwright runs as, for `~/…` bind mount sources (judged like any host path afterwards) */
export function expandHome(source: string): string | null {
  if (source === '~') return homedir();
  if (source.startsWith('~/')) return `${homedir()}${source.slice(1)}`;
  return null;
}
