// Converging a project: orphans out, then every service created, recreated or left alone, in dependency order and in parallel where the graph allows.
import type Dockerode from 'dockerode';
import type { ContainerInfo } from 'dockerode';
import type { AddressPool } from './address-pool.ts';
import type { DeployIo, DeployResult, DependsCondition, EdgeRouting, LoadedCompose, NormalizedService } from './types.ts';
import { reasonOf, statusOf } from './client.ts';
import { builtImageId } from './build.ts';
import { beforeStop, runHooks } from './hooks.ts';
import { imageId, pullImage, type ImageDeps } from './images.ts';
import { bareName, isReplacedName, isStartingName, label, ownershipOf, replacedName } from './labels.ts';
import { ensureNetworks, ensureVolumes, projectContainers, projectNetworks, removeContainer, type Owned } from './resources.ts';
import { replaceContainers, type Replacement } from './rollout.ts';
import { writeServiceFiles, type SecretsDir } from './secrets.ts';
import { endpointConfig, planContainer, type ContainerPlan } from './spec.ts';
import { joinedService } from './compose/network-mode.ts';
import { limiter, plural, sleep } from './util.ts';
import { realExisting } from '../../sdk/index.ts';

export interface DeployDeps extends Owned {
  images: ImageDeps;
  stopSeconds: number;
  healthTimeoutMs: number;
  /** containers created or started at the same time */
  parallel: number;
  /** where the services' secret and config files are written */
  secretsDir: SecretsDir;
  /** the edge's view of the services it routes (they are replaced start-first); null without an edge */
  routing: EdgeRouting | null;
  /** where the project's bridge networks take their subnets (none: Docker's default pools) */
  addresses?: AddressPool;
}

/** how many containers join each network of the project (its services' replicas) */
function networkMembers(loaded: LoadedCompose): Map<string, number> {
  const members = new Map<string, number>();
  for (const s of loaded.services) {
    if (s.networkMode) continue;
    for (const n of s.networks) members.set(n.name, (members.get(n.name) ?? 0) + Math.max(1, s.replicas));
  }
  return members;
}

type Action = DeployResult['services'][number]['action'];
const rank: Record<Action, number> = { unchanged: 0, created: 1, recreated: 2 };

/** a service not started because `dependency` failed or never got healthy */
class DependencyFailed extends Error {
  constructor(message: string, readonly dependency: string) { super(message); }
}

/**
 * Makes every image of the services present (pulling or building per pull_policy) and answers their ids by reference.
 * Distinct images are fetched in parallel.
 */
export async function ensureImages(deps: ImageDeps, services: readonly NormalizedService[], io: DeployIo): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const builds = services.filter((s) => s.build && s.pullPolicy === 'build');
  const pulled = new Map<string, NormalizedService['pullPolicy']>();
  for (const s of services) {
    if (s.build && s.pullPolicy === 'build') continue;
    if (pulled.get(s.image) !== 'always') pulled.set(s.image, s.pullPolicy);
  }
  await Promise.all([
    ...[...pulled].map(async ([ref, policy]) => {
      let id = policy === 'always' ? null : await imageId(deps.docker, ref);
      if (!id && policy === 'never') throw new Error(`image "${ref}" is not present locally, and its pull_policy is never`);
      if (!id) {
        try {
          await pullImage(deps, ref, io);
        } catch (err) {
          if (io.signal?.aborted) throw err;
          const local = policy === 'always' ? await imageId(deps.docker, ref) : null;
          if (!local) throw new Error(`image "${ref}" not found locally and could not be pulled: ${reasonOf(err)}`);
          io.log(`${ref}: pulling failed (${reasonOf(err)}); using the local image`);
        }
        id = await imageId(deps.docker, ref);
        if (!id) throw new Error(`image "${ref}" is still missing after pulling it`);
      }
      ids.set(ref, id);
    }),
    ...builds.map(async (s) => { ids.set(s.image, await builtImageId(deps, s, io)); }),
  ]);
  return ids;
}

