// The compose-spec service keys beyond the core ones of service.ts: resource, namespace and runtime settings, gpus, hooks, volumes_from, label_file; the keys accepted but ignored, each with why; unknown keys of top-level networks and volumes.
import type { HostSettings, NetworkIpam, NormalizedService, ServiceHook, ServiceKeySettings, VolumesFrom } from './model.ts';
import { parseEnvFile, readHead } from './environment.ts';
import { reservedLabelMessage, userLabel } from '../labels.ts';
import type { Issues } from './issues.ts';
import { bool, inside, int, isObj, mapOrList, type Obj, scalar, str, strList } from './shape.ts';
import type { ServiceContext } from './context.ts';
import { bytes, durationNs, splitWords } from './units.ts';

/** service keys this file honours (service.ts honours the others it lists) */
export const honouredKeys = new Set([
  'gpus', 'runtime', 'cpuset', 'cpu_quota', 'cpu_period', 'cpu_rt_runtime', 'cpu_rt_period', 'oom_kill_disable', 'oom_score_adj',
  'mem_swappiness', 'memswap_limit', 'mac_address', 'dns_opt', 'storage_opt', 'uts', 'cgroup', 'cgroup_parent', 'userns_mode',
  'blkio_config', 'device_cgroup_rules', 'post_start', 'pre_stop', 'volumes_from', 'label_file', 'use_api_socket',
]);

/** service keys accepted and ignored, with the warning that says why */
export const ignoredKeys: Record<string, string> = {
  develop: 'is for `docker compose watch` on a developer\'s machine (sync and rebuild on file changes); a deploy runs what the file and the source tree hold',
  attach: 'only chooses which logs `docker compose up` prints; Dockwright attaches to no container (read logs through the containers API)',
  annotations: 'are not passed on: Docker Engine 20.10 (API 1.41) has no container annotations; use labels',
  credential_spec: 'is for Windows containers (group managed service accounts); a Linux engine has none',
  isolation: 'is a Windows container setting (process or hyperv); a Linux engine has no other isolation',
  external_links: 'would link containers outside the stack; a stack reaches only its own networks (and services by name there)',
  links: 'are not needed: services reach each other by service name on the stack\'s networks (for another name, use networks.<network>.aliases)',
  platform: 'is not passed on: the engine runs the image it has (or pulls) for its own platform',
  cpu_count: 'is a Windows setting (the engine discards it on Linux); use cpus',
  cpu_percent: 'is a Windows setting (the engine discards it on Linux); use cpus',
  pull_refresh_after: 'is not followed: images are refreshed by a pull or by the stack\'s nightly autoupdate',
  models: 'are not provided: Dockwright does not drive Docker Model Runner; set the model\'s endpoint through environment',
  pre_start: 'is not run: the specification leaves open what its ephemeral containers share with the service (volumes, networks, secrets) and whether they run again at a deploy that leaves the service unchanged, so the service starts without them; for a step that must finish first, use a service of its own and depends_on with condition service_completed_successfully',
  provider: 'names an external provider that would run the service instead of a container; Dockwright does not drive providers, so the service is not deployed',
};

/** top-level keys accepted and ignored, with why */
export const ignoredTopLevelKeys: Record<string, string> = {
  version: 'is obsolete: the Compose Specification has no versions, so it is ignored (docker compose warns the same)',
  models: 'are not provided: Dockwright does not drive Docker Model Runner',
};

/** the keys of a top-level network or volume entry (secrets.ts checks those of secrets and configs) */
const entryKeys = {
  networks: ['name', 'external', 'driver', 'driver_opts', 'internal', 'attachable', 'enable_ipv4', 'enable_ipv6', 'ipam', 'labels'],
  volumes: ['name', 'external', 'driver', 'driver_opts', 'labels'],
} as const;

