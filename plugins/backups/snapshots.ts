// Reading a backup's snapshots: which one `latest` or an id means, and its files under their snapshot names (/stacks/app/app_data/…), not host paths.
import { posix } from 'node:path';
import { problem, compareText } from '../../sdk/index.ts';
import { restic, type Repository, type ResticEnv, type ResticNode, type ResticSnapshot } from './restic.ts';
import { snapshotsOf } from './run.ts';
import { sourcesOf, type Mapped } from './targets.ts';
import { dumpOf } from './db-restore.ts';

export type ReadDeps = ResticEnv;

export interface SnapshotView {
  id: string; shortId: string; time: string; hostname: string; sources: string[]; kind: 'files' | 'database';
  stack: string | null; service: string | null; strategy: string | null; database: string | null; file: string | null; release: string | null; verifiedAt: string | null;
}
export const snapshotView = (s: ResticSnapshot): SnapshotView => {
  const dump = dumpOf(s);
  return {
    id: s.id, shortId: s.short_id, time: s.time, hostname: s.hostname, sources: sourcesOf(s.tags).map((m) => m.logical), kind: dump ? 'database' : 'files',
    stack: dump?.stack ?? null, service: dump?.service ?? null, strategy: dump?.strategy ?? null, database: dump?.database ?? null,
    file: dump?.file ?? null, release: dump?.release ?? null, verifiedAt: s.verifiedAt ?? null,
  };
};

/** `latest` or a (prefix of a) snapshot id of this backup; 404 when it has no such snapshot */
export async function resolveSnapshot(deps: ReadDeps, repo: Repository, backup: string, wanted: string): Promise<ResticSnapshot> {
  const all = await snapshotsOf(deps, repo, backup);
  const found = wanted === 'latest' ? all.at(-1) : all.filter((s) => s.id.startsWith(wanted.toLowerCase()));
  if (Array.isArray(found)) {
    if (found.length > 1) throw problem(400, `snapshot id "${wanted}" is ambiguous; give more of it`);
    if (found[0]) return found[0];
  } else if (found) return found;
  throw problem(404, wanted === 'latest' ? `backup "${backup}" has no snapshot yet` : `backup "${backup}" has no snapshot "${wanted}"`);
}

/** a user's path inside a snapshot: absolute, normalized, no climbing out */
export function cleanPath(path: string): string {
  if (path.includes('\0')) throw problem(400, 'path holds a NUL byte');
  const p = posix.normalize(`/${path}`).replace(/\/+$/, '');
  return p === '' ? '/' : p;
}

/** the snapshot folder a path lies in, and the host path restic knows it by */
export function locate(sources: readonly Mapped[], path: string): { source: Mapped; host: string; rest: string } | null {
  for (const source of sources) {
    if (path === source.logical || path.startsWith(`${source.logical}/`)) {
      const rest = path.slice(source.logical.length);
      return { source, host: source.path + rest, rest };
    }
  }
  return null;
}

export interface FileEntry { name: string; path: string; type: string; size: number | null; mtime: string; permissions: string | null }

/** the entries directly inside `path` of a snapshot (or the file itself), sorted by name */
export async function listFiles(deps: ReadDeps, repo: Repository, snapshot: ResticSnapshot, path: string): Promise<FileEntry[]> {
  const sources = sourcesOf(snapshot.tags);
  const at = locate(sources, path);
  if (!at) {
    // above the folders: the levels of their snapshot names
    const below = sources.filter((s) => path === '/' || s.logical.startsWith(`${path}/`));
    if (!below.length) throw problem(404, `no ${path} in snapshot ${snapshot.short_id}`);
    const names = [...new Set(below.map((s) => s.logical.slice(path === '/' ? 1 : path.length + 1).split('/')[0]))].sort();
    return names.map((name) => ({ name, path: posix.join(path, name), type: 'dir', size: null, mtime: snapshot.time, permissions: null }));
  }
  const { stdout } = await restic(repo, ['ls', '--json', '--no-lock', snapshot.id, at.host], deps);
  const nodes = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as ResticNode & { struct_type?: string }).filter((n) => n.struct_type === 'node');
  const self = nodes.find((n) => n.path === at.host);
  if (!self) throw problem(404, `no ${path} in snapshot ${snapshot.short_id}`);
  const shown = self.type === 'dir' ? nodes.filter((n) => posix.dirname(n.path) === at.host) : [self];
  return shown.map((n) => ({
    name: n.name, path: at.source.logical + n.path.slice(at.source.path.length), type: n.type,
    size: n.type === 'file' ? (n.size ?? 0) : null, mtime: n.mtime, permissions: n.permissions ?? null,
  })).sort((a, b) => compareText(a.name, b.name));
}
