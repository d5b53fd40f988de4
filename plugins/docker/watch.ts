// The live container table: every container of the engine kept in memory from its events stream, resynced on (re)connect and periodically, so reads cost no engine call.
import type { Readable } from 'node:stream';
import type Dockerode from 'dockerode';
import type { ContainerInfo } from 'dockerode';
import type { Logger } from '../../sdk/index.ts';
import { reasonOf } from './client.ts';
import { bareName, isOurs, label } from './labels.ts';
import { healthOf } from './status.ts';
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
/** a list that still disagrees with the events after this many refreshes is believed (an event was misread) */
const maxRetries = 20;

interface EngineEvent {
  Type?: string;
  Action?: string;
  Actor?: { ID?: string; Attributes?: Record<string, string> };
  time?: number;
}

/** what events said about a container that no list answer has shown yet */
interface Facts { state?: string; status?: string; name?: string; health?: string; gone?: true }

const healthMark = /\s*\((healthy|unhealthy|health: starting)\)/;
const withHealth = (status: string, health: string) => `${status.replace(healthMark, '')} (${health})`;

/** a list entry with what the events said on top */
function overlay(c: ContainerInfo, f: Facts): ContainerInfo {
  const out = { ...c };
  if (f.state) { out.State = f.state; out.Status = f.status ?? out.Status; }
  if (f.name) out.Names = [`/${f.name}`];
  if (f.health) out.Status = withHealth(out.Status, f.health);
  return out;
}

/** whether a list entry already shows what the events said (a container that died may show as restarting, dead or being removed) */
function shows(c: ContainerInfo, f: Facts): boolean {
  const state = !f.state || c.State === f.state || c.State === 'removing' || (f.state === 'exited' && (c.State === 'restarting' || c.State === 'dead'));
  return state && (!f.name || bareName(c.Names) === f.name) && (!f.health || healthOf(c.Status) === f.health);
}

/** the live table: containers by id, and their list as one frozen array that reads share until the next change */
class Table extends Map<string, ContainerInfo> {
  #rows: readonly ContainerInfo[] | null = null;

  override set(id: string, c: ContainerInfo): this {
    this.#rows = null;
    return super.set(id, c);
  }

  override delete(id: string): boolean {
    this.#rows = null;
    return super.delete(id);
  }

  override clear(): void {
    this.#rows = null;
    super.clear();
  }

