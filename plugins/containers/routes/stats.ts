// The resource-use endpoints: a container's CPU, memory, network and disk use (once or streamed), and a stack's totals.
import { defineRoute, problem, streamReply, Type, compareText, type AnyRoute } from '../../../sdk/index.ts';
import { StatsSchema, statsOnce, statsStream, type Stats } from '../stats.ts';
import { Flag, Id, on, refusals, type ContainerKit } from './kit.ts';

const nameOf = (info: { Name?: string }) => (info.Name ?? '').replace(/^\//, '');

export function statsRoutes({ runtime, docker, fail, readable }: ContainerKit): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET', path: '/containers/:id/stats', scopes: ['containers:stats'], params: Id, errors: [403, 404, 502, 503],
      summary: 'A container\'s CPU, memory, network and disk use; follow=1 streams one snapshot a second as newline-delimited JSON until the client leaves',
      description: 'The snapshot takes about a second: the engine reads the CPU twice to tell its use. With follow=1 the answer is `application/x-ndjson`, '
        + 'one snapshot (this schema) per line. A stopped container answers zeros. '
        + refusals.replace('the caller is no admin', 'the caller is no admin (viewers read the stats of the stacks they see)'),
      query: Type.Object({ follow: Type.Optional(Flag) }),
      response: StatsSchema,
      handler: async ({ params, query, principal }) => {
        const info = await readable(params.id, principal);
        try {
          if (on(query.follow)) return streamReply(await statsStream(docker, info.Id, nameOf(info)), 'application/x-ndjson', { 'Cache-Control': 'no-store' });
          return await statsOnce(docker, info.Id, nameOf(info));
        } catch (err) {
          return fail(err, params.id);
        }
      },
    }),
    defineRoute({
      method: 'GET', path: '/stacks/:name/stats', scopes: ['containers:stats'], errors: [404, 502, 503],
      params: Type.Object({ name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }) }),
      summary: 'A stack\'s resource use: the totals of its running containers, and each one\'s snapshot',
      response: Type.Object({
        stack: Type.String(),
        at: Type.String({ format: 'date-time' }),
        cpuPercent: Type.Number({ minimum: 0, description: 'the sum of its containers\' (100 is one whole CPU)' }),
        memory: Type.Object({ used: Type.Integer({ minimum: 0 }) }),
        network: Type.Object({ rxBytes: Type.Integer({ minimum: 0 }), txBytes: Type.Integer({ minimum: 0 }) }),
        blockIo: Type.Object({ readBytes: Type.Integer({ minimum: 0 }), writeBytes: Type.Integer({ minimum: 0 }) }),
        containers: Type.Array(StatsSchema),
      }),
      handler: async ({ params, principal }) => {
        if ((await runtime.allowedProjects(principal, [params.name], 'read')).size === 0) throw problem(404, `there is no stack "${params.name}"`);
        const running = await runtime.containers({ project: params.name, state: 'running' });
        const settled = await Promise.allSettled(running.map((c) => statsOnce(docker, c.Id, (c.Names?.[0] ?? '').replace(/^\//, ''))));
        // a container that went away meanwhile is left out
        const containers = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])).sort((a, b) => compareText(a.name, b.name));
        const sum = (f: (s: Stats) => number) => containers.reduce((n, s) => n + f(s), 0);
        return {
          stack: params.name, at: new Date().toISOString(),
          cpuPercent: Math.round(sum((s) => s.cpuPercent) * 100) / 100,
          memory: { used: sum((s) => s.memory.used) },
          network: { rxBytes: sum((s) => s.network.rxBytes), txBytes: sum((s) => s.network.txBytes) },
          blockIo: { readBytes: sum((s) => s.blockIo.readBytes), writeBytes: sum((s) => s.blockIo.writeBytes) },
          containers,
        };
      },
    }),
  ];
}
