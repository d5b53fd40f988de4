// Platform rules for compose files: each rule reports its own errors, with the path in the user's file; admins switch rules off per install.
import { isWithin, problem, realExisting, type Principal } from '../../sdk/index.ts';
import { dockerNetworkNames, edgeNetworkName, isRemoteContext, uncarriedBuildOption } from '../docker/api.ts';
import type { LoadedCompose } from '../docker/types.ts';

export interface RuleIssue { path: string; message: string }
export interface RuleInput {
  stack: string;
  loaded: LoadedCompose;
  /** the stack has a source tree (build contexts and relative bind mounts are allowed) */
  hasSource: boolean;
  /** that tree, when the compose file came from it (relative bind mounts resolve inside it) */
  workdir?: string;
  /** who asks (absent in jobs): a message names only resources this caller may see */
  principal?: Principal;
}
export interface PlatformRule {
  id: string;
  description: string;
  /** false: off unless an admin switches it on (`rules: { "<id>": true }`); on by default */
  enabled?: boolean;
  check(input: RuleInput): RuleIssue[] | Promise<RuleIssue[]>;
  /** judged again by every deploy of a saved file, not only at the save: what it looks at (the engine's networks, the names of other stacks' resources) may have changed since */
  atDeploy?: boolean;
  /** what is ignored when an admin switches the rule off: said as warnings (validate's and the deploy's), never dropped silently */
  whenOff?(input: RuleInput): RuleIssue[];
}
export interface RuleError extends RuleIssue { rule: string }

export interface RuleOptions {
  allowedBindRoots: readonly string[];
  /** what cap_add may add (Docker's default set by default: adding those again grants nothing) */
  allowedCapabilities: readonly string[];
  allowedNetworkDrivers: readonly string[];
  /** network driver_opts that cannot reach outside the stack's own network */
  allowedNetworkOptions: readonly string[];
  allowedVolumeDrivers: readonly string[];
  allowedLoggingDrivers: readonly string[];
  /** security_opt values, exactly as written */
  allowedSecurityOptions: readonly string[];
  /** sysctls by name */
  allowedSysctls: readonly string[];
  /** container runtimes (runtime:) by the engine's name for them */
  allowedRuntimes: readonly string[];
  /** IPAM drivers of the stack's own networks */
  allowedIpamDrivers: readonly string[];
  /** who holds these container names on the engine: a stack of this installation (never this one), another installation, or nobody Dockwright knows (null when the engine cannot say) */
  containerNamesHeld(stack: string, names: readonly string[]): Promise<{ name: string; holder: 'stack' | 'installation' | 'outside' }[] | null>;
  /** which of these volume or network names are held on the engine by another stack of this installation or by another installation (null when the engine cannot say) */
  resourcesHeld(stack: string, kind: 'volume' | 'network', names: readonly string[]): Promise<{ name: string; holder: 'stack' | 'installation' }[] | null>;
  /** which of these network names the engine resolves (by name, id or id prefix) to the edge's network or one of Docker's own (null when the engine cannot say) */
  reservedNetworks(names: readonly string[]): Promise<{ name: string; network: string; reserved: 'edge' | 'docker' }[] | null>;
  /** host ports published by other stacks' containers (null when the engine cannot say) */
  portsInUse(stack: string): Promise<{ project: string | null; hostPort: number; protocol: string }[] | null>;
  /** the stacks among these the caller may see: a message names no other */
  visibleStacks(principal: Principal | undefined, stacks: readonly string[]): Promise<Set<string>>;
  /** images the engine would fetch from a registry the outbound policy refuses (null when the engine cannot say what it has) */
  refusedImages(loaded: LoadedCompose): Promise<RuleIssue[] | null>;
}

/** Linux capabilities Docker grants every container unless dropped */
export const dockerDefaultCapabilities = ['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'NET_RAW', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT'];
/**
 * The sysctls Kubernetes calls safe, and the ones the kernel keeps per network or IPC namespace (the engine refuses
 * those with the host's network or IPC namespace): a name ending in `*` allows those starting with what precedes it.
 */