  /** the same array until the table changes: a reader may keep what it derived from it for as long as it is returned */
  rows(): readonly ContainerInfo[] {
    return (this.#rows ??= Object.freeze([...this.values()]));
  }
}

export function createWatch(opts: WatchOptions): ContainerWatch {
  const { docker, log } = opts;
  const table = new Table();
  /**
   * The engine answers list calls from a view that can lag its events by a moment: a list taken after an event may not
   * show it yet. What events said therefore wins over list answers until a list shows it; then the list is the truth.
   */
  const facts = new Map<string, Facts>();
  const retries = new Map<string, number>();
  const dirty = new Set<string>();
  let refreshTimer: NodeJS.Timeout | undefined;
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

  const scheduleRefresh = (id: string) => {
    dirty.add(id);
    refreshTimer ??= setTimeout(refresh, opts.refreshDelayMs);
  };

  /** the list disagrees with the events: ask again shortly, unless it has disagreed too often (then it is believed) */
  const waitFor = (id: string): boolean => {
    const n = (retries.get(id) ?? 0) + 1;
    if (n > maxRetries) {
      retries.delete(id);
      facts.delete(id);
      return false;
    }
    retries.set(id, n);
    scheduleRefresh(id);
    return true;
  };
  const settled = (id: string) => { facts.delete(id); retries.delete(id); };

  const merge = (list: ContainerInfo[], scope: ReadonlySet<string> | null) => {
    const seen = new Set<string>();
    for (const c of list) {
      if (scope && !scope.has(c.Id)) continue;
      seen.add(c.Id);
      const f = facts.get(c.Id);
      if (f?.gone) {
        if (waitFor(c.Id)) continue;
      } else if (f && !shows(c, f)) {
        if (waitFor(c.Id)) { table.set(c.Id, overlay(c, f)); continue; }
      }
      settled(c.Id);
      table.set(c.Id, c);
    }
    for (const id of scope ?? new Set([...table.keys(), ...facts.keys()])) {
      if (seen.has(id)) continue;
      const f = facts.get(id);
      if (f?.gone) { settled(id); continue; }
      if (f && waitFor(id)) continue; // created a moment ago: the list does not show it yet
      settled(id);
      table.delete(id);
    }
  };

  /** one list call, in turn with the others; `covers` says which known containers it answers for (all without it) */
  const snapshot = (filters: Record<string, string[]> | undefined, covers?: (id: string, known: ContainerInfo | undefined) => boolean): Promise<ContainerInfo[]> => {
    const next = snapshots.then(async () => {
      const list = await docker.listContainers({ all: true, size: false, filters });
      if (!covers) {
        merge(list, null);
      } else {
        const scope = new Set(list.map((c) => c.Id));
        for (const [id, c] of table) if (covers(id, c)) scope.add(id);
        for (const id of facts.keys()) if (covers(id, table.get(id))) scope.add(id);
        merge(list, scope);
      }
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

  /** containers a kill was sent to: their next death is expected (a stop), not worth an alert */
  const killed = new Set<string>();
  const starts = new Map<string, number[]>();
  const loopCount = opts.restartLoopCount ?? 5;
  const loopWindowMs = opts.restartLoopWindowMs ?? 300_000;
  const steadyAfterMs = opts.steadyAfterMs ?? 60_000;
  /** containers reported as restarting, with the timer that reports them steady once they stay up (cleared by their next death) */
  const looping = new Map<string, NodeJS.Timeout | undefined>();
  const calm = (id: string) => {
    if (!looping.has(id)) return;
    clearTimeout(looping.get(id));
    looping.set(id, undefined);
  };
  /** container.* events of this installation's containers, with their stack (project) and service */
  const report = (id: string, action: string, detail: string | undefined, attrs: Record<string, string>) => {
    if (!opts.emit) return;
    const labels = table.get(id)?.Labels ?? attrs;
    if (!opts.installation || !isOurs(labels, opts.installation)) return;
    const who = { stack: labels[label.project], service: labels[label.service] ?? null, container: attrs.name ?? bareName(table.get(id)?.Names ?? []), id };
    if (action === 'kill') { killed.add(id); return; }
    if (action === 'die') {
      calm(id);
      const expected = killed.delete(id);
      if (!expected && attrs.exitCode !== undefined && attrs.exitCode !== '0') opts.emit('container.exited', { ...who, exitCode: Number(attrs.exitCode) });
    } else if (action === 'start' || action === 'restart') {
      const now = Date.now();
      const recent = [...(starts.get(id) ?? []), now].filter((t) => now - t < loopWindowMs);
      starts.set(id, recent);
      opts.emit('container.started', who);
      if (recent.length >= loopCount) {
        opts.emit('container.restarting', { ...who, restarts: recent.length });
        if (!looping.has(id)) looping.set(id, undefined);
      }
      if (looping.has(id)) {
        calm(id);
        const steady = setTimeout(() => {
          looping.delete(id);
          starts.delete(id);
          opts.emit?.('container.steady', { ...who, upForMs: steadyAfterMs });
        }, steadyAfterMs);
        steady.unref();
        looping.set(id, steady);
      }
    } else if (action === 'health_status' && (detail === 'healthy' || detail === 'unhealthy')) {
      opts.emit(`container.${detail}`, who);
    } else if (action === 'destroy') {
      calm(id);
      looping.delete(id);
      killed.delete(id);
      starts.delete(id);
    }
  };

  const apply = (e: EngineEvent) => {
    const id = e.Actor?.ID;
    if (e.Type !== 'container' || !id || !e.Action) return;
    const attrs = e.Actor?.Attributes ?? {};
    const [action, detail] = e.Action.split(': ');
    report(id, action, detail, attrs);
    const f: Facts = { ...facts.get(id) };
    switch (action) {
      case 'create': {
        // the event carries the labels among its attributes, beside name and image; the refresh brings the exact entry
        const { name, image, ...labels } = attrs;
        Object.assign(f, { state: 'created', status: 'Created', name });
        if (!table.has(id)) {
          table.set(id, {
            Id: id, Names: [`/${name}`], Image: image, ImageID: '', Command: '', Created: e.time ?? Math.floor(Date.now() / 1000),
            Ports: [], Labels: labels, State: 'created', Status: 'Created', HostConfig: { NetworkMode: '' }, NetworkSettings: { Networks: {} }, Mounts: [],
          });
        }
        break;
      }
      case 'start': case 'restart': case 'unpause':
        Object.assign(f, { state: 'running', status: 'Up Less than a second', health: undefined });
        break;
      case 'die':
        Object.assign(f, { state: 'exited', status: `Exited (${attrs.exitCode ?? '0'}) Less than a second ago`, health: undefined });
        break;
      case 'pause':
        Object.assign(f, { state: 'paused', status: `${table.get(id)?.Status ?? 'Up'} (Paused)` });
        break;
      case 'rename':
        f.name = attrs.name;
        break;
      case 'health_status':
        if (detail === 'healthy' || detail === 'unhealthy') f.health = detail;
        break;
      case 'destroy':
        table.delete(id);
        facts.set(id, { gone: true });
        scheduleRefresh(id);
        return;
      default:
        return;
    }
    facts.set(id, f);
    const c = table.get(id);
    if (c) table.set(id, overlay(c, f));
    scheduleRefresh(id);
  };

  /** resolves when the stream ends: true when it was followed (connected and resynced) */
  const follow = async (): Promise<boolean> => {
    connection = new AbortController();
    // a new stream: what the old one said is replaced by the resync below
    facts.clear();
    retries.clear();
    dirty.clear();
    const stream = await docker.getEvents({ filters: { type: ['container'], event: followed }, abortSignal: AbortSignal.any([connection.signal, stopping.signal]) }) as unknown as Readable;
    const ended = new Promise<void>((resolve) => {
      const done = () => { live = false; resolve(); };
      stream.once('end', done);
      stream.once('close', done);
      stream.once('error', done);
    });
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
      for (const timer of looping.values()) clearTimeout(timer);
      looping.clear();
      stopping.abort();
      await running;
      await snapshots;
    },
  };
}
