// Read-only views of the engine: project status from a container list, published ports, container names and named volumes and networks held, and the engine's version.
import { compareText } from '../../sdk/index.ts';
import type Dockerode from 'dockerode';
import type { ContainerInfo } from 'dockerode';
import type { ContainerStatus, Ownership, ServiceStatus } from './types.ts';
import { bareName, label, ownershipOf, reservedNetwork } from './labels.ts';
import { engineProblem, reasonOf, statusOf } from './client.ts';

/** "Up 2 minutes (healthy)" → healthy; the list call carries health only in this text. */
export function healthOf(status: string): string | null {
  const m = /\((healthy|unhealthy|health: starting)\)/.exec(status);
  return m ? (m[1] === 'health: starting' ? 'starting' : m[1]) : null;
}

export function containerStatus(c: ContainerInfo): ContainerStatus {
  return {
    id: c.Id, name: bareName(c.Names), state: c.State, status: c.Status, health: healthOf(c.Status),
    image: c.Image, createdAt: new Date(c.Created * 1000).toISOString(), imageId: c.ImageID,
    // the engine lists a port once per address family: once here
    ports: [...new Map((c.Ports ?? []).filter((p) => p.PublicPort).map((p) => [`${p.PublicPort}/${p.PrivatePort}/${p.Type}`,
      { hostIp: p.IP ?? null, hostPort: p.PublicPort, containerPort: p.PrivatePort, protocol: p.Type }])).values()],
  };
}

/**
 * The services and containers of every project in a list of this installation's containers, sorted by name. Frozen:
 * the runtime keeps them for as long as the live table does not change, and every read shares them.
 */
export function projectStatus(list: readonly ContainerInfo[]): Map<string, readonly ServiceStatus[]> {
  const found = new Map<string, ServiceStatus[]>();
  for (const c of list) {
    const project = c.Labels?.[label.project];
    const service = c.Labels?.[label.service];
    if (!project || !service) continue;
    const services = found.get(project) ?? found.set(project, []).get(project)!;
    let entry = services.find((s) => s.service === service);
    if (!entry) services.push(entry = { service, containers: [] });
    entry.containers.push(Object.freeze(containerStatus(c)));
  }
  for (const services of found.values()) {
    services.sort((a, b) => compareText(a.service, b.service));
    for (const s of services) {
      s.containers.sort((a, b) => compareText(a.name, b.name));
      Object.freeze(s.containers);
      Object.freeze(s);
    }
    Object.freeze(services);
  }
  return found;
}

const noServices: readonly ServiceStatus[] = Object.freeze([]);

/** each named project's services; those with no containers share one empty list */
export function servicesOfProjects(projects: ReadonlyMap<string, readonly ServiceStatus[]>, names: readonly string[]): Map<string, readonly ServiceStatus[]> {
  const out = new Map<string, readonly ServiceStatus[]>();
  for (const name of names) out.set(name, projects.get(name) ?? noServices);
  return out;
}

/**
 * Host ports published by running containers (project null: not this installation's). One list call rather than the
 * live table: a write is validated against the engine itself, and the table does not know ports a moment after a start.
 */
export async function publishedPorts(docker: Dockerode, installation: string, exceptProject?: string): Promise<{ project: string | null; hostPort: number; protocol: string }[]> {
  const list = await docker.listContainers({ all: false, size: false });
  const seen = new Set<string>();
  const out: { project: string | null; hostPort: number; protocol: string }[] = [];
  for (const c of list) {
    const owner = ownershipOf(c.Labels, installation);
    const project = owner.owner === 'this' ? owner.project : null;
    if (exceptProject !== undefined && project === exceptProject) continue;
    for (const p of c.Ports ?? []) {
      if (!p.PublicPort) continue;
      const key = `${project}/${p.PublicPort}/${p.Type}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ project, hostPort: p.PublicPort, protocol: p.Type });
    }
  }
  return out.sort((a, b) => a.hostPort - b.hostPort);
}

/** the containers (any state) holding these names on the engine, and whose they are; names are global on an engine */
export async function containerNameHolders(docker: Dockerode, installation: string, names: readonly string[]): Promise<{ name: string; id: string; owner: Ownership }[]> {
  if (!names.length) return [];
  const wanted = new Set(names);
  const list = await docker.listContainers({ all: true, size: false });
  return list.filter((c) => wanted.has(bareName(c.Names))).map((c) => ({ name: bareName(c.Names), id: c.Id, owner: ownershipOf(c.Labels, installation) }));
}

/** the volumes or networks holding these names on the engine, and whose they are (an external or explicitly named one may be another's) */
export async function resourceHolders(docker: Dockerode, installation: string, kind: 'volume' | 'network', names: readonly string[]): Promise<{ name: string; owner: Ownership }[]> {
  if (!names.length) return [];
  const wanted = new Set(names);
  // the engine's name filter matches parts of names: exact names are kept here
  const found = kind === 'volume'
    ? ((await docker.listVolumes({ filters: { name: [...wanted] } })).Volumes ?? []).map((v) => ({ name: v.Name, labels: v.Labels }))
    : (await docker.listNetworks({ filters: { name: [...wanted] } })).map((n) => ({ name: n.Name, labels: n.Labels }));
  return found.filter((r) => wanted.has(r.name)).map((r) => ({ name: r.name, owner: ownershipOf(r.labels, installation) }));
}

/**
 * Which of these network names the engine resolves (as it does when a container joins one: a name, an id or an id's
 * prefix) to the edge's network or one of Docker's own; a name it does not know is none of them.
 */
export async function reservedNetworks(docker: Dockerode, names: readonly string[]): Promise<{ name: string; network: string; reserved: 'edge' | 'docker' }[]> {
  const found = await Promise.all([...new Set(names)].map(async (name) => {
    try {
      const info = await docker.getNetwork(name).inspect();
      const reserved = reservedNetwork(info);
      return reserved ? [{ name, network: info.Name, reserved }] : [];
    } catch (err) {
      if (statusOf(err) === 404) return [];
      throw err;
    }
  }));
  return found.flat();
}

export async function engineState(docker: Dockerode, endpoint: string): Promise<{ ok: true; version: string } | { ok: false; reason: string }> {
  try {
    const v = await docker.version();
    return { ok: true, version: v.Version };
  } catch (err) {
    return { ok: false, reason: engineProblem(err, endpoint)?.detail ?? reasonOf(err) };
  }
}