export const safeSysctls = [
  'kernel.shm_rmid_forced', 'kernel.shmall', 'kernel.shmmax', 'kernel.shmmni', 'kernel.msgmax', 'kernel.msgmnb', 'kernel.msgmni', 'kernel.sem', 'fs.mqueue.*', 'net.*',
];
/** options that only restrict what a container may do */
export const safeSecurityOptions = ['no-new-privileges', 'no-new-privileges:true', 'no-new-privileges=true', 'no-new-privileges:false', 'no-new-privileges=false'];
export const safeNetworkOptions = [
  'com.docker.network.enable_ipv6', 'com.docker.network.bridge.enable_icc', 'com.docker.network.bridge.host_binding_ipv4', 'com.docker.network.driver.mtu', 'com.docker.network.container_iface_prefix', 'encrypted',
];

/** what a stack may be named (the routes' StackName): the part of a volume or network name before its first "_" that could be one is that stack's */
const stackNamePattern = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** a "local" volume in memory: type and device tmpfs, options that bind nothing */
const tmpfsVolume = (driver: string, opts: Readonly<Record<string, string>>) => driver === 'local' && opts.type === 'tmpfs' && (opts.device ?? 'tmpfs') === 'tmpfs'
  && !(opts.o ?? '').split(',').some((o) => ['bind', 'rbind'].includes(o.trim())) && Object.keys(opts).every((k) => ['type', 'device', 'o'].includes(k));

type Raw = Record<string, unknown>;
/** a build section whose context is a git URL: it needs no source tree */
const fromGit = (build: unknown) => {
  const context = typeof build === 'string' ? build : build && typeof build === 'object' ? (build as Raw).context : undefined;
  return typeof context === 'string' && isRemoteContext(context);
};
const servicesOf = (loaded: LoadedCompose): [string, Raw][] =>
  Object.entries(((loaded.raw.services ?? {}) as Record<string, Raw>)).filter(([, s]) => s && typeof s === 'object');

/** one issue per service whose key matches */
function perService(loaded: LoadedCompose, key: string, bad: (value: unknown) => boolean, message: (service: string, value: unknown) => string): RuleIssue[] {
  return servicesOf(loaded).filter(([, s]) => key in s && bad(s[key])).map(([name, s]) => ({ path: `services.${name}.${key}`, message: message(name, s[key]) }));
}

const dockerSockets = ['/var/run/docker.sock', '/run/docker.sock'].map((p) => realExisting(p));

/** what the engine will get, per service, with the raw service for paths */
const normalized = (loaded: LoadedCompose) => {
  const raw = Object.fromEntries(servicesOf(loaded));
  return loaded.services.map((s) => ({ s, raw: raw[s.name] ?? {} }));
};

