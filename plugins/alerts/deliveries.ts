// Sending to a channel's receiver: one delivery with its retries, a test message to channels, and a receiver's errors kept free of secrets.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../sdk/index.ts';
import type { AlertMessage, ChannelKind } from './channels.ts';
import type { Sender } from './send.ts';
import type { AlertStore, ChannelRow } from './store.ts';

/** what the sends need of the engine: the store, the transport, the retry rule, the channel kinds and a channel's opened config */
export interface ChannelSends {
  store: AlertStore;
  sender: Sender;
  retry: { attempts: number; backoffMs: number; maxBackoffMs: number };
  channelKinds: Map<string, ChannelKind>;
  configOf(ch: ChannelRow): Record<string, unknown>;
}

/** the job that delivers one message to one channel */
export interface DeliveryJob { input: { delivery: string }; signal: AbortSignal; log(line: string): void; redact(secret: string): void }

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve, reject) => {
  // a job stopped while it was sending: its signal is aborted already, and no abort event will come
  if (signal.aborted) { reject(signal.reason); return; }
  const timer = setTimeout(resolve, ms);
  signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
});

/** a receiver's answer or a connection error may quote a URL or header: a channel's secrets never reach its last error or an answer */
export function scrub(reason: string, config: Record<string, unknown>, kind: ChannelKind | undefined): string {
  let out = reason;
  for (const field of kind?.secretFields ?? []) {
    const value = config[field];
    if (typeof value === 'string' && value.length >= 4) out = out.split(value).join('[redacted]');
  }
  return out;
}

/** tries with growing waits, the channel's failures counted when it gives up */
export async function deliverWithRetries(deps: ChannelSends, job: DeliveryJob): Promise<unknown> {
  const found = await deps.store.delivery(job.input.delivery);
  if (!found || found.status !== 'pending') return { skipped: found?.status ?? 'gone' };
  const { channel: ch, ...d } = found;
  const kind = deps.channelKinds.get(ch.kind);
  if (!kind) throw new Error(`no channel kind "${ch.kind}" is registered (a plugin was disabled?)`);
  const config = deps.configOf(ch);
  for (const field of kind.secretFields) if (typeof config[field] === 'string') job.redact(config[field] as string);
  for (let attempt = d.attempts + 1; ; attempt++) {
    try {
      await kind.send(config, d.message as AlertMessage, { deliveryId: d.id, sender: deps.sender });
      await deps.store.deliveryAttempt(d.id, null, false);
      if (ch.consecutiveFailures > 0 || attempt > 1) await deps.store.channelOutcome(ch.id, null);
      job.log(`delivered to ${ch.kind} channel ${ch.name} (attempt ${attempt})`);
      return { delivered: true, attempts: attempt };
    } catch (err) {
      const reason = scrub((err as Error).message, config, kind);
      const final = attempt >= deps.retry.attempts;
      await deps.store.deliveryAttempt(d.id, reason, final);
      if (final) {
        await deps.store.channelOutcome(ch.id, reason);
        throw new Error(`not delivered to ${ch.kind} channel ${ch.name} after ${attempt} attempts: ${reason}`);
      }
      const wait = Math.min(deps.retry.backoffMs * 2 ** (attempt - 1), deps.retry.maxBackoffMs);
      job.log(`attempt ${attempt} failed: ${reason}; next in ${wait} ms`);
      await sleep(wait, job.signal);
    }
  }
}

/** one try to each channel, answered at once (POST /alerts/test) */
export async function testChannels(deps: ChannelSends, channels: ChannelRow[], actor: Actor): Promise<{ channelId: string; delivered: boolean; error?: string }[]> {
  const message: AlertMessage = {
    event: 'test', severity: 'info', alert: null,
    title: '[test] Dockwright test alert', text: `A test alert sent by ${actor.name ?? actor.kind}: this channel works.`,
  };
  return Promise.all(channels.map(async (ch) => {
    const kind = deps.channelKinds.get(ch.kind);
    let config: Record<string, unknown> = {};
    try {
      if (!kind) throw new Error(`no channel kind "${ch.kind}" is registered`);
      config = deps.configOf(ch);
      await kind.send(config, message, { deliveryId: randomUUID(), sender: deps.sender });
      await deps.store.channelAttempt(ch.id, null);
      return { channelId: ch.id, delivered: true };
    } catch (err) {
      const error = scrub((err as Error).message, config, kind);
      await deps.store.channelAttempt(ch.id, error);
      return { channelId: ch.id, delivered: false, error };
    }
  }));
}