/** an unknown key of a top-level network or volume is refused, as an unknown service option is: a misplaced `privileged: true` must not pass unseen */
function flagUnknownEntryKeys(raw: Obj, issues: Issues): void {
  for (const section of ['networks', 'volumes'] as const) {
    const entries = raw[section];
    if (!isObj(entries)) continue;
    const what = section === 'networks' ? 'network' : 'volume';
    for (const [name, spec] of Object.entries(entries)) {
      if (!isObj(spec)) continue;
      for (const key of Object.keys(spec)) {
        if (key.startsWith('x-') || (entryKeys[section] as readonly string[]).includes(key)) continue;
        const misplaced = honouredKeys.has(key) || key in ignoredKeys || servicePlaced.has(key) ? `; it is a service option: set it under services.<name>.${key}` : '';
        issues.error(`${section}.${name}.${key}`, `"${key}" is not a key of a ${what} (${entryKeys[section].join(', ')})${misplaced}`);
      }
    }
  }
}
/** common service options a person may misplace under a volume or network */
const servicePlaced = new Set(['privileged', 'cap_add', 'cap_drop', 'user', 'read_only', 'security_opt', 'devices', 'image', 'command', 'ports', 'volumes', 'environment', 'restart', 'network_mode', 'pid', 'ipc']);

function warnTopLevel(raw: Obj, issues: Issues): void {
  for (const [key, why] of Object.entries(ignoredTopLevelKeys)) if (raw[key] !== undefined) issues.warn(key, `"${key}" ${why}`);
  flagUnknownEntryKeys(raw, issues);
}
export { warnTopLevel as warnIgnoredTopLevelKeys };

/** microseconds from an integer (microseconds, as compose reads a number) or a duration ("100ms") */
function micros(v: unknown, path: string, issues: Issues): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' || (typeof v === 'string' && /^-?\d+$/.test(v.trim()))) {
    const n = Number(v);
    if (Number.isInteger(n) && n >= 0) return n;
  } else {
    const ns = durationNs(v);
    if (ns !== null) return Math.round(ns / 1000);
  }
  issues.error(path, `"${String(v)}" is not a number of microseconds or a duration like 100ms`);
  return undefined;
}

function ranged(v: unknown, path: string, issues: Issues, min: number, max: number): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = int(v, path, issues, min);
  if (n === null) return undefined;
  if (n > max) { issues.error(path, `must be between ${min} and ${max}`); return undefined; }
  return n;
}

/** oom_score_adj may be negative: int() counts from a minimum */
function signed(v: unknown, path: string, issues: Issues, min: number, max: number): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
  if (typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max) return n;
  issues.error(path, `must be an integer between ${min} and ${max}`);
  return undefined;
}

/**
 * Device requests of the engine, from `gpus` (capabilities default to gpu) and from deploy.resources.reservations.devices
 * (compose's other way to ask for GPUs and other devices: capabilities required, no "all").
 */
function deviceRequests(v: unknown, path: string, issues: Issues, of: 'gpus' | 'reservations' = 'gpus'): HostSettings['DeviceRequests'] {
  if (v === undefined || v === null) return undefined;
  if (v === 'all' && of === 'gpus') return [{ Driver: '', Count: -1, Capabilities: [['gpu']], Options: {} }];
  if (!Array.isArray(v)) { issues.error(path, `must be ${of === 'gpus' ? '"all" or ' : ''}a list of device requests (driver, count, device_ids, capabilities, options)`); return undefined; }
  return v.flatMap((item, i) => {
    const at = `${path}[${i}]`;
    if (!isObj(item)) { issues.error(at, 'must be a map'); return []; }
    const count = item.count === undefined ? (item.device_ids === undefined ? -1 : 0) : item.count === 'all' ? -1 : int(item.count, `${at}.count`, issues, 1);
    if (count === null) return [];
    const ids = item.device_ids === undefined ? null : strList(item.device_ids, `${at}.device_ids`, issues);
    if (ids && item.count !== undefined) { issues.error(at, 'count and device_ids cannot both be set'); return []; }
    if (item.capabilities === undefined && of === 'reservations') { issues.error(`${at}.capabilities`, 'is required: the capabilities the device must have, like [gpu]'); return []; }
    const capabilities = item.capabilities === undefined ? ['gpu'] : strList(item.capabilities, `${at}.capabilities`, issues);
    return [{
      Driver: str(item.driver, `${at}.driver`, issues) ?? '', Count: count, ...(ids ? { DeviceIDs: ids } : {}), Capabilities: [capabilities],
      Options: Object.fromEntries(mapOrList(item.options, `${at}.options`, issues).map(([k, val]) => [k, val ?? ''])),
    }];
  });
}

