// The live container table: the engine's containers by id, from list answers and, until a list shows it, from what their events said.
import type { ContainerInfo } from 'dockerode';
import { bareName } from './labels.ts';
import { healthOf } from './status.ts';

/** one line of the engine's events stream */
export interface EngineEvent {
  Type?: string;
  Action?: string;
  Actor?: { ID?: string; Attributes?: Record<string, string> };
  time?: number;
}

/** a container event as read: `health_status: healthy` is action `health_status`, detail `healthy` */
export interface ContainerEvent {
  id: string;
  action: string;
  detail?: string;
  attrs: Record<string, string>;
  time?: number;
}

/** a container event of the stream; null for any other line */
export function readEvent(e: EngineEvent): ContainerEvent | null {
  const id = e.Actor?.ID;
  if (e.Type !== 'container' || !id || !e.Action) return null;
  const [action, detail] = e.Action.split(': ');
  return { id, action, detail, attrs: e.Actor?.Attributes ?? {}, time: e.time };
}

/** what events said about a container that no list answer has shown yet */
interface Pending { state?: string; status?: string; name?: string; health?: string; gone?: true }

/** a list that still disagrees with the events after this many refreshes is believed (an event was misread) */
export const maxRetries = 20;

const healthMark = /\s*\((healthy|unhealthy|health: starting)\)/;
const withHealth = (status: string, health: string) => `${status.replace(healthMark, '')} (${health})`;

/** a list entry with what the events said on top */
function overlay(c: ContainerInfo, p: Pending): ContainerInfo {
  const out = { ...c };
  if (p.state) { out.State = p.state; out.Status = p.status ?? out.Status; }
  if (p.name) out.Names = [`/${p.name}`];
  if (p.health) out.Status = withHealth(out.Status, p.health);
  return out;
}

/** whether a list entry already shows what the events said (a container that died may show as restarting, dead or being removed) */
function confirms(c: ContainerInfo, p: Pending): boolean {
  const state = !p.state || c.State === p.state || c.State === 'removing' || (p.state === 'exited' && (c.State === 'restarting' || c.State === 'dead'));
  return state && (!p.name || bareName(c.Names) === p.name) && (!p.health || healthOf(c.Status) === p.health);
}

/**
 * The engine answers list calls from a view that can lag its events by a moment: a list taken after an event may not
 * show it yet. What events said therefore wins over list answers until a list shows it; then the list is the truth.
 * Each container whose entry needs a list call (after an event, or while a list disagrees) is handed to `refresh`.
 */
export class LiveTable {
  readonly #rows = new Map<string, ContainerInfo>();
  readonly #pending = new Map<string, Pending>();
  readonly #retries = new Map<string, number>();
  readonly #refresh: (id: string) => void;
  #frozen: readonly ContainerInfo[] | null = null;

  constructor(refresh: (id: string) => void) {
    this.#refresh = refresh;
  }

  get size(): number { return this.#rows.size; }
  get(id: string): ContainerInfo | undefined { return this.#rows.get(id); }

  /** every container, as one frozen array that stays the same until the table changes: what a reader derives from it may be kept beside it */
  rows(): readonly ContainerInfo[] {
    return (this.#frozen ??= Object.freeze([...this.#rows.values()]));
  }

  /** a new events stream: what the old one said is replaced by the list that follows */
  forgetEvents(): void {
    this.#pending.clear();
    this.#retries.clear();
  }

  /** what a container event changes in its entry */
  apply(e: ContainerEvent): void {
    const { id, attrs } = e;
    const p: Pending = { ...this.#pending.get(id) };
    switch (e.action) {
      case 'create': {
        // the event carries the labels among its attributes, beside name and image; the refresh brings the exact entry
        const { name, image, ...labels } = attrs;
        Object.assign(p, { state: 'created', status: 'Created', name });
        if (!this.#rows.has(id)) {
          this.#set(id, {
            Id: id, Names: [`/${name}`], Image: image, ImageID: '', Command: '', Created: e.time ?? Math.floor(Date.now() / 1000),
            Ports: [], Labels: labels, State: 'created', Status: 'Created', HostConfig: { NetworkMode: '' }, NetworkSettings: { Networks: {} }, Mounts: [],
          });
        }
        break;
      }
      case 'start': case 'restart': case 'unpause':
        Object.assign(p, { state: 'running', status: 'Up Less than a second', health: undefined });
        break;
      case 'die':
        Object.assign(p, { state: 'exited', status: `Exited (${attrs.exitCode ?? '0'}) Less than a second ago`, health: undefined });
        break;
      case 'pause':
        Object.assign(p, { state: 'paused', status: `${this.#rows.get(id)?.Status ?? 'Up'} (Paused)` });
        break;
      case 'rename':
        p.name = attrs.name;
        break;
      case 'health_status':
        if (e.detail === 'healthy' || e.detail === 'unhealthy') p.health = e.detail;
        break;
      case 'destroy':
        this.#delete(id);
        this.#pending.set(id, { gone: true });
        this.#refresh(id);
        return;
      default:
        return;
    }
    this.#pending.set(id, p);
    const c = this.#rows.get(id);
    if (c) this.#set(id, overlay(c, p));
    this.#refresh(id);
  }

  /**
   * A list answer. `covers` says which known containers it answers for (a list filtered by id or project); without it,
   * the list is every container of the engine, and what it lacks is gone.
   */
  merge(list: readonly ContainerInfo[], covers?: (id: string, known: ContainerInfo | undefined) => boolean): void {
    let scope: Set<string> | null = null;
    if (covers) {
      scope = new Set(list.map((c) => c.Id));
      for (const [id, c] of this.#rows) if (covers(id, c)) scope.add(id);
      for (const id of this.#pending.keys()) if (covers(id, this.#rows.get(id))) scope.add(id);
    }
    const seen = new Set<string>();
    for (const c of list) {
      if (scope && !scope.has(c.Id)) continue;
      seen.add(c.Id);
      const p = this.#pending.get(c.Id);
      if (p?.gone) {
        if (this.#waitFor(c.Id)) continue;
      } else if (p && !confirms(c, p)) {
        if (this.#waitFor(c.Id)) { this.#set(c.Id, overlay(c, p)); continue; }
      }
      this.#settled(c.Id);
      this.#set(c.Id, c);
    }
    for (const id of scope ?? new Set([...this.#rows.keys(), ...this.#pending.keys()])) {
      if (seen.has(id)) continue;
      const p = this.#pending.get(id);
      if (p?.gone) { this.#settled(id); continue; }
      if (p && this.#waitFor(id)) continue; // created a moment ago: the list does not show it yet
      this.#settled(id);
      this.#delete(id);
    }
  }

  /** the list disagrees with the events: ask again shortly, unless it has disagreed too often (then it is believed) */
  #waitFor(id: string): boolean {
    const n = (this.#retries.get(id) ?? 0) + 1;
    if (n > maxRetries) {
      this.#settled(id);
      return false;
    }
    this.#retries.set(id, n);
    this.#refresh(id);
    return true;
  }

  #settled(id: string): void {
    this.#pending.delete(id);
    this.#retries.delete(id);
  }

  #set(id: string, c: ContainerInfo): void {
    this.#frozen = null;
    this.#rows.set(id, c);
  }

  #delete(id: string): void {
    this.#frozen = null;
    this.#rows.delete(id);
  }
}
