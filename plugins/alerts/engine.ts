// Raising and resolving alerts, and fanning them out to the channels that want them: durable delivery jobs (sent by deliveries.ts), per-channel rate limit and digest.
import { randomUUID } from 'node:crypto';
import type { Actor, JobHandle, Logger, SecretsApi } from '../../sdk/index.ts';
import type { AlertMessage, ChannelKind } from './channels.ts';
import { deliverWithRetries, testChannels, type ChannelSends, type DeliveryJob } from './deliveries.ts';
import type { Sender } from './send.ts';
import { severityRank, type Alert, type AlertStore, type ChannelRow, type Severity } from './store.ts';

export interface AlertKind {
  /** `deploy-failed`, `backup-missed`, …: lowercase letters, digits and - */
  kind: string;
  severity: Severity;
  description: string;
  /** a family: `<kind>:<name>` (`rule:<id>`) is raised as one of its own, with this one's severity by default (a channel wanting `<kind>` gets them all) */
  family?: boolean;
}

/** the registered kind of this alert kind: itself, or the family `<family>:<name>` belongs to */
export function kindOf(kinds: ReadonlyMap<string, AlertKind>, kind: string): AlertKind | undefined {
  const cut = kind.indexOf(':');
  if (cut < 0) return kinds.get(kind);
  const family = kinds.get(kind.slice(0, cut));
  return family?.family && /^[a-z0-9][a-z0-9-]{0,63}$/.test(kind.slice(cut + 1)) ? family : undefined;
}

export interface RaiseInput {
  /** the resource the alert is about (`stack:web`): it decides who sees the alert */
  resource: string | null;
  /** a finer part of the resource (a stack's service): alerts of one kind and resource but other subjects are separate */
  subject?: string;
  message: string;
  /** details kept with the alert; `reason` (text, may span lines) is added to every channel's message */
  details?: Record<string, unknown>;
  severity?: Severity;
  /** only these channels (ids) hear of it, if they want its kind and severity; default every channel that does */
  channels?: readonly string[];
}

export interface EngineOptions {
  retry: { attempts: number; backoffMs: number; maxBackoffMs: number };
  rateLimit: { perWindow: number; windowMs: number };
  channelCacheMs: number;
}

export interface DeliverJobInput { delivery: string }

const system: Actor = { kind: 'system', name: 'alerts' };
const keyOf = (kind: string, input: RaiseInput) => [kind, input.resource ?? '', input.subject ?? ''].join('|');

export function messageOf(event: 'raised' | 'resolved', alert: Alert): AlertMessage {
  const { id, kind, severity, resource, message, count, firstSeen, lastSeen, resolvedAt } = alert;
  // why it was raised (a job's error, a container's last lines): in every channel's text, under the one-line summary
  const reason = event === 'raised' && typeof alert.details?.reason === 'string' && alert.details.reason ? `\n${alert.details.reason}` : '';
  return {
    event, severity,
    title: event === 'resolved' ? `[resolved] ${message}` : `[${severity}] ${message}`,
    text: event === 'resolved' ? `Resolved: ${message} (${kind}${resource ? `, ${resource}` : ''})` : `${message} (${kind}${resource ? `, ${resource}` : ''})${reason}`,
    alert: { id, kind, severity, resource, message, count, firstSeen, lastSeen, resolvedAt },
  };
}