function blkio(v: unknown, path: string, issues: Issues): Partial<HostSettings> {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) { issues.error(path, 'must be a map'); return {}; }
  const out: Partial<HostSettings> = {};
  const weight = ranged(v.weight, `${path}.weight`, issues, 10, 1000);
  if (weight !== undefined) out.BlkioWeight = weight;
  const list = (key: string) => {
    const items = v[key];
    if (items === undefined || items === null) return [];
    if (!Array.isArray(items)) { issues.error(`${path}.${key}`, 'must be a list of path and rate (or weight)'); return []; }
    return items.flatMap((item, i) => {
      const at = `${path}.${key}[${i}]`;
      if (!isObj(item) || typeof item.path !== 'string' || !item.path.startsWith('/dev/')) { issues.error(at, 'must have the path of a device under /dev'); return []; }
      return [{ item, at, Path: item.path }];
    });
  };
  const weights = list('weight_device').flatMap(({ item, at, Path }) => {
    const w = ranged(item.weight, `${at}.weight`, issues, 10, 1000);
    return w === undefined ? [] : [{ Path, Weight: w }];
  });
  if (weights.length) out.BlkioWeightDevice = weights;
  const rates = (key: string, field: 'BlkioDeviceReadBps' | 'BlkioDeviceWriteBps' | 'BlkioDeviceReadIOps' | 'BlkioDeviceWriteIOps', perSecond: 'bytes' | 'operations') => {
    const found = list(key).flatMap(({ item, at, Path }) => {
      const rate = perSecond === 'bytes' ? bytes(item.rate) : int(item.rate, `${at}.rate`, issues, 0);
      if (rate === null) { if (perSecond === 'bytes') issues.error(`${at}.rate`, `"${String(item.rate)}" is not a size like 10mb`); return []; }
      return [{ Path, Rate: rate }];
    });
    if (found.length) out[field] = found;
  };
  rates('device_read_bps', 'BlkioDeviceReadBps', 'bytes');
  rates('device_write_bps', 'BlkioDeviceWriteBps', 'bytes');
  rates('device_read_iops', 'BlkioDeviceReadIOps', 'operations');
  rates('device_write_iops', 'BlkioDeviceWriteIOps', 'operations');
  for (const key of Object.keys(v)) {
    if (!['weight', 'weight_device', 'device_read_bps', 'device_write_bps', 'device_read_iops', 'device_write_iops'].includes(key)) issues.error(`${path}.${key}`, `"${key}" is not a blkio_config setting`);
  }
  return out;
}

function hooks(v: unknown, path: string, ctx: ServiceContext): ServiceHook[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) { ctx.issues.error(path, 'must be a list of hooks, each with a command'); return []; }
  return v.flatMap((item, i) => {
    const at = `${path}[${i}]`;
    if (!isObj(item)) { ctx.issues.error(at, 'must be a map with a command'); return []; }
    const command = typeof item.command === 'string' ? splitWords(item.command) : strList(item.command, `${at}.command`, ctx.issues);
    if (!command?.length) { ctx.issues.error(`${at}.command`, 'is required: the command to run in the container'); return []; }
    for (const key of Object.keys(item)) {
      if (!['command', 'user', 'privileged', 'working_dir', 'environment'].includes(key) && !key.startsWith('x-')) ctx.issues.error(`${at}.${key}`, `"${key}" is not a hook setting (command, user, privileged, working_dir, environment)`);
    }
    const user = str(item.user, `${at}.user`, ctx.issues);
    const workingDir = str(item.working_dir, `${at}.working_dir`, ctx.issues);
    const environment: Record<string, string> = {};
    for (const [k, val] of mapOrList(item.environment, `${at}.environment`, ctx.issues)) {
      const value = val ?? ctx.variables[k];
      if (value !== undefined) environment[k] = value;
    }
    return [{ command, privileged: bool(item.privileged, `${at}.privileged`, ctx.issues) ?? false, environment, ...(user ? { user } : {}), ...(workingDir ? { workingDir } : {}) }];
  });
}