export async function deployProject(deps: DeployDeps, project: string, loaded: LoadedCompose, io: DeployIo): Promise<DeployResult> {
  const { docker } = deps;
  const signal = io.signal;
  for (const w of loaded.warnings) io.log(`warning: ${w.path ? `${w.path}: ` : ''}${w.message}`);
  io.log(`deploying ${plural(loaded.services.length, 'service')}: ${loaded.services.map((s) => s.name).join(', ')}`);
  // before images: an external secret (swarm only) stops the deploy before anything changes
  const files = writeServiceFiles(deps.secretsDir, project, loaded, io);
  // images first: a deploy that cannot get them leaves nothing behind
  const imageIds = await ensureImages(deps.images, loaded.services, io);
  signal?.throwIfAborted();
  const pool = deps.addresses && { addresses: deps.addresses, members: networkMembers(loaded) };
  await Promise.all([ensureNetworks(deps, loaded.networks, io, pool), ensureVolumes(deps, loaded.volumes, io)]);
  signal?.throwIfAborted();

  const existing = await projectContainers(deps, project);
  const wanted = new Map(loaded.services.map((s) => [s.name, s]));
  const removed: string[] = [];
  // what a crashed deploy set aside or started beside, orphans of services no longer in the file, and replicas beyond the count
  const extra = existing.filter((c) => {
    const s = wanted.get(c.Labels[label.service]);
    return isReplacedName(bareName(c.Names)) || isStartingName(bareName(c.Names)) || !s || Number(c.Labels[label.number]) > s.replicas || !(Number(c.Labels[label.number]) >= 1);
  });
  await Promise.all(extra.map(async (c) => {
    const name = bareName(c.Names);
    await beforeStop(docker, c, name, io, deps.healthTimeoutMs);
    await removeContainer({ docker, stopSeconds: deps.stopSeconds }, c.Id, { volumes: true });
    removed.push(name);
    io.log(wanted.has(c.Labels[label.service]) ? `${name} removed (left over)` : `${name} removed (orphan: its service is no longer in the file)`);
  }));
  const current = existing.filter((c) => !extra.includes(c));

  const limit = limiter(deps.parallel);
  const started = new Map<string, Promise<string[]>>();
  const conditions = new Map<string, Promise<void>>();
  const actions = new Map<string, Action>();

  const converge = async (s: NormalizedService): Promise<string[]> => {
    let action: Action = 'unchanged';
    const ids: string[] = [];
    const changed: Replacement[] = [];
    const env = Object.keys(s.environment).length;
    // a container in another's network namespace loses it when that one is replaced: it is replaced after it
    const joined = joinedService(s);
    const rejoin = joined !== null && actions.get(joined) !== 'unchanged';
    for (let n = 1; n <= s.replicas; n++) {
      const plan = planContainer(project, files.service(s), n, imageIds.get(s.image)!, deps.installation);
      const have = current.find((c) => c.Labels[label.service] === s.name && Number(c.Labels[label.number]) === n);
      signal?.throwIfAborted();
      if (!have) {
        io.log(`${plan.name}: creating (image ${s.image}, environment: ${plural(env, 'variable')})`);
        ids.push(await limit(() => createAndStart(deps, plan, io)));
        io.log(`${plan.name}: started`);
        action = rank[action] < rank.created ? 'created' : action;
      } else if (!rejoin && have.Labels[label.configHash] === plan.hash && have.State !== 'dead' && have.State !== 'removing') {
        if (have.State === 'created' || have.State === 'exited') {
          await limit(() => startIgnoringStarted(docker, have.Id));
          io.log(`${plan.name}: unchanged, started`);
        } else {
          io.log(`${plan.name}: unchanged`);
        }
        ids.push(have.Id);
      } else {
        changed.push({ have, plan });
      }
    }
    if (changed.length) {
      io.log(`${s.name}: configuration changed for ${changed.map((c) => c.plan.name).join(', ')} (environment: ${plural(env, 'variable')})`);
      ids.push(...await replaceContainers({
        docker, stopSeconds: deps.stopSeconds, routing: deps.routing, hookTimeoutMs: deps.healthTimeoutMs,
        createAndStart: (plan) => limit(() => createAndStart(deps, plan, io)),
        recreate: (old, plan, stopSeconds, keepOld) => limit(() => recreate(deps, old, plan, stopSeconds, io, keepOld)),
      }, project, s, changed, io));
      action = 'recreated';
    }
    actions.set(s.name, action);
    return ids;
  };

  const condition = (dep: string, cond: DependsCondition): Promise<void> => {
    const key = `${dep}:${cond}`;
    let p = conditions.get(key);
    if (!p) {
      p = (async () => {
        let ids: string[];
        try {
          ids = await run(dep);
        } catch (err) {
          throw new DependencyFailed(err instanceof DependencyFailed ? err.message : `"${dep}" failed`, dep);
        }
        if (cond === 'service_healthy') await waitHealthy(deps, dep, ids, io);
        if (cond === 'service_completed_successfully') await waitCompleted(deps, dep, ids, io);
      })();
      conditions.set(key, p);
    }
    return p;
  };

  const run = (name: string): Promise<string[]> => {
    let p = started.get(name);
    if (!p) {
      const s = wanted.get(name)!;
      p = (async () => {
        for (const d of s.dependsOn) {
          try {
            await condition(d.service, d.condition);
          } catch (err) {
            if (d.required || !(err instanceof DependencyFailed)) throw new DependencyFailed(`${name} was not started: ${err instanceof DependencyFailed ? err.message : reasonOf(err)}`, d.service);
            io.log(`${name}: its optional dependency ${d.service} failed; starting anyway`);
          }
        }
        signal?.throwIfAborted();
        return converge(s);
      })();
      started.set(name, p);
    }
    return p;
  };

  const results = await Promise.allSettled(loaded.services.map((s) => run(s.name)));
  const failures = results.flatMap((r, i) => r.status === 'rejected' ? [{ service: loaded.services[i].name, err: r.reason as unknown }] : []);
  if (failures.length) {
    signal?.throwIfAborted();
    // a service that failed on its own, or the first one a dependency let down, tells the story; its dependents only repeat it
    const failed = new Set(failures.map((f) => f.service));
    const shown = failures.filter((f) => !(f.err instanceof DependencyFailed && failed.has(f.err.dependency)));
    const text = shown.map((f) => f.err instanceof DependencyFailed ? f.err.message : `${f.service}: ${reasonOf(f.err)}`);
    const more = failures.length - shown.length;
    throw new Error(`deploy of "${project}" failed: ${text.join('; ')}${more ? ` (${plural(more, 'dependent service')} not started)` : ''}`);
  }
  await removeUnusedNetworks(deps, project, loaded, io);
  // every container now mounts the files of this deploy: those of the containers it replaced go
  files.prune();
  io.log(`deployed: ${loaded.services.map((s) => `${s.name} ${actions.get(s.name)}`).join(', ')}${removed.length ? `; removed ${removed.join(', ')}` : ''}`);
  return { services: loaded.services.map((s) => ({ service: s.name, action: actions.get(s.name)! })), removed: removed.sort() };
}

