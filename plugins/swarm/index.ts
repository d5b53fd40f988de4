// The swarm plugin: a second stack runtime (Swarm services) beside the compose runtime, the swarm's nodes (GET /nodes, admin) and nodes down as attention items.
import { definePlugin, defineRoute, problem, streamReply, Type, type AttentionItem } from '../../sdk/index.ts';
import { problems } from './problems.ts';
import { dockerPlugin, registryAuths } from '../docker/api.ts';
import { platformRules, stackRuntimes, stacksPlugin } from '../stacks/api.ts';
import { deploySwarm, labels, projectServices, statusSwarm, stopSwarm, swarmIssues, wantsSwarm, type SwarmDeps } from './deploy.ts';
import { serviceLogs } from './logs.ts';
import { assertManager, listNodes, NodeView } from './nodes.ts';

export default definePlugin({
  name: 'swarm',
  version: '0.1.0',
  services: [],
  description: 'Docker Swarm: the swarm\'s nodes, their roles, availability, resources and tasks; nodes down as attention items',
  requires: [dockerPlugin, stacksPlugin],
  options: Type.Object({
    /** every stack runs on the swarm unless its compose file says x-dockwright: { runtime: compose } */
    default: Type.Boolean({ default: false }),
    /** how often a deploy looks at the services it changed */
    pollMs: Type.Integer({ minimum: 50, default: 1000 }),
    /** how long a deploy waits for its services to run their replicas (or an update to finish) */
    convergeTimeoutMs: Type.Integer({ minimum: 1000, default: 300_000 }),
    /** where images a swarm stack builds on the manager are pushed before its services change (workers pull them from there); null refuses build */
    registry: Type.Union([Type.String({
      pattern: '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*$', maxLength: 200,
      description: 'a registry host and path prefix, e.g. registry.example.com/team: a service with build becomes <registry>/<stack>_<service>:<image id>',
    }), Type.Null()], { default: null }),
  }),
  problems,
  setup(ctx) {
    const runtime = ctx.deps.docker;
    const stacks = ctx.deps.stacks;
    const options = ctx.options;
    const deps: SwarmDeps = { docker: runtime.docker, installation: ctx.installationId, pollMs: options.pollMs, convergeTimeoutMs: options.convergeTimeoutMs, registry: options.registry ?? null, images: runtime,
      login: async (host) => { const [provider] = ctx.extensions.of(registryAuths); return provider ? provider(host) : null; },
    };
    const managing = () => assertManager(runtime.docker).then(() => true, () => false);
    const claims = (raw: Record<string, unknown>) => wantsSwarm(raw, options.default);

    ctx.extensions.add(platformRules, {
      id: 'swarm-compatible',
      description: 'a stack deployed on the swarm uses no long-form depends_on, no container_name or network_mode, and builds only when the swarm plugin has a registry to push to',
      check: ({ loaded }) => (claims(loaded.raw) ? swarmIssues(loaded, deps.registry) : []),
    });
    ctx.extensions.add(stackRuntimes, {
      name: 'swarm',
      claims: (loaded) => claims(loaded.raw),
      async deploy(project, loaded, io) {
        await assertManager(runtime.docker).catch((err: Error) => { throw new Error(err.message); });
        return deploySwarm(deps, project, loaded, io);
      },
      // an engine outside a swarm has no services to stop
      stop: async (stack, io) => ((await managing()) ? stopSwarm(deps, stack, io) : { removed: [] }),
      remove: async (stack, io) => { if (await managing()) await stopSwarm(deps, stack, io, true); },
      // an engine outside a swarm has no services: nothing to add to the compose runtime's answer
      status: (names) => statusSwarm(deps, names).catch(() => new Map()),
    });
    ctx.scopes.define({
      'nodes:read': { description: 'list the swarm\'s nodes, their resources and tasks', role: 'admin' },
      'services:logs': { description: 'read the logs of a swarm stack\'s services, from every node', role: 'operator' },
    });

    ctx.routes.add(defineRoute({
      method: 'GET', path: '/nodes', scopes: ['nodes:read'], page: true, response: NodeView, errors: [409, 503],
      summary: 'The swarm\'s nodes: role, availability, state, resources and task counts',
      description: 'Answers 409 (code not-a-swarm-manager) when the engine is not a swarm manager, 503 when it cannot be reached.',
      handler: async ({ page }) => {
        const nodes = await listNodes(runtime.docker);
        const from = page.cursor ? nodes.findIndex((n) => n.id > page.cursor!) : 0;
        const rest = from < 0 ? [] : nodes.slice(from);
        const items = rest.slice(0, page.limit);
        return { items, next: rest.length > page.limit ? items.at(-1)!.id : undefined };
      },
    }));

    ctx.routes.add(defineRoute({
      method: 'GET', path: '/stacks/:name/services/:service/logs', scopes: ['services:logs'], errors: [403, 404, 409, 503],
      response: Type.String({ description: 'log lines' }), mediaType: 'text/plain',
      params: Type.Object({ name: stacks.nameSchema, service: Type.String({ pattern: '^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,62}$' }) }),
      query: Type.Object({
        tail: Type.Optional(Type.String({ pattern: '^(all|[0-9]{1,7})$', default: 'all', description: 'the last N lines of each task, or all' })),
        timestamps: Type.Optional(Type.Boolean({ description: 'each line with its time (1, 0, true or false)' })),
      }),
      summary: 'A swarm stack service\'s logs as text/plain, from the tasks on every node',
      description: '404 when the stack is unknown (or hidden from the caller) or has no such swarm service; 409 when the engine is not a swarm manager.',
      handler: async ({ params, query, principal }) => {
        await stacks.access(params.name, principal, 'read');
        await assertManager(runtime.docker);
        const svc = (await projectServices(deps, params.name)).find((x) => x.Spec.Labels?.[labels.service] === params.service);
        if (!svc) throw problem(404, `stack "${params.name}" has no swarm service "${params.service}"`);
        const tty = Boolean(((svc.Spec.TaskTemplate as Record<string, unknown> | undefined)?.ContainerSpec as { TTY?: boolean } | undefined)?.TTY);
        const stream = await serviceLogs(runtime.docker, svc.ID, tty, { tail: query.tail ?? 'all', timestamps: query.timestamps === true });
        return streamReply(stream, 'text/plain; charset=utf-8', { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
      },
    }));

    // the overview's summary and attention share one listing (three engine calls) while it is in flight
    let listing: Promise<Awaited<ReturnType<typeof listNodes>> | null> | undefined;
    const nodesNow = () => (listing ??= listNodes(runtime.docker).catch(() => null).finally(() => { listing = undefined; }));
    ctx.overview.add({
      scope: 'nodes:read',
      async summary() {
        const nodes = await nodesNow();
        if (!nodes) return { swarm: false };
        return { swarm: true, nodes: nodes.length, managers: nodes.filter((n) => n.role === 'manager').length, down: nodes.filter((n) => n.state !== 'ready').length };
      },
      async attention() {
        const nodes = (await nodesNow()) ?? [];
        return nodes.filter((n) => n.state !== 'ready').map((n): AttentionItem => ({
          // by id: nodes may share a hostname
          severity: n.role === 'manager' ? 'critical' : 'warning', kind: 'swarm-node-down', resource: `node:${n.id}`,
          message: `swarm ${n.role} ${n.hostname ? `${n.hostname} (${n.id})` : n.id} is ${n.state}${n.tasks.total ? `; ${n.tasks.total} task(s) are meant to run on it` : ''}`,
        }));
      },
    });
    return {};
  },
});
