// A project's networks and volumes (created on deploy, labelled as ours) and taking a project down: stop, remove, volumes.
import type Dockerode from 'dockerode';
import type { AddressPool } from './address-pool.ts';
import type { DeployIo, InstallationVolume, NormalizedNetwork, NormalizedVolume } from './types.ts';
import { reasonOf, statusOf } from './client.ts';
import { beforeStop } from './hooks.ts';
import { bareName, composeLabelsFor, filterFor, isOurs, label, ownershipOf, reservedNetwork } from './labels.ts';

/** the engine, and the installation whose containers, networks and volumes are the only ones acted on */
export interface Owned { docker: Dockerode; installation: string }
export interface ResourceDeps extends Owned { stopSeconds: number; /** bound of each pre_stop hook (default 2 min) */ hookTimeoutMs?: number }

/** an existing network or volume of this name must be the project's own (or declared external): never another project's or installation's */
function assertOwned(kind: string, name: string, external: boolean, labels: Record<string, string> | undefined, wanted: Record<string, string>, installation: string): void {
  if (external) return;
  const owner = ownershipOf(labels, installation);
  if (owner.owner === 'this' && owner.project === wanted[label.project]) return;
  const whose = owner.owner === 'this' ? `project ${owner.project}` : owner.owner === 'other' ? `another Dockwright installation (${owner.installation})` : 'something outside Dockwright';
  throw new Error(`the ${kind} "${name}" exists but belongs to ${whose}; it is not reused`);
}

/** the containers of a project made by this installation (or adopted: made before installations were labelled) */
export async function projectContainers({ docker, installation }: Owned, project: string): Promise<Dockerode.ContainerInfo[]> {
  const list = await docker.listContainers({ all: true, size: false, filters: filterFor.project(project) });
  return list.filter((c) => isOurs(c.Labels, installation));
}

/** the networks of a project made by this installation (or adopted) */
export async function projectNetworks({ docker, installation }: Owned, project: string): Promise<Dockerode.NetworkInspectInfo[]> {
  return (await docker.listNetworks({ filters: filterFor.project(project) })).filter((n) => isOurs(n.Labels, installation));
}

/**
 * creates the networks the project lacks. A bridge network whose compose entry sets no `ipam` gets a subnet from the
 * address pool, sized for the containers that join it (`members`): Docker's default pools hold about 30 networks
 */
export async function ensureNetworks({ docker, installation }: Owned, networks: readonly NormalizedNetwork[], io: DeployIo, pool?: { addresses: AddressPool; members: ReadonlyMap<string, number> }): Promise<void> {
  await Promise.all(networks.map(async (n) => {
    try {
      const info = await docker.getNetwork(n.name).inspect();
      // the edge joins what it routes itself: a stack that joined its network would reach every routed container directly
      if (reservedNetwork(info) === 'edge') throw new Error(`the network "${n.name}" is the edge's (${info.Name}): a stack never joins it; a service is routed by its dockwright.http.host label`);
      assertOwned('network', n.name, n.external, info.Labels, n.labels, installation);
      return;
    } catch (err) {
      if (statusOf(err) !== 404) throw err;
    }
    if (n.external) throw new Error(`the external network "${n.name}" does not exist: create it first, or drop external: true`);
    const create = (subnet?: string) => docker.createNetwork({
      Name: n.name, Driver: n.driver, Options: n.driverOpts, Internal: n.internal, Attachable: n.attachable, EnableIPv6: n.enableIpv6 || undefined,
      IPAM: n.ipam ? {
        Driver: n.ipam.driver, Options: n.ipam.options,
        Config: n.ipam.config.map((c) => ({ Subnet: c.subnet, IPRange: c.ipRange, Gateway: c.gateway, AuxiliaryAddresses: c.auxAddresses })),
      } : subnet ? { Driver: 'default', Config: [{ Subnet: subnet }] } : undefined,
      Labels: { ...n.labels, ...composeLabelsFor.network(n.labels[label.project], n.key), [label.installation]: installation }, CheckDuplicate: true,
    });
    const pooled = pool && !n.ipam && (n.driver === 'bridge' || !n.driver);
    try {
      if (pooled) {
        const subnet = await pool.addresses.create(pool.members.get(n.name) ?? 1, async (s) => { await create(s); });
        io.log(`network ${n.name} created (${subnet})`);
      } else {
        await create();
        io.log(`network ${n.name} created`);
      }
    } catch (err) {
      if (statusOf(err) !== 409) throw new Error(`the network "${n.name}" could not be created: ${reasonOf(err)}`);
    }
  }));
}

