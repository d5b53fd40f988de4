// Stacks behind the edge: the compose labels that declare a hostname, their platform rules, the hostnames a saved stack holds, and the routes deploy, stop and delete set.
import type Dockerode from 'dockerode';
import { keyedLock, Problem, problem, type Actor, type ContextWith } from '../../sdk/index.ts';
import type { LoadedCompose } from '../docker/types.ts';
import type { PlatformRule, StackHook } from '../stacks/index.ts';
import { normalizeHostname, normalizePath } from './hostnames.ts';
import { hostLabel, pathLabel, portLabel, readyLabel, readyTimeoutLabel } from './network.ts';
import type { Owners } from './owners.ts';
import type { EdgeStore } from './store.ts';
import type { ProxyRoute } from './types.ts';

type RuleIssue = { path: string; message: string };

export const stackOwner = (stack: string) => `stack:${stack}`;

/** the routes a set of services declares with their labels, and what is wrong with them */
export function declaredRoutes(project: string, services: readonly { name: string; labels: Record<string, string> }[]): { routes: ProxyRoute[]; issues: RuleIssue[] } {
  const routes: ProxyRoute[] = [];
  const issues: RuleIssue[] = [];
  const seen = new Map<string, string>();
  for (const s of services) {
    const l = s.labels;
    if (l[hostLabel] === undefined && l[portLabel] === undefined && l[pathLabel] === undefined) continue;
    const at = `services.${s.name}.labels`;
    if (l[hostLabel] === undefined) { issues.push({ path: at, message: `service ${s.name} sets ${portLabel} or ${pathLabel} but no ${hostLabel}` }); continue; }
    const host = normalizeHostname(l[hostLabel]);
    const port = /^\d{1,5}$/.test(l[portLabel] ?? '') ? Number(l[portLabel]) : NaN;
    const path = normalizePath(l[pathLabel]);
    if (!host.ok) issues.push({ path: `${at}.${hostLabel}`, message: `service ${s.name}: ${host.reason}` });
    if (!(port >= 1 && port <= 65535)) issues.push({ path: `${at}.${portLabel}`, message: `service ${s.name} declares a hostname, so ${portLabel} must name the port it listens on (1 to 65535)` });
    if (!path.ok) issues.push({ path: `${at}.${pathLabel}`, message: `service ${s.name}: ${path.reason}` });
    if (l[readyLabel] !== undefined && !readyPathPattern.test(l[readyLabel])) issues.push({ path: `${at}.${readyLabel}`, message: `service ${s.name}: ${readyLabel} is a path such as /healthz (at most 512 characters, no spaces)` });
    if (l[readyTimeoutLabel] !== undefined && readyTimeoutOf(l) === null) issues.push({ path: `${at}.${readyTimeoutLabel}`, message: `service ${s.name}: ${readyTimeoutLabel} is a number of seconds from 1 to 3600` });
    if (!host.ok || !path.ok || !(port >= 1 && port <= 65535)) continue;
    const key = `${host.hostname}${path.path === '/' ? '' : path.path}`;
    const first = seen.get(key);
    if (first) { issues.push({ path: `${at}.${hostLabel}`, message: `${key} is declared by services ${first} and ${s.name}` }); continue; }
    seen.set(key, s.name);
    routes.push({ kind: 'proxy', hostname: host.hostname, path: path.path, upstream: { project, service: s.name, port } });
  }
  return { routes, issues };
}

const readyPathPattern = /^\/[\x21-\x7e]{0,511}$/;
/** seconds a new container has to get ready (dockwright.http.readyTimeout, default 60); null when the label is not such a number */
function readyTimeoutOf(l: Record<string, string>): number | null {
  const v = l[readyTimeoutLabel];
  if (v === undefined) return 60;
  return /^\d{1,4}$/.test(v.trim()) && Number(v) >= 1 && Number(v) <= 3600 ? Number(v) : null;
}

/** the port, ready path and ready timeout of a service the edge routes (valid labels), or null */
export function readinessOf(service: { name: string; labels: Record<string, string> }): { port: number; readyPath: string | null; readyTimeoutMs: number } | null {
  const { routes, issues } = declaredRoutes('p', [service]);
  if (!routes.length || issues.length) return null;
  const ready = service.labels[readyLabel];
  return { port: routes[0].upstream.port, readyPath: ready ?? null, readyTimeoutMs: readyTimeoutOf(service.labels)! * 1000 };
}


const labelled = (loaded: LoadedCompose) => loaded.services.map((s) => ({ name: s.name, labels: s.labels }));
const labelPath = (r: ProxyRoute) => `services.${r.upstream.service}.labels.${hostLabel}`;