/** networks of this project that no service uses any more (a renamed or dropped network) */
async function removeUnusedNetworks(deps: Owned, project: string, loaded: LoadedCompose, io: DeployIo): Promise<void> {
  const { docker } = deps;
  const wanted = new Set(loaded.networks.map((n) => n.name));
  for (const n of await projectNetworks(deps, project)) {
    if (wanted.has(n.Name)) continue;
    try {
      await docker.getNetwork(n.Id).remove();
      io.log(`network ${n.Name} removed (no service uses it any more)`);
    } catch (err) {
      if (statusOf(err) !== 404) io.log(`network ${n.Name} is no longer used but was kept: ${reasonOf(err)}`);
    }
  }
}

async function startIgnoringStarted(docker: Dockerode, id: string): Promise<void> {
  try {
    await docker.getContainer(id).start();
  } catch (err) {
    if (statusOf(err) !== 304) throw err;
  }
}

/**
 * Bind sources were resolved to real paths when the file was loaded; a link put in their way since (by a container
 * that mounts part of the tree, say) would make the engine mount something else, so the deploy stops instead.
 */
function assertBindsUnmoved(plan: ContainerPlan): void {
  const host = plan.create.HostConfig ?? {};
  const sources = [
    ...(host.Binds ?? []).map((b) => b.slice(0, b.indexOf(':'))),
    ...(host.Mounts ?? []).filter((m) => m.Type === 'bind').map((m) => m.Source),
  ];
  for (const source of sources) {
    if (realExisting(source) !== source) throw new Error(`${plan.name}: the bind mount source ${source} changed into a link since it was checked; refusing to mount it`);
  }
}

/** who holds a container name (names are global on an engine): another stack, another installation, or a container made outside Dockwright */
async function nameHolder(deps: DeployDeps, name: string): Promise<string> {
  try {
    const info = await deps.docker.getContainer(name).inspect();
    const owner = ownershipOf(info.Config.Labels, deps.installation);
    const id = info.Id.slice(0, 12);
    if (owner.owner === 'this') return `the stack ${owner.project} (container ${id})`;
    if (owner.owner === 'other') return `another Dockwright installation (${owner.installation}; container ${id})`;
    return `a container made outside Dockwright (${id}, image ${info.Config.Image})`;
  } catch {
    return 'a container this stack does not own';
  }
}

/** creates, joins the further networks, starts, runs post_start; a container that never ran is removed again, so a retry starts clean. */
async function createAndStart(deps: DeployDeps, plan: ContainerPlan, io: DeployIo): Promise<string> {
  const { docker } = deps;
  assertBindsUnmoved(plan);
  let container: Dockerode.Container;
  try {
    container = await docker.createContainer(plan.create);
  } catch (err) {
    if (statusOf(err) === 409) throw new Error(`the container name "${plan.name}" is held by ${await nameHolder(deps, plan.name)}; choose another container_name, or remove that container`);
    throw new Error(`${plan.name} could not be created: ${withHint(plan, reasonOf(err))}`);
  }
  try {
    for (const n of plan.extraNetworks) await docker.getNetwork(n.name).connect({ Container: container.id, EndpointConfig: endpointConfig(n) });
    await container.start();
  } catch (err) {
    await container.remove({ force: true, v: true }).catch(() => undefined);
    throw new Error(`${plan.name} could not be started: ${withHint(plan, reasonOf(err))}`);
  }
  if (plan.postStart.length) {
    try {
      await runHooks(docker, container.id, plan.name, 'post_start', plan.postStart, io, { timeoutMs: deps.healthTimeoutMs, strict: true });
    } catch (err) {
      await container.remove({ force: true, v: true }).catch(() => undefined);
      throw err;
    }
  }
  return container.id;
}

