// Restores: chosen folders of a snapshot back into the stacks' volumes, into a new volume, or into a folder under DATA_DIR/restores — never over live data without overwrite.
import { chmod, chown, lstat, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { linkOutOf, Problem, problem, type JobRun, type Principal } from '../../sdk/index.ts';
import type { DockerRuntime } from '../docker/types.ts';
import type { StacksApi } from '../stacks/index.ts';
import { bytes, restic, secretsOf, type Repository, type ResticEnv, type ResticSnapshot } from './restic.ts';
import { cleanPath, locate } from './snapshots.ts';
import { stackVolumeOf, stopStacks } from './stack-target.ts';
import type { BackupStore } from './store.ts';
import { sourcesOf, type BackupTarget, type Mapped, type RestoreInto } from './targets.ts';

export interface RestoreDeps extends ResticEnv {
  store: BackupStore;
  targets: ReadonlyMap<string, BackupTarget>;
  runtime: DockerRuntime;
  stacks: StacksApi;
  restoresDir: string;
  stopSeconds: number;
}

export interface RestoreInput { backup: string; snapshot: string; paths: string[]; target: string; overwrite: boolean }

/** one folder (or file) of the snapshot and where it goes */
interface Placement { logical: string; host: string; dest: string; root: boolean }
interface Group { staging: string; placements: Placement[] }
interface Plan { groups: Group[]; stacks: string[]; /** the engine volumes restored into (target "stack"): only the containers mounting them stop */ volumes?: string[]; createVolume?: string; folder?: string; into?: { restore: RestoreInto; key: string } }

const stagingPrefix = '.dockwright-restore-';
const stagingName = /^\.dockwright-restore-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
export const restoredFromLabel = 'dockwright.restored-from';

async function isEmpty(dir: string): Promise<boolean> {
  return (await readdir(dir)).filter((n) => !n.startsWith(stagingPrefix)).length === 0;
}

function selections(snapshot: ResticSnapshot, paths: readonly string[]): { logical: string; source: Mapped; host: string; rest: string }[] {
  const sources = sourcesOf(snapshot.tags);
  const wanted = paths.length ? paths.map(cleanPath) : sources.map((s) => s.logical);
  return wanted.map((logical) => {
    // restic reads --include as a pattern
    if (/[*?[\\]/.test(logical)) throw problem(400, `paths with *, ?, [ or \\ cannot be restored one by one; restore the folder around ${logical}`);
    const at = locate(sources, logical);
    if (!at) throw problem(404, `no ${logical} in snapshot ${snapshot.short_id}${sources.length ? ` (its folders: ${sources.map((s) => s.logical).join(', ')})` : ''}`);
    return { logical, ...at };
  });
}

/** what a restore will do, refused (404, 409, 422) before anything is touched; the job plans again, so what changed meanwhile is caught */
export async function planRestore(deps: RestoreDeps, input: RestoreInput, snapshot: ResticSnapshot, jobId: string, principal?: Principal): Promise<Plan> {
  const chosen = selections(snapshot, input.paths);
  const staging = (dir: string) => join(dir, `${stagingPrefix}${jobId}`);
  if (input.target === 'folder') {
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
    const folder = join(deps.restoresDir, `${input.backup}-${snapshot.short_id}-${stamp}-${jobId.slice(0, 8)}`);
    return { stacks: [], folder, groups: [{ staging: staging(deps.restoresDir), placements: chosen.map((c) => ({ logical: c.logical, host: c.host, dest: join(folder, c.logical), root: false })) }] };
  }
  if (input.target.startsWith('volume:')) {
    const volume = input.target.slice('volume:'.length);
    const sources = new Set(chosen.map((c) => c.source.logical));
    if (sources.size !== 1) throw problem(422, `a new volume takes the content of one folder of the snapshot; choose it with paths (this selection spans ${[...sources].join(', ')})`);
    let mountpoint: string | undefined;
    try {
      const info = await deps.runtime.docker.getVolume(volume).inspect();
      // a stack's volume is restored through target "stack", where its access list and containers are minded
      if (!info.Labels?.[restoredFromLabel]) throw problem(409, `the volume ${volume} exists and was not made by a restore; choose a new name, or target "stack" for a stack's volume`);
      mountpoint = info.Mountpoint;
    } catch (err) {
      if (err instanceof Problem) throw err;
      if (deps.runtime.errorOf(err).status !== 404) throw err;
    }
    if (mountpoint) {
      const users = await deps.runtime.docker.listContainers({ all: false, filters: { volume: [volume] } });
      if (users.length) throw problem(409, `the volume ${volume} is in use by running containers (${users.map((c) => c.Names[0]?.slice(1)).join(', ')}); restore into a new volume, or use target "stack"`);
      if (!input.overwrite && !(await isEmpty(mountpoint))) throw problem(409, `the volume ${volume} exists and holds data; restore with overwrite: true to replace it`, { code: 'would-overwrite' });
    }
    const at = mountpoint ?? '';
    return {
      stacks: [], createVolume: mountpoint ? undefined : volume,
      groups: [{ staging: staging(at), placements: chosen.map((c) => ({ logical: c.logical, host: c.host, dest: at + c.rest, root: c.rest === '' })) }],
    };
  }
  if (input.target !== 'stack') {
    // back into another target's own resources (the sites)
    const [key, target] = [...deps.targets].find(([, t]) => t.restore?.target === input.target) ?? [];
    if (!key || !target?.restore) throw problem(422, `no backup target restores into "${input.target}" (is the plugin that provides it enabled?)`, { code: 'unknown-target' });
    const names = chosen.map((c) => {
      const name = c.rest === '' && c.source.logical.startsWith(`/${key}/`) ? c.source.logical.slice(key.length + 2) : null;
      if (!name || name.includes('/')) throw problem(422, `${c.logical} is not a whole folder of /${key}; restore it into a folder, or choose /${key}/<name>`);
      return name;
    });
    await target.restore.check(names, { overwrite: input.overwrite, principal });
    return {
      stacks: [], into: { restore: target.restore, key },
      groups: [{ staging: staging(deps.restoresDir), placements: chosen.map((c) => ({ logical: c.logical, host: c.host, dest: c.logical.slice(key.length + 2), root: false })) }],
    };
  }
  // back into the stacks' own volumes
  const byVolume = new Map<string, { stack: string; volume: string; items: typeof chosen }>();
  for (const c of chosen) {
    const sv = stackVolumeOf(c.source.logical);
    if (!sv) throw problem(422, `${c.source.logical} is not a stack volume; restore it into a folder or a new volume`);
    const entry = byVolume.get(c.source.logical) ?? { ...sv, items: [] };
    entry.items.push(c);
    byVolume.set(c.source.logical, entry);
  }
  const stacks = [...new Set([...byVolume.values()].map((v) => v.stack))];
  if (principal) for (const stack of stacks) await deps.stacks.access(stack, principal, 'deploy');
  const volumes = new Map((await Promise.all(stacks.map((s) => deps.runtime.volumes(s)))).flat().map((v) => [v.name, v]));
  const groups: Group[] = [];
  for (const { stack, volume, items } of byVolume.values()) {
    const v = volumes.get(volume);
    if (!v) throw problem(409, `stack ${stack} has no volume ${volume} (any more); deploy the stack once, then restore`);
    if (!input.overwrite && !(await isEmpty(v.mountpoint))) throw problem(409, `restoring into stack ${stack} replaces the data of volume ${volume}; restore with overwrite: true`, { code: 'would-overwrite' });
    groups.push({ staging: staging(v.mountpoint), placements: items.map((c) => ({ logical: c.logical, host: c.host, dest: v.mountpoint + c.rest, root: c.rest === '' })) });
  }
  return { stacks, groups, volumes: [...byVolume.values()].map((v) => v.volume) };
}

async function count(path: string): Promise<{ files: number; bytes: number }> {
  const s = await lstat(path);
  if (!s.isDirectory()) return { files: 1, bytes: s.size };
  let files = 0;
  let total = 0;
  for (const entry of await readdir(path, { recursive: true, withFileTypes: true })) {
    if (entry.isDirectory()) continue;
    files++;
    total += (await lstat(join(entry.parentPath ?? entry.path, entry.name))).size;
  }
  return { files, bytes: total };
}

/**
 * Puts a restored tree in place: a volume's root keeps its folder (the engine's) and gets the content, owner and mode;
 * anything else is replaced whole. `within` is the folder the destination must stay in (the volume's): a folder on the
 * way that a container turned into a link out of it is refused, never followed to write or remove host files.
 */
async function place(src: string, p: Placement, within: string): Promise<void> {
  const out = p.root ? null : linkOutOf(within, relative(within, dirname(p.dest)));
  if (out) throw new Error(`restoring ${p.logical}: ${out.link} in ${within} is a symbolic link to ${out.target}, which leads out of it; refusing to write through it`);
  if (p.root) {
    for (const name of await readdir(p.dest)) if (!name.startsWith(stagingPrefix)) await rm(join(p.dest, name), { recursive: true, force: true });
    for (const name of await readdir(src)) await rename(join(src, name), join(p.dest, name));
    const s = await stat(src);
    await chown(p.dest, s.uid, s.gid);
    await chmod(p.dest, s.mode & 0o7777);
    return;
  }
  await rm(p.dest, { recursive: true, force: true });
  await mkdir(dirname(p.dest), { recursive: true });
  await rename(src, p.dest);
}

/**
 * Removes the staging folders that restores left behind where they write: the restores folder, this installation's
 * stack volumes and the volumes restores made. A restore removes its own when it ends, failed or not; a killed process
 * leaves it (restic's partial tree beside the volume's data). `leftover` says whether the job that named a folder is
 * over; a folder of an unknown job (another installation's on this engine) is kept.
 */
export async function sweepStaging(deps: Pick<RestoreDeps, 'runtime' | 'restoresDir'>, leftover: (jobId: string) => Promise<boolean>): Promise<string[]> {
  const places = [deps.restoresDir];
  const { Volumes } = await deps.runtime.docker.listVolumes();
  for (const v of Volumes ?? []) {
    if (v.Driver === 'local' && (v.Labels?.[restoredFromLabel] || deps.runtime.ownership(v.Labels).owner === 'this')) places.push(v.Mountpoint);
  }
  const removed: string[] = [];
  for (const place of places) {
    for (const name of await readdir(place).catch(() => [] as string[])) {
      const job = stagingName.exec(name)?.[1];
      if (!job || !(await leftover(job))) continue;
      await rm(join(place, name), { recursive: true, force: true });
      removed.push(join(place, name));
    }
  }
  return removed;
}

export async function runRestore(deps: RestoreDeps, job: JobRun<RestoreInput>, resolve: (repo: Repository) => Promise<ResticSnapshot>): Promise<unknown> {
  const row = await deps.store.get(job.input.backup);
  if (!row) throw new Error(`backup ${job.input.backup} no longer exists`);
  const repo = deps.store.repositoryOf(row);
  for (const secret of secretsOf(repo)) job.redact(secret);
  const snapshot = await resolve(repo);
  const plan = await planRestore(deps, job.input, snapshot, job.id);
  job.log(`restoring ${plan.groups.reduce((n, g) => n + g.placements.length, 0)} folder(s) of snapshot ${snapshot.short_id} (${snapshot.time}) into ${job.input.target}`);
  if (plan.createVolume) {
    await deps.runtime.docker.createVolume({ Name: plan.createVolume, Labels: { [restoredFromLabel]: `${job.input.backup}@${snapshot.short_id}` } });
    const created = await deps.runtime.docker.getVolume(plan.createVolume).inspect();
    job.log(`volume ${plan.createVolume} created`);
    for (const g of plan.groups) {
      g.staging = join(created.Mountpoint, g.staging.slice(g.staging.lastIndexOf('/') + 1));
      for (const p of g.placements) p.dest = created.Mountpoint + p.dest;
    }
  }
  // only the services that mount a restored volume stop; the stack's others keep serving
  const restart = plan.stacks.length ? await stopStacks(deps.runtime, plan.stacks, deps.stopSeconds, job.log, plan.volumes) : null;
  let total = { files: 0, bytes: 0 };
  try {
    for (const group of plan.groups) {
      await rm(group.staging, { recursive: true, force: true });
      await mkdir(group.staging, { recursive: true, mode: 0o700 });
      try {
        job.log(`phase: reading ${group.placements.map((p) => p.logical).join(', ')} from the repository`);
        const includes = group.placements.flatMap((p) => ['--include', p.host]);
        await restic(repo, ['restore', snapshot.id, '--target', group.staging, ...includes], deps, { signal: job.signal });
        for (const p of group.placements) {
          // the snapshot's own folders are read as restic wrote them, never through a link it holds
          const out = linkOutOf(group.staging, p.host);
          if (out) throw new Error(`the snapshot's /${out.link} is a symbolic link to ${out.target}; refusing to restore through it`);
          const src = join(group.staging, p.host);
          const n = await count(src);
          total = { files: total.files + n.files, bytes: total.bytes + n.bytes };
          job.log(`phase: placing ${p.logical}: ${n.files} files, ${bytes(n.bytes)}`);
          if (!plan.into) await place(src, p, dirname(group.staging));
        }
        if (plan.into) await plan.into.restore.apply(group.placements.map((p) => ({ name: p.dest, path: join(group.staging, p.host) })), { log: job.log, actor: job.actor, signal: job.signal });
      } finally {
        await rm(group.staging, { recursive: true, force: true });
      }
    }
  } finally {
    if (restart) await restart();
  }
  job.log(`restored ${total.files} files (${bytes(total.bytes)})`);
  return {
    target: job.input.target, snapshot: snapshot.id, files: total.files, bytes: total.bytes,
    ...(plan.folder ? { folder: plan.folder } : {}), ...(job.input.target.startsWith('volume:') ? { volume: job.input.target.slice(7) } : {}),
    ...(plan.stacks.length ? { stacks: plan.stacks } : {}),
  };
}
