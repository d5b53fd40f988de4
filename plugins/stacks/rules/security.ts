// Platform rules that keep a container inside its own namespaces and limits: no privileges, host namespaces, devices, the Docker socket, nor capabilities, options, sysctls, runtimes or logging drivers an admin has not allowed.
import { realExisting } from '../../../sdk/index.ts';
import { keyPaths, listOrNone, listed, normalized, volumePaths } from './compose.ts';
import type { PlatformRule, RuleOptions } from './types.ts';

const dockerSockets = ['/var/run/docker.sock', '/run/docker.sock'].map((p) => realExisting(p));
const capability = (name: string) => name.trim().toUpperCase().replace(/^CAP_/, '');
/** pid and ipc modes that keep a container in namespaces of its own */
const ownPid = new Set(['']);
const ownIpc = new Set(['', 'none', 'private', 'shareable']);
/** namespaces beyond pid and ipc whose only mode other than the container's own is the host's */
const hostNamespaces = [['uts', 'UTSMode', 'UTS namespace'], ['cgroup', 'CgroupnsMode', 'cgroup namespace'], ['userns_mode', 'UsernsMode', 'user namespace (no remapping)']] as const;

export function securityRules(opts: RuleOptions): PlatformRule[] {
  const capabilities = new Set(opts.allowedCapabilities.map(capability));
  const loggingDrivers = new Set(opts.allowedLoggingDrivers);
  const securityOptions = new Set(opts.allowedSecurityOptions);
  const sysctlAllowed = (name: string) => opts.allowedSysctls.some((a) => (a.endsWith('*') ? name.startsWith(a.slice(0, -1)) : name === a));
  const runtimes = new Set(opts.allowedRuntimes);
  const list = listOrNone;
  return [
    {
      id: 'no-privileged', description: 'no privileged containers, nor privileged post_start or pre_stop commands',
      check: ({ loaded }) => normalized(loaded).flatMap(({ s }) => [
        ...(s.privileged ? [{ path: `services.${s.name}.privileged`, message: `service ${s.name} asks to run privileged` }] : []),
        ...(['postStart', 'preStop'] as const).flatMap((kind) => s.hooks[kind].flatMap((h, i) => h.privileged
          ? [{ path: `services.${s.name}.${kind === 'postStart' ? 'post_start' : 'pre_stop'}[${i}].privileged`, message: `service ${s.name} asks to run a hook privileged` }] : [])),
      ]),
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
  ];
}
