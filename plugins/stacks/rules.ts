// Platform rules for compose files: each rule reports its own errors, with the path in the user's file; admins switch rules off per install.
import { isWithin, realExisting } from '../../sdk/index.ts';
import type { LoadedCompose } from '../docker/types.ts';

export interface RuleIssue { path: string; message: string }
export interface RuleInput {
  stack: string;
  loaded: LoadedCompose;
  /** the stack has a source tree (build contexts and relative bind mounts are allowed) */
  hasSource: boolean;
  /** that tree, when the compose file came from it (relative bind mounts resolve inside it) */
  workdir?: string;
}
export interface PlatformRule {
  id: string;
  description: string;
  check(input: RuleInput): RuleIssue[] | Promise<RuleIssue[]>;
}
export interface RuleError extends RuleIssue { rule: string }

export interface RuleOptions {
  allowedBindRoots: readonly string[];
  dangerousCapabilities: readonly string[];
  /** host ports published by other stacks' containers (null when the engine cannot say) */
  portsInUse(stack: string): Promise<{ project: string | null; hostPort: number; protocol: string }[] | null>;
}

type Raw = Record<string, unknown>;
const servicesOf = (loaded: LoadedCompose): [string, Raw][] =>
  Object.entries(((loaded.raw.services ?? {}) as Record<string, Raw>)).filter(([, s]) => s && typeof s === 'object');

/** one issue per service whose key matches */
function perService(loaded: LoadedCompose, key: string, bad: (value: unknown) => boolean, message: (service: string, value: unknown) => string): RuleIssue[] {
  return servicesOf(loaded).filter(([, s]) => key in s && bad(s[key])).map(([name, s]) => ({ path: `services.${name}.${key}`, message: message(name, s[key]) }));
}

const dockerSockets = ['/var/run/docker.sock', '/run/docker.sock'].map((p) => realExisting(p));


/** host ports of one `ports` entry: "8080:80", "127.0.0.1:8080-8081:80-81/udp", { published: 8080 } */
function hostPorts(entry: unknown): { port: number; protocol: string }[] {
  if (entry && typeof entry === 'object') {
    const e = entry as Raw;
    const published = e.published === undefined ? '' : String(e.published);
    return range(published).map((port) => ({ port, protocol: String(e.protocol ?? 'tcp') }));
  }
  const [spec, protocol = 'tcp'] = String(entry).split('/');
  const parts = spec.split(':');
  if (parts.length < 2) return [];
  return range(parts[parts.length - 2]).map((port) => ({ port, protocol }));
}
function range(text: string): number[] {
  const m = /^(\d+)(?:-(\d+))?$/.exec(text);
  if (!m) return [];
  const from = Number(m[1]);
  const to = Number(m[2] ?? m[1]);
  return to >= from && to - from < 1000 ? Array.from({ length: to - from + 1 }, (_, i) => from + i) : [];
}

/** the path of the `volumes` entry of a service that mounts at `target` (rules judge the normalized mount, report the user's line) */
function volumePath(raw: Raw, service: string, target: string): string {
  const list = Array.isArray(raw.volumes) ? raw.volumes : [];
  const i = list.findIndex((v) => (typeof v === 'string' ? v.split(':')[1] === target : v && typeof v === 'object' && (v as Raw).target === target));
  return i >= 0 ? `services.${service}.volumes[${i}]` : `services.${service}.volumes`;
}

/** what the engine will get, per service, with the raw service for paths */
const normalized = (loaded: LoadedCompose) => {
  const raw = Object.fromEntries(servicesOf(loaded));
  return loaded.services.map((s) => ({ s, raw: raw[s.name] ?? {} }));
};
const foreignNamespace = (mode: string | null) => mode !== null && (mode === 'host' || mode.startsWith('container:'));

