// The edge network on the Docker engine: created once, joined by every container that declares a hostname, and read for upstream addresses.
import type Dockerode from 'dockerode';
import type { Logger } from '../../sdk/index.ts';
import { edgeNetworkLabel, servingRole } from '../docker/api.ts';

export const hostLabel = 'dockwright.http.host';
export const portLabel = 'dockwright.http.port';
export const pathLabel = 'dockwright.http.path';
/** start-first readiness: an HTTP path that answers 2xx or 3xx when the service is ready, and how long a new container has for it */
export const readyLabel = 'dockwright.http.ready';
export const readyTimeoutLabel = 'dockwright.http.readyTimeout';
const managed = 'dockwright.managed=true';

/** a service's upstreams: `fallback` ones take a request only when every `serving` one fails (the edge tries them in that order) */
export interface Upstreams { serving: string[]; fallback: string[] }

export interface EdgeNetwork {
  ensure(): Promise<void>;
  /**
   * `project/service` → addresses of its running containers on the edge network (one list call): those that serve, and
   * the fallbacks a request goes to only when they fail. A container a start-first deploy started beside the old one is
   * not routed until it takes the service's name. The old one it replaced is a fallback behind its one successor while it
   * drains or is kept for update_config.monitor (a crash of the new version then has somewhere to go at once), until it
   * is told to stop. Set aside, told to stop or a swarm task not ready yet, a container serves while its service has no other.
   */
  addresses(): Promise<Map<string, Upstreams>>;
  /** joins every running or created container that declares a hostname and is not on the network yet */
  attachAll(): Promise<void>;
  /**
   * follows the engine: containers that declare a hostname join the network as they are created; `changed` runs when
   * addresses may have moved, with the moment (ms) a routed container died (not stopped) when that is why
   */
  follow(changed: (diedAtMs?: number) => void): void;
  stop(): void;
}

const statusOf = (err: unknown) => (err as { statusCode?: number }).statusCode;

/** the signals of a stop (docker stop, swarm's shutdown of an old task): not a reload's HUP */
const stopSignals = new Set(['2', '3', '9', '15']);

/** a swarm task joins its service's routes once ready (healthy, when it has a healthcheck), as swarm's start-first waits for it */
const taskReady = (c: { Labels: Record<string, string>; Status?: string }) => !c.Labels['com.docker.swarm.task.id'] || !/\((health: starting|unhealthy)\)/.test(c.Status ?? '');

