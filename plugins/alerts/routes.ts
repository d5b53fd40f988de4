// The /alerts endpoints: alerts (list, acknowledge), channels (list, create, delete) and the test alert.
import { randomUUID } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import { defineRoute, pageOf, Nullable, problem, reply, Type, type AnyRoute, type ContextWith, type Static } from '../../sdk/index.ts';
import type { ChannelKind } from './channels.ts';
import { kindOf, type AlertEngine, type AlertKind } from './engine.ts';
import type { Sender } from './send.ts';
import { alertStatuses, severities, type Alert, type AlertStore, type ChannelRow, type Severity } from './store.ts';

const SeverityT = Type.Union(severities.map((s) => Type.Literal(s)));
const Time = Type.String({ format: 'date-time' });
const AlertStatusT = Type.Union(alertStatuses.map((s) => Type.Literal(s)), { description: 'open; acknowledged: seen, its condition not cleared yet; resolved: its condition cleared' });

export const AlertView = Type.Object({
  id: Type.Integer(),
  kind: Type.String(),
  severity: SeverityT,
  resource: Type.Union([Type.String(), Type.Null()], { description: 'what the alert is about (stack:web, backup:nightly, engine, …)' }),
  subject: Type.Optional(Type.String({ description: 'a finer part of the resource (a stack\'s service, a job type)' })),
  message: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown()),
  status: AlertStatusT,
  count: Type.Integer({ description: 'how often it was raised while open' }),
  firstSeen: Time,
  lastSeen: Time,
  resolvedAt: Nullable(Time),
  acknowledgedAt: Nullable(Time),
  acknowledgedBy: Type.Union([Type.Object({ kind: Type.String(), name: Type.Optional(Type.String()) }), Type.Null()]),
});

export const ChannelView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  kind: Type.String(),
  config: Type.Record(Type.String(), Type.Unknown(), { description: 'the settings that are not secret; secret fields are never answered' }),
  secretFields: Type.Array(Type.String(), { description: 'the fields kept sealed' }),
  events: Type.Array(Type.String(), { description: 'the alert kinds it wants; empty: all' }),
  minSeverity: SeverityT,
  failing: Type.Boolean({ description: 'its last delivery failed after every retry' }),
  consecutiveFailures: Type.Integer(),
  failingSince: Nullable(Time),
  lastError: Nullable(Type.String()),
  lastDelivery: Type.Union([Type.Object({
    at: Time,
    delivered: Type.Boolean(),
    error: Type.Optional(Type.String({ description: 'what the receiver answered, or why it was not reached' })),
  }), Type.Null()], { description: 'its last delivery attempt (a retry or a test alert included); null: never tried' }),
  createdAt: Time,
});
const CreatedView = Type.Intersect([ChannelView, Type.Object({
  secret: Type.Optional(Type.String({ description: 'the signing secret of a webhook channel: shown this once' })),
})]);

const CreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  kind: Type.String({ minLength: 1, maxLength: 40, description: 'webhook, email, slack, discord, telegram, ntfy, gotify, or one a plugin adds' }),
  config: Type.Record(Type.String(), Type.Unknown(), { description: 'the kind\'s settings (see the channel kinds in docs/reference/alert-kinds.md)' }),
  events: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 60 }), { maxItems: 100, uniqueItems: true, description: 'alert kinds; default all' })),
  minSeverity: Type.Optional(SeverityT),
}, { additionalProperties: false });

const TestBody = Type.Object({ channelId: Type.Optional(Type.String({ format: 'uuid', description: 'one channel; default every channel' })) }, { additionalProperties: false });
const TestAnswer = Type.Object({
  results: Type.Array(Type.Object({ channelId: Type.String(), delivered: Type.Boolean(), error: Type.Optional(Type.String()) })),
});

const Id = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,18}$' }) });
const ChannelId = Type.Object({ id: Type.String({ format: 'uuid' }) });

