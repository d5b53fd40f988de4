// The docker plugin's public API: the runtime that stacks, containers and backups call, and the compose model (compose/model.ts) it loads.
import type Dockerode from 'dockerode';
import type { ContainerInfo } from 'dockerode';
import type { Principal } from '../../sdk/index.ts';
import type { ComposeProject, GitContext, LoadedCompose, NormalizedService } from './compose/model.ts';

export type {
  ComposeIssue, ComposeProject, DependsCondition, FileReference, GitContext, HostSettings, LoadedCompose,
  NetworkIpam, NormalizedBuild, NormalizedFileObject, NormalizedHealthcheck, NormalizedMount, NormalizedNetwork,
  NormalizedPort, NormalizedService, PreviewOf, NormalizedUpdateConfig, NormalizedVolume, ServiceHook, ServiceKeySettings,
  ServiceNetwork, VolumesFrom,
} from './compose/model.ts';

/** `redact`: what a deploy reads that must never show (a secret's content) is handed to the job's output filter */
export interface DeployIo { log(line: string): void; signal?: AbortSignal; redact?(secret: string): void }

/** whose a container is: a project of this installation, nobody's (not made by Dockwright), or another installation's on the same engine */
export type Ownership =
  | { owner: 'this'; project: string; service: string | null }
  | { owner: 'none' }
  | { owner: 'other'; installation: string };

export interface ContainerStatus {
  id: string; name: string; state: string; status: string; health: string | null; image: string; createdAt: string;
  /** the image's id (a built image has no digest: this tells one build from the next) */
  imageId?: string;
  /** the ports published on the host */
  ports?: { hostIp: string | null; hostPort: number; containerPort: number; protocol: string }[];
}
export interface ServiceStatus { service: string; containers: ContainerStatus[] }

/** what a caller may do to the containers of a project: see them, or act on them (start, stop, logs) */
export type ProjectNeed = 'read' | 'deploy';
/** the projects among `projects` this caller may use as asked (the stacks plugin applies its access lists) */
export type AccessGuard = (principal: Principal, projects: readonly string[], need: ProjectNeed) => Promise<Set<string>>;

/**
 * Fetches a build context given as a git URL (the git plugin): through the outbound policy, with a token the URL carries
 * handed to `io.redact`, checked out into a folder of its own that lives while `use` runs. Fails with an Error naming why.
 */
export type GitContextFetcher = <T>(context: GitContext, io: DeployIo, use: (tree: string, commit: string) => Promise<T>) => Promise<T>;

export type RegistryAuthProvider = (registryHost: string) => Promise<{ username: string; password: string; serveraddress: string } | null>;

/** an image of a service the engine may not fetch, at its path in the compose file (`services.web.image`, `services.web.build`) */
export interface ImageIssue { service: string; path: string; image: string; message: string }

/**
 * What the edge tells a deploy about the services it routes (the edge plugin contributes it): a routed service is
 * replaced start-first, and the new container takes over when the edge routes to it.
 */
export interface EdgeRouting {
  /** the port the edge proxies to and how readiness is probed, or null when the edge does not route this service */
  routed(service: NormalizedService): { port: number; readyPath: string | null; readyTimeoutMs: number } | null;
  /** the Docker network the edge reaches containers on (readiness is probed there too) */
  readonly network: string;
  /** the longest an old container drains after the switch */
  readonly drainMs: number;
  /**
   * Resolves once the edge routes this project by its containers as they are now (servingRole says which serve):
   * false when this instance does not run the edge, which then follows the engine's events by itself.
   */
  apply(project: string): Promise<boolean>;
  /**
   * The requests the edge has in flight to each upstream address (`ip:port` on its network): an old container drains
   * until none is left for it. null when this instance cannot tell (it does not run the edge).
   */
  inFlight?(): Promise<ReadonlyMap<string, number> | null>;
}

export interface DeployResult {
  services: { service: string; action: 'created' | 'recreated' | 'unchanged' }[];
  removed: string[];
}

/** a named volume of this installation */
export interface InstallationVolume {
  name: string;
  /** the compose project (stack) that created it */
  project: string;
  driver: string;
  createdAt: string | null;
  /** bytes, when sizes were asked for and the engine could measure them */
  size: number | null;
  /** how many containers use it, when sizes were asked for */
  containers: number | null;
}

/** one use of an image by something other than a container */
export interface ImageUse {
  /** an image id (`sha256:…`) or a reference (`node:20`) */
  image: string;
  /** the resource it belongs to, as access lists see it: `stack:web`, `site:docs` */
  owner: string;
  /** the release number, for a release */
  release?: number;
  /** pruning must leave it (one of the last keepReleases releases of its stack, a site's build image) */
  keep: boolean;
}
export interface ImageUser {
  kind: 'releases' | 'sites';
  uses(opts: { keepReleases: number }): Promise<ImageUse[]>;
}