export async function ensureVolumes({ docker, installation }: Owned, volumes: readonly NormalizedVolume[], io: DeployIo): Promise<void> {
  await Promise.all(volumes.map(async (v) => {
    try {
      const info = await docker.getVolume(v.name).inspect();
      assertOwned('volume', v.name, v.external, info.Labels ?? undefined, v.labels, installation);
      return;
    } catch (err) {
      if (statusOf(err) !== 404) throw err;
    }
    if (v.external) throw new Error(`the external volume "${v.name}" does not exist: create it first, or drop external: true`);
    await docker.createVolume({ Name: v.name, Driver: v.driver, DriverOpts: v.driverOpts, Labels: { ...v.labels, ...composeLabelsFor.volume(v.labels[label.project], v.key), [label.installation]: installation } });
    io.log(`volume ${v.name} created`);
  }));
}

/** stops (ignoring "already stopped") then removes a container; `volumes` also removes its anonymous volumes. */
export async function removeContainer(deps: { docker: Dockerode; stopSeconds: number }, id: string, opts: { volumes: boolean; stopSeconds?: number }): Promise<void> {
  const c = deps.docker.getContainer(id);
  try {
    await c.stop({ t: opts.stopSeconds ?? deps.stopSeconds });
  } catch (err) {
    const status = statusOf(err);
    if (status === 404) return;
    if (status !== 304) throw err;
  }
  try {
    await c.remove({ force: true, v: opts.volumes });
  } catch (err) {
    if (statusOf(err) === 404) return;
    if (statusOf(err) !== 409) throw err;
    // 409: a removal is already under way (one a stopped process asked for, say): it is done only once the container is
    // gone, else its networks and volumes are still in use when they are removed next. Should that removal fail (the
    // container left dead) or not end within the client's bound, it is asked for once more here
    const gone = await c.wait({ condition: 'removed' }).then(() => true, (err) => statusOf(err) === 404);
    if (!gone) await c.remove({ force: true, v: opts.volumes }).catch((err) => { if (statusOf(err) !== 404) throw err; });
  }
}

/** removes the project's containers and networks; volumes stay. */
export async function takeDown(deps: ResourceDeps, project: string, io: DeployIo, opts: { volumes: boolean }): Promise<string[]> {
  const containers = await projectContainers(deps, project);
  const removed: string[] = [];
  const failures: string[] = [];
  await Promise.all(containers.map(async (c) => {
    const name = bareName(c.Names);
    try {
      await beforeStop(deps.docker, c, name, io, deps.hookTimeoutMs ?? 120_000);
      const running = c.State === 'running' || c.State === 'restarting';
      // a stop waits up to the grace period for the process to end on its stop signal: said before, and how it ended after
      if (running) io.log(`${name}: stopping: its stop signal is sent, and it is killed if it has not exited within ${deps.stopSeconds} s`);
      const started = Date.now();
      await removeContainer(deps, c.Id, { volumes: opts.volumes });
      const took = (Date.now() - started) / 1000;
      removed.push(name);
      io.log(running && took >= deps.stopSeconds ? `${name} removed (it did not exit within the ${deps.stopSeconds} s grace period and was killed; took ${took.toFixed(1)} s)` : `${name} removed${running ? ` (stopped in ${took.toFixed(1)} s)` : ''}`);
    } catch (err) {
      failures.push(`${name}: ${reasonOf(err)}`);
    }
  }));
  if (failures.length) throw new Error(`some containers of "${project}" could not be removed: ${failures.join('; ')}`);
  const networks = await projectNetworks(deps, project);
  for (const n of networks) {
    try {
      await deps.docker.getNetwork(n.Id).remove();
      io.log(`network ${n.Name} removed`);
    } catch (err) {
      if (statusOf(err) !== 404) io.log(`network ${n.Name} kept: ${reasonOf(err)}`);
    }
  }
  if (!containers.length && !networks.length) io.log(`nothing of "${project}" was running`);
  return removed.sort();
}