function alertView(a: Alert): Static<typeof AlertView> {
  const { subject, ...details } = a.details as Record<string, unknown> & { subject?: string };
  return {
    id: a.id, kind: a.kind, severity: a.severity, resource: a.resource, ...(typeof subject === 'string' ? { subject } : {}), message: a.message, details,
    status: a.status, count: a.count, firstSeen: a.firstSeen, lastSeen: a.lastSeen, resolvedAt: a.resolvedAt, acknowledgedAt: a.acknowledgedAt,
    acknowledgedBy: a.acknowledgedBy ? { kind: a.acknowledgedBy.kind, ...(a.acknowledgedBy.name ? { name: a.acknowledgedBy.name } : {}) } : null,
  };
}

export function channelView(ch: ChannelRow, kind: ChannelKind | undefined, secretsOf: (ch: ChannelRow) => Record<string, unknown>): Static<typeof ChannelView> {
  const shown = kind?.view ? (() => { try { return kind.view!(secretsOf(ch)); } catch { return {}; } })() : {};
  return {
    id: ch.id, name: ch.name, kind: ch.kind, config: { ...ch.config, ...shown }, secretFields: [...(kind?.secretFields ?? [])], events: ch.events, minSeverity: ch.minSeverity,
    failing: ch.failingSince !== null, consecutiveFailures: ch.consecutiveFailures, failingSince: ch.failingSince, lastError: ch.lastError,
    lastDelivery: ch.lastDelivery, createdAt: ch.createdAt,
  };
}

