// The containers plugin: list containers, start/stop/restart them, read their logs, a console and resource use, over the docker plugin's client (its routes in routes/).
import { definePlugin, Type } from '../../sdk/index.ts';
import { dockerPlugin } from '../docker/api.ts';
import { ConsoleSessions } from './console-sessions.ts';
import { consoleRoute } from './routes/console.ts';
import { containerRoutes } from './routes/containers.ts';
import { containerKit, containerVisibility } from './routes/kit.ts';
import { statsRoutes } from './routes/stats.ts';
import { problems } from './problems.ts';

const Options = Type.Object({
  console: Type.Object({
    maxSessions: Type.Integer({ minimum: 1, default: 32, description: 'open console sessions in the installation (every instance serving its database) at most; one more is refused with 429 (`console-limit`)' }),
    maxSessionsPerUser: Type.Integer({ minimum: 1, default: 4, description: 'open console sessions of one user across every instance at most; one more is refused with 429 (`console-limit`)' }),
    leaseSeconds: Type.Integer({ minimum: 2, maximum: 300, default: 15, description: 'a session of an instance that stopped renewing it (every third of this) stops counting after this long' }),
    idleTimeoutSeconds: Type.Integer({ minimum: 1, default: 900, description: 'a session with nothing typed and nothing printed for this long is closed (code 4408)' }),
    maxBufferedInputBytes: Type.Integer({ minimum: 4096, default: 262_144, description: 'input waiting for a command that does not read it, above which the WebSocket is no longer read' }),
  }, { default: {}, additionalProperties: false }),
}, { additionalProperties: false });

export default definePlugin({
  name: 'containers',
  problems,
  version: '1.0.0',
  services: ['activity', 'db'],
  description: 'Containers: list, start, stop, restart, logs, console, resource use',
  requires: [dockerPlugin],
  options: Options,
  setup(ctx) {
    const runtime = ctx.deps.docker;
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

    // what was done to a container (activity `container:<id or name>`) is as visible as the container (routes/kit.ts)
    ctx.visibility.add(containerVisibility(runtime));

    const kit = containerKit(runtime);
    for (const route of containerRoutes(kit)) ctx.routes.add(route);
    ctx.routes.add(consoleRoute(kit, { sessions, sessionLimits, activity: ctx.activity }));
    for (const route of statsRoutes(kit)) ctx.routes.add(route);
  },
});
