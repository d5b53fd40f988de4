// One compose service → a NormalizedService: every supported key in its short and long forms, unsupported keys named as errors.
import { existsSync } from 'node:fs';
import { isAbsolute, join, normalize, relative } from 'node:path';
import type { DependsCondition, GitContext, NormalizedHealthcheck, NormalizedService, ServiceNetwork } from './model.ts';
import { gitContext, isRemoteContext } from './git-context.ts';
import { carriedBuildOptions, uncarriedBuildOption } from './build-options.ts';
import { reservedLabelMessage, userLabel } from '../labels.ts';
import { environment } from './environment.ts';
import type { ServiceContext } from './context.ts';
import { honouredKeys, ignoredKeys, withServiceKeys } from './keys.ts';
import { mounts } from './mounts.ts';
import { ports } from './ports.ts';
import { fileReferences } from './secrets.ts';
import type { Issues } from './issues.ts';
import { bool, inside, int, isObj, mapOrList, type Obj, scalar, str, strList } from './shape.ts';
import { bytes, durationNs, splitWords } from './units.ts';
import { updateConfig } from './update-config.ts';


/** keys Dockwright honours; anything else (but `x-…`) is an error, so nothing a user wrote is silently dropped. */
const supported = new Set([
  'image', 'build', 'pull_policy', 'command', 'entrypoint', 'environment', 'env_file', 'ports', 'expose', 'volumes', 'tmpfs',
  'networks', 'network_mode', 'labels', 'restart', 'healthcheck', 'depends_on', 'user', 'working_dir', 'hostname', 'domainname',
  'deploy', 'mem_limit', 'mem_reservation', 'cpus', 'cpu_shares', 'pids_limit', 'shm_size', 'logging', 'extra_hosts', 'dns',
  'dns_search', 'cap_add', 'cap_drop', 'privileged', 'read_only', 'init', 'tty', 'stdin_open', 'stop_signal', 'stop_grace_period',
  'security_opt', 'sysctls', 'ulimits', 'devices', 'pid', 'ipc', 'group_add', 'container_name', 'secrets', 'configs', 'scale',
  // chosen by the loader (COMPOSE_PROFILES) before a service is normalized
  'profiles',
]);

function words(v: unknown, path: string, issues: Issues): string[] | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') {
    const split = splitWords(v);
    if (!split) issues.error(path, 'has an unclosed quote');
    return split ?? [];
  }
  return strList(v, path, issues);
}

function healthcheck(v: unknown, path: string, issues: Issues): NormalizedHealthcheck | null {
  if (v === undefined || v === null) return null;
  if (!isObj(v)) { issues.error(path, 'must be a map'); return null; }
  if (v.disable === true) return { test: ['NONE'] };
  let test: string[] = [];
  if (typeof v.test === 'string') test = ['CMD-SHELL', v.test];
  else if (v.test !== undefined) {
    test = strList(v.test, `${path}.test`, issues);
    if (!['NONE', 'CMD', 'CMD-SHELL'].includes(test[0] ?? '')) { issues.error(`${path}.test`, 'a list must start with CMD, CMD-SHELL or NONE'); return null; }
  }
  const hc: NormalizedHealthcheck = { test };
  const durations = [['interval', 'intervalNs'], ['timeout', 'timeoutNs'], ['start_period', 'startPeriodNs']] as const;
  for (const [key, field] of durations) {
    if (v[key] === undefined) continue;
    const ns = durationNs(v[key]);
    if (ns === null) issues.error(`${path}.${key}`, `"${String(v[key])}" is not a duration like 10s or 1m30s`);
    else hc[field] = ns;
  }
  const retries = int(v.retries, `${path}.retries`, issues);
  if (retries !== null) hc.retries = retries;
  if (v.start_interval !== undefined) issues.warn(`${path}.start_interval`, 'is not passed on: a health check\'s start interval needs Docker Engine 25 (API 1.44); this engine checks at the interval from the start');
  return hc;
}