export function createEngine(deps: {
  store: AlertStore; secrets: SecretsApi; sender: Sender; log: Logger; options: EngineOptions;
  kinds: Map<string, AlertKind>; channelKinds: Map<string, ChannelKind>;
  deliverJob: () => JobHandle<DeliverJobInput>;
}) {
  const { store, options, log } = deps;
  /** the sends of each channel within the current window, and its pending digest */
  const windows = new Map<string, { started: number; sent: number; digest?: NodeJS.Timeout }>();
  let stopped = false;
  /** the channels, read at most once per cacheMs (a burst of alerts reads them once); a change here forgets them at once */
  let cached: { at: number; list: Promise<ChannelRow[]> } | undefined;
  const channelList = () => {
    if (!cached || Date.now() - cached.at > options.channelCacheMs) cached = { at: Date.now(), list: store.channels() };
    cached.list.catch(() => { cached = undefined; });
    return cached.list;
  };

  /** a channel's full config: its settings with its secrets opened */
  const configOf = (ch: ChannelRow): Record<string, unknown> => ({ ...ch.config, ...(ch.secretsSealed ? JSON.parse(deps.secrets.open(ch.secretsSealed)) as Record<string, unknown> : {}) });
  const sends: ChannelSends = { store, sender: deps.sender, retry: options.retry, channelKinds: deps.channelKinds, configOf };

  const wants = (ch: ChannelRow, kind: string, severity: Severity) =>
    severityRank(severity) >= severityRank(ch.minSeverity) && (!ch.events.length || ch.events.includes(kind) || ch.events.includes(kind.split(':')[0]));

  /** true when the channel may send now; otherwise the message is held and a digest follows at the window's end */
  function admit(channelId: string): boolean {
    const now = Date.now();
    let w = windows.get(channelId);
    if (!w || now - w.started >= options.rateLimit.windowMs) {
      w = { started: now, sent: 0, digest: w?.digest };
      windows.set(channelId, w);
    }
    if (w.sent < options.rateLimit.perWindow) {
      w.sent++;
      return true;
    }
    return false;
  }

  /** the digest of a channel's held messages at the end of its window (held rows are written before this is called, so none is left behind) */
  function scheduleDigest(channelId: string): void {
    const w = windows.get(channelId);
    if (!w || w.digest || stopped) return;
    w.digest = setTimeout(() => {
      w.digest = undefined;
      digest(channelId).catch((err) => log.error({ err, channel: channelId }, 'sending a digest failed'));
    }, Math.max(0, w.started + options.rateLimit.windowMs - Date.now()));
    w.digest.unref();
  }

  async function enqueue(ids: string[]): Promise<void> {
    const handle = deps.deliverJob();
    const jobs = await Promise.all(ids.map((id) => handle.enqueue({ delivery: id }, { actor: system, resource: `alert-delivery:${id}` })));
    // only a restart's recovery reads the job ids: off the path to the receiver
    store.setDeliveryJobs(ids.map((id, i) => ({ id, jobId: jobs[i].id }))).catch((err) => log.error({ err }, 'recording delivery jobs failed'));
  }

  /** one delivery per channel that wants it (held when over its rate limit), each pending one a job */
  async function fanOut(message: AlertMessage, alertId: number | null, kind: string, only?: ChannelRow[], among?: readonly string[]): Promise<void> {
    const channels = (only ?? await channelList()).filter((ch) => only || (wants(ch, kind, message.severity) && (!among || among.includes(ch.id))));
    if (!channels.length) return;
    const deliveries = channels.map((ch) => ({
      id: randomUUID(), channelId: ch.id, alertId, event: message.event, message,
      status: (message.event === 'digest' || admit(ch.id) ? 'pending' : 'held') as 'pending' | 'held',
    }));
    await store.addDeliveries(deliveries);
    for (const d of deliveries) if (d.status === 'held') scheduleDigest(d.channelId);
    await enqueue(deliveries.filter((d) => d.status === 'pending').map((d) => d.id));
  }

  /** what the rate limit held back on a channel, sent as one message */
  async function digest(channelId: string): Promise<void> {
    const ch = await store.channel(channelId);
    if (!ch) return;
    const held = await store.takeHeld(channelId);
    if (!held.length) return;
    const worst = held.reduce<Severity>((s, h) => {
      const sev = (h.message as unknown as AlertMessage).severity;
      return severityRank(sev) > severityRank(s) ? sev : s;
    }, 'info');
    const message: AlertMessage = {
      event: 'digest', severity: worst, alert: null,
      title: `${held.length} alert message${held.length === 1 ? ' was' : 's were'} held back by the rate limit of channel ${ch.name}`,
      text: `Held back within ${Math.round(options.rateLimit.windowMs / 1000)} s:`,
      held: held.map((h) => ({ event: h.event, title: h.message.title })),
    };
    await fanOut(message, null, 'digest', [ch]);
  }

  return {
    async raise(kind: string, input: RaiseInput): Promise<Alert> {
      const def = kindOf(deps.kinds, kind);
      if (!def) throw new Error(`alert kind "${kind}" is not registered`);
      const { alert, created } = await store.raise({
        key: keyOf(kind, input), kind, severity: input.severity ?? def.severity, resource: input.resource, message: input.message,
        details: { ...input.details, ...(input.subject ? { subject: input.subject } : {}) },
      });
      // a repeat counts on the open alert: the channels heard of it when it was raised
      if (created) await fanOut(messageOf('raised', alert), alert.id, kind, undefined, input.channels);
      return alert;
    },
    async resolve(kind: string, input: Pick<RaiseInput, 'resource' | 'subject' | 'channels'>): Promise<Alert | null> {
      const alert = await store.resolve(keyOf(kind, { ...input, message: '' }));
      if (alert) await fanOut(messageOf('resolved', alert), alert.id, kind, undefined, input.channels);
      return alert;
    },

    /** the job of one delivery: tries with growing waits, the channel's failures counted when it gives up */
    deliver: (job: DeliveryJob): Promise<unknown> => deliverWithRetries(sends, job),
    /** one try to each channel, answered at once (POST /alerts/test) */
    test: (channels: ChannelRow[], actor: Actor) => testChannels(sends, channels, actor),

    /** after a restart: pending deliveries whose job ended with the old process get a new job; held ones their digest */
    async recover(jobs: { getMany(ids: readonly string[]): Promise<Map<string, { done: boolean }>> }): Promise<void> {
      const pending = await store.pending();
      const known = await jobs.getMany(pending.map((p) => p.jobId).filter((id): id is string => id !== null));
      const orphans = pending.filter((p) => !p.jobId || !known.get(p.jobId) || known.get(p.jobId)!.done).map((p) => p.id);
      if (orphans.length) await enqueue(orphans);
      for (const id of await store.channelsWithHeld()) await digest(id);
    },
    /** a delivery whose job a takeover interrupted after this start's recovery ran gets a new job, when it is still pending */
    async redeliver(deliveryId: string): Promise<void> {
      if ((await store.pending()).some((p) => p.id === deliveryId)) await enqueue([deliveryId]);
    },
    stop(): void {
      stopped = true;
      for (const w of windows.values()) clearTimeout(w.digest);
    },
    configOf,
    forgetChannels(): void {
      cached = undefined;
    },
  };
}
export type AlertEngine = ReturnType<typeof createEngine>;
