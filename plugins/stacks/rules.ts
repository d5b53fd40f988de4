// Platform rules for compose files: each rule reports its own errors, with the path in the user's file; admins switch rules off per install.
import { posix } from 'node:path';
import type { LoadedCompose } from '../docker/types.ts';

export interface RuleIssue { path: string; message: string }
export interface RuleInput {
  stack: string;
  loaded: LoadedCompose;
  /** the stack has a source tree (build contexts and relative bind mounts are allowed) */
  hasSource: boolean;
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

const dockerSockets = ['/var/run/docker.sock', '/run/docker.sock'];

/** the host side of a volume entry when it is a bind mount, else null */
function bindSource(entry: unknown): string | null {
  if (typeof entry === 'string') {
    const [source, target] = entry.split(':');
    if (target === undefined) return null; // anonymous volume
    return /^[./~]/.test(source) ? source : null;
  }
  if (entry && typeof entry === 'object' && (entry as Raw).type === 'bind') return String((entry as Raw).source ?? '');
  return null;
}

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

export function builtInRules(opts: RuleOptions): PlatformRule[] {
  const dangerous = new Set(opts.dangerousCapabilities.map((c) => c.toUpperCase().replace(/^CAP_/, '')));
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
      check: ({ loaded }) => perService(loaded, 'privileged', (v) => v === true || v === 'true', (n) => `service ${n} asks to run privileged`),
    },
    {
      id: 'no-host-network', description: 'no network_mode: host',
      check: ({ loaded }) => perService(loaded, 'network_mode', (v) => v === 'host', (n) => `service ${n} asks for the host's network`),
    },
    {
      id: 'no-host-pid', description: 'no pid: host or ipc: host',
      check: ({ loaded }) => [
        ...perService(loaded, 'pid', (v) => v === 'host', (n) => `service ${n} asks for the host's process namespace`),
        ...perService(loaded, 'ipc', (v) => v === 'host', (n) => `service ${n} asks for the host's IPC namespace`),
      ],
    },
    {
      id: 'no-dangerous-capabilities', description: `no cap_add of ${[...dangerous].join(', ')}`,
      check: ({ loaded }) => servicesOf(loaded).flatMap(([name, s]) => (Array.isArray(s.cap_add) ? s.cap_add : [])
        .map((cap, i) => ({ cap: String(cap).toUpperCase().replace(/^CAP_/, ''), i }))
        .filter(({ cap }) => dangerous.has(cap))
        .map(({ cap, i }) => ({ path: `services.${name}.cap_add[${i}]`, message: `service ${name} adds the capability ${cap}` }))),
    },
    {
      id: 'no-devices', description: 'no host devices',
      check: ({ loaded }) => perService(loaded, 'devices', (v) => Array.isArray(v) && v.length > 0, (n) => `service ${n} maps host devices`),
    },
    {
      id: 'no-docker-socket', description: 'never the Docker socket',
      check: ({ loaded }) => servicesOf(loaded).flatMap(([name, s]) => (Array.isArray(s.volumes) ? s.volumes : []).flatMap((v, i) => {
        const source = bindSource(v);
        if (source === null) return [];
        const resolved = posix.resolve('/', source);
        const exposes = dockerSockets.some((sock) => sock === resolved || sock.startsWith(resolved.endsWith('/') ? resolved : resolved + '/'));
        return exposes ? [{ path: `services.${name}.volumes[${i}]`, message: `service ${name} mounts the Docker socket (or a folder holding it): that hands over the host` }] : [];
      })),
    },
    {
      id: 'allowed-bind-mounts', description: `bind mounts only below the allowed roots${opts.allowedBindRoots.length ? ` (${opts.allowedBindRoots.join(', ')})` : ''}, or inside the stack's source tree`,
      check: ({ loaded, hasSource }) => servicesOf(loaded).flatMap(([name, s]) => (Array.isArray(s.volumes) ? s.volumes : []).flatMap((v, i) => {
        const source = bindSource(v);
        if (source === null) return [];
        if (!source.startsWith('/') && !source.startsWith('~')) {
          const inside = !posix.normalize(source).startsWith('..');
          return hasSource && inside ? [] : [{ path: `services.${name}.volumes[${i}]`, message: hasSource ? `service ${name} mounts ${source}, outside the source tree` : `service ${name} mounts the relative path ${source}, but this stack has no source tree` }];
        }
        const resolved = posix.resolve('/', source.replace(/^~/, '/root'));
        const allowed = opts.allowedBindRoots.some((root) => resolved === posix.resolve(root) || resolved.startsWith(posix.resolve(root) + '/'));
        return allowed ? [] : [{ path: `services.${name}.volumes[${i}]`, message: `service ${name} mounts the host path ${resolved}, which is not below an allowed root` }];
      })),
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