const conditions = new Set<DependsCondition>(['service_started', 'service_healthy', 'service_completed_successfully']);

function dependsOn(v: unknown, path: string, issues: Issues): NormalizedService['dependsOn'] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return strList(v, path, issues).map((service) => ({ service, condition: 'service_started' as const, required: true }));
  if (!isObj(v)) { issues.error(path, 'must be a list of services or a map of service to condition'); return []; }
  return Object.entries(v).map(([service, spec]) => {
    const condition = (isObj(spec) ? scalar(spec.condition) : null) ?? 'service_started';
    if (!conditions.has(condition as DependsCondition)) issues.error(`${path}.${service}.condition`, `"${condition}" is not service_started, service_healthy or service_completed_successfully`);
    return { service, condition: condition as DependsCondition, required: !(isObj(spec) && spec.required === false) };
  });
}

function restart(v: unknown, deploy: Obj, path: string, issues: Issues): NormalizedService['restart'] {
  const text = str(v, `${path}.restart`, issues);
  if (text !== null) {
    const m = /^(no|always|unless-stopped|on-failure)(?::(\d+))?$/.exec(text);
    if (!m || (m[2] && m[1] !== 'on-failure')) { issues.error(`${path}.restart`, `"${text}" is not no, always, unless-stopped or on-failure[:N]`); return { name: '', maximumRetryCount: 0 }; }
    return { name: m[1] as NormalizedService['restart']['name'], maximumRetryCount: m[2] ? Number(m[2]) : 0 };
  }
  if (isObj(deploy.restart_policy)) {
    const condition = scalar(deploy.restart_policy.condition) ?? 'any';
    const max = int(deploy.restart_policy.max_attempts, `${path}.deploy.restart_policy.max_attempts`, issues) ?? 0;
    const names: Record<string, NormalizedService['restart']['name']> = { none: 'no', 'on-failure': 'on-failure', any: 'always' };
    const name = names[condition];
    if (!name) issues.error(`${path}.deploy.restart_policy.condition`, `"${condition}" is not none, on-failure or any`);
    return { name: name ?? '', maximumRetryCount: name === 'on-failure' ? max : 0 };
  }
  return { name: '', maximumRetryCount: 0 };
}

function resources(s: Obj, deploy: Obj, path: string, issues: Issues): NormalizedService['resources'] {
  const r: NormalizedService['resources'] = {};
  const res = isObj(deploy.resources) ? deploy.resources : {};
  const limits = isObj(res.limits) ? res.limits : {};
  const reservations = isObj(res.reservations) ? res.reservations : {};
  const size = (v: unknown, at: string) => {
    if (v === undefined || v === null) return undefined;
    const n = bytes(v);
    if (n === null) issues.error(at, `"${String(v)}" is not a size like 512m or 1g`);
    return n ?? undefined;
  };
  const cpus = (v: unknown, at: string) => {
    if (v === undefined || v === null) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) { issues.error(at, `"${String(v)}" is not a number of CPUs like 0.5`); return undefined; }
    return Math.round(n * 1e9);
  };
  r.memory = size(limits.memory, `${path}.deploy.resources.limits.memory`) ?? size(s.mem_limit, `${path}.mem_limit`);
  r.memoryReservation = size(reservations.memory, `${path}.deploy.resources.reservations.memory`) ?? size(s.mem_reservation, `${path}.mem_reservation`);
  r.nanoCpus = cpus(limits.cpus, `${path}.deploy.resources.limits.cpus`) ?? cpus(s.cpus, `${path}.cpus`);
  r.pidsLimit = int(limits.pids, `${path}.deploy.resources.limits.pids`, issues, 1) ?? int(s.pids_limit, `${path}.pids_limit`, issues, -1) ?? undefined;
  r.cpuShares = int(s.cpu_shares, `${path}.cpu_shares`, issues) ?? undefined;
  r.shmSize = size(s.shm_size, `${path}.shm_size`);
  for (const k of Object.keys(r) as (keyof typeof r)[]) if (r[k] === undefined) delete r[k];
  return r;
}

