// The docker plugin's public API: the compose model and the runtime that stacks, containers and backups call.
import type Dockerode from 'dockerode';
import type { ContainerInfo } from 'dockerode';
import type { Principal } from '../../sdk/index.ts';
import type { FileReference, NormalizedFileObject } from './compose/model.ts';

export type { FileReference, NormalizedFileObject } from './compose/model.ts';

export interface ComposeProject {
  /** project (stack) name: ^[a-z0-9][a-z0-9_-]{0,62}$ */
  name: string;
  /** compose file text (YAML) */
  compose: string;
  /** for ${VAR} interpolation (and nothing else implicitly) */
  variables: Record<string, string>;
  /** source tree: env_file, relative bind mounts and build contexts are resolved inside it; escapes are refused */
  workdir?: string;
  /** deployed as a preview of a stack (preview.ts): its own volumes and networks, no published ports, these hostnames */
  preview?: PreviewOf;
}

/** the preview `key` of the stack `parent`; `hostnames` maps each service the edge routes to its preview hostname (others lose theirs) */
export interface PreviewOf { key: string; parent: string; hostnames: Readonly<Record<string, string>> }

/** path like "services.web.ports[0]"; `limit` names the bound of compose/limits.ts a refused file went past */
export interface ComposeIssue { path: string; message: string; limit?: string }

export type DependsCondition = 'service_started' | 'service_healthy' | 'service_completed_successfully';

export interface NormalizedPort {
  target: number;
  /** null: the engine picks a free host port */
  published: number | null;
  /** '' binds every address */
  hostIp: string;
  protocol: 'tcp' | 'udp' | 'sctp';
  /** the index of the `ports` entry it comes from (a range gives several) */
  entry: number;
}

export interface NormalizedMount {
  type: 'volume' | 'bind' | 'tmpfs';
  /** volume: engine volume name (null: anonymous); bind: absolute host path; tmpfs: null */
  source: string | null;
  target: string;
  readOnly: boolean;
  /** volume: do not copy the image's content into a new volume */
  noCopy?: boolean;
  /** tmpfs: size in bytes */
  tmpfsSize?: number;
  /** bind: create a missing host directory (the short syntax does, the long one only when asked) */
  createHostPath?: boolean;
  /** bind: mount propagation (rprivate, private, rshared, shared, rslave, slave) */
  propagation?: string;
}

export interface ServiceNetwork {
  /** the key under the top-level `networks` */
  key: string;
  /** the engine network name */
  name: string;
  aliases: string[];
  ipv4Address?: string;
  ipv6Address?: string;
  linkLocalIps?: string[];
}

export interface NormalizedHealthcheck {
  /** ["NONE"] disables the image's healthcheck */
  test: string[];
  intervalNs?: number;
  timeoutNs?: number;
  retries?: number;
  startPeriodNs?: number;
}

export interface NormalizedBuild {
  /** absolute path inside the project's workdir */
  context: string;
  /** relative to the context; unused with dockerfileInline */
  dockerfile: string;
  /** `dockerfile_inline`: the Dockerfile's text itself */
  dockerfileInline?: string;
  args: Record<string, string>;
  target?: string;
  /** image references whose layers the build may reuse */
  cacheFrom?: string[];
  /** labels of the built image */
  labels?: Record<string, string>;
  /** the network of RUN steps: default, none, host (or a network, classic builder only) */
  network?: string;
  /** bytes of /dev/shm in RUN steps */
  shmSize?: number;
  /** `host:ip` entries of /etc/hosts in RUN steps */
  extraHosts?: string[];
  /** the one platform built for, e.g. linux/amd64 */
  platform?: string;
  noCache?: boolean;
  /** pull base images even when the engine has them */
  pull?: boolean;
}

/** a command run in a service's container through the engine's exec API (post_start, pre_stop) */
export interface ServiceHook {
  command: string[];
  user?: string;
  privileged: boolean;
  workingDir?: string;
  environment: Record<string, string>;
}