/** `service:name[:ro|rw]`, `container:name[:ro|rw]`, or `name[:ro|rw]` (a service of the file, else a container) */
function volumesFrom(v: unknown, path: string, issues: Issues): VolumesFrom[] {
  return strList(v, path, issues).flatMap((entry, i) => {
    const at = Array.isArray(v) ? `${path}[${i}]` : path;
    const parts = entry.split(':');
    const kind = parts[0] === 'service' || parts[0] === 'container' ? parts.shift()! : null;
    const [name, mode = 'rw', ...rest] = parts;
    if (!name || rest.length || !['ro', 'rw'].includes(mode)) { issues.error(at, `"${entry}" is not service:<name>, container:<name> or <service>, optionally with :ro or :rw`); return []; }
    const readOnly = mode === 'ro';
    return [kind === 'container' ? { service: null, container: name, readOnly, containers: [name] } : { service: name, container: kind === 'service' ? null : name, readOnly, containers: [] }];
  });
}

/** label_file entries from the source tree, in order (labels written in the file win over them) */
function labelFiles(v: unknown, path: string, ctx: ServiceContext): Record<string, string> {
  const out: Record<string, string> = {};
  if (v === undefined || v === null) return out;
  const list = Array.isArray(v) ? v : [v];
  ctx.issues.take('envFiles', list.length, path, 'env_file and label_file entries');
  list.forEach((item, i) => {
    const at = Array.isArray(v) ? `${path}[${i}]` : path;
    const file = scalar(item);
    if (!file) { ctx.issues.error(at, 'must be a path'); return; }
    const full = inside(ctx.workdir, file, at, ctx.issues, 'label_file');
    if (!full) return;
    let read: { text: string; truncated: boolean };
    try {
      read = readHead(full, ctx.issues.left('envFileBytes'));
    } catch {
      ctx.issues.error(at, `label_file "${file}" is not in the source tree`);
      return;
    }
    ctx.issues.take('envFileBytes', read.truncated ? Infinity : Buffer.byteLength(read.text), at, 'bytes read from env_file and label_file files');
    for (const [k, val] of parseEnvFile(read.text, {}, at, ctx.issues)) {
      if (k.startsWith('dockwright.') && !userLabel(k)) { ctx.issues.error(at, `the label ${k}: ${reservedLabelMessage}`); continue; }
      out[k] = val;
    }
  });
  return out;
}

/** what gpus and deploy.resources.reservations.devices ask for together; undefined when neither does */
function devicesOf(s: Obj, path: string, issues: Issues): HostSettings['DeviceRequests'] {
  const reservations = isObj(s.deploy) && isObj(s.deploy.resources) && isObj(s.deploy.resources.reservations) ? s.deploy.resources.reservations : {};
  const all = [...deviceRequests(s.gpus, `${path}.gpus`, issues) ?? [], ...deviceRequests(reservations.devices, `${path}.deploy.resources.reservations.devices`, issues, 'reservations') ?? []];
  return all.length ? all : undefined;
}

