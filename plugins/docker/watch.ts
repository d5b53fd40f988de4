// The engine's events stream followed: the live container table kept from it, resynced on (re)connect and periodically, so reads cost no engine call; alerts told.
import type { Readable } from 'node:stream';
import type Dockerode from 'dockerode';
import type { ContainerInfo } from 'dockerode';
import type { Logger } from '../../sdk/index.ts';
import { reasonOf } from './client.ts';
import { label } from './labels.ts';
import { LiveTable, readEvent, type EngineEvent } from './live-table.ts';
import { ContainerAlerts } from './restart-loops.ts';
import { sleep } from './util.ts';

export interface WatchOptions {
  docker: Dockerode;
  log: Logger;
  /** a full resync (one list call) this often while the stream is followed: it also renews the engine's "Up 5 minutes" texts */
  resyncIntervalMs: number;
  /** the first wait before reconnecting a broken stream; it doubles up to 30 times this */
  reconnectDelayMs: number;
  /** events are followed by one list call for the containers they touched (exact status text, ports, health), gathered this long */
  refreshDelayMs: number;
  /** told what happens to this installation's containers and to the engine (the kernel's event bus: container.*, engine.*) */
  emit?: (name: string, payload: Record<string, unknown>) => void;
  /** whose containers are reported through emit */
  installation?: string;
  /** this many starts of one container within restartLoopWindowMs is a restart loop */
  restartLoopCount?: number;
  restartLoopWindowMs?: number;
  /** a container reported as restarting that then stays running this long is reported steady (container.steady) */
  steadyAfterMs?: number;
}

export interface ContainerWatch {
  /**
   * every container of the engine as of now; null while the stream is not followed (callers ask the engine then, never a
   * stale table). The same frozen array until the table changes, so what is derived from it can be kept beside it.
   */
  containers(): readonly ContainerInfo[] | null;
  /**
   * One list call now (one container's, one project's or all) whose answer the table takes too: after a change made
   * here, reads show it at once instead of a moment later, when its events arrive.
   */
  sync(filter?: { id?: string; project?: string }): Promise<ContainerInfo[]>;
  /** the engine's version, while the stream is followed */
  version(): string | null;
  start(): void;
  stop(): Promise<void>;
}

/** the container events that change what a list entry shows */
const followed = ['create', 'start', 'restart', 'die', 'kill', 'pause', 'unpause', 'rename', 'destroy', 'health_status'];
/** more ids than this in one refresh: one full list is cheaper than a long id filter */
const refreshBatch = 100;

/** each event of the engine's stream (one JSON object a line) to `apply`; a line that cannot be read is logged and skipped */
function readEvents(stream: Readable, apply: (event: EngineEvent) => void, log: Logger): void {
  let pending = '';
  stream.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (!line) continue;
      try {
        apply(JSON.parse(line) as EngineEvent);
      } catch (err) {
        log.warn({ error: (err as Error).message }, 'an engine event could not be read');
      }
    }
  });
}