export interface DockerRuntime {
  /** pure: no Docker calls (reads env_file from the workdir) */
  load(project: ComposeProject): LoadedCompose;
  deploy(project: ComposeProject, io: DeployIo): Promise<DeployResult>;
  /** removes containers (and project networks), keeps volumes */
  stop(name: string, io: DeployIo): Promise<{ removed: string[] }>;
  /** stop + optionally the volumes; answers the project's named volumes kept and removed */
  remove(name: string, io: DeployIo, opts: { volumes: boolean }): Promise<{ volumes: { kept: string[]; removed: string[] } }>;
  pull(project: ComposeProject, io: DeployIo): Promise<{ images: { image: string; before: string | null; after: string; changed: boolean }[] }>;
  /** builds a service's image from its build context as a deploy does (base images pulled with the saved logins), tagged with the service's image name; answers the image id */
  build(service: NormalizedService, io: DeployIo): Promise<string>;
  /**
   * The images of these services the engine would have to fetch from a registry the outbound policy refuses: pulled
   * images and build base images missing locally (present ones are used as they are). null when the engine cannot say
   * what it has. Pulls, builds and pushes check the policy again before the engine is asked.
   */
  refusedImages(services: readonly NormalizedService[]): Promise<ImageIssue[] | null>;
  /** pulls one image reference as a deploy does: the policy and the registry's token service checked right before the engine is asked, the saved login used */
  pullImage(ref: string, io: DeployIo): Promise<void>;
  /** why the outbound policy refuses the registry of this image reference, or null when the engine may contact it */
  registryRefusal(ref: string): Promise<string | null>;
  /** tags a local image as `repository:tag` and pushes it with the saved login of its registry (registryAuths); answers the pushed reference and the registry's digest */
  push(image: string, target: { repository: string; tag: string }, io: DeployIo): Promise<{ reference: string; digest: string }>;
  /** the named volumes the project created (one list call), with where the engine keeps their data on this host */
  volumes(name: string): Promise<{ name: string; driver: string; mountpoint: string }[]>;
  /** every named volume of this installation with its project; size and containers (from `GET /system/df`) only when asked, null otherwise */
  installationVolumes(opts: { size: boolean }): Promise<InstallationVolume[]>;
  /** the project of one of this installation's volumes; null when absent or another installation's (or not Dockwright's) */
  volumeProject(name: string): Promise<string | null>;
  /** removes one of this installation's volumes: `in-use` (nothing removed) when a container uses it */
  removeVolume(name: string): Promise<'removed' | 'absent' | 'in-use'>;
  /**
   * The containers of these projects (this installation's). Like `containers`, from memory while the engine's events
   * stream is followed, else ONE list call for all projects; never sizes. The lists are frozen: reads share them until
   * the live table changes.
   */
  status(names: readonly string[]): Promise<Map<string, readonly ServiceStatus[]>>;
  /**
   * The engine's containers a read may show: this installation's and those not made by Dockwright, never another
   * installation's. From memory while the events stream is followed (no engine call; state and health follow events at
   * once, the status text is renewed by a list call right after them and by the periodic resync); else one list call.
   */
  containers(filter?: { project?: string; state?: string }): Promise<ContainerInfo[]>;
  /** one container's list entry (by full id) straight from the engine, e.g. after acting on it: the live table takes it too; null when it is gone */
  listed(id: string): Promise<ContainerInfo | null>;
  /** whose a container is, from its labels */
  ownership(labels: Readonly<Record<string, string>> | null | undefined): Ownership;
  /** this installation's id, carried by the `dockwright.installation` label of everything the runtime creates */
  readonly installationId: string;
  /** host ports in use by running containers (project null: not this installation's); asks the engine */
  publishedPorts(exceptProject?: string): Promise<{ project: string | null; hostPort: number; protocol: string }[]>;
  /** the containers (any state) that hold these names on the engine, and whose they are; asks the engine */
  containerNameHolders(names: readonly string[]): Promise<{ name: string; id: string; owner: Ownership }[]>;
  /** the volumes or networks that hold these names on the engine, and whose they are; asks the engine */
  resourceHolders(kind: 'volume' | 'network', names: readonly string[]): Promise<{ name: string; owner: Ownership }[]>;
  /** which of these network names the engine resolves to the edge's network or one of Docker's own; asks the engine */
  reservedNetworks(names: readonly string[]): Promise<{ name: string; network: string; reserved: 'edge' | 'docker' }[]>;
  engine(): Promise<{ ok: true; version: string } | { ok: false; reason: string }>;
  /**
   * @deprecated contribute to the extension point registryAuths instead: `ctx.extensions.add(registryAuths, provider)`
   * (plugins/docker/api.ts). A provider set here wins over the contributed one.
   */
  setRegistryAuth(provider: RegistryAuthProvider): void;
  /**
   * who may see and act on the containers of which project; without a guard, scopes and roles alone decide.
   * @deprecated contribute to the extension point accessGuards instead: `ctx.extensions.add(accessGuards, guard)`
   * (plugins/docker/api.ts). A guard set here wins over the contributed one.
   */
  setAccessGuard(guard: AccessGuard): void;
  /** an engine error as its HTTP status (when it has one) and the engine's own message */
  errorOf(err: unknown): { status: number | undefined; reason: string };
  allowedProjects(principal: Principal, projects: readonly string[], need: ProjectNeed): Promise<Set<string>>;
  /** the client: connection failures and timeouts reject with a 503 Problem */
  docker: Dockerode;
  /** the engine address, for messages */
  readonly endpoint: string;
}