function hostSettings(s: Obj, path: string, issues: Issues): HostSettings {
  const at = (key: string) => `${path}.${key}`;
  const host: HostSettings = {
    CpusetCpus: str(s.cpuset, at('cpuset'), issues) ?? undefined,
    CpuQuota: micros(s.cpu_quota, at('cpu_quota'), issues),
    CpuPeriod: micros(s.cpu_period, at('cpu_period'), issues),
    CpuRealtimeRuntime: micros(s.cpu_rt_runtime, at('cpu_rt_runtime'), issues),
    CpuRealtimePeriod: micros(s.cpu_rt_period, at('cpu_rt_period'), issues),
    OomKillDisable: bool(s.oom_kill_disable, at('oom_kill_disable'), issues) ?? undefined,
    OomScoreAdj: signed(s.oom_score_adj, at('oom_score_adj'), issues, -1000, 1000),
    MemorySwappiness: ranged(s.mem_swappiness, at('mem_swappiness'), issues, 0, 100),
    DnsOptions: s.dns_opt === undefined ? undefined : strList(s.dns_opt, at('dns_opt'), issues),
    CgroupParent: str(s.cgroup_parent, at('cgroup_parent'), issues) ?? undefined,
    Runtime: str(s.runtime, at('runtime'), issues) ?? undefined,
    DeviceRequests: devicesOf(s, path, issues),
    DeviceCgroupRules: s.device_cgroup_rules === undefined ? undefined : strList(s.device_cgroup_rules, at('device_cgroup_rules'), issues),
    ...blkio(s.blkio_config, at('blkio_config'), issues),
  };
  if (s.memswap_limit !== undefined && s.memswap_limit !== null) {
    const swap = s.memswap_limit === -1 || s.memswap_limit === '-1' ? -1 : bytes(s.memswap_limit);
    if (swap === null) issues.error(at('memswap_limit'), `"${String(s.memswap_limit)}" is not a size like 1g (or -1 for unlimited swap)`);
    // the engine refuses a swap limit without a memory limit
    else if (s.mem_limit === undefined && !(isObj(s.deploy) && isObj(s.deploy.resources) && isObj(s.deploy.resources.limits) && s.deploy.resources.limits.memory !== undefined)) {
      issues.error(at('memswap_limit'), 'needs a memory limit (mem_limit or deploy.resources.limits.memory)');
    } else host.MemorySwap = swap;
  }
  if (s.storage_opt !== undefined && s.storage_opt !== null) {
    if (!isObj(s.storage_opt)) issues.error(at('storage_opt'), 'must be a map like { size: 1G }');
    else host.StorageOpt = Object.fromEntries(mapOrList(s.storage_opt, at('storage_opt'), issues).map(([k, val]) => [k, val ?? '']));
  }
  const uts = str(s.uts, at('uts'), issues);
  if (uts !== null) {
    if (uts !== 'host') issues.error(at('uts'), `"${uts}" is not a UTS namespace: only host (the host's; a container has its own otherwise)`);
    else host.UTSMode = uts;
  }
  const cgroup = str(s.cgroup, at('cgroup'), issues);
  if (cgroup !== null) {
    if (cgroup !== 'host' && cgroup !== 'private') issues.error(at('cgroup'), `"${cgroup}" is not host or private`);
    else host.CgroupnsMode = cgroup;
  }
  const userns = str(s.userns_mode, at('userns_mode'), issues);
  if (userns !== null) {
    if (userns !== 'host') issues.error(at('userns_mode'), `"${userns}" is not a user namespace mode: only host (no remapping of the engine's user namespace)`);
    else host.UsernsMode = userns;
  }
  for (const k of Object.keys(host) as (keyof HostSettings)[]) if (host[k] === undefined) delete host[k];
  return host;
}

/** the fields the keys of this file give a service, and label_file's labels beneath those written in the file */
export function withServiceKeys(s: Obj, path: string, ctx: ServiceContext, base: Omit<NormalizedService, keyof ServiceKeySettings>): NormalizedService {
  const { issues } = ctx;
  const fileLabels = labelFiles(s.label_file, `${path}.label_file`, ctx);
  const labels = { ...fileLabels, ...base.labels };
  issues.atMost('labelsPerObject', Object.keys(labels).length, `${path}.labels`, 'labels');
  const useApiSocket = bool(s.use_api_socket, `${path}.use_api_socket`, issues) ?? false;
  return {
    ...base,
    labels,
    host: hostSettings(s, path, issues),
    macAddress: str(s.mac_address, `${path}.mac_address`, issues),
    hooks: { postStart: hooks(s.post_start, `${path}.post_start`, ctx), preStop: hooks(s.pre_stop, `${path}.pre_stop`, ctx) },
    volumesFrom: volumesFrom(s.volumes_from, `${path}.volumes_from`, issues),
    useApiSocket,
    projectDir: ctx.workdir ?? null,
  };
}

/**
 * volumes_from names services by the containers they will have, and a container of the stack by the service it belongs
 * to; a service whose volumes are mounted starts first (compose orders it so too).
 */
