// The alerts plugin: events of every plugin turned into deduplicated alerts, and delivered to channels (webhook, email, chat, push) SSRF-safely.
import { statfs } from 'node:fs/promises';
import { resolve } from 'node:path';
import { defineJob, definePlugin, Type, type AttentionItem } from '../../sdk/index.ts';
import { alertChannelKinds, type AlertsApi } from './api.ts';
import { builtInKinds, type ChannelKind } from './channels.ts';
import { createEngine, type AlertKind, type DeliverJobInput } from './engine.ts';
import { alertRoutes } from './routes.ts';
import { createSender } from './send.ts';
import { builtInAlertKinds, listen } from './sources.ts';
import { createStore, severities } from './store.ts';

export type { AlertKind, AlertMessage, AlertsApi, ChannelKind, RaiseInput, SendContext, Sender } from './api.ts';

const Options = Type.Object({
  retry: Type.Object({
    attempts: Type.Integer({ minimum: 1, maximum: 100, default: 6, description: 'tries of one delivery before it fails' }),
    backoffMs: Type.Integer({ minimum: 0, default: 2000, description: 'wait after the first failed try; it doubles after each' }),
    maxBackoffMs: Type.Integer({ minimum: 0, default: 300_000 }),
  }, { default: {} }),
  rateLimit: Type.Object({
    perWindow: Type.Integer({ minimum: 1, default: 20, description: 'messages one channel is sent per window; more are held and sent as one digest at its end' }),
    windowMs: Type.Integer({ minimum: 1, default: 300_000 }),
  }, { default: {} }),
  timeoutMs: Type.Integer({ minimum: 100, default: 10_000, description: 'bound of one send (connect, answer)' }),
  channelCacheMs: Type.Integer({ minimum: 0, default: 1000, description: 'how long the channel list is reused when alerts are fanned out (another instance\'s change shows after at most this)' }),
  failingAfter: Type.Integer({ minimum: 1, default: 3, description: 'deliveries failed in a row (after their retries) before a channel is an attention item' }),
  recentResolvedMs: Type.Integer({ minimum: 0, default: 7 * 86_400_000, description: 'how long resolved alerts are listed' }),
  ignoredJobTypes: Type.Array(Type.String(), {
    default: ['alerts.*', 'stacks.deploy', 'backups.run', 'backups.verify', 'sites.*', 'certificates.*', 'releases.update', 'tasks.run'],
    description: 'job types whose failure raises no job-failed alert (they have an alert of their own); `plugin.*` for all of a plugin',
  }),
  disk: Type.Object({
    intervalMs: Type.Integer({ minimum: 1000, default: 300_000, description: 'how often free space is looked at' }),
    minFreePercent: Type.Number({ minimum: 0, maximum: 100, default: 10 }),
    paths: Type.Array(Type.String({ pattern: '^/' }), { default: ['/var/lib/docker'], description: 'besides DATA_DIR: the engine\'s data root and other folders to watch (missing ones are skipped)' }),
  }, { default: {} }),
}, { additionalProperties: false });

