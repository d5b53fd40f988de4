// The swarm plugin: the nodes of the swarm the engine manages (GET /nodes, admin) and an attention item for each node that is down.
import { definePlugin, defineRoute, type AttentionItem } from '../../sdk/index.ts';
import type { DockerRuntime } from '../docker/types.ts';
import { listNodes, NodeView } from './nodes.ts';

export default definePlugin({
  name: 'swarm',
  version: '0.1.0',
  description: 'Docker Swarm: the swarm\'s nodes, their roles, availability, resources and tasks; nodes down as attention items',
  requires: ['docker'],
  setup(ctx) {
    const runtime = ctx.deps.docker as DockerRuntime;
    ctx.scopes.define({
      'nodes:read': { description: 'list the swarm\'s nodes, their resources and tasks', role: 'admin' },
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

    ctx.overview.add({
      scope: 'nodes:read',
      async summary() {
        const nodes = await listNodes(runtime.docker).catch(() => null);
        if (!nodes) return { swarm: false };
        return { swarm: true, nodes: nodes.length, managers: nodes.filter((n) => n.role === 'manager').length, down: nodes.filter((n) => n.state !== 'ready').length };
      },
      async attention() {
        const nodes = await listNodes(runtime.docker).catch(() => []);
        return nodes.filter((n) => n.state !== 'ready').map((n): AttentionItem => ({
          severity: n.role === 'manager' ? 'critical' : 'warning', kind: 'swarm-node-down', resource: `node:${n.hostname || n.id}`,
          message: `swarm ${n.role} ${n.hostname || n.id} is ${n.state}${n.tasks.total ? `; ${n.tasks.total} task(s) are meant to run on it` : ''}`,
        }));
      },
    });
    return {};
  },
});
