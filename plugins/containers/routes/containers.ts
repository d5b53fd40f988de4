// The container endpoints of /api/v1: the list, start/stop/restart and the logs.
import { defineRoute, problem, streamReply, Type, compareText, type AnyRoute } from '../../../sdk/index.ts';
import { logsStream, parseSince } from '../logs.ts';
import { ContainerSchema, toView } from '../view.ts';
import { Flag, Id, on, refusals, type ContainerKit } from './kit.ts';

const states = ['created', 'restarting', 'running', 'removing', 'paused', 'exited', 'dead'];
const Action = Type.Composite([ContainerSchema, Type.Object({ changed: Type.Boolean({ description: 'false when the container already was in the asked state' }) })]);

export function containerRoutes({ runtime, docker, fail, actOn, view }: ContainerKit): AnyRoute[] {
  const action = (verb: 'start' | 'stop' | 'restart', summary: string) => defineRoute({
    method: 'POST', path: `/containers/:id/${verb}`, scopes: ['containers:write'], summary, params: Id, description: refusals,
    query: verb === 'start' ? undefined : Type.Object({ timeout: Type.Optional(Type.Integer({ minimum: 0, maximum: 600, default: 10, description: 'seconds to wait before killing it' })) }),
    response: Action, errors: [403, 404, 409, 502, 503],
    activity: `containers.${verb}`, resource: 'container:{id}',
    handler: async ({ params, query, principal }) => {
      const info = await actOn(params.id, principal);
      const labels = info.Config.Labels ?? {};
      if (labels['com.docker.swarm.task.id']) {
        // the swarm would undo it (or fight it): a task is changed through its service, that is its stack
        const stack = labels['dockwright.project'] ?? labels['com.docker.stack.namespace'];
        throw problem(409, `container "${params.id}" is a task of the swarm service ${labels['com.docker.swarm.service.name'] ?? ''}${stack ? ` of stack "${stack}"` : ''}: act on the stack instead (deploy, stop, or its replicas)`, { code: 'swarm-task', extra: stack ? { stack } : undefined });
      }
      const t = (query as { timeout?: number } | undefined)?.timeout ?? 10;
      const c = docker.getContainer(info.Id);
      let changed = true;
      try {
        if (verb === 'start') await c.start();
        else if (verb === 'stop') await c.stop({ t });
        else await c.restart({ t });
      } catch (err) {
        // 304: already running / already stopped: the wanted state holds, nothing to do
        if (runtime.errorOf(err).status !== 304) fail(err, params.id);
        changed = false;
      }
      return { ...(await view(info.Id, params.id)), changed };
    },
  });

  return [
    defineRoute({
      method: 'GET', path: '/containers', scopes: ['containers:read'], page: true, errors: [503],
      summary: 'List containers (the engine\'s containers, with the stack that owns them)',
      description: 'This installation\'s containers, those of stacks hidden from the caller by their access list left out; containers not made by Dockwright are listed to admins only '
        + '(only admins act on them); the containers of another Dockwright installation on the same engine are not listed. '
        + 'Answered from memory while the engine\'s events stream is followed (state and health follow events at once), else with one engine call; sizes are never computed. '
        + 'Sorted by name; `cursor` is the last name of the previous page.',
      query: Type.Object({
        stack: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: 'only the containers of this stack' })),
        status: Type.Optional(Type.Union(states.map((s) => Type.Literal(s)), { description: 'only containers in this state' })),
      }),
      response: ContainerSchema,
      handler: async ({ query, page, principal }) => {
        const all = (await runtime.containers({ project: query.stack, state: query.status })).map((c) => toView(c, runtime.ownership(c.Labels)));
        // one access decision for all the stacks on the page, not one per container
        const visible = await runtime.allowedProjects(principal, [...new Set(all.flatMap((c) => (c.project ? [c.project] : [])))], 'read');
        // a container no stack owns is not Dockwright's: as only admins act on it, only admins see it
        const list = all.filter((c) => (c.project === null ? principal.role === 'admin' : visible.has(c.project))).sort((a, b) => compareText(a.name, b.name));
        const rest = page.cursor ? list.filter((c) => compareText(c.name, page.cursor!) > 0) : list;
        const items = rest.slice(0, page.limit);
        return { items, next: rest.length > page.limit ? items.at(-1)!.name : undefined };
      },
    }),
    action('start', 'Start a container (a running one is left alone)'),
    action('stop', 'Stop a container (a stopped one is left alone)'),
    action('restart', 'Restart a container'),
    defineRoute({
      method: 'GET', path: '/containers/:id/logs', scopes: ['containers:logs'], params: Id, errors: [403, 404, 503], description: refusals,
      summary: 'Read a container\'s logs as text/plain, stdout and stderr taken apart; follow=1 streams until the client leaves',
      response: Type.String({ description: 'log lines' }), mediaType: 'text/plain',
      query: Type.Object({
        tail: Type.Optional(Type.String({ pattern: '^(all|[0-9]{1,7})$', default: 'all', description: 'the last N lines, or all' })),
        since: Type.Optional(Type.String({ maxLength: 40, pattern: '^([0-9]{1,12}(\\.[0-9]{1,9})?|[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.]+(Z|[+-][0-9]{2}:?[0-9]{2})?)?)$', description: 'unix seconds or an ISO 8601 date' })),
        timestamps: Type.Optional(Flag),
        follow: Type.Optional(Flag),
        stream: Type.Optional(Type.Union([Type.Literal('stdout'), Type.Literal('stderr'), Type.Literal('both')], { default: 'both' })),
      }),
      handler: async ({ params, query, principal }) => {
        const since = query.since ? parseSince(query.since) : undefined;
        const info = await actOn(params.id, principal);
        const which = query.stream ?? 'both';
        try {
          const stream = await logsStream(docker, info.Id, info.Config.Tty, {
            follow: on(query.follow), timestamps: on(query.timestamps), tail: query.tail ?? 'all', since,
            stdout: which !== 'stderr', stderr: which !== 'stdout',
          });
          return streamReply(stream, 'text/plain; charset=utf-8', { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
        } catch (err) {
          return fail(err, params.id);
        }
      },
    }),
  ];
}