export function alertRoutes(deps: {
  ctx: ContextWith<'secrets'>; store: AlertStore; engine: AlertEngine; sender: Sender; recentResolvedMs: number;
  kinds: ReadonlyMap<string, AlertKind>; channelKinds: ReadonlyMap<string, ChannelKind>;
}): AnyRoute[] {
  const { ctx, store, engine } = deps;
  const view = (ch: ChannelRow) => channelView(ch, deps.channelKinds.get(ch.kind), engine.configOf);

  return [
    defineRoute({
      method: 'GET', path: '/alerts', scopes: ['alerts:read'], page: true, response: AlertView, cursor: Type.String({ pattern: '^[0-9]{1,18}$' }),
      summary: 'List alerts: open ones and those resolved recently (newest first); only alerts of resources the caller may see',
      query: Type.Object({
        status: Type.Optional(Type.Union([...alertStatuses.map((st) => Type.Literal(st)), Type.Literal('unresolved'), Type.Literal('all')], {
          default: 'all', description: 'one status; unresolved: open or acknowledged; all: every status (resolved ones recent)',
        })),
        kind: Type.Optional(Type.String({ maxLength: 60 })),
        severity: Type.Optional(SeverityT),
        resource: Type.Optional(Type.String({ maxLength: 300 })),
        acknowledged: Type.Optional(Type.Boolean()),
      }),
      handler: async ({ query, page, principal }) => {
        const rows = await store.list({
          status: query.status ?? 'all', kind: query.kind, severity: query.severity as Severity | undefined, resource: query.resource, acknowledged: query.acknowledged,
          resolvedSince: new Date(Date.now() - deps.recentResolvedMs), before: page.cursor ? Number(page.cursor) : undefined, limit: page.limit + 1,
        });
        const { shown, next } = pageOf(rows, page.limit, (a) => a.id);
        const visible = await ctx.visibility.filter(principal, shown.map((a) => a.resource), 'read');
        return { items: shown.filter((a) => visible(a.resource)).map(alertView), next };
      },
    }),
    defineRoute({
      method: 'POST', path: '/alerts/:id/acknowledge', scopes: ['alerts:write'], params: Id, response: AlertView, errors: [404],
      summary: 'Acknowledge an alert: it stays open until its condition clears, marked as seen', activity: 'alert.acknowledge', resource: 'alert:{id}',
      handler: async ({ params, principal }) => {
        const alert = await store.get(Number(params.id));
        const visible = alert && (await ctx.visibility.filter(principal, [alert.resource], 'read'))(alert.resource);
        if (!alert || !visible) throw problem(404, `no alert ${params.id}`);
        return alertView((await store.acknowledge(alert.id, principal.actor))!);
      },
    }),
    defineRoute({
      method: 'GET', path: '/alerts/channels', scopes: ['alerts:read'], response: Type.Array(ChannelView),
      summary: 'List the alert channels (secrets are never answered)',
      handler: async () => (await store.channels()).map(view),
    }),
    defineRoute({
      method: 'POST', path: '/alerts/channels', scopes: ['alerts:write'], body: CreateBody, response: CreatedView, status: 201, errors: [400, 422, 502],
      summary: 'Create an alert channel; its hosts are checked against the outbound policy now and again at every send', activity: 'alert.channel.create',
      resource: 'alert-channels',
      handler: async ({ body, principal }) => {
        const kind = deps.channelKinds.get(body.kind);
        if (!kind) throw problem(400, `no channel kind "${body.kind}" (known: ${[...deps.channelKinds.keys()].join(', ')})`, { errors: [{ path: '/body/kind', message: 'unknown kind' }] });
        const generated = kind.generate?.() ?? {};
        for (const field of Object.keys(generated)) {
          if (field in body.config) throw problem(400, `config.${field} is made by Dockwright and shown once`, { errors: [{ path: `/body/config/${field}`, message: 'must not be given' }] });
        }
        const config = Value.Default(kind.schema, structuredClone(body.config)) as Record<string, unknown>;
        const errors = [...Value.Errors(kind.schema, config)].map((e) => ({ path: `/body/config${e.path}`, message: e.message }));
        if (errors.length) throw problem(400, `the config does not fit the ${kind.kind} channel: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, { errors });
        const unknownKinds = (body.events ?? []).filter((k) => !kindOf(deps.kinds, k));
        if (unknownKinds.length) throw problem(400, `no alert kind ${unknownKinds.join(', ')} (known: ${[...deps.kinds.keys()].join(', ')})`, { errors: [{ path: '/body/events', message: 'unknown alert kind' }] });
        await kind.check(config, deps.sender);
        const all = { ...config, ...generated };
        const secret = Object.fromEntries(Object.entries(all).filter(([k]) => kind.secretFields.includes(k)));
        const plain = Object.fromEntries(Object.entries(all).filter(([k]) => !kind.secretFields.includes(k)));
        const row = await store.addChannel({
          id: randomUUID(), name: body.name, kind: kind.kind, config: plain, secretsSealed: Object.keys(secret).length ? ctx.secrets.seal(JSON.stringify(secret)) : null,
          events: body.events ?? [], minSeverity: body.minSeverity ?? 'info', createdBy: principal.actor,
        });
        engine.forgetChannels();
        return reply(201, { ...view(row), ...generated });
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/alerts/channels/:id', scopes: ['alerts:write'], params: ChannelId, response: Type.Object({ removed: Type.String() }), errors: [404],
      summary: 'Delete an alert channel (its pending deliveries are dropped)', activity: 'alert.channel.delete', resource: 'alert-channel:{id}',
      handler: async ({ params }) => {
        if (!(await store.removeChannel(params.id))) throw problem(404, `no alert channel ${params.id}`);
        engine.forgetChannels();
        return { removed: params.id };
      },
    }),
    defineRoute({
      method: 'POST', path: '/alerts/test', scopes: ['alerts:write'], body: TestBody, response: TestAnswer, errors: [404],
      summary: 'Send a test alert to one channel or all, once each, and answer each one\'s outcome', activity: 'alert.test', resource: 'alert-channels',
      handler: async ({ body, principal }) => {
        let channels: ChannelRow[];
        if (body.channelId) {
          const ch = await store.channel(body.channelId);
          if (!ch) throw problem(404, `no alert channel ${body.channelId}`);
          channels = [ch];
        } else {
          channels = await store.channels();
        }
        return { results: await engine.test(channels, principal.actor) };
      },
    }),
  ];
}