export default definePlugin({
  name: 'alerts',
  version: '1.0.0',
  services: ['db', 'secrets', 'events', 'outbound'],
  extensionPoints: [alertChannelKinds],
  description: 'Alerts from every plugin\'s events, deduplicated and resolved on their own; delivered to webhook, email, Slack, Discord, Telegram, ntfy and Gotify channels',
  options: Options,
  setup(ctx): AlertsApi {
    const o = ctx.options;
    ctx.scopes.define({
      'alerts:read': { description: 'list alerts and alert channels', role: 'viewer' },
      'alerts:write': { description: 'create and delete alert channels, send test alerts, acknowledge alerts', role: 'operator' },
    });
    ctx.migrations.from(new URL('./migrations', import.meta.url));

    const store = createStore(ctx.db);
    ctx.metrics.add({
      name: 'dockwright_alerts_open', help: 'alerts not resolved, by severity and whether acknowledged', type: 'gauge',
      collect: async () => (await ctx.db.query<{ severity: string; acknowledged: boolean; n: number }>(
        'SELECT severity, acknowledged_at IS NOT NULL AS acknowledged, count(*)::int AS n FROM alerts WHERE resolved_at IS NULL GROUP BY 1, 2')).rows
        .map((r) => ({ labels: { severity: r.severity, acknowledged: String(r.acknowledged) }, value: r.n })),
    });
    const sender = createSender(ctx.outbound, o.timeoutMs);
    const kinds = new Map<string, AlertKind>();
    const channelKinds = new Map<string, ChannelKind>();
    const addKind = (k: AlertKind) => {
      if (!/^[a-z][a-z0-9-]{0,59}$/.test(k.kind)) throw new Error(`alert kind "${k.kind}" must match ^[a-z][a-z0-9-]{0,59}$`);
      if (!severities.includes(k.severity)) throw new Error(`alert kind "${k.kind}": severity must be one of ${severities.join(', ')}`);
      if (kinds.has(k.kind)) throw new Error(`alert kind "${k.kind}" is registered twice`);
      kinds.set(k.kind, k);
    };
    const addChannelKind = (k: ChannelKind) => {
      if (!/^[a-z][a-z0-9-]{0,39}$/.test(k.kind)) throw new Error(`channel kind "${k.kind}" must match ^[a-z][a-z0-9-]{0,39}$`);
      if (channelKinds.has(k.kind)) throw new Error(`channel kind "${k.kind}" is registered twice`);
      channelKinds.set(k.kind, k);
    };
    builtInAlertKinds.forEach(addKind);
    builtInKinds.forEach(addChannelKind);
    ctx.onStart(() => ctx.extensions.of(alertChannelKinds).forEach(addChannelKind));

    const engine = createEngine({ store, secrets: ctx.secrets, sender, log: ctx.log, options: o, kinds, channelKinds, deliverJob: () => deliverJob });
    const deliverJob = ctx.jobs.define(defineJob({
      type: 'alerts.deliver', internal: true, input: Type.Object({ delivery: Type.String({ format: 'uuid' }) }),
      run: (job) => engine.deliver(job as typeof job & { input: DeliverJobInput }),
    }));

    listen(ctx.events, engine, ctx.log, o.ignoredJobTypes, ctx.jobs);
    for (const route of alertRoutes({ ctx, store, engine, sender, recentResolvedMs: o.recentResolvedMs, kinds, channelKinds })) ctx.routes.add(route);

    const watched = [{ label: 'DATA_DIR', path: resolve(ctx.dataDir, '..', '..') }, ...o.disk.paths.map((p) => ({ label: p, path: p }))];
    ctx.schedule.every('disk', o.disk.intervalMs, async () => {
      for (const { label, path } of watched) {
        const stats = await statfs(path).catch(() => null);
        if (!stats || !stats.blocks) continue;
        const freePercent = (stats.bavail / stats.blocks) * 100;
        const resource = `disk:${label}`;
        if (freePercent < o.disk.minFreePercent) {
          const freeGiB = (Number(stats.bavail) * Number(stats.bsize)) / 2 ** 30;
          await engine.raise('disk-low', { resource, message: `only ${freePercent.toFixed(1)}% (${freeGiB.toFixed(1)} GiB) is free on ${label}`, details: { path, freePercent } });
        } else {
          await engine.resolve('disk-low', { resource });
        }
      }
    });

    ctx.overview.add({
      scope: 'alerts:read',
      async summary(viewer) {
        const open = await store.open();
        const visible = await ctx.visibility.filter(viewer, open.map((a) => a.resource), 'read');
        const mine = open.filter((a) => visible(a.resource));
        return { open: mine.length, critical: mine.filter((a) => a.severity === 'critical').length, unacknowledged: mine.filter((a) => !a.acknowledgedAt).length };
      },
      async attention() {
        return (await store.channels()).filter((ch) => ch.consecutiveFailures >= o.failingAfter).map((ch): AttentionItem => ({
          severity: 'warning', kind: 'alert-channel-failing', resource: `alert-channel:${ch.id}`,
          message: `alert channel ${ch.name} (${ch.kind}) keeps failing: ${ch.consecutiveFailures} deliveries failed in a row, the last with: ${ch.lastError ?? ''}`,
          since: ch.failingSince ?? undefined,
        }));
      },
    });

    ctx.onStart(() => engine.recover(ctx.jobs));
    // a delivery job of a stopped instance is failed by another instance's takeover, possibly after this start's recovery ran
    const deliveryOf = (resource: unknown) => (typeof resource === 'string' && resource.startsWith('alert-delivery:') ? resource.slice('alert-delivery:'.length) : null);
    ctx.events.on('job.failed', (p) => {
      const delivery = p.type === 'alerts.deliver' && p.error === 'interrupted by restart' ? deliveryOf(p.resource) : null;
      return delivery ? engine.redeliver(delivery) : undefined;
    });
    ctx.onStop(async () => {
      engine.stop();
      await sender.close();
    });

    return { addKind, addChannelKind, raise: engine.raise, resolve: engine.resolve };
  },
});
