// The ownership labels that mark what a project (of which installation) created, and the names Dockwright gives containers.
import type { Ownership } from './types.ts';
export const label = {
  managed: 'dockwright.managed',
  project: 'dockwright.project',
  service: 'dockwright.service',
  number: 'dockwright.number',
  configHash: 'dockwright.config-hash',
  /** the installation (one per database) that made it; absent on what Dockwright made before installations were labelled */
  installation: 'dockwright.installation',
  /** the service's pre_stop hooks (JSON), run before the container is stopped */
  preStop: 'dockwright.pre-stop',
} as const;

/** the network the edge joins routed containers to (every installation on an engine shares it), and the label it carries */
export const edgeNetworkName = 'dockwright-edge';
export const edgeNetworkLabel = 'dockwright.edge';
/** the networks Docker makes itself: the host's, the default bridge, none, and swarm's gateway bridge and ingress */
export const dockerNetworkNames: readonly string[] = ['host', 'bridge', 'none', 'docker_gwbridge', 'ingress'];

/**
 * Whether an engine network is one no stack may join: the edge's (any installation's), or one of Docker's own (also by
 * what it is: a host or null driver, an ingress network, the default bridge), whatever name it was asked by.
 */
export function reservedNetwork(info: { Name: string; Driver?: string; Ingress?: boolean; Options?: Record<string, string> | null; Labels?: Record<string, string> | null }): 'edge' | 'docker' | null {
  if (info.Name === edgeNetworkName || info.Labels?.[edgeNetworkLabel] === 'true') return 'edge';
  if (dockerNetworkNames.includes(info.Name) || info.Driver === 'host' || info.Driver === 'null' || info.Ingress === true
    || info.Options?.['com.docker.network.bridge.default_bridge'] === 'true') return 'docker';
  return null;
}

/** a dockwright.* label a compose file may set: the edge's dockwright.http.* and the update policy's dockwright.update(.monitor) */
export const userLabel = (k: string): boolean => k.startsWith('dockwright.http.') || k === 'dockwright.update' || k === 'dockwright.update.monitor';
export const reservedLabelMessage = 'labels starting with dockwright. are reserved (except dockwright.http.*, dockwright.update and dockwright.update.monitor)';

/**
 * Whose a container (network, volume) is, by its labels. Managed without an installation label: made before installations
 * were labelled, adopted as this installation's (every installation on the engine adopts it alike).
 */
export function ownershipOf(labels: Readonly<Record<string, string>> | null | undefined, installation: string): Ownership {
  if (labels?.[label.managed] !== 'true' || !labels[label.project]) return { owner: 'none' };
  const theirs = labels[label.installation];
  if (theirs && theirs !== installation) return { owner: 'other', installation: theirs };
  return { owner: 'this', project: labels[label.project], service: labels[label.service] ?? null };
}

/** managed by this installation (or adopted: managed, but older than installation labels) */
export const isOurs = (labels: Readonly<Record<string, string>> | null | undefined, installation: string): boolean =>
  ownershipOf(labels, installation).owner === 'this';

export const labelsFor = {
  project: (project: string): Record<string, string> => ({ [label.managed]: 'true', [label.project]: project }),
  container: (project: string, service: string, number: number, hash: string): Record<string, string> => ({
    [label.managed]: 'true', [label.project]: project, [label.service]: service, [label.number]: String(number), [label.configHash]: hash,
  }),
};

/**
 * Docker Compose's own labels, set beside Dockwright's so `docker compose -p <stack> ps`, `logs` and the tools built on
 * them see a stack as the compose project it is. They describe; the `dockwright.*` labels above decide ownership.
 */
export const composeLabel = {
  project: 'com.docker.compose.project',
  service: 'com.docker.compose.service',
  number: 'com.docker.compose.container-number',
  oneoff: 'com.docker.compose.oneoff',
  configHash: 'com.docker.compose.config-hash',
  workingDir: 'com.docker.compose.project.working_dir',
  configFiles: 'com.docker.compose.project.config_files',
  version: 'com.docker.compose.version',
  dependsOn: 'com.docker.compose.depends_on',
  network: 'com.docker.compose.network',
  volume: 'com.docker.compose.volume',
} as const;

/**
 * The Docker Compose release whose label set these follow (v2: `depends_on`, `oneoff` "False"). A version number on
 * purpose: docker-compose 1.x compares it with 1.21.0 to tell projects named the old way.
 */
export const composeVersion = '2.24.0';

export const composeLabelsFor = {
  /** what compose puts on a service's container; `workdir`: the stack's source tree, when it has one */
  container: (project: string, s: { name: string; dependsOn: readonly { service: string; condition: string }[] }, number: number, hash: string, workdir: string | undefined): Record<string, string> => ({
    [composeLabel.project]: project,
    [composeLabel.service]: s.name,
    [composeLabel.number]: String(number),
    [composeLabel.oneoff]: 'False',
    [composeLabel.configHash]: hash,
    [composeLabel.version]: composeVersion,
    // compose's own format: service:condition:restart, comma-separated
    [composeLabel.dependsOn]: s.dependsOn.map((d) => `${d.service}:${d.condition}:false`).join(','),
    ...(workdir ? { [composeLabel.workingDir]: workdir } : {}),
  }),
  network: (project: string, key: string): Record<string, string> => ({ [composeLabel.project]: project, [composeLabel.network]: key, [composeLabel.version]: composeVersion }),
  volume: (project: string, key: string): Record<string, string> => ({ [composeLabel.project]: project, [composeLabel.volume]: key, [composeLabel.version]: composeVersion }),
};

/** label filters for listContainers/listNetworks/listVolumes */
export const filterFor = {
  managed: (): { label: string[] } => ({ label: [`${label.managed}=true`] }),
  project: (project: string): { label: string[] } => ({ label: [`${label.managed}=true`, `${label.project}=${project}`] }),
};

export function containerName(project: string, service: string, number: number, explicit: string | null): string {
  return explicit ?? `${project}-${service}-${number}`;
}

// A container being replaced is set aside under this name, then stopped, until its successor runs; a crash in between leaves it for
// reconcile, which needs to know whether it ran before (a service that had completed stays stopped when it is put back).
const replacedMark = /-dwold-[0-9a-f]{12}(-stopped)?$/;
export const replacedName = (name: string, id: string, wasRunning: boolean): string => `${name}-dwold-${id.slice(0, 12)}${wasRunning ? '' : '-stopped'}`;
export const isReplacedName = (name: string): boolean => replacedMark.test(name);
export const originalName = (name: string): string => name.replace(replacedMark, '');
export const ranBeforeReplaced = (name: string): boolean => !name.endsWith('-stopped');

// A start-first replacement starts the new container under this name beside the old one; it takes the usual name when it
// takes over (the old one is then set aside under replacedName). The edge never routes a starting container.
const startingMark = /-dwnew-[0-9a-f]{12}$/;
export const startingName = (name: string, token: string): string => `${name}-dwnew-${token}`;
export const isStartingName = (name: string): boolean => startingMark.test(name);
export const nameBeforeStarting = (name: string): string => name.replace(startingMark, '');
/** what a container's name says about serving: its service's (serving), a successor not ready yet (starting), or set aside by a replacement (replaced) */
export const servingRole = (name: string): 'serving' | 'starting' | 'replaced' => isStartingName(name) ? 'starting' : isReplacedName(name) ? 'replaced' : 'serving';

/** docker list entries name containers "/name" */
export const bareName = (names: readonly string[] | undefined): string => (names?.[0] ?? '').replace(/^\//, '');
