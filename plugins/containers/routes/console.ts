// The console endpoint: a WebSocket to a shell or a command in a running container, its sessions limited and in the activity log.
import { defineRoute, problem, type ActivityApi, type AnyRoute } from '../../../sdk/index.ts';
import type { ConsoleSessions } from '../console-sessions.ts';
import { idleCloseCode, runSession, type SessionLimits } from '../exec.ts';
import { Id, refusals, type ContainerKit } from './kit.ts';

/** what the console needs beyond the container lookups: the session places, the limits of one session, the activity log */
export interface ConsoleDeps { sessions: ConsoleSessions; sessionLimits: SessionLimits; activity: ActivityApi }

export function consoleRoute({ docker, actOn }: ContainerKit, { sessions, sessionLimits, activity }: ConsoleDeps): AnyRoute {
  return defineRoute({
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
        activity.record({ actor: principal.actor, action: 'containers.exec', resource, result: 'started', detail: { command: cmd, container: info.Id, startedAt: startedAt.toISOString() } })
          .catch((err) => log.error({ err }, 'recording activity failed'));
      }).finally(release).then((end) => {
        // a connection closed before its command started ran nothing: there is nothing to log
        if (command.length === 0 && !end.error) return;
        return activity.record({
          actor: principal.actor, action: 'containers.exec', resource, result: end.error ? 'failed' : 'ok',
          detail: {
            command, container: info.Id, startedAt: startedAt.toISOString(), endedAt: new Date().toISOString(), exitCode: end.exitCode, endedBy: end.endedBy,
            ...(end.cleanup ? { cleanup: end.cleanup } : {}), ...(end.error ? { error: end.error } : {}),
          },
        });
      }).catch((err) => log.error({ err }, 'the console session failed'));
    },
  });
}