/** the written values of a "string or list" key with the path of each: `cap_add[2]`, or `cap_add` for a single string */
function listed(raw: Raw, service: string, key: string): { value: string; path: string }[] {
  const v = raw[key];
  const text = (x: unknown) => (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean' ? String(x) : null);
  if (Array.isArray(v)) return v.flatMap((x, i) => (text(x) === null ? [] : [{ value: text(x)!, path: `services.${service}.${key}[${i}]` }]));
  return text(v) === null ? [] : [{ value: text(v)!, path: `services.${service}.${key}` }];
}

/** the path of each key of a "map or KEY=VALUE list" key: `sysctls.net.core.somaxconn`, or `sysctls[0]` */
function keyPaths(raw: Raw, service: string, key: string): Map<string, string> {
  const v = raw[key];
  const paths = new Map<string, string>();
  if (Array.isArray(v)) v.forEach((x, i) => { const name = String(x).split('=')[0]; if (!paths.has(name)) paths.set(name, `services.${service}.${key}[${i}]`); });
  else if (v && typeof v === 'object') for (const name of Object.keys(v)) paths.set(name, `services.${service}.${key}.${name}`);
  return paths;
}

/** the path of each mount target's `volumes` entry (rules judge the normalized mount, report the user's line) */
function volumePaths(raw: Raw, service: string): Map<string, string> {
  const paths = new Map<string, string>();
  (Array.isArray(raw.volumes) ? raw.volumes : []).forEach((v, i) => {
    const target = typeof v === 'string' ? v.split(':')[1] : v && typeof v === 'object' ? (v as Raw).target : undefined;
    if (typeof target === 'string' && !paths.has(target)) paths.set(target, `services.${service}.volumes[${i}]`);
  });
  return paths;
}

/** each build option a build through the Engine API cannot carry, with why */
const uncarriedBuildOptions = (loaded: LoadedCompose): RuleIssue[] => servicesOf(loaded).flatMap(([name, s]) => {
  const build = s.build;
  if (!build || typeof build !== 'object' || Array.isArray(build)) return [];
  return Object.keys(build).flatMap((key) => {
    const why = uncarriedBuildOption(key);
    return why ? [{ path: `services.${name}.build.${key}`, message: why }] : [];
  });
});

const capability = (name: string) => name.trim().toUpperCase().replace(/^CAP_/, '');
/** pid and ipc modes that keep a container in namespaces of its own */
const ownPid = new Set(['']);
const ownIpc = new Set(['', 'none', 'private', 'shareable']);
/** namespaces beyond pid and ipc whose only mode other than the container's own is the host's */
const hostNamespaces = [['uts', 'UTSMode', 'UTS namespace'], ['cgroup', 'CgroupnsMode', 'cgroup namespace'], ['userns_mode', 'UsernsMode', 'user namespace (no remapping)']] as const;

/**
 * The networks of the file the engine would resolve to a reserved one (`edge` or `docker`): by the name written (an
 * external network, a top-level key, an explicit name), then as the engine resolves it (an id or an id's prefix).
 */
async function reservedOf(opts: RuleOptions, loaded: LoadedCompose, stack: string, kind: 'edge' | 'docker'): Promise<{ key: string; network: string }[]> {
  const named = loaded.networks.filter((n) => n.external || n.name !== `${stack}_${n.key}`);
  const byName = (n: { name: string }) => (kind === 'edge' ? n.name === edgeNetworkName : dockerNetworkNames.includes(n.name));
  const found = named.filter(byName).map((n) => ({ key: n.key, network: n.name }));
  const rest = named.filter((n) => !byName(n));
  if (!rest.length) return found;
  const resolved = ((await opts.reservedNetworks(rest.map((n) => n.name))) ?? []).filter((r) => r.reserved === kind);
  return [...found, ...rest.flatMap((n) => resolved.filter((r) => r.name === n.name).map((r) => ({ key: n.key, network: r.network })))];
}

export function builtInRules(opts: RuleOptions): PlatformRule[] {
  const capabilities = new Set(opts.allowedCapabilities.map(capability));
  const networkDrivers = new Set(opts.allowedNetworkDrivers);
  const networkOptions = new Set(opts.allowedNetworkOptions);
  const volumeDrivers = new Set(opts.allowedVolumeDrivers);
  const loggingDrivers = new Set(opts.allowedLoggingDrivers);
  const securityOptions = new Set(opts.allowedSecurityOptions);
  const sysctlAllowed = (name: string) => opts.allowedSysctls.some((a) => (a.endsWith('*') ? name.startsWith(a.slice(0, -1)) : name === a));
  const runtimes = new Set(opts.allowedRuntimes);
  const ipamDrivers = new Set(opts.allowedIpamDrivers);
  const underRoot = (path: string) => opts.allowedBindRoots.some((root) => isWithin(root, path));
  const list = (values: Set<string>) => (values.size ? [...values].join(', ') : 'none');
  return [
    {
      id: 'compose-valid', description: 'valid YAML that follows the Compose Specification',
      check: ({ loaded }) => loaded.errors.filter((e) => !e.limit).map(({ path, message }) => ({ path, message })),
    },
    {
      id: 'image-required', description: 'every service names an image (build only when the stack has a source tree, or from a git URL)',
      check: ({ loaded, hasSource }) => hasSource ? [] : servicesOf(loaded)
        .filter(([, s]) => s.build !== undefined && s.image === undefined && !fromGit(s.build))
        .map(([name]) => ({ path: `services.${name}.build`, message: `service ${name} builds an image, but this stack has no source tree: name an image` })),
    },
    {
      id: 'no-privileged', description: 'no privileged containers, nor privileged post_start or pre_stop commands',
      check: ({ loaded }) => normalized(loaded).flatMap(({ s }) => [
        ...(s.privileged ? [{ path: `services.${s.name}.privileged`, message: `service ${s.name} asks to run privileged` }] : []),
        ...(['postStart', 'preStop'] as const).flatMap((kind) => s.hooks[kind].flatMap((h, i) => h.privileged
          ? [{ path: `services.${s.name}.${kind === 'postStart' ? 'post_start' : 'pre_stop'}[${i}].privileged`, message: `service ${s.name} asks to run a hook privileged` }] : [])),
      ]),
    },
    {
      id: 'supported-build-options', description: 'build options a build through the Engine API can carry: not BuildKit sessions (secrets, ssh, additional_contexts), cache exports, further tags, attestations, entitlements, privileged builds; switched off, each is left out of builds with a warning',
      check: ({ loaded }) => uncarriedBuildOptions(loaded),
      whenOff: ({ loaded }) => uncarriedBuildOptions(loaded).map(({ path, message }) => ({ path, message: `is ignored (the rule supported-build-options is switched off): ${message}` })),
    },
    {
      id: 'no-host-network', description: "no network_mode: host (nor another container's network), nor a build on the host's network",
      check: ({ loaded }) => normalized(loaded).flatMap(({ s }) => [
        ...(s.networkMode === 'host' || s.networkMode?.startsWith('container:')
          ? [{ path: `services.${s.name}.network_mode`, message: `service ${s.name} asks for the network of ${s.networkMode === 'host' ? 'the host' : s.networkMode}` }] : []),
        ...(s.build?.network === 'host' ? [{ path: `services.${s.name}.build.network`, message: `the build of service ${s.name} asks for the network of the host` }] : []),
      ]),
    },
    {
      id: 'no-edge-network', atDeploy: true, description: `never the edge's network (${edgeNetworkName}), by any name, nor a build on it: the edge joins what it routes itself, and a stack on its network would reach every routed container`,
      async check({ loaded, stack }) {
        const message = (what: string) => `${what} the edge's network (${edgeNetworkName}): a stack never joins it; the edge routes a service by its dockwright.http.host label`;
        return [
          ...(await reservedOf(opts, loaded, stack, 'edge')).map(({ key }) => ({ path: `networks.${key}`, message: message(`network ${key} is`) })),
          ...normalized(loaded).filter(({ s }) => s.build?.network === edgeNetworkName).map(({ s }) => ({ path: `services.${s.name}.build.network`, message: message(`the build of service ${s.name} asks for`) })),
        ];
      },
    },
    {
      id: 'no-docker-networks', atDeploy: true, description: `none of Docker's own networks (${dockerNetworkNames.join(', ')}) as a stack's network, by any name, nor network_mode: bridge: they are shared with the host, every container outside a network, or a swarm's routing mesh`,
      async check({ loaded, stack }) {
        return [
          ...(await reservedOf(opts, loaded, stack, 'docker')).map(({ key, network }) => ({ path: `networks.${key}`, message: `network ${key} is Docker's own network ${network}, which a stack never joins${network === 'none' ? ' (network_mode: none gives a service no network)' : ''}` })),
          ...normalized(loaded).filter(({ s }) => s.networkMode === 'bridge').map(({ s }) => ({ path: `services.${s.name}.network_mode`, message: `service ${s.name} asks for Docker's default bridge, shared with every container started without a network` })),
        ];
      },
    },
    {
      id: 'no-host-pid', description: 'pid, ipc, uts, cgroup and user namespaces of the container\'s own (ipc none, private or shareable): never the host\'s or another container\'s',
      check: ({ loaded }) => normalized(loaded).flatMap(({ s }) => [
        ...(s.pid !== null && !ownPid.has(s.pid) ? [{ path: `services.${s.name}.pid`, message: `service ${s.name} asks for the process namespace of ${s.pid === 'host' ? 'the host' : JSON.stringify(s.pid)}` }] : []),
        ...(s.ipc !== null && !ownIpc.has(s.ipc) ? [{ path: `services.${s.name}.ipc`, message: `service ${s.name} asks for the IPC namespace of ${s.ipc === 'host' ? 'the host' : JSON.stringify(s.ipc)}` }] : []),
        ...hostNamespaces.filter(([, field]) => s.host[field] === 'host').map(([key, , what]) => ({ path: `services.${s.name}.${key}`, message: `service ${s.name} asks for the ${what} of the host` })),
      ]),
    },
    {
      id: 'no-dangerous-capabilities', description: `cap_add only of ${list(capabilities)}`,
      check: ({ loaded }) => normalized(loaded).flatMap(({ s, raw }) => listed(raw, s.name, 'cap_add')
        .filter(({ value }) => !capabilities.has(capability(value)))
        .map(({ value, path }) => ({ path, message: `service ${s.name} adds the capability ${capability(value)}, which is not among the allowed ones` }))),
    },
    {
      id: 'allowed-security-options', description: `security_opt only of ${list(securityOptions)}`,
      check: ({ loaded }) => normalized(loaded).flatMap(({ s, raw }) => listed(raw, s.name, 'security_opt')
        .filter(({ value }) => !securityOptions.has(value))
        .map(({ value, path }) => ({ path, message: `service ${s.name} sets the security option ${JSON.stringify(value)}, which an admin has not allowed` }))),
    },
    {
      id: 'allowed-sysctls', description: `sysctls only of ${list(new Set(opts.allowedSysctls))}`,
      check: ({ loaded }) => normalized(loaded).flatMap(({ s, raw }) => {
        const refused = Object.keys(s.sysctls).filter((name) => !sysctlAllowed(name));
        const paths = refused.length ? keyPaths(raw, s.name, 'sysctls') : new Map<string, string>();
        return refused.map((name) => ({ path: paths.get(name) ?? `services.${s.name}.sysctls`, message: `service ${s.name} sets the sysctl ${name}, which an admin has not allowed` }));
      }),
    },
    {
      id: 'allowed-logging-drivers', description: `logging drivers only of ${list(loggingDrivers)} (others send logs, with the host's credentials, where the file says)`,
      check: ({ loaded }) => normalized(loaded).filter(({ s }) => s.logging && !loggingDrivers.has(s.logging.driver))
        .map(({ s }) => ({ path: `services.${s.name}.logging.driver`, message: `service ${s.name} logs through the ${s.logging!.driver} driver, which an admin has not allowed` })),
    },
    {
      id: 'no-devices', description: 'no host devices, nor device cgroup rules (which open devices to a container)',
      check: ({ loaded }) => normalized(loaded).flatMap(({ s }) => [
        ...(s.devices.length > 0 ? [{ path: `services.${s.name}.devices`, message: `service ${s.name} maps host devices` }] : []),
        ...(s.host.DeviceCgroupRules?.length ? [{ path: `services.${s.name}.device_cgroup_rules`, message: `service ${s.name} allows itself host devices by cgroup rules` }] : []),
      ]),
    },
    {
      id: 'no-cgroup-parent', description: "no cgroup_parent: a cgroup of the file's choosing escapes the limits and accounting Docker gives each container (or joins another's)",
      check: ({ loaded }) => normalized(loaded).filter(({ s }) => s.host.CgroupParent !== undefined)
        .map(({ s }) => ({ path: `services.${s.name}.cgroup_parent`, message: `service ${s.name} asks for the parent cgroup ${JSON.stringify(s.host.CgroupParent)}` })),
    },
    {
      id: 'no-oom-protection', description: "no oom_score_adj below 0, nor oom_kill_disable: true: either makes the kernel's out-of-memory killer take the host's processes before the container's",
      check: ({ loaded }) => normalized(loaded).flatMap(({ s }) => [
        ...(s.host.OomScoreAdj !== undefined && s.host.OomScoreAdj < 0 ? [{ path: `services.${s.name}.oom_score_adj`, message: `service ${s.name} sets oom_score_adj ${s.host.OomScoreAdj}: below 0 shields it from the out-of-memory killer at the host's expense` }] : []),
        ...(s.host.OomKillDisable === true ? [{ path: `services.${s.name}.oom_kill_disable`, message: `service ${s.name} disables the out-of-memory killer for itself` }] : []),
      ]),
    },
    {
      id: 'allowed-runtimes', description: `container runtimes only of ${list(runtimes)}`,
      check: ({ loaded }) => normalized(loaded).filter(({ s }) => s.host.Runtime !== undefined && !runtimes.has(s.host.Runtime))
        .map(({ s }) => ({ path: `services.${s.name}.runtime`, message: `service ${s.name} runs in the ${s.host.Runtime} runtime, which an admin has not allowed` })),
    },
    {
      id: 'no-docker-socket', description: 'never the Docker socket',
      check: ({ loaded }) => normalized(loaded).flatMap(({ s, raw }) => {
        const exposing = s.mounts.filter((m) => m.type === 'bind' && m.source && dockerSockets.some((sock) => sock === m.source || sock.startsWith(m.source!.endsWith('/') ? m.source! : m.source + '/')));
        const paths = exposing.length ? volumePaths(raw, s.name) : new Map<string, string>();
        return [
          ...exposing.map((m) => ({ path: paths.get(m.target) ?? `services.${s.name}.volumes`, message: `service ${s.name} mounts the Docker socket (or a folder holding it): that hands over the host` })),
          ...(s.useApiSocket ? [{ path: `services.${s.name}.use_api_socket`, message: `service ${s.name} asks for the Docker API socket: that hands over the host` }] : []),
        ];
      }),
    },
    {
      id: 'allowed-bind-mounts', description: `bind mounts only below the allowed roots${opts.allowedBindRoots.length ? ` (${opts.allowedBindRoots.join(', ')})` : ''}, or inside the stack's source tree`,
      check: ({ loaded, workdir }) => normalized(loaded).flatMap(({ s, raw }) => {
        const outside = s.mounts.filter((m) => m.type === 'bind' && m.source && !(workdir !== undefined && isWithin(workdir, m.source)) && !underRoot(m.source));
        const paths = outside.length ? volumePaths(raw, s.name) : new Map<string, string>();
        return outside.map((m) => ({ path: paths.get(m.target) ?? `services.${s.name}.volumes`, message: `service ${s.name} mounts the host path ${m.source}, which is not below an allowed root` }));
      }),
    },
    {
      id: 'no-host-volume-options', description: 'named volumes without driver options, but for a "local" tmpfs volume (a "local" volume with o=bind is a bind mount of any host path, one with a device type mounts a host device)',
      check: ({ loaded }) => loaded.volumes.filter((v) => Object.keys(v.driverOpts).length > 0 && !tmpfsVolume(v.driver, v.driverOpts))
        .map((v) => ({ path: `volumes.${v.key}.driver_opts`, message: `volume ${v.key} sets driver options` })),
    },
    {
      id: 'allowed-volume-drivers', description: `volume drivers only of ${list(volumeDrivers)}`,
      check: ({ loaded }) => loaded.volumes.filter((v) => !volumeDrivers.has(v.driver))
        .map((v) => ({ path: `volumes.${v.key}.driver`, message: `volume ${v.key} uses the ${v.driver} driver, which an admin has not allowed` })),
    },
    {
      id: 'allowed-network-drivers', description: `network drivers only of ${list(networkDrivers)} (macvlan, ipvlan and host put containers on the host's own network)`,
      check: ({ loaded }) => loaded.networks.filter((n) => !n.external && !networkDrivers.has(n.driver))
        .map((n) => ({ path: `networks.${n.key}.driver`, message: `network ${n.key} uses the ${n.driver} driver, which an admin has not allowed` })),
    },
    {
      id: 'allowed-network-options', description: `network driver_opts only of ${list(networkOptions)} (others can take over a host bridge or interface)`,
      check: ({ loaded }) => loaded.networks.flatMap((n) => Object.keys(n.driverOpts).filter((o) => !networkOptions.has(o))
        .map((o) => ({ path: `networks.${n.key}.driver_opts.${o}`, message: `network ${n.key} sets the driver option ${o}, which an admin has not allowed` }))),
    },
    {
      id: 'stack-owned-resources', enabled: false, description: "volumes, networks, secrets and configs belong to the stack: no external or explicitly named volumes and networks, no external secrets or configs; off by default (no-external-resources keeps other stacks' out)",
      check: ({ loaded, stack }) => [
        ...loaded.volumes.filter((v) => v.external || v.name !== `${stack}_${v.key}`).map((v) => ({ path: `volumes.${v.key}`, message: `volume ${v.key} is ${v.external ? 'external' : `named ${v.name}`}` })),
        ...loaded.networks.filter((n) => n.external || n.name !== `${stack}_${n.key}`).map((n) => ({ path: `networks.${n.key}`, message: `network ${n.key} is ${n.external ? 'external' : `named ${n.name}`}` })),
        ...[...loaded.secrets, ...loaded.configs].filter((o) => o.external).map((o) => ({ path: `${o.kind}s.${o.key}`, message: `${o.kind} ${o.key} is external (${o.name})` })),
      ],
    },
    {
      id: 'no-external-resources', description: "an external or explicitly named volume or network is not another stack's nor another installation's (one made outside Dockwright, like a shared proxy network, may be joined); no external secrets or configs (a swarm's are anyone's)",
      async check({ loaded, stack }) {
        const whose = { stack: 'another stack', installation: 'another Dockwright installation on this engine' };
        const judge = async (kind: 'volume' | 'network', list: readonly { key: string; name: string; external: boolean }[]) => {
          const named = list.filter((r) => r.external || r.name !== `${stack}_${r.key}`);
          if (!named.length) return [];
          const held = (await opts.resourcesHeld(stack, kind, named.map((r) => r.name))) ?? [];
          return held.flatMap((h) => named.filter((r) => r.name === h.name)
            .map((r) => ({ path: `${kind}s.${r.key}`, message: `the ${kind} ${h.name} is held by ${whose[h.holder]}` })));
        };
        return [
          ...await judge('volume', loaded.volumes),
          ...await judge('network', loaded.networks),
          // a swarm's secrets are the engine's, whoever made them: an external one could be another stack's or installation's
          ...[...loaded.secrets, ...loaded.configs].filter((o) => o.external).map((o) => ({ path: `${o.kind}s.${o.key}`, message: `${o.kind} ${o.key} is external (${o.name})` })),
        ];
      },
    },
    {
      id: 'own-resource-names', atDeploy: true, description: "a volume or network the stack creates under an explicit name is not named as another stack's own (`<stack>_…`): a name another stack will need is never taken first",
      check: ({ loaded, stack }) => [...loaded.volumes.map((v) => ({ kind: 'volume', ...v })), ...loaded.networks.map((n) => ({ kind: 'network', ...n }))].flatMap((r) => {
        const prefix = r.name.includes('_') ? r.name.slice(0, r.name.indexOf('_')) : null;
        if (r.external || prefix === null || prefix === stack || !stackNamePattern.test(prefix)) return [];
        return [{ path: `${r.kind}s.${r.key}`, message: `the ${r.kind} name ${r.name} is in the namespace of the stack ${prefix} (the names Dockwright gives a stack's own ${r.kind}s): name it ${stack}_… or without "_"` }];
      }),
    },
    {
      id: 'allowed-ipam-drivers', description: `IPAM drivers of the stack's networks only of ${list(ipamDrivers)}`,
      check: ({ loaded }) => loaded.networks.filter((n) => !n.external && n.ipam && !ipamDrivers.has(n.ipam.driver))
        .map((n) => ({ path: `networks.${n.key}.ipam.driver`, message: `network ${n.key} uses the ${n.ipam!.driver} IPAM driver, which an admin has not allowed` })),
    },
    {
      id: 'volumes-from-own-stack', description: 'volumes_from only of services (or containers) of the stack itself',
      check: ({ loaded }) => normalized(loaded).flatMap(({ s, raw }) => {
        const paths = listed(raw, s.name, 'volumes_from');
        return s.volumesFrom.filter((v) => v.container !== null).map((v) => ({
          path: paths.find((p) => p.value.split(':').includes(v.container!))?.path ?? `services.${s.name}.volumes_from`,
          message: `service ${s.name} mounts the volumes of the container ${v.container}, which is not one of this stack's`,
        }));
      }),
    },
    {
      id: 'no-container-name', enabled: false, description: 'no container_name (names are the platform\'s, so stacks cannot collide); off by default',
      check: ({ loaded }) => perService(loaded, 'container_name', () => true, (n) => `service ${n} sets container_name`),
    },
    {
      id: 'container-name-available', description: 'a container_name is not held on the engine by another stack, another installation or a container made outside Dockwright',
      async check({ loaded, stack }) {
        const named = loaded.services.filter((s) => s.containerName !== null);
        if (!named.length) return [];
        const held = await opts.containerNamesHeld(stack, named.map((s) => s.containerName!));
        // a stack is not named: the caller may not see it
        const whose = { stack: 'another stack', installation: 'another Dockwright installation on this engine', outside: 'a container made outside Dockwright' };
        return (held ?? []).flatMap((h) => named.filter((s) => s.containerName === h.name)
          .map((s) => ({ path: `services.${s.name}.container_name`, message: `the container name ${h.name} is held by ${whose[h.holder]}` })));
      },
    },
    {
      id: 'outbound-registry', description: 'images missing locally (pulled ones, and the base images of builds) come from registries the outbound policy allows (outbound.allow)',
      // when the engine cannot say which images it has, the deploy's own check before any pull decides
      check: async ({ loaded }) => (await opts.refusedImages(loaded)) ?? [],
    },
    {
      id: 'ports-available', description: 'published host ports are not used by another stack or twice in this one',
      async check({ loaded, stack, principal }) {
        const issues: RuleIssue[] = [];
        // judged on the loader's ports, which are bounded: never re-expanded from what the user wrote
        const mine = new Map<string, string>();
        for (const s of loaded.services) {
          for (const p of s.ports) {
            if (p.published === null) continue;
            const key = `${p.published}/${p.protocol}`;
            const path = `services.${s.name}.ports[${p.entry}]`;
            const first = mine.get(key);
            if (first) issues.push({ path, message: `host port ${key} is published twice in this file (also at ${first})` });
            else mine.set(key, path);
          }
        }
        if (!mine.size) return issues;
        const used = (await opts.portsInUse(stack)) ?? [];
        const clashes = used.filter((u) => mine.has(`${u.hostPort}/${u.protocol}`));
        const seen = await opts.visibleStacks(principal, [...new Set(clashes.flatMap((u) => (u.project ? [u.project] : [])))]);
        for (const u of clashes) {
          const key = `${u.hostPort}/${u.protocol}`;
          const holder = !u.project ? 'a container outside Dockwright' : seen.has(u.project) ? `stack ${u.project}` : 'another stack';
          issues.push({ path: mine.get(key)!, message: `host port ${key} is already published by ${holder}` });
        }
        return issues;
      },
    },
  ];
}

/** a rule broken a thousand times is told about its first ones: at most 100 errors, the last saying how many more */
const shownPerRule = 100;

/**
 * runs every enabled rule; the errors name their rule. A file past one of the loader's limits was not (fully) read:
 * it is refused at once with a 422 problem, validate too, since no rule can judge what was never looked at.
 */
export async function checkRules(rules: readonly PlatformRule[], switches: Readonly<Record<string, boolean>>, input: RuleInput): Promise<RuleError[]> {
  const limits = input.loaded.errors.filter((e) => e.limit);
  if (limits.length) {
    throw problem(422, `the compose file is refused before the platform rules: ${limits.map((e) => e.message).join('; ')}`, {
      code: 'compose-refused', errors: limits.map((e) => ({ rule: 'compose-limits', path: e.path, message: e.message })),
    });
  }
  const active = rules.filter((r) => switches[r.id] ?? r.enabled !== false);
  for (const r of rules) {
    if (active.includes(r) || !r.whenOff) continue;
    const warnings = input.loaded.warnings;
    for (const w of r.whenOff(input)) if (!warnings.some((x) => x.path === w.path && x.message === w.message)) warnings.push(w);
  }
  const results = await Promise.all(active.map(async (r) => {
    const found = await r.check(input);
    if (found.length <= shownPerRule) return found.map((issue) => ({ rule: r.id, ...issue }));
    const shown: RuleError[] = found.slice(0, shownPerRule - 1).map((issue) => ({ rule: r.id, ...issue }));
    return [...shown, { rule: r.id, path: '', message: `… and ${found.length - shown.length} more` }];
  }));
  // a file that does not parse has nothing further worth reporting
  const invalid = results[active.findIndex((r) => r.id === 'compose-valid')] ?? [];
  return invalid.length && !input.loaded.raw.services ? invalid : results.flat();
}
