// The `stacks` backup target: the named volumes of chosen stacks, read on this host where the engine keeps them, optionally with the stack's containers stopped.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { problem, Type, type Principal } from '../../sdk/index.ts';
import type { DockerRuntime } from '../docker/types.ts';
import type { StacksApi } from '../stacks/index.ts';
import type { BackupTarget, TargetIo } from './targets.ts';
import type { StoppedJournal } from './stopped-journal.ts';

export const stacksKey = 'stacks';

export interface StackVolumes { stack: string; volumes: { name: string; mountpoint: string }[] }

/**
 * The volumes of these stacks and where their data is. Restic reads (and restores) the volume's folder itself: it sees
 * real files, so runs are incremental by file metadata and listings and restores are per file, with owners and modes
 * kept. That needs Dockwright on the engine's host with access to its volume folders, and the `local` driver.
 */
export async function volumesOf(runtime: DockerRuntime, stacks: readonly string[]): Promise<StackVolumes[]> {
  return Promise.all(stacks.map(async (stack) => {
    const volumes = await runtime.volumes(stack);
    for (const v of volumes) {
      if (v.driver !== 'local') throw new Error(`the volume ${v.name} of stack ${stack} uses the "${v.driver}" driver; only local volumes can be backed up`);
      try {
        await access(v.mountpoint, constants.R_OK | constants.X_OK);
      } catch {
        throw new Error(`the data of volume ${v.name} (${v.mountpoint}) is not readable here: backups of stack volumes need Dockwright on the Docker host, with access to the engine's volume folders`);
      }
    }
    return { stack, volumes: volumes.map((v) => ({ name: v.name, mountpoint: v.mountpoint })) };
  }));
}

/**
 * Stops the running containers of these stacks and returns what starts them again. The start is attempted for every
 * container even when some fail, and the failures are thrown together.
 */
export async function stopStacks(runtime: DockerRuntime, stacks: readonly string[], stopSeconds: number, log: (line: string) => void, onlyMounting?: readonly string[], note?: { journal: StoppedJournal; runId: string }): Promise<() => Promise<void>> {
  const status = await runtime.status(stacks);
  let running = [...status.values()].flat().flatMap((s) => s.containers).filter((c) => c.state === 'running');
  if (onlyMounting) {
    // only the containers that mount these volumes (one engine call; values of one filter are alternatives): the others keep serving
    const mounting = onlyMounting.length ? new Set((await runtime.docker.listContainers({ all: false, filters: { volume: [...onlyMounting] } })).map((c) => c.Id)) : new Set<string>();
    const kept = running.filter((c) => !mounting.has(c.id));
    running = running.filter((c) => mounting.has(c.id));
    if (kept.length) log(`kept running (they mount none of ${onlyMounting.join(', ')}): ${kept.map((c) => c.name).join(', ')}`);
  }
  const stopped: typeof running = [];
  const start = async () => {
    const failures: string[] = [];
    await Promise.all(stopped.map(async (c) => {
      try {
        await runtime.docker.getContainer(c.id).start();
        log(`started ${c.name} again`);
      } catch (err) {
        const { status: code, reason } = runtime.errorOf(err);
        if (code !== 304) failures.push(`${c.name}: ${reason}`);
      }
    }));
    await note?.journal.clear(note.runId);
    if (failures.length) throw new Error(`some containers could not be started again: ${failures.join('; ')}`);
  };
  // written down first: a process that dies while they are stopped leaves the note, and the next start starts them
  if (running.length) await note?.journal.record(note.runId, running.map((c) => ({ id: c.id, name: c.name })));
  try {
    await Promise.all(running.map(async (c) => {
      try {
        await runtime.docker.getContainer(c.id).stop({ t: stopSeconds });
      } catch (err) {
        if (runtime.errorOf(err).status !== 304) throw err;
      }
      stopped.push(c);
      log(`stopped ${c.name}`);
    }));
  } catch (err) {
    await start().catch((e: Error) => log(e.message));
    throw new Error(`stopping the containers failed: ${runtime.errorOf(err).reason}`);
  }
  if (!running.length) log(`no container of ${stacks.join(', ')} ${onlyMounting ? 'that mounts them ' : ''}was running`);
  return start;
}

export function stacksTarget(deps: { runtime: DockerRuntime; stacks: StacksApi; stopSeconds: number; journal?: StoppedJournal }): BackupTarget {
  const { runtime, stacks } = deps;
  return {
    key: stacksKey,
    description: 'the named volumes of these stacks',
    schema: Type.Array(stacks.nameSchema, { uniqueItems: true, maxItems: 100 }),
    empty: (value) => !(value as string[]).length,
    resources: (value) => (value as string[]).map((stack) => `stack:${stack}`),
    async check(value, principal: Principal) {
      // reading a stack's data is as much as acting on it
      for (const stack of value as string[]) await stacks.access(stack, principal, 'deploy');
    },
    async prepare(value, io: TargetIo) {
      const names = value as string[];
      const found = await volumesOf(runtime, names);
      for (const { stack, volumes } of found) {
        io.log(volumes.length ? `stack ${stack}: volumes ${volumes.map((v) => v.name).join(', ')}` : `stack ${stack} has no named volumes (yet): nothing of it to back up`);
      }
      const sources = found.flatMap(({ stack, volumes }) => volumes.map((v) => ({ name: `${stack}/${v.name}`, path: v.mountpoint })));
      if (io.consistency !== 'stop' || !sources.length) return { sources };
      const withVolumes = found.filter((f) => f.volumes.length).map((f) => f.stack);
      io.log(`consistency stop: stopping the containers of ${withVolumes.join(', ')} for the snapshot`);
      const start = await stopStacks(runtime, withVolumes, deps.stopSeconds, io.log, undefined, deps.journal && { journal: deps.journal, runId: io.runId });
      return { sources, release: start };
    },
  };
}

/** the stack and volume a snapshot folder /stacks/<stack>/<volume> came from */
export function stackVolumeOf(logical: string): { stack: string; volume: string } | null {
  const m = /^\/stacks\/([a-z0-9][a-z0-9-]{0,62})\/([A-Za-z0-9][A-Za-z0-9_.-]*)$/.exec(logical);
  return m ? { stack: m[1], volume: m[2] } : null;
}

export const notAStackVolume = (logical: string) => problem(422, `${logical} is not a stack volume of this backup; restore it into a folder or a new volume`);
