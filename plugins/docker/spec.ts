// A normalized service → the Engine API create body of one of its containers, and the config hash that detects changes.
import { createHash } from 'node:crypto';
import type { ContainerCreateOptions, MountSettings } from 'dockerode';
import type { NormalizedService, ServiceHook, ServiceNetwork } from './types.ts';
import { composeLabelsFor, containerName, label, labelsFor } from './labels.ts';

/** where compose's use_api_socket mounts the engine's socket, in the container and (the engine's own) on the host */
export const apiSocketPath = '/var/run/docker.sock';

export interface ContainerPlan {
  service: string;
  number: number;
  name: string;
  hash: string;
  create: ContainerCreateOptions & { name: string };
  /** networks joined after create: API 1.41 takes one endpoint at create time */
  extraNetworks: ServiceNetwork[];
  /** run in the container once it has started */
  postStart: ServiceHook[];
}

function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => [k, stable((value as Record<string, unknown>)[k])]));
  }
  return value;
}

const endpoint = (n: ServiceNetwork) => {
  const ipam = { ...(n.ipv4Address ? { IPv4Address: n.ipv4Address } : {}), ...(n.ipv6Address ? { IPv6Address: n.ipv6Address } : {}), ...(n.linkLocalIps?.length ? { LinkLocalIPs: n.linkLocalIps } : {}) };
  return { Aliases: n.aliases, ...(Object.keys(ipam).length ? { IPAMConfig: ipam } : {}) };
};

function hostConfig(s: NormalizedService): ContainerCreateOptions['HostConfig'] {
  const portBindings: Record<string, { HostIp: string; HostPort: string }[]> = {};
  for (const p of s.ports) {
    (portBindings[`${p.target}/${p.protocol}`] ??= []).push({ HostIp: p.hostIp, HostPort: p.published === null ? '' : String(p.published) });
  }
  const binds = s.mounts.filter((m) => m.type === 'bind' && m.createHostPath).map((m) => {
    const options = [m.readOnly ? 'ro' : '', m.propagation ?? ''].filter(Boolean).join(',');
    return `${m.source}:${m.target}${options ? `:${options}` : ''}`;
  });
  if (s.useApiSocket) binds.push(`${apiSocketPath}:${apiSocketPath}`);
  // the typings demand every optional member of the engine's mount settings
  const mounts: MountSettings[] = s.mounts.filter((m) => !(m.type === 'bind' && m.createHostPath)).map((m) => ({
    Type: m.type, Target: m.target, ReadOnly: m.readOnly, Source: m.source ?? '',
    ...(m.noCopy ? { VolumeOptions: { NoCopy: true } } : {}),
    ...(m.propagation ? { BindOptions: { Propagation: m.propagation } } : {}),
    ...(m.tmpfsSize !== undefined ? { TmpfsOptions: { SizeBytes: m.tmpfsSize } } : {}),
  }) as MountSettings);
  const r = s.resources;
  return {
    PortBindings: portBindings,
    Binds: binds.length ? binds : undefined,
    Mounts: mounts.length ? mounts : undefined,
    RestartPolicy: { Name: s.restart.name === 'no' ? '' : s.restart.name, MaximumRetryCount: s.restart.maximumRetryCount },
    NetworkMode: s.networkContainer ? `container:${s.networkContainer}` : s.networkMode ?? s.networks[0]?.name,
    LogConfig: s.logging ? { Type: s.logging.driver, Config: s.logging.options } : undefined,
    ExtraHosts: s.extraHosts.length ? s.extraHosts : undefined,
    Memory: r.memory, MemoryReservation: r.memoryReservation, NanoCpus: r.nanoCpus, CpuShares: r.cpuShares, PidsLimit: r.pidsLimit, ShmSize: r.shmSize,
    CapAdd: s.capAdd.length ? s.capAdd : undefined,
    CapDrop: s.capDrop.length ? s.capDrop : undefined,
    Privileged: s.privileged || undefined,
    ReadonlyRootfs: s.readOnly || undefined,
    Init: s.init ?? undefined,
    Dns: s.dns.length ? s.dns : undefined,
    DnsSearch: s.dnsSearch.length ? s.dnsSearch : undefined,
    SecurityOpt: s.securityOpt.length ? s.securityOpt : undefined,
    Sysctls: Object.keys(s.sysctls).length ? s.sysctls : undefined,
    Ulimits: s.ulimits.length ? s.ulimits.map((u) => ({ Name: u.name, Soft: u.soft, Hard: u.hard })) : undefined,
    Devices: s.devices.length ? s.devices.map((d) => ({ PathOnHost: d.host, PathInContainer: d.container, CgroupPermissions: d.permissions })) : undefined,
    PidMode: s.pid ?? undefined,
    IpcMode: s.ipc ?? undefined,
    GroupAdd: s.groupAdd.length ? s.groupAdd : undefined,
    VolumesFrom: s.volumesFrom.length ? s.volumesFrom.flatMap((v) => v.containers.map((c) => `${c}:${v.readOnly ? 'ro' : 'rw'}`)) : undefined,
    ...s.host,
  };
}