/** a service's settings per network that need a newer engine than 20.10 */
const newerEndpointKeys: Record<string, string> = {
  mac_address: 'API 1.44 (Docker Engine 25)', driver_opts: 'API 1.46 (Docker Engine 27)', gw_priority: 'API 1.48 (Docker Engine 28)',
  priority: 'API 1.48 (Docker Engine 28)', interface_name: 'API 1.49 (Docker Engine 28.1)',
};

function serviceNetworks(s: Obj, name: string, path: string, ctx: ServiceContext): { mode: string | null; networks: ServiceNetwork[] } {
  const mode = str(s.network_mode, `${path}.network_mode`, ctx.issues);
  if (mode !== null) {
    // another container's network is judged by the no-host-network rule; another service's is resolved once all are read (network-mode.ts)
    if (!['host', 'none', 'bridge'].includes(mode) && !/^(container|service):[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(mode)) {
      ctx.issues.error(`${path}.network_mode`, `"${mode}" is not a network mode (host, none, bridge, container:<name> or service:<name>)`);
    }
    if (s.networks !== undefined) ctx.issues.error(`${path}.networks`, 'cannot be combined with network_mode');
    return { mode, networks: [] };
  }
  const entries: [string, unknown][] = s.networks === undefined || s.networks === null ? [['default', null]]
    : Array.isArray(s.networks) ? strList(s.networks, `${path}.networks`, ctx.issues).map((k) => [k, null])
    : isObj(s.networks) ? Object.entries(s.networks)
    : (ctx.issues.error(`${path}.networks`, 'must be a list or a map of networks'), []);
  const networks: ServiceNetwork[] = [];
  for (const [key, spec] of entries) {
    const declared = ctx.networks.get(key);
    if (!declared) { ctx.issues.error(`${path}.networks.${key}`, `refers to the network "${key}", which is not declared under the top-level networks`); continue; }
    ctx.usedNetworks.add(key);
    const aliases = isObj(spec) ? strList(spec.aliases, `${path}.networks.${key}.aliases`, ctx.issues) : [];
    const at = `${path}.networks.${key}`;
    const ipv4 = isObj(spec) ? str(spec.ipv4_address, `${at}.ipv4_address`, ctx.issues) : null;
    const ipv6 = isObj(spec) ? str(spec.ipv6_address, `${at}.ipv6_address`, ctx.issues) : null;
    const linkLocal = isObj(spec) && spec.link_local_ips !== undefined ? strList(spec.link_local_ips, `${at}.link_local_ips`, ctx.issues) : [];
    // what Docker Engine 20.10 (API 1.41) cannot set on an endpoint: said, not dropped silently
    if (isObj(spec)) {
      for (const [k, api] of Object.entries(newerEndpointKeys)) if (spec[k] !== undefined) ctx.issues.warn(`${at}.${k}`, `is not passed on: an endpoint's ${k} needs ${api}; this engine has API 1.41`);
    }
    networks.push({
      key, name: declared.name, aliases: [name, ...aliases.filter((a) => a !== name)],
      ...(ipv4 ? { ipv4Address: ipv4 } : {}), ...(ipv6 ? { ipv6Address: ipv6 } : {}), ...(linkLocal.length ? { linkLocalIps: linkLocal } : {}),
    });
  }
  return { mode: null, networks };
}

/** a cache_from entry: an image reference, or `type=registry,ref=<image>`; other cache types need buildx */
function cacheSource(entry: string, path: string, issues: Issues): string | null {
  if (!entry.includes('=')) return entry;
  const attrs = Object.fromEntries(entry.split(',').map((kv) => [kv.slice(0, kv.indexOf('=')).trim(), kv.slice(kv.indexOf('=') + 1).trim()]));
  if ((attrs.type ?? 'registry') === 'registry' && attrs.ref) return attrs.ref;
  issues.error(path, `cache source "${entry}" is not supported: the Engine API build takes image references (or type=registry,ref=<image>) only`);
  return null;
}

function build(v: unknown, path: string, ctx: ServiceContext): NormalizedService['build'] {
  if (v === undefined || v === null) return null;
  const spec = typeof v === 'string' ? { context: v } : isObj(v) ? v : null;
  if (!spec) { ctx.issues.error(path, 'must be a context path or a map with context'); return null; }
  const { issues } = ctx;
  // the options of the specification a build cannot carry are the supported-build-options rule's to refuse
  for (const key of Object.keys(spec)) {
    if (carriedBuildOptions.has(key) || key.startsWith('x-') || uncarriedBuildOption(key)) continue;
    issues.error(`${path}.${key}`, `"${key}" is not a build option of the compose specification`);
  }
  const contextText = scalar(spec.context) ?? '.';
  const inline = str(spec.dockerfile_inline, `${path}.dockerfile_inline`, issues);
  if (inline !== null && spec.dockerfile !== undefined) issues.error(`${path}.dockerfile`, 'dockerfile and dockerfile_inline exclude each other');
  const dockerfile = scalar(spec.dockerfile) ?? 'Dockerfile';
  let context = '';
  let file: string | null = null;
  let git: GitContext | undefined;
  if (isRemoteContext(contextText)) {
    // fetched when the image is built: its Dockerfile is looked for then
    const remote = gitContext(contextText);
    if (typeof remote === 'string') { issues.error(`${path}.context`, remote); return null; }
    if (inline === null && (isAbsolute(dockerfile) || normalize(dockerfile).startsWith('..'))) { issues.error(`${path}.dockerfile`, `"${dockerfile}" points outside the build context`); return null; }
    git = remote;
  } else {
    context = inside(ctx.workdir, contextText, `${path}.context`, issues, 'build context') ?? '';
    if (!context) return null;
    file = inline === null ? inside(context, dockerfile, `${path}.dockerfile`, issues, 'Dockerfile') : null;
    if (inline === null) {
      if (!file) return null;
      if (!existsSync(file)) { issues.error(`${path}.dockerfile`, `there is no ${join(relative(ctx.workdir!, context) || '.', dockerfile)} in the source tree`); return null; }
    }
  }
  const args: Record<string, string> = {};
  for (const [k, val] of mapOrList(spec.args, `${path}.args`, issues)) {
    const value = val ?? ctx.variables[k];
    if (value !== undefined) args[k] = value;
  }
  const target = str(spec.target, `${path}.target`, issues);
  const cacheFrom = strList(spec.cache_from, `${path}.cache_from`, issues).flatMap((e, i) => cacheSource(e, `${path}.cache_from[${i}]`, issues) ?? []);
  const buildLabels = Object.fromEntries(mapOrList(spec.labels, `${path}.labels`, issues).map(([k, val]) => [k, val ?? '']));
  const network = str(spec.network, `${path}.network`, issues);
  const shmSize = spec.shm_size === undefined ? null : bytes(spec.shm_size);
  if (spec.shm_size !== undefined && shmSize === null) issues.error(`${path}.shm_size`, `"${String(spec.shm_size)}" is not a size like 64m`);
  const extraHosts = extraHostList(spec.extra_hosts, `${path}.extra_hosts`, issues);
  const platforms = strList(spec.platforms, `${path}.platforms`, issues);
  if (platforms.length > 1) issues.error(`${path}.platforms`, `builds for several platforms (${platforms.join(', ')}) need buildx; the engine builds one platform at a time`);
  const noCache = bool(spec.no_cache, `${path}.no_cache`, issues);
  const pull = bool(spec.pull, `${path}.pull`, issues);
  return {
    context,
    ...(git ? { git } : {}),
    dockerfile: file ? relative(context, file) : git && inline === null ? normalize(dockerfile) : '',
    ...(inline !== null ? { dockerfileInline: inline } : {}),
    args,
    ...(target ? { target } : {}),
    ...(cacheFrom.length ? { cacheFrom } : {}),
    ...(Object.keys(buildLabels).length ? { labels: buildLabels } : {}),
    ...(network ? { network } : {}),
    ...(shmSize ? { shmSize } : {}),
    ...(extraHosts.length ? { extraHosts } : {}),
    ...(platforms.length === 1 ? { platform: platforms[0] } : {}),
    ...(noCache ? { noCache } : {}),
    ...(pull ? { pull } : {}),
  };
}

function pullPolicy(v: unknown, hasBuild: boolean, path: string, issues: Issues): NormalizedService['pullPolicy'] {
  const text = str(v, path, issues);
  if (text === null) return hasBuild ? 'build' : 'missing';
  const policies: Record<string, NormalizedService['pullPolicy']> = { always: 'always', never: 'never', missing: 'missing', if_not_present: 'missing', build: 'build', daily: 'missing', weekly: 'missing', refresh: 'missing' };
  // time-based refreshes (daily, every_12h, refresh with pull_refresh_after) are the stack's autoupdate here
  const policy = policies[text] ?? (/^every_([0-9]+[wdhms])+$/.test(text) ? 'missing' : undefined);
  if (!policy) { issues.error(path, `"${text}" is not always, never, missing or build`); return 'missing'; }
  if (policy === 'build' && !hasBuild) issues.error(path, 'pull_policy build needs a build section');
  return policy;
}

function ulimits(v: unknown, path: string, issues: Issues): NormalizedService['ulimits'] {
  if (v === undefined || v === null) return [];
  if (!isObj(v)) { issues.error(path, 'must be a map'); return []; }
  return Object.entries(v).flatMap(([name, spec]) => {
    const single = int(typeof spec === 'object' ? undefined : spec, `${path}.${name}`, issues, -1);
    if (single !== null) return [{ name, soft: single, hard: single }];
    if (!isObj(spec)) { issues.error(`${path}.${name}`, 'must be a number or soft/hard'); return []; }
    const soft = int(spec.soft, `${path}.${name}.soft`, issues, -1);
    const hard = int(spec.hard, `${path}.${name}.hard`, issues, -1);
    return soft !== null && hard !== null ? [{ name, soft, hard }] : [];
  });
}

/** extra_hosts as `host:ip`, `host=ip`, `host=ip1,ip2` or a map of a host to one address or a list (compose's long syntax); one entry per address */
function extraHostList(v: unknown, path: string, issues: Issues): string[] {
  const entries: [string, unknown][] = isObj(v) ? Object.entries(v) : mapOrList(v, path, issues, '=:');
  return entries.flatMap(([host, ips]) => {
    const list = Array.isArray(ips) ? strList(ips, `${path}.${host}`, issues) : (scalar(ips) ?? '').split(',');
    return list.map((ip) => `${host}:${ip.trim()}`);
  });
}
/** devices as `host[:container[:permissions]]` or compose's long syntax (source, target, permissions) */
function devices(v: unknown, path: string, issues: Issues): NormalizedService['devices'] {
  if (v === undefined || v === null) return [];
  // one device written without a list is taken as a list of one, as strList takes every other list of strings
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list)) { issues.error(path, 'must be a list of devices'); return []; }
  return list.flatMap((d, i) => {
    if (isObj(d)) {
      const host = str(d.source, `${path}[${i}].source`, issues);
      if (!host) { issues.error(`${path}[${i}].source`, 'is required: the device on the host'); return []; }
      return [{ host, container: str(d.target, `${path}[${i}].target`, issues) ?? host, permissions: str(d.permissions, `${path}[${i}].permissions`, issues) ?? 'rwm' }];
    }
    const entry = scalar(d);
    if (entry === null) { issues.error(`${path}[${i}]`, 'must be a string or a map with source, target and permissions'); return []; }
    const [host, container = host, permissions = 'rwm'] = entry.split(':');
    return [{ host, container, permissions }];
  });
}

