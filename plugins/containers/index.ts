// The containers plugin: list containers, start/stop/restart them and read their logs, over the docker plugin's client.
import type Dockerode from 'dockerode';
import { definePlugin, defineRoute, Problem, problem, streamReply, Type, type Principal, compareText } from '../../sdk/index.ts';
import { dockerPlugin } from '../docker/api.ts';
import { ConsoleSessions } from './console-sessions.ts';
import { idleCloseCode, runSession } from './exec.ts';
import { logsStream, parseSince } from './logs.ts';
import { StatsSchema, statsOnce, statsStream, type Stats } from './stats.ts';
import { ContainerSchema, toView, type ContainerView } from './view.ts';

const Id = Type.Object({
  id: Type.String({ pattern: '^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$', description: 'full or short container id, or container name' }),
});
const states = ['created', 'restarting', 'running', 'removing', 'paused', 'exited', 'dead'];
const Flag = Type.Union([Type.Literal('0'), Type.Literal('1'), Type.Literal('true'), Type.Literal('false')]);
const on = (flag: string | undefined) => flag === '1' || flag === 'true';
const Options = Type.Object({
  console: Type.Object({
    maxSessions: Type.Integer({ minimum: 1, default: 32, description: 'open console sessions in the installation (every instance serving its database) at most; one more is refused with 429 (`console-limit`)' }),
    maxSessionsPerUser: Type.Integer({ minimum: 1, default: 4, description: 'open console sessions of one user across every instance at most; one more is refused with 429 (`console-limit`)' }),
    leaseSeconds: Type.Integer({ minimum: 2, maximum: 300, default: 15, description: 'a session of an instance that stopped renewing it (every third of this) stops counting after this long' }),
    idleTimeoutSeconds: Type.Integer({ minimum: 1, default: 900, description: 'a session with nothing typed and nothing printed for this long is closed (code 4408)' }),
    maxBufferedInputBytes: Type.Integer({ minimum: 4096, default: 262_144, description: 'input waiting for a command that does not read it, above which the WebSocket is no longer read' }),
  }, { default: {}, additionalProperties: false }),
}, { additionalProperties: false });
const Action = Type.Composite([ContainerSchema, Type.Object({ changed: Type.Boolean({ description: 'false when the container already was in the asked state' }) })]);