export function edgeRules(owners: Owners): PlatformRule[] {
  return [
    {
      id: 'edge-route-labels', description: `${hostLabel} is a valid hostname, with ${portLabel} (and optionally ${pathLabel}, ${readyLabel}, ${readyTimeoutLabel}); no hostname and path twice`,
      check: ({ loaded, stack }) => declaredRoutes(stack, labelled(loaded)).issues,
    },
    {
      id: 'edge-hostname-taken', description: `the hostname in ${hostLabel} belongs to no other stack (running or not) or site`,
      async check({ loaded, stack, principal }) {
        const { routes } = declaredRoutes(stack, labelled(loaded));
        const taken = await owners.told(await owners.conflicts(stackOwner(stack), routes.map((r) => r.hostname)), principal);
        return routes.flatMap((r) => taken.filter((c) => c.hostname === r.hostname).map((c) => ({ path: labelPath(r), message: c.message })));
      },
    },
  ];
}

/**
 * A stack holds the hostnames its saved compose file names from the moment it is saved, running or not, until a save
 * names others or the stack is removed: no site or other stack takes them meanwhile. A deploy checks them again (a
 * compose file from a source tree is saved nowhere), and fails with the reason rather than run unrouted.
 */
export function stackHostnames(store: EdgeStore, owners: Owners): StackHook {
  const routesOf = (stack: string, loaded: LoadedCompose) => declaredRoutes(stack, labelled(loaded)).routes;
  return {
    async saved(tx, stack, loaded) {
      const routes = routesOf(stack, loaded);
      await store.lock(tx);
      // the platform rule told the caller; this is the check under the lock, for a hostname taken since
      const taken = await owners.told(await owners.conflicts(stackOwner(stack), routes.map((r) => r.hostname), tx));
      if (taken.length) {
        const errors = routes.flatMap((r) => taken.filter((c) => c.hostname === r.hostname).map((c) => ({ rule: 'edge-hostname-taken', path: labelPath(r), message: c.message })));
        throw problem(422, `the compose file breaks ${errors.length} platform rule${errors.length > 1 ? 's' : ''}; nothing was saved`, { code: 'compose-refused', errors });
      }
      await store.reserve(tx, stackOwner(stack), [...new Set(routes.map((r) => r.hostname))]);
    },
    async deploying(stack, loaded) {
      const taken = await owners.told(await owners.conflicts(stackOwner(stack), routesOf(stack, loaded).map((r) => r.hostname)));
      if (taken.length) throw new Error(`the edge would not route this stack: ${taken.map((c) => c.message).join('; ')} (GET /api/v1/edge shows the owners to admins); nothing was deployed`);
    },
    async removed(tx, stack) {
      // its containers are gone already: its routes go with the stack, and the running edge follows the new generation
      await store.bump(tx);
      await store.release(tx, stackOwner(stack));
    },
  };
}

/** deploy routes what the deployed containers declare; stop and delete remove the stack's routes */
export function followStacks(ctx: ContextWith<'activity' | 'events'>, docker: Dockerode, store: EdgeStore, setRoutes: (owner: string, routes: ProxyRoute[]) => Promise<void>): void {
  const system: Actor = { kind: 'system', name: 'edge' };
  const apply = async (stack: string, routes: ProxyRoute[]) => {
    const owner = stackOwner(stack);
    try {
      await setRoutes(owner, routes);
      await store.setRefusal(owner, null);
    } catch (err) {
      const message = err instanceof Problem ? err.detail : (err as Error).message;
      ctx.log.warn({ stack, reason: message }, 'the routes of a stack were refused');
      await store.setRefusal(owner, message);
      await ctx.activity.record({ actor: system, action: 'edge.routes', resource: `stack:${stack}`, result: 'refused', detail: { reason: message } });
    }
  };
  // one stack's events are handled in the order they came: a deploy's slow container listing must not land after the stop that followed it
  const inOrder = keyedLock();
  ctx.events.on('stack.deployed', ({ stack }) => inOrder(String(stack), async () => {
    const name = String(stack);
    const list = await docker.listContainers({ all: true, filters: { label: ['dockwright.managed=true', `dockwright.project=${name}`, hostLabel] } });
    const services = new Map<string, Record<string, string>>();
    for (const c of list) services.set(c.Labels['dockwright.service'], c.Labels);
    const { routes, issues } = declaredRoutes(name, [...services].map(([n, labels]) => ({ name: n, labels })));
    if (issues.length) {
      await store.setRefusal(stackOwner(name), issues.map((i) => i.message).join('; '));
      return;
    }
    await apply(name, routes);
  }));
  for (const event of ['stack.stopped', 'stack.removed']) ctx.events.on(event, ({ stack }) => inOrder(String(stack), () => apply(String(stack), [])));
}
