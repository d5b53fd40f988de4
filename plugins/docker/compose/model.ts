// The compose model's types: the project a load starts from, the normalized services, networks, volumes, secrets and configs, and the loaded file with its issues.

/** a top-level secret or config (compose-go calls both file objects) */
export interface NormalizedFileObject {
  kind: 'secret' | 'config';
  /** the key under the top-level `secrets` or `configs` */
  key: string;
  /** external: the name of the existing swarm secret or config (`name:`, else the key); otherwise `name:` or `<project>_<key>` */
  name: string;
  external: boolean;
  /** where the content comes from */
  source: 'file' | 'environment' | 'content' | 'external';
  /** file: the path as written in the compose file; environment: the variable's name; else null */
  from: string | null;
  /** the bytes, read when asked: a function, so a model that is serialized (an answer, a log line) never carries them; null when external, or when `environment` names a variable that is not set */
  content: (() => Buffer) | null;
  labels: Record<string, string>;
}

/** a service's use of a secret or config: a read-only file in its containers */
export interface FileReference {
  /** the key of the top-level secret or config */
  source: string;
  /** absolute path in the container: secrets default to /run/secrets/<source>, configs to /<source> */
  target: string;
  /** numeric owner of the file in the container; null: the file's owner on the host is kept (the user Dockwright runs as) */
  uid: string | null;
  gid: string | null;
  /** permission bits; 0o444 unless the file says otherwise */
  mode: number;
}

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

/** a build context given as a git URL: fetched when the image is built, never at load */
export interface GitContext {
  /** as written (it may carry a token: never shown) */
  url: string;
  /** a branch, tag, `refs/…` or commit; null: the repository's HEAD */
  ref: string | null;
  /** the folder of the repository that is the context; null: its root */
  dir: string | null;
}

export interface NormalizedBuild {
  /** absolute path inside the project's workdir; '' while a git context is not fetched yet */
  context: string;
  /** where the context comes from when it is a git repository rather than a folder of the source tree */
  git?: GitContext;
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
  /** deploy.mode global: one container per node (one on an engine) */
  global: boolean;
  /** how changed containers are replaced (deploy.update_config) */
  updateConfig: NormalizedUpdateConfig;
  containerName: string | null;
  command: string[] | null;
  entrypoint: string[] | null;
  environment: Record<string, string>;
  ports: NormalizedPort[];
  expose: string[];
  mounts: NormalizedMount[];
  /** host, none, bridge, container:<name>, service:<name>; null: the project networks in `networks` */
  networkMode: string | null;
  /** for service:<name>, the container whose network namespace is joined (that service's first) */
  networkContainer?: string;
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