export default definePlugin({
  name: 'containers',
  version: '1.0.0',
  services: ['activity', 'db'],
  description: 'Containers: list, start, stop, restart, logs, console, resource use',
  requires: [dockerPlugin],
  options: Options,
  setup(ctx) {
    const runtime = ctx.deps.docker;
    const docker: Dockerode = runtime.docker;
    const consoleOptions = ctx.options.console;
    const sessions = new ConsoleSessions(ctx.db, { max: consoleOptions.maxSessions, maxPerUser: consoleOptions.maxSessionsPerUser, leaseMs: consoleOptions.leaseSeconds * 1000 }, ctx.log);
    ctx.migrations.from(new URL('./migrations', import.meta.url));
    ctx.onStart(() => sessions.start());
    ctx.onStop(() => sessions.stop());
    const sessionLimits = { idleMs: consoleOptions.idleTimeoutSeconds * 1000, maxBufferedInput: consoleOptions.maxBufferedInputBytes };

    ctx.scopes.define({
      'containers:read': { description: 'list containers and their state', role: 'viewer' },
      'containers:write': { description: 'start, stop and restart containers', role: 'operator' },
      'containers:logs': { description: 'read container logs', role: 'operator' },
      'containers:exec': { description: 'run a console (a shell or a command with a TTY) in a container', role: 'operator' },
      'containers:stats': { description: 'read the CPU, memory, network and disk use of containers', role: 'viewer' },
    });

    // what was done to a container (activity `container:<id or name>`) is as visible as the container: its stack's access
    // list decides; one Dockwright did not make, or that is gone (or was named ambiguously), is for admins
    ctx.visibility.add({
      prefix: 'container:',
      async visible(principal, keys, need) {
        if (principal.role === 'admin') return new Set(keys);
        const all = await runtime.containers().catch(() => []);
        const projectOf = new Map<string, string>();
        for (const key of keys) {
          const found = all.filter((c) => c.Id.startsWith(key) || (c.Names ?? []).some((n) => n.replace(/^\//, '') === key));
          const owner = found.length === 1 ? runtime.ownership(found[0].Labels) : null;
          if (owner?.owner === 'this') projectOf.set(key, owner.project);
        }
        const allowed = await runtime.allowedProjects(principal, [...new Set(projectOf.values())], need === 'act' ? 'deploy' : 'read');
        return new Set(keys.filter((k) => projectOf.has(k) && allowed.has(projectOf.get(k)!)));
      },
    });

    /** engine errors other than "unreachable" (already a 503 problem) as problems naming the container. */
    const fail = (err: unknown, id: string): never => {
      if (err instanceof Problem) throw err;
      const { status, reason } = runtime.errorOf(err);
      if (status === 404) throw problem(404, `there is no container "${id}"`);
      if (status === 409) throw problem(409, `container "${id}": ${reason}`);
      if (/multiple IDs found/i.test(reason)) throw problem(409, `"${id}" is the start of several container ids: give more of it`);
      throw problem(502, `the Docker engine refused the request for "${id}": ${reason}`, { code: 'docker-error' });
    };

    const inspect = async (id: string) => {
      try {
        return await docker.getContainer(id).inspect();
      } catch (err) {
        return fail(err, id);
      }
    };

    /**
     * The container, when this caller may act on it: a stack's containers as the stack's access list allows (404 when
     * the stack is hidden from them), containers outside Dockwright only for admins, another installation's never.
     */
    const actOn = async (id: string, principal: Principal) => {
      const info = await inspect(id);
      const owner = runtime.ownership(info.Config.Labels);
      if (owner.owner === 'other') {
        throw problem(403, `container "${id}" belongs to another Dockwright installation on this engine (${owner.installation}): only that installation acts on it`, { code: 'other-installation' });
      }
      if (owner.owner === 'none') {
        if (principal.role !== 'admin') throw problem(403, `container "${id}" is not managed by Dockwright: only admins may act on it`);
        return info;
      }
      const { project } = owner;
      if ((await runtime.allowedProjects(principal, [project], 'read')).size === 0) throw problem(404, `there is no container "${id}"`);
      if ((await runtime.allowedProjects(principal, [project], 'deploy')).size === 0) throw problem(403, `your role on stack "${project}" does not allow acting on its containers`);
      return info;
    };

    /** the container, when this caller may see it: as actOn, with reading the stack enough */
    const readable = async (id: string, principal: Principal) => {
      const info = await inspect(id);
      const owner = runtime.ownership(info.Config.Labels);
      if (owner.owner === 'other') {
        throw problem(403, `container "${id}" belongs to another Dockwright installation on this engine (${owner.installation}): only that installation reads it`, { code: 'other-installation' });
      }
      if (owner.owner === 'none') {
        if (principal.role !== 'admin') throw problem(403, `container "${id}" is not managed by Dockwright: only admins may read it`);
        return info;
      }
      if ((await runtime.allowedProjects(principal, [owner.project], 'read')).size === 0) throw problem(404, `there is no container "${id}"`);
      return info;
    };

    /** the list entry of one container after acting on it: the same answer as the list, straight from the engine. */
    const view = async (fullId: string, asked: string): Promise<ContainerView> => {
      const c = await runtime.listed(fullId);
      if (!c) throw problem(404, `there is no container "${asked}" any more`);
      return toView(c, runtime.ownership(c.Labels));
    };

    ctx.routes.add(defineRoute({
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
    }));

    const refusals = '403 also when the container is not managed by Dockwright and the caller is no admin, or when it belongs to another Dockwright installation on the same engine (problem type `other-installation`).';
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
    ctx.routes.add(action('start', 'Start a container (a running one is left alone)'));
    ctx.routes.add(action('stop', 'Stop a container (a stopped one is left alone)'));
    ctx.routes.add(action('restart', 'Restart a container'));

    ctx.routes.add(defineRoute({
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
    }));

    ctx.routes.add(defineRoute({
      method: 'GET', path: '/containers/:id/exec', scopes: ['containers:exec'], params: Id, websocket: true, errors: [403, 404, 409, 426, 429, 503],
      summary: 'A console in a running container: a WebSocket to a shell (or a command) with a TTY',
      description: 'Upgraded to a WebSocket (RFC 6455). Text frames carry the input and the TTY\'s output. The first frame may be `{ "cmd": ["ls", "-l"] }` '
        + 'to run a command instead of `sh` (without it, the shell starts after 300 ms, or at once with the first frame of input); '
        + '`{ "resize": { "cols": 120, "rows": 40 } }` resizes the terminal at any time. The connection closes (1000, reason `exit N`) when the command ends; '
        + 'closing it ends the session and its processes (TERM, then KILL a second later). Sessions are limited per user and in all, across every instance serving the database (429 `console-limit` before the upgrade); '
        + `one idle (nothing typed or printed) for the idle timeout closes with ${idleCloseCode}; one whose token is revoked, session signed out or user disabled closes with 1008 within seconds. `
        + 'Scripts authenticate with a bearer token; the portal with its session cookie, its CSRF value as the query '
        + 'parameter `csrf`, and its own Origin. Every session is in the activity log (`containers.exec`: started, then its end with the command, '
        + 'start, end, exit code and what ended it); input and output never are. ' + refusals,
      handler: async ({ params, principal, log, upgrade }) => {
        const info = await actOn(params.id, principal);
        if (!info.State.Running) throw problem(409, `container "${params.id}" is not running: start it first`);
        const resource = `container:${params.id}`;
        const startedAt = new Date();
        const release = await sessions.take(principal.user?.name ?? principal.actor.name ?? 'unknown');
        let ws;
        try {
          ws = upgrade();
        } catch (err) {
          await release();
          throw err;
        }
        let command: readonly string[] = [];
        // the place is given back as the session ends, before its end is logged (release never throws)
        void runSession(docker, info.Id, ws, sessionLimits, (cmd) => {
          command = cmd;
          ctx.activity.record({ actor: principal.actor, action: 'containers.exec', resource, result: 'started', detail: { command: cmd, container: info.Id, startedAt: startedAt.toISOString() } })
            .catch((err) => log.error({ err }, 'recording activity failed'));
        }).finally(release).then((end) => {
          // a connection closed before its command started ran nothing: there is nothing to log
          if (command.length === 0 && !end.error) return;
          return ctx.activity.record({
            actor: principal.actor, action: 'containers.exec', resource, result: end.error ? 'failed' : 'ok',
            detail: {
              command, container: info.Id, startedAt: startedAt.toISOString(), endedAt: new Date().toISOString(), exitCode: end.exitCode, endedBy: end.endedBy,
              ...(end.cleanup ? { cleanup: end.cleanup } : {}), ...(end.error ? { error: end.error } : {}),
            },
          });
        }).catch((err) => log.error({ err }, 'the console session failed'));
      },
    }));

    const nameOf = (info: { Name?: string }) => (info.Name ?? '').replace(/^\//, '');
    ctx.routes.add(defineRoute({
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
    }));

    ctx.routes.add(defineRoute({
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
    }));
  },
});