export function createWatch(opts: WatchOptions): ContainerWatch {
  const { docker, log } = opts;
  /** containers whose entry waits for a list call (gathered refreshDelayMs) */
  const dirty = new Set<string>();
  let refreshTimer: NodeJS.Timeout | undefined;
  const table = new LiveTable((id) => {
    dirty.add(id);
    refreshTimer ??= setTimeout(refresh, opts.refreshDelayMs);
  });
  const alerts = opts.emit && opts.installation ? new ContainerAlerts({ ...opts, emit: opts.emit, installation: opts.installation }) : null;
  let resyncTimer: NodeJS.Timeout | undefined;
  let live = false;
  let engineVersion: string | null = null;
  let stopped = false;
  /** the engine could not be followed since the last time it was (told once through emit, until it is back) */
  let unreachable = false;
  let connection: AbortController | undefined;
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  // list calls one at a time: a list merged later was taken later, so it never shows less than the one before
  let snapshots: Promise<unknown> = Promise.resolve();

  /** one list call, in turn with the others; `covers` says which known containers it answers for (all without it) */
  const snapshot = (filters: Record<string, string[]> | undefined, covers?: (id: string, known: ContainerInfo | undefined) => boolean): Promise<ContainerInfo[]> => {
    const next = snapshots.then(async () => {
      const list = await docker.listContainers({ all: true, size: false, filters });
      table.merge(list, covers);
      return list;
    });
    snapshots = next.catch(() => undefined);
    return next;
  };
  const resync = async () => {
    engineVersion = (await docker.version()).Version;
    await snapshot(undefined);
  };

  /** a table that cannot be kept right any more is given up: the stream is reconnected and resynced */
  const lost = (err: unknown, what: string) => {
    if (!live) return;
    live = false;
    log.warn({ error: reasonOf(err) }, `${what} failed: reading containers from the engine again until the events stream is back`);
    connection?.abort();
  };

  function refresh(): void {
    refreshTimer = undefined;
    const ids = [...dirty];
    dirty.clear();
    if (!live || !ids.length) return;
    const asked = new Set(ids);
    (ids.length > refreshBatch ? resync() : snapshot({ id: ids }, (id) => asked.has(id))).catch((err) => lost(err, 'refreshing containers after their events'));
  }

  const apply = (raw: EngineEvent) => {
    const e = readEvent(raw);
    if (!e) return;
    alerts?.observe(e, table.get(e.id));
    table.apply(e);
  };

  /** resolves when the stream ends: true when it was followed (connected and resynced) */
  const follow = async (): Promise<boolean> => {
    connection = new AbortController();
    // a new stream: what the old one said is replaced by the resync below
    table.forgetEvents();
    dirty.clear();
    const stream = await docker.getEvents({ filters: { type: ['container'], event: followed }, abortSignal: AbortSignal.any([connection.signal, stopping.signal]) }) as unknown as Readable;
    const ended = new Promise<void>((resolve) => {
      const done = () => { live = false; resolve(); };
      stream.once('end', done);
      stream.once('close', done);
      stream.once('error', done);
    });
    readEvents(stream, apply, log);
    try {
      // subscribed first, listed second: what changes while the list is taken arrives as events
      await resync();
    } catch (err) {
      stream.destroy();
      throw err;
    }
    const followedNow = !stream.destroyed && !stopped;
    if (followedNow) {
      live = true;
      if (unreachable) {
        unreachable = false;
        opts.emit?.('engine.reachable', {});
      }
      log.info({ containers: table.size }, 'following the engine\'s container events');
    }
    await ended;
    stream.destroy();
    return followedNow;
  };

  const run = async () => {
    let delay = opts.reconnectDelayMs;
    while (!stopped) {
      let reason = 'it ended';
      let wasLive = false;
      try {
        wasLive = await follow();
      } catch (err) {
        reason = reasonOf(err);
      }
      live = false;
      if (stopped) break;
      if (!wasLive && !unreachable && reason !== 'it ended') {
        unreachable = true;
        opts.emit?.('engine.unreachable', { error: reason });
      }
      // a stream that was followed starts the backoff over, and its loss is worth a warning; failed retries are not
      if (wasLive) delay = opts.reconnectDelayMs;
      log[wasLive ? 'warn' : 'debug']({ reason, retryInMs: delay }, 'the engine\'s events stream is not followed: container reads ask the engine until it is again');
      await sleep(delay, stopping.signal).catch(() => undefined);
      delay = Math.min(delay * 2, 30 * opts.reconnectDelayMs);
    }
  };

  return {
    containers: () => (live ? table.rows() : null),
    version: () => (live ? engineVersion : null),
    sync(filter = {}) {
      if (filter.id) return snapshot({ id: [filter.id] }, (id) => id === filter.id);
      if (filter.project) return snapshot({ label: [`${label.project}=${filter.project}`] }, (_, c) => c?.Labels?.[label.project] === filter.project);
      return snapshot(undefined);
    },
    start() {
      if (running) return;
      running = run();
      resyncTimer = setInterval(() => {
        if (live) resync().catch((err) => lost(err, 'the periodic resync'));
      }, opts.resyncIntervalMs);
      resyncTimer.unref();
    },
    async stop() {
      stopped = true;
      live = false;
      clearInterval(resyncTimer);
      clearTimeout(refreshTimer);
      alerts?.stop();
      stopping.abort();
      await running;
      await snapshots;
    },
  };
}