/** another container's volumes mounted into a service's containers (volumes_from) */
export interface VolumesFrom {
  /** a service of the stack (all its containers), or a container by name (refused by a rule unless it is the stack's own) */
  service: string | null;
  container: string | null;
  readOnly: boolean;
  /** the engine names of the containers whose volumes are mounted */
  containers: string[];
}

/** HostConfig members a service sets through the keys of compose/keys.ts, named as the Engine API names them */
export interface HostSettings {
  CpusetCpus?: string;
  CpusetMems?: string;
  CpuQuota?: number;
  CpuPeriod?: number;
  CpuRealtimeRuntime?: number;
  CpuRealtimePeriod?: number;
  OomKillDisable?: boolean;
  OomScoreAdj?: number;
  MemorySwappiness?: number;
  MemorySwap?: number;
  DnsOptions?: string[];
  StorageOpt?: Record<string, string>;
  UTSMode?: string;
  CgroupnsMode?: string;
  CgroupParent?: string;
  UsernsMode?: string;
  BlkioWeight?: number;
  BlkioWeightDevice?: { Path: string; Weight: number }[];
  BlkioDeviceReadBps?: { Path: string; Rate: number }[];
  BlkioDeviceWriteBps?: { Path: string; Rate: number }[];
  BlkioDeviceReadIOps?: { Path: string; Rate: number }[];
  BlkioDeviceWriteIOps?: { Path: string; Rate: number }[];
  DeviceCgroupRules?: string[];
  Runtime?: string;
  DeviceRequests?: { Driver: string; Count: number; DeviceIDs?: string[]; Capabilities: string[][]; Options: Record<string, string> }[];
}

/** what the service keys of compose/keys.ts add to a service */
export interface ServiceKeySettings {
  host: HostSettings;
  macAddress: string | null;
  hooks: { postStart: ServiceHook[]; preStop: ServiceHook[] };
  volumesFrom: VolumesFrom[];
  /** use_api_socket: the engine's socket mounted into the container (refused by no-docker-socket unless an admin allows it) */
  useApiSocket: boolean;
  /** the stack's source tree, when it has one: compose's working_dir label */
  projectDir: string | null;
}

/** deploy.update_config as compose defines it; `order` null: start-first for a service the edge routes, else stop-first */
export interface NormalizedUpdateConfig {
  order: 'start-first' | 'stop-first' | null;
  /** replicas replaced at once; 0: all */
  parallelism: number;
  /** between two batches */
  delayMs: number;
  /** what a failed replacement does: pause (stop the rollout, the deploy fails), continue, or rollback (the replicas this deploy replaced get their old containers back) */
  failureAction: 'pause' | 'continue' | 'rollback';
  /** how long a new container is watched after it takes over before its replacement counts as done */
  monitorMs: number;
  /** failures tolerated (as a share of the replicas) before failure_action applies */
  maxFailureRatio: number;
}

export interface NormalizedService extends ServiceKeySettings {
  name: string;
  /** the image reference; for build-only services `<project>-<service>` */
  image: string;
  build: NormalizedBuild | null;
  pullPolicy: 'missing' | 'always' | 'never' | 'build';
  replicas: number;
  /** how changed containers are replaced (deploy.update_config) */
  updateConfig: NormalizedUpdateConfig;
  containerName: string | null;
  command: string[] | null;
  entrypoint: string[] | null;
  environment: Record<string, string>;
  ports: NormalizedPort[];
  expose: string[];
  mounts: NormalizedMount[];
  /** host, none, bridge; null: the project networks in `networks` */
  networkMode: string | null;
  networks: ServiceNetwork[];
  labels: Record<string, string>;
  restart: { name: '' | 'no' | 'always' | 'on-failure' | 'unless-stopped'; maximumRetryCount: number };
  healthcheck: NormalizedHealthcheck | null;
  dependsOn: { service: string; condition: DependsCondition; required: boolean }[];
  user: string | null;
  workingDir: string | null;
  hostname: string | null;
  domainname: string | null;
  resources: { memory?: number; memoryReservation?: number; nanoCpus?: number; cpuShares?: number; pidsLimit?: number; shmSize?: number };
  logging: { driver: string; options: Record<string, string> } | null;
  extraHosts: string[];
  dns: string[];
  dnsSearch: string[];
  capAdd: string[];
  capDrop: string[];
  privileged: boolean;
  readOnly: boolean;
  init: boolean | null;
  tty: boolean;
  stdinOpen: boolean;
  stopSignal: string | null;
  stopGracePeriodSeconds: number | null;
  securityOpt: string[];
  sysctls: Record<string, string>;
  ulimits: { name: string; soft: number; hard: number }[];
  devices: { host: string; container: string; permissions: string }[];
  pid: string | null;
  ipc: string | null;
  groupAdd: string[];
  /** read-only files in the containers, from the top-level secrets and configs */
  secrets: FileReference[];
  configs: FileReference[];
}

