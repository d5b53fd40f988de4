// A project's networks and volumes (created on deploy, labelled as ours) and taking a project down: stop, remove, volumes.
import type Dockerode from 'dockerode';
import type { DeployIo, NormalizedNetwork, NormalizedVolume } from './types.ts';
import { reasonOf, statusOf } from './client.ts';
import { beforeStop } from './hooks.ts';
import { bareName, composeLabelsFor, filterFor, isOurs, label, ownershipOf } from './labels.ts';

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

export async function ensureNetworks({ docker, installation }: Owned, networks: readonly NormalizedNetwork[], io: DeployIo): Promise<void> {
  await Promise.all(networks.map(async (n) => {
    try {
      const info = await docker.getNetwork(n.name).inspect();
      assertOwned('network', n.name, n.external, info.Labels, n.labels, installation);
      return;
    } catch (err) {
      if (statusOf(err) !== 404) throw err;
    }
    if (n.external) throw new Error(`the external network "${n.name}" does not exist: create it first, or drop external: true`);
    try {
      await docker.createNetwork({
        Name: n.name, Driver: n.driver, Options: n.driverOpts, Internal: n.internal, Attachable: n.attachable, EnableIPv6: n.enableIpv6 || undefined,
        IPAM: n.ipam ? {
          Driver: n.ipam.driver, Options: n.ipam.options,
          Config: n.ipam.config.map((c) => ({ Subnet: c.subnet, IPRange: c.ipRange, Gateway: c.gateway, AuxiliaryAddresses: c.auxAddresses })),
        } : undefined,
        Labels: { ...n.labels, ...composeLabelsFor.network(n.labels[label.project], n.key), [label.installation]: installation }, CheckDuplicate: true,
      });
      io.log(`network ${n.name} created`);
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
    // 409: a removal is already in progress
    if (statusOf(err) !== 404 && statusOf(err) !== 409) throw err;
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
      await removeContainer(deps, c.Id, { volumes: opts.volumes });
      removed.push(name);
      io.log(`${name} removed`);
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

export async function removeVolumes({ docker, installation }: Owned, project: string, io: DeployIo): Promise<void> {
  const { Volumes } = await docker.listVolumes({ filters: filterFor.project(project) });
  const failures: string[] = [];
  for (const v of (Volumes ?? []).filter((x) => isOurs(x.Labels, installation))) {
    try {
      await docker.getVolume(v.Name).remove();
      io.log(`volume ${v.Name} removed`);
    } catch (err) {
      if (statusOf(err) !== 404) failures.push(`${v.Name}: ${reasonOf(err)}`);
    }
  }
  if (failures.length) throw new Error(`some volumes of "${project}" could not be removed: ${failures.join('; ')}`);
}