/** the engine's reason, and which compose key it is about where the engine says it tersely */
function withHint(plan: ContainerPlan, reason: string): string {
  const host = plan.create.HostConfig ?? {};
  if (/could not select device driver/.test(reason) && host.DeviceRequests?.length) {
    return `the engine has no driver for the GPUs that gpus asks for (the NVIDIA Container Toolkit, for NVIDIA GPUs): ${reason}`;
  }
  if (/quota/i.test(reason) && host.StorageOpt) return `storage_opt needs a storage driver and file system with quotas (e.g. overlay2 on xfs with pquota): ${reason}`;
  if (/cpu\.rt_/.test(reason)) return `cpu_rt_runtime and cpu_rt_period need a kernel with real-time group scheduling (and a runtime budget left for the container's cgroup): ${reason}`;
  return reason;
}

/**
 * Stop-first: set the old container aside (its name says whether it ran), stop it, start its successor, then remove it; if the successor
 * fails, the old one comes back. Set aside before it is stopped, so a crash never leaves a stopped container under the service's name.
 */
async function recreate(deps: DeployDeps, old: ContainerInfo, plan: ContainerPlan, stopSeconds: number, io: DeployIo, keepOld = false): Promise<string> {
  const { docker } = deps;
  const oldContainer = docker.getContainer(old.Id);
  const wasRunning = old.State === 'running' || old.State === 'restarting';
  await oldContainer.rename({ name: replacedName(plan.name, old.Id, wasRunning) });
  let id: string;
  try {
    try {
      await beforeStop(docker, old, plan.name, io, deps.healthTimeoutMs);
      await oldContainer.stop({ t: stopSeconds });
    } catch (err) {
      if (statusOf(err) !== 304) throw err;
    }
    id = await createAndStart(deps, plan, io);
  } catch (err) {
    await oldContainer.rename({ name: plan.name }).catch(() => undefined);
    if (wasRunning) await oldContainer.start().catch(() => undefined);
    throw err;
  }
  // the successor runs: the old one must not come back, even if it cannot be removed now (the next deploy or reconcile does);
  // a rollout that may roll back keeps it, stopped and set aside, until the service is done
  if (!keepOld) await removeContainer({ docker, stopSeconds }, old.Id, { volumes: true });
  return id;
}

/**
 * Polls each container (every 250 ms, up to the health timeout) until `settled` says it is done; `settled` throws
 * when the container can no longer get there.
 */
async function waitFor(deps: DeployDeps, ids: string[], io: DeployIo, timedOut: (seconds: number) => string,
  settled: (info: Dockerode.ContainerInspectInfo, name: string) => boolean): Promise<void> {
  const until = Date.now() + deps.healthTimeoutMs;
  for (const id of ids) {
    for (;;) {
      const info = await deps.docker.getContainer(id).inspect();
      if (settled(info, info.Name.replace(/^\//, ''))) break;
      if (Date.now() > until) throw new Error(timedOut(Math.round(deps.healthTimeoutMs / 1000)));
      await sleep(250, io.signal);
    }
  }
}

const waitHealthy = (deps: DeployDeps, service: string, ids: string[], io: DeployIo) => {
  let last = { name: service, health: '' };
  return waitFor(deps, ids, io, (seconds) => `${last.name} did not become healthy within ${seconds} s (health: ${last.health})`, (info, name) => {
    if (!info.State.Health) throw new Error(`${name} has no healthcheck, so nothing can wait for ${service} to be healthy`);
    const health = info.State.Health.Status;
    last = { name, health };
    if (health === 'healthy') { io.log(`${name}: healthy`); return true; }
    if (health === 'unhealthy') throw new Error(`${name} is unhealthy`);
    if (!info.State.Running) throw new Error(`${name} stopped (exit code ${info.State.ExitCode}) before it became healthy`);
    return false;
  });
};

const waitCompleted = (deps: DeployDeps, service: string, ids: string[], io: DeployIo) =>
  waitFor(deps, ids, io, (seconds) => `${service} did not complete within ${seconds} s`, (info, name) => {
    if (info.State.Status !== 'exited' && info.State.Status !== 'dead') return false;
    if (info.State.ExitCode !== 0) throw new Error(`${name} exited with code ${info.State.ExitCode}`);
    io.log(`${name}: completed successfully`);
    return true;
  });