/** removes the project's named volumes (this installation's); answers their names */
export async function removeVolumes({ docker, installation }: Owned, project: string, io: DeployIo): Promise<string[]> {
  const { Volumes } = await docker.listVolumes({ filters: filterFor.project(project) });
  const failures: string[] = [];
  const removed: string[] = [];
  for (const v of (Volumes ?? []).filter((x) => isOurs(x.Labels, installation))) {
    try {
      await docker.getVolume(v.Name).remove();
      removed.push(v.Name);
      io.log(`volume ${v.Name} removed`);
    } catch (err) {
      if (statusOf(err) !== 404) failures.push(`${v.Name}: ${reasonOf(err)}`);
    }
  }
  if (failures.length) throw new Error(`some volumes of "${project}" could not be removed: ${failures.join('; ')}`);
  return removed.sort();
}

/**
 * This installation's named volumes (adopted ones included), each with its project. Sizes and the number of containers
 * using each come from the engine's `GET /system/df`, which walks every volume's data: only when asked.
 */
export async function installationVolumes({ docker, installation }: Owned, opts: { size: boolean }): Promise<InstallationVolume[]> {
  const [{ Volumes }, usage] = await Promise.all([
    docker.listVolumes({ filters: filterFor.managed() }),
    opts.size ? docker.df() as Promise<{ Volumes?: { Name: string; UsageData?: { Size: number; RefCount: number } | null }[] | null }> : Promise.resolve(null),
  ]);
  const used = new Map((usage?.Volumes ?? []).map((v) => [v.Name, v.UsageData]));
  return (Volumes ?? []).flatMap((v): InstallationVolume[] => {
    const owner = ownershipOf(v.Labels, installation);
    if (owner.owner !== 'this') return [];
    const data = used.get(v.Name);
    // the engine answers -1 for what it could not measure
    const known = (n: number | undefined) => (n === undefined || n < 0 ? null : n);
    return [{
      name: v.Name, project: owner.project, driver: v.Driver, createdAt: (v as { CreatedAt?: string }).CreatedAt ?? null,
      size: opts.size ? known(data?.Size) : null, containers: opts.size ? known(data?.RefCount) : null,
    }];
  }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** the project of one of this installation's volumes; null when there is no such volume or it is not this installation's */
export async function volumeProject({ docker, installation }: Owned, name: string): Promise<string | null> {
  try {
    const info = await docker.getVolume(name).inspect();
    const owner = ownershipOf(info.Labels ?? undefined, installation);
    return owner.owner === 'this' ? owner.project : null;
  } catch (err) {
    if (statusOf(err) === 404) return null;
    throw err;
  }
}

/** removes one volume of this installation: `absent` when it is gone (or not ours), `in-use` when a container uses it */
export async function removeVolume(deps: Owned, name: string): Promise<'removed' | 'absent' | 'in-use'> {
  if ((await volumeProject(deps, name)) === null) return 'absent';
  try {
    await deps.docker.getVolume(name).remove();
    return 'removed';
  } catch (err) {
    if (statusOf(err) === 404) return 'absent';
    if (statusOf(err) === 409) return 'in-use';
    throw err;
  }
}