/** the container `number` of service `s` in `project`, running the image whose id is `imageId`, labelled as `installation`'s. */
export function planContainer(project: string, s: NormalizedService, number: number, imageId: string, installation: string): ContainerPlan {
  const exposed: Record<string, object> = {};
  for (const p of s.ports) exposed[`${p.target}/${p.protocol}`] = {};
  for (const e of s.expose) exposed[e.includes('/') ? e : `${e}/tcp`] = {};
  const hc = s.healthcheck;
  const [first, ...extraNetworks] = s.networks;
  const name = containerName(project, s.name, number, s.containerName);
  const body = {
    name,
    Image: s.image,
    Cmd: s.command ?? undefined,
    Entrypoint: s.entrypoint ?? undefined,
    Env: Object.keys(s.environment).sort().map((k) => `${k}=${s.environment[k]}`),
    Labels: {
      ...s.labels, ...labelsFor.container(project, s.name, number, ''),
      // read back when the container is stopped, by then without its compose file
      ...(s.hooks.preStop.length ? { [label.preStop]: JSON.stringify(s.hooks.preStop) } : {}),
    } as Record<string, string>,
    ExposedPorts: Object.keys(exposed).length ? exposed : undefined,
    Healthcheck: hc ? { Test: hc.test, Interval: hc.intervalNs, Timeout: hc.timeoutNs, Retries: hc.retries, StartPeriod: hc.startPeriodNs } : undefined,
    User: s.user ?? undefined,
    WorkingDir: s.workingDir ?? undefined,
    Hostname: s.hostname ?? undefined,
    Domainname: s.domainname ?? undefined,
    StopSignal: s.stopSignal ?? undefined,
    MacAddress: s.macAddress ?? undefined,
    StopTimeout: s.stopGracePeriodSeconds ?? undefined,
    Tty: s.tty || undefined,
    OpenStdin: s.stdinOpen || undefined,
    HostConfig: hostConfig(s),
    NetworkingConfig: first && !s.networkMode ? { EndpointsConfig: { [first.name]: endpoint(first) } } : undefined,
  };
  const hash = createHash('sha256').update(JSON.stringify(stable({ body, extraNetworks, imageId }))).digest('hex');
  body.Labels[label.configHash] = hash;
  // outside the hash: containers made before installations were labelled are not recreated for it
  body.Labels[label.installation] = installation;
  // compose's own labels describe (the dockwright.* ones decide): outside the hash too, and what a user wrote under their names loses
  for (const k of Object.keys(body.Labels)) if (k.startsWith('com.docker.compose.')) delete body.Labels[k];
  Object.assign(body.Labels, composeLabelsFor.container(project, s, number, hash, s.projectDir ?? undefined));
  return { service: s.name, number, name, hash, create: stable(body) as ContainerPlan['create'], extraNetworks, postStart: s.hooks.postStart };
}

export { endpoint as endpointConfig };