export function edgeNetwork(docker: Dockerode, name: string, log: Logger, retryMs: number): EdgeNetwork {
  let stream: NodeJS.ReadableStream | null = null;
  /** containers sent a stop signal and still running: what they have finishes, nothing new is sent to them */
  const stopping = new Set<string>();
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;

  const connect = async (id: string) => {
    try {
      await docker.getNetwork(name).connect({ Container: id });
    } catch (err) {
      // already connected (403), or gone again (404): nothing to do
      if (statusOf(err) !== 403 && statusOf(err) !== 404 && !/already exists/.test(String((err as Error).message))) throw err;
    }
  };

  return {
    async ensure() {
      const existing = await docker.listNetworks({ filters: { name: [name] } });
      if (existing.some((n) => n.Name === name)) return;
      try {
        await docker.createNetwork({ Name: name, Driver: 'bridge', Attachable: true, CheckDuplicate: true, Labels: { [edgeNetworkLabel]: 'true' } });
        log.info({ network: name }, 'edge network created');
      } catch (err) {
        if (statusOf(err) !== 409) throw err;
      }
    },
    async addresses() {
      // a paused container stays routed: a pause is brief (a snapshot, a look with a debugger), and its requests wait for it
      // as for any container too busy to answer, rather than failing at once and until the next change of the routes
      const list = await docker.listContainers({ filters: { network: [name], status: ['running', 'paused'], label: [managed] } });
      const serving = new Map<string, string[]>();
      // the old container of a start-first replacement, not told to stop yet: a fallback behind its successor
      const replaced = new Map<string, string[]>();
      // routed only while its service has no serving one: set aside by a replacement, told to stop, a swarm task not ready yet
      const others = new Map<string, string[]>();
      const add = (into: Map<string, string[]>, key: string, ip: string) => into.set(key, [...(into.get(key) ?? []), ip].sort());
      for (const c of list) {
        const ip = c.NetworkSettings?.Networks?.[name]?.IPAddress;
        const key = `${c.Labels['dockwright.project']}/${c.Labels['dockwright.service']}`;
        const role = servingRole((c.Names?.[0] ?? '').replace(/^\//, ''));
        if (!ip || role === 'starting') continue;
        const ready = !stopping.has(c.Id) && taskReady(c);
        if (ready && role === 'serving') {
          add(serving, key, ip);
        } else {
          add(others, key, ip);
          if (ready) add(replaced, key, ip);
        }
      }
      const out = new Map<string, Upstreams>();
      for (const [key, ips] of serving) {
        // behind one successor only: several serving replicas stand in for each other, and the edge spreads requests over them
        out.set(key, { serving: ips, fallback: ips.length === 1 ? replaced.get(key) ?? [] : [] });
      }
      for (const [key, ips] of others) if (!out.has(key)) out.set(key, { serving: ips, fallback: [] });
      return out;
    },
    async attachAll() {
      const list = await docker.listContainers({ all: true, filters: { label: [managed, hostLabel] } });
      await Promise.all(list.filter((c) => !c.NetworkSettings?.Networks?.[name] && c.State !== 'dead' && c.State !== 'removing').map((c) => connect(c.Id)));
    },
    follow(changed) {
      const open = async () => {
        if (stopped) return;
        try {
          const s = (await docker.getEvents({ filters: { type: ['container'], event: ['create', 'start', 'kill', 'die', 'destroy', 'rename', 'health_status'], label: [hostLabel] } })) as NodeJS.ReadableStream;
          stream = s;
          let buffer = '';
          s.on('data', (chunk: Buffer) => {
            buffer += chunk.toString('utf8');
            let nl: number;
            while ((nl = buffer.indexOf('\n')) >= 0) {
              const line = buffer.slice(0, nl);
              buffer = buffer.slice(nl + 1);
              let event: { Action?: string; id?: string; timeNano?: number; Actor?: { Attributes?: Record<string, string> } };
              try { event = JSON.parse(line); } catch { continue; }
              if (event.Actor?.Attributes?.['dockwright.managed'] !== 'true') continue;
              if (event.Action === 'create' && event.id) connect(event.id).then(() => changed(), (err) => log.warn({ err }, 'a container could not join the edge network'));
              else {
                // a death that takes an address out of the routes, unlike a stop (out already) or a new container never routed
                const routedDeath = event.Action === 'die' && !stopping.has(event.id ?? '') && servingRole(event.Actor?.Attributes?.name ?? '') !== 'starting';
                // a stop signal (swarm's stop of an old task, a stop) takes it out of the routes before it exits
                if (event.id && event.Action === 'kill') { if (stopSignals.has(event.Actor?.Attributes?.signal ?? '')) stopping.add(event.id); }
                else if (event.id && /^(start|die|destroy)$/.test(event.Action ?? '')) stopping.delete(event.id);
                changed(routedDeath ? (event.timeNano ? event.timeNano / 1e6 : Date.now()) : undefined);
              }
            }
          });
          const again = () => {
            if (stream !== s || stopped) return;
            stream = null;
            retry = setTimeout(() => { void open(); }, retryMs);
            retry.unref();
          };
          s.on('end', again);
          s.on('error', again);
          s.on('close', again);
          // what happened while nobody listened
          await this.attachAll().then(() => changed(), () => undefined);
        } catch {
          retry = setTimeout(() => { void open(); }, retryMs);
          retry.unref();
        }
      };
      void open();
    },
    stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      (stream as unknown as { destroy?: () => void } | null)?.destroy?.();
      stream = null;
    },
  };
}