export function resolveVolumesFrom(services: NormalizedService[], project: string, issues: Issues): void {
  const byName = new Map(services.map((s) => [s.name, s]));
  const names = (s: NormalizedService) => Array.from({ length: s.replicas }, (_, i) => s.containerName ?? `${project}-${s.name}-${i + 1}`);
  const ownContainers = new Map(services.flatMap((s) => names(s).map((n) => [n, s.name] as const)));
  for (const s of services) {
    s.volumesFrom = s.volumesFrom.flatMap((v): VolumesFrom[] => {
      // a bare name is a service of the file, else a container; a container of this stack is its service
      const service = v.service !== null && byName.has(v.service) ? v.service : ownContainers.get(v.container ?? '') ?? null;
      if (service === null) {
        if (v.container === null) { issues.error(`services.${s.name}.volumes_from`, `"${v.service}" is not a service of this file`); return []; }
        return [{ service: null, container: v.container, readOnly: v.readOnly, containers: [v.container] }];
      }
      if (service === s.name) { issues.error(`services.${s.name}.volumes_from`, 'a service cannot mount its own volumes'); return []; }
      if (!s.dependsOn.some((d) => d.service === service)) s.dependsOn.push({ service, condition: 'service_started', required: true });
      return [{ service, container: null, readOnly: v.readOnly, containers: names(byName.get(service)!) }];
    });
  }
}

/** a top-level network's ipam and enable_ipv6 / enable_ipv4 */
export function networkKeys(spec: Obj, path: string, issues: Issues): { ipam: NetworkIpam | null; enableIpv6: boolean } {
  const enableIpv6 = bool(spec.enable_ipv6, `${path}.enable_ipv6`, issues) ?? false;
  if (bool(spec.enable_ipv4, `${path}.enable_ipv4`, issues) === false) issues.error(`${path}.enable_ipv4`, 'a network without IPv4 needs Docker Engine 28 (API 1.47); this engine always gives one');
  const raw = spec.ipam;
  if (raw === undefined || raw === null) return { ipam: null, enableIpv6 };
  if (!isObj(raw)) { issues.error(`${path}.ipam`, 'must be a map with driver, config and options'); return { ipam: null, enableIpv6 }; }
  for (const key of Object.keys(raw)) if (!['driver', 'config', 'options'].includes(key) && !key.startsWith('x-')) issues.error(`${path}.ipam.${key}`, `"${key}" is not an ipam setting (driver, config, options)`);
  const config: NetworkIpam['config'] = [];
  if (raw.config !== undefined && raw.config !== null && !Array.isArray(raw.config)) issues.error(`${path}.ipam.config`, 'must be a list of subnets');
  (Array.isArray(raw.config) ? raw.config : []).forEach((c, i) => {
    const at = `${path}.ipam.config[${i}]`;
    if (!isObj(c)) { issues.error(at, 'must be a map with subnet, ip_range, gateway, aux_addresses'); return; }
    for (const key of Object.keys(c)) if (!['subnet', 'ip_range', 'gateway', 'aux_addresses'].includes(key)) issues.error(`${at}.${key}`, `"${key}" is not an ipam config setting (subnet, ip_range, gateway, aux_addresses)`);
    const subnet = str(c.subnet, `${at}.subnet`, issues);
    const ipRange = str(c.ip_range, `${at}.ip_range`, issues);
    const gateway = str(c.gateway, `${at}.gateway`, issues);
    const aux = mapOrList(c.aux_addresses, `${at}.aux_addresses`, issues);
    config.push({
      ...(subnet ? { subnet } : {}), ...(ipRange ? { ipRange } : {}), ...(gateway ? { gateway } : {}),
      ...(aux.length ? { auxAddresses: Object.fromEntries(aux.map(([k, val]) => [k, val ?? ''])) } : {}),
    });
  });
  return {
    ipam: {
      driver: str(raw.driver, `${path}.ipam.driver`, issues) ?? 'default', config,
      options: Object.fromEntries(mapOrList(raw.options, `${path}.ipam.options`, issues).map(([k, val]) => [k, val ?? ''])),
    },
    enableIpv6,
  };
}