export function builtInRules(opts: RuleOptions): PlatformRule[] {
  const dangerous = new Set(opts.dangerousCapabilities.map((c) => c.toUpperCase().replace(/^CAP_/, '')));
  const underRoot = (path: string) => opts.allowedBindRoots.some((root) => isWithin(root, path));
  return [
    {
      id: 'compose-valid', description: 'valid YAML that follows the Compose Specification',
      check: ({ loaded }) => loaded.errors,
    },
    {
      id: 'image-required', description: 'every service names an image (build only when the stack has a source tree)',
      check: ({ loaded, hasSource }) => hasSource ? [] : servicesOf(loaded)
        .filter(([, s]) => s.build !== undefined && s.image === undefined)
        .map(([name]) => ({ path: `services.${name}.build`, message: `service ${name} builds an image, but this stack has no source tree: name an image` })),
    },
    {
      id: 'no-privileged', description: 'no privileged containers',
      check: ({ loaded }) => normalized(loaded).filter(({ s }) => s.privileged).map(({ s }) => ({ path: `services.${s.name}.privileged`, message: `service ${s.name} asks to run privileged` })),
    },
    {
      id: 'no-host-network', description: "no network_mode: host (nor another container's network)",
      check: ({ loaded }) => normalized(loaded).filter(({ s }) => foreignNamespace(s.networkMode))
        .map(({ s }) => ({ path: `services.${s.name}.network_mode`, message: `service ${s.name} asks for the network of ${s.networkMode === 'host' ? 'the host' : s.networkMode}` })),
    },
    {
      id: 'no-host-pid', description: "no pid or ipc of the host (or of another container)",
      check: ({ loaded }) => normalized(loaded).flatMap(({ s }) => [
        ...(foreignNamespace(s.pid) ? [{ path: `services.${s.name}.pid`, message: `service ${s.name} asks for the process namespace of ${s.pid === 'host' ? 'the host' : s.pid}` }] : []),
        ...(foreignNamespace(s.ipc) ? [{ path: `services.${s.name}.ipc`, message: `service ${s.name} asks for the IPC namespace of ${s.ipc === 'host' ? 'the host' : s.ipc}` }] : []),
      ]),
    },
    {
      id: 'no-dangerous-capabilities', description: `no cap_add of ${[...dangerous].join(', ')}`,
      check: ({ loaded }) => normalized(loaded).flatMap(({ s, raw }) => s.capAdd
        .map((cap) => cap.toUpperCase().replace(/^CAP_/, ''))
        .filter((cap) => dangerous.has(cap))
        .map((cap) => {
          const i = Array.isArray(raw.cap_add) ? raw.cap_add.findIndex((c) => String(c).toUpperCase().replace(/^CAP_/, '') === cap) : -1;
          return { path: `services.${s.name}.cap_add${i >= 0 ? `[${i}]` : ''}`, message: `service ${s.name} adds the capability ${cap}` };
        })),
    },
    {
      id: 'no-devices', description: 'no host devices',
      check: ({ loaded }) => normalized(loaded).filter(({ s }) => s.devices.length > 0).map(({ s }) => ({ path: `services.${s.name}.devices`, message: `service ${s.name} maps host devices` })),
    },
    {
      id: 'no-docker-socket', description: 'never the Docker socket',
      check: ({ loaded }) => normalized(loaded).flatMap(({ s, raw }) => s.mounts.filter((m) => m.type === 'bind' && m.source).flatMap((m) => {
        const source = m.source!;
        const exposes = dockerSockets.some((sock) => sock === source || sock.startsWith(source.endsWith('/') ? source : source + '/'));
        return exposes ? [{ path: volumePath(raw, s.name, m.target), message: `service ${s.name} mounts the Docker socket (or a folder holding it): that hands over the host` }] : [];
      })),
    },
    {
      id: 'allowed-bind-mounts', description: `bind mounts only below the allowed roots${opts.allowedBindRoots.length ? ` (${opts.allowedBindRoots.join(', ')})` : ''}, or inside the stack's source tree`,
      check: ({ loaded, workdir }) => normalized(loaded).flatMap(({ s, raw }) => s.mounts.filter((m) => m.type === 'bind' && m.source).flatMap((m) => {
        const source = m.source!;
        const inTree = workdir !== undefined && isWithin(workdir, source);
        return inTree || underRoot(source) ? [] : [{ path: volumePath(raw, s.name, m.target), message: `service ${s.name} mounts the host path ${source}, which is not below an allowed root` }];
      })),
    },
    {
      id: 'no-host-volume-options', description: 'named volumes without driver options (a "local" volume with o=bind is a bind mount of any host path)',
      check: ({ loaded }) => loaded.volumes.filter((v) => Object.keys(v.driverOpts).length > 0)
        .map((v) => ({ path: `volumes.${v.key}.driver_opts`, message: `volume ${v.key} sets driver options` })),
    },
    {
      id: 'no-external-resources', description: "volumes and networks belong to the stack: no external or explicitly named ones (they could be another stack's)",
      check: ({ loaded, stack }) => [
        ...loaded.volumes.filter((v) => v.external || v.name !== `${stack}_${v.key}`).map((v) => ({ path: `volumes.${v.key}`, message: `volume ${v.key} is ${v.external ? 'external' : `named ${v.name}`}` })),
        ...loaded.networks.filter((n) => n.external || n.name !== `${stack}_${n.key}`).map((n) => ({ path: `networks.${n.key}`, message: `network ${n.key} is ${n.external ? 'external' : `named ${n.name}`}` })),
      ],
    },
    {
      id: 'no-container-name', description: 'no container_name (names are the platform\'s, so stacks cannot collide)',
      check: ({ loaded }) => perService(loaded, 'container_name', () => true, (n) => `service ${n} sets container_name`),
    },
    {
      id: 'ports-available', description: 'published host ports are not used by another stack or twice in this one',
      async check({ loaded, stack }) {
        const issues: RuleIssue[] = [];
        const seen = new Map<string, string>();
        const mine: { key: string; path: string; service: string; port: number }[] = [];
        for (const [name, s] of servicesOf(loaded)) {
          (Array.isArray(s.ports) ? s.ports : []).forEach((entry, i) => {
            for (const { port, protocol } of hostPorts(entry)) {
              const key = `${port}/${protocol}`;
              const path = `services.${name}.ports[${i}]`;
              const first = seen.get(key);
              if (first) issues.push({ path, message: `host port ${key} is published twice in this file (also at ${first})` });
              else seen.set(key, path);
              mine.push({ key, path, service: name, port });
            }
          });
        }
        if (!mine.length) return issues;
        const used = await opts.portsInUse(stack);
        for (const u of used ?? []) {
          const clash = mine.find((m) => m.key === `${u.hostPort}/${u.protocol}`);
          if (clash) issues.push({ path: clash.path, message: `host port ${clash.key} is already published by ${u.project ? `stack ${u.project}` : 'a container outside Dockwright'}` });
        }
        return issues;
      },
    },
  ];
}

/** runs every enabled rule; the errors name their rule. */
export async function checkRules(rules: readonly PlatformRule[], switches: Readonly<Record<string, boolean>>, input: RuleInput): Promise<RuleError[]> {
  const active = rules.filter((r) => switches[r.id] !== false);
  const results = await Promise.all(active.map(async (r) => (await r.check(input)).map((issue) => ({ rule: r.id, ...issue }))));
  // a file that does not parse has nothing further worth reporting
  const invalid = results[active.findIndex((r) => r.id === 'compose-valid')] ?? [];
  return invalid.length && !input.loaded.raw.services ? invalid : results.flat();
}