export interface NetworkIpam {
  /** the IPAM driver; "default" is the engine's own */
  driver: string;
  config: { subnet?: string; ipRange?: string; gateway?: string; auxAddresses?: Record<string, string> }[];
  options: Record<string, string>;
}

export interface NormalizedNetwork {
  key: string;
  name: string;
  external: boolean;
  driver: string;
  driverOpts: Record<string, string>;
  /** custom IP address management (null: the engine picks a subnet) */
  ipam: NetworkIpam | null;
  enableIpv6: boolean;
  internal: boolean;
  attachable: boolean;
  labels: Record<string, string>;
}

export interface NormalizedVolume {
  key: string;
  name: string;
  external: boolean;
  driver: string;
  driverOpts: Record<string, string>;
  labels: Record<string, string>;
}

export interface LoadedCompose {
  /** the interpolated YAML document (what platform rules inspect, with paths as in the user's file) */
  raw: Record<string, unknown>;
  services: NormalizedService[];
  /** YAML syntax errors, schema/shape errors, unknown interpolation syntax, missing image (and no build), dependency cycles, unknown depends_on targets… */
  errors: ComposeIssue[];
  /** what compose would warn about (unset variables, ignored keys); deploy logs them */
  warnings: ComposeIssue[];
  /** the project networks and volumes the services use */
  networks: NormalizedNetwork[];
  volumes: NormalizedVolume[];
  /** the top-level secrets and configs the file declares (those that could be read) */
  secrets: NormalizedFileObject[];
  configs: NormalizedFileObject[];
}

/** `redact`: what a deploy reads that must never show (a secret's content) is handed to the job's output filter */
export interface DeployIo { log(line: string): void; signal?: AbortSignal; redact?(secret: string): void }

/** whose a container is: a project of this installation, nobody's (not made by Dockwright), or another installation's on the same engine */
export type Ownership =
  | { owner: 'this'; project: string; service: string | null }
  | { owner: 'none' }
  | { owner: 'other'; installation: string };

export interface ContainerStatus { id: string; name: string; state: string; status: string; health: string | null; image: string; createdAt: string }
export interface ServiceStatus { service: string; containers: ContainerStatus[] }

/** what a caller may do to the containers of a project: see them, or act on them (start, stop, logs) */
export type ProjectNeed = 'read' | 'deploy';
/** the projects among `projects` this caller may use as asked (the stacks plugin applies its access lists) */
export type AccessGuard = (principal: Principal, projects: readonly string[], need: ProjectNeed) => Promise<Set<string>>;

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
  engine(): Promise<{ ok: true; version: string } | { ok: false; reason: string }>;
  /** @deprecated contribute to the extension point registryAuths (plugins/docker/api.ts) */
  setRegistryAuth(provider: RegistryAuthProvider): void;
  /** who may see and act on the containers of which project; without a guard, scopes and roles alone decide */
  /** @deprecated contribute to the extension point accessGuards (plugins/docker/api.ts) */
  setAccessGuard(guard: AccessGuard): void;
  /** an engine error as its HTTP status (when it has one) and the engine's own message */
  errorOf(err: unknown): { status: number | undefined; reason: string };
  allowedProjects(principal: Principal, projects: readonly string[], need: ProjectNeed): Promise<Set<string>>;
  /** the client: connection failures and timeouts reject with a 503 Problem */
  docker: Dockerode;
  /** the engine address, for messages */
  readonly endpoint: string;
}