function labels(v: unknown, path: string, issues: Issues): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = mapOrList(v, path, issues);
  issues.atMost('labelsPerObject', entries.length, path, 'labels');
  for (const [k, val] of entries) {
    // dockwright.http.* (a hostname at the edge) and dockwright.update(.monitor) (the update policy) are the users' own
    if (k.startsWith('dockwright.') && !userLabel(k)) { issues.error(`${path}.${k}`, reservedLabelMessage); continue; }
    out[k] = val ?? '';
  }
  return out;
}

export function normalizeService(name: string, s: unknown, ctx: ServiceContext): NormalizedService | null {
  const path = `services.${name}`;
  const { issues } = ctx;
  if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(name)) issues.error(path, `the service name "${name}" may only hold letters, digits, "_", "." and "-"`);
  if (!isObj(s)) { issues.error(path, 'must be a map'); return null; }
  if (s.provider !== undefined) { issues.warn(`${path}.provider`, `"provider" ${ignoredKeys.provider}`); return null; }
  for (const key of Object.keys(s)) {
    if (key.startsWith('x-') || supported.has(key) || honouredKeys.has(key)) continue;
    if (key in ignoredKeys) issues.warn(`${path}.${key}`, `"${key}" ${ignoredKeys[key]}`);
    else issues.error(`${path}.${key}`, `"${key}" is not a service option Dockwright supports`);
  }
  const deploy = isObj(s.deploy) ? s.deploy : {};
  if (s.deploy !== undefined && !isObj(s.deploy)) issues.error(`${path}.deploy`, 'must be a map');
  const mode = str(deploy.mode, `${path}.deploy.mode`, issues) ?? 'replicated';
  if (mode !== 'replicated' && mode !== 'global') issues.error(`${path}.deploy.mode`, `"${mode}" is not replicated or global`);
  if (mode === 'global' && (deploy.replicas !== undefined || s.scale !== undefined)) issues.error(`${path}.deploy.replicas`, 'a global service runs one container per node: it has no replicas');
  const b = build(s.build, `${path}.build`, ctx);
  let image = str(s.image, `${path}.image`, issues);
  if (image !== null && !/^[a-z0-9][^\s]*$/i.test(image)) { issues.error(`${path}.image`, `"${image}" is not an image reference`); image = null; }
  if (image === null && s.build === undefined) issues.error(path, `the service "${name}" has no image (and no build)`);
  if (image !== null && s.build !== undefined) issues.warn(`${path}.image`, `the built image is tagged ${`${ctx.project}-${name}`.toLowerCase()}, not ${image}, so it cannot replace an image other stacks use`);
  // global: one container per node, so one on an engine (the swarm runtime runs it in global mode)
  const replicas = mode === 'global' ? 1 : int(deploy.replicas, `${path}.deploy.replicas`, issues) ?? int(s.scale, `${path}.scale`, issues) ?? 1;
  issues.take('containers', replicas, `${path}.deploy.replicas`, 'containers (the replicas of all services)');
  const containerName = str(s.container_name, `${path}.container_name`, issues);
  if (containerName !== null && replicas > 1) issues.error(`${path}.container_name`, 'a service with a container_name cannot have several replicas');
  const net = serviceNetworks(s, name, path, ctx);
  const logging = isObj(s.logging) ? {
    driver: str(s.logging.driver, `${path}.logging.driver`, issues) ?? 'json-file',
    options: Object.fromEntries(mapOrList(s.logging.options, `${path}.logging.options`, issues).map(([k, v]) => [k, v ?? ''])),
  } : null;
  const stopGrace = s.stop_grace_period === undefined ? null : durationNs(s.stop_grace_period);
  if (s.stop_grace_period !== undefined && stopGrace === null) issues.error(`${path}.stop_grace_period`, 'is not a duration like 10s');
  return withServiceKeys(s, path, ctx, {
    name,
    // a built image is tagged in the project's own name: under the name it gives it would replace an image other stacks run
    image: b || image === null ? `${ctx.project}-${name}`.toLowerCase() : image,
    build: b,
    pullPolicy: pullPolicy(s.pull_policy, s.build !== undefined, `${path}.pull_policy`, issues),
    replicas,
    global: mode === 'global',
    updateConfig: updateConfig(deploy.update_config, `${path}.deploy.update_config`, issues),
    containerName,
    command: words(s.command, `${path}.command`, issues),
    entrypoint: words(s.entrypoint, `${path}.entrypoint`, issues),
    environment: environment(s, path, ctx.workdir, ctx.variables, issues),
    ports: ports(s.ports, `${path}.ports`, issues),
    expose: strList(s.expose, `${path}.expose`, issues),
    mounts: mounts(s.volumes, s.tmpfs, path, { workdir: ctx.workdir, volumes: ctx.volumes, used: ctx.usedVolumes, issues }),
    networkMode: net.mode,
    networks: net.networks,
    labels: labels(s.labels, `${path}.labels`, issues),
    restart: restart(s.restart, deploy, path, issues),
    healthcheck: healthcheck(s.healthcheck, `${path}.healthcheck`, issues),
    dependsOn: dependsOn(s.depends_on, `${path}.depends_on`, issues),
    user: str(s.user, `${path}.user`, issues),
    workingDir: str(s.working_dir, `${path}.working_dir`, issues),
    hostname: str(s.hostname, `${path}.hostname`, issues),
    domainname: str(s.domainname, `${path}.domainname`, issues),
    resources: resources(s, deploy, path, issues),
    logging,
    extraHosts: extraHostList(s.extra_hosts, `${path}.extra_hosts`, issues),
    // an entry that interpolates to nothing (dns: ${UNSET}) is left out, as compose does
    dns: strList(s.dns, `${path}.dns`, issues).filter((d) => d !== ''),
    dnsSearch: strList(s.dns_search, `${path}.dns_search`, issues).filter((d) => d !== ''),
    capAdd: strList(s.cap_add, `${path}.cap_add`, issues),
    capDrop: strList(s.cap_drop, `${path}.cap_drop`, issues),
    privileged: bool(s.privileged, `${path}.privileged`, issues) ?? false,
    readOnly: bool(s.read_only, `${path}.read_only`, issues) ?? false,
    init: bool(s.init, `${path}.init`, issues),
    tty: bool(s.tty, `${path}.tty`, issues) ?? false,
    stdinOpen: bool(s.stdin_open, `${path}.stdin_open`, issues) ?? false,
    stopSignal: str(s.stop_signal, `${path}.stop_signal`, issues),
    stopGracePeriodSeconds: stopGrace === null ? null : Math.ceil(stopGrace / 1e9),
    securityOpt: strList(s.security_opt, `${path}.security_opt`, issues),
    sysctls: Object.fromEntries(mapOrList(s.sysctls, `${path}.sysctls`, issues).map(([k, v]) => [k, v ?? ''])),
    ulimits: ulimits(s.ulimits, `${path}.ulimits`, issues),
    devices: devices(s.devices, `${path}.devices`, issues),
    pid: str(s.pid, `${path}.pid`, issues),
    ipc: str(s.ipc, `${path}.ipc`, issues),
    groupAdd: strList(s.group_add, `${path}.group_add`, issues),
    secrets: fileReferences(s.secrets, 'secret', `${path}.secrets`, ctx.secrets, issues),
    configs: fileReferences(s.configs, 'config', `${path}.configs`, ctx.configs, issues),
  });
}
