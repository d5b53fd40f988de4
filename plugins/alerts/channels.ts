// The channel kinds (webhook, email, Slack, Discord, Telegram, ntfy, Gotify): each one's config schema, secret fields, save-time check and send.
import { createHmac, randomBytes } from 'node:crypto';
import { Type, type TSchema } from '../../sdk/index.ts';
import type { Sender } from './send.ts';
import type { Severity } from './store.ts';

/** what a channel is sent: a raised or resolved alert, a test, or the digest of what the rate limit held back */
export interface AlertMessage {
  event: 'raised' | 'resolved' | 'test' | 'digest';
  title: string;
  text: string;
  severity: Severity;
  alert: { id: number; kind: string; severity: Severity; resource: string | null; message: string; count: number; firstSeen: string; lastSeen: string; resolvedAt: string | null } | null;
  /** the digest's held messages (titles) */
  held?: { event: string; title: string }[];
}

export interface SendContext { deliveryId: string; sender: Sender }

/** a kind of channel; other plugins add theirs through the alerts API */
export interface ChannelKind {
  kind: string;
  description: string;
  /** the whole config, secret fields included */
  schema: TSchema;
  /** config fields sealed at rest and never answered */
  secretFields: readonly string[];
  /** secret fields made here, answered once when the channel is created (the webhook's signing secret) */
  generate?(): Record<string, string>;
  /** refuses (Problem) what cannot be sent to, at save: every host through the outbound policy */
  check(config: Record<string, unknown>, sender: Sender): Promise<void>;
  /** what the answers show of a config beyond its non-secret fields (the host of a secret URL) */
  view?(config: Record<string, unknown>): Record<string, unknown>;
  send(config: Record<string, unknown>, message: AlertMessage, ctx: SendContext): Promise<void>;
}

const Url = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });
const json = { 'content-type': 'application/json' };
const hostOf = (url: unknown) => new URL(String(url)).host;
const joinUrl = (base: string, path: string) => `${base.replace(/\/+$/, '')}/${path}`;

/** the text of a message, one or more lines */
function body(m: AlertMessage): string {
  if (m.event !== 'digest' || !m.held?.length) return m.text;
  return `${m.text}\n${m.held.slice(0, 50).map((h) => `- ${h.title}`).join('\n')}${m.held.length > 50 ? `\n… and ${m.held.length - 50} more` : ''}`;
}

const webhook: ChannelKind = {
  kind: 'webhook',
  description: 'a JSON POST to a URL, signed: X-Dockwright-Signature: sha256=<hex HMAC-SHA256 of the raw body with the channel secret>',
  schema: Type.Object({ url: Url('where the JSON is posted (http or https)') }, { additionalProperties: false }),
  secretFields: ['secret'],
  generate: () => ({ secret: randomBytes(32).toString('base64url') }),
  async check(c, s) { await s.checkUrl(String(c.url), 'url'); },
  async send(c, m, { deliveryId, sender }) {
    const raw = JSON.stringify({ event: m.event, title: m.title, text: body(m), severity: m.severity, alert: m.alert, held: m.held, deliveryId, sentAt: new Date().toISOString() });
    const signature = createHmac('sha256', String(c.secret)).update(raw).digest('hex');
    await sender.post(String(c.url), raw, { ...json, 'x-dockwright-event': m.event, 'x-dockwright-delivery': deliveryId, 'x-dockwright-signature': `sha256=${signature}` });
  },
};

const slack: ChannelKind = {
  kind: 'slack',
  description: 'a Slack incoming webhook',
  schema: Type.Object({ url: Url('the incoming webhook URL (it holds the token: sealed, never answered)') }, { additionalProperties: false }),
  secretFields: ['url'],
  async check(c, s) { await s.checkUrl(String(c.url), 'url'); },
  view: (c) => ({ urlHost: hostOf(c.url) }),
  async send(c, m, { sender }) {
    await sender.post(String(c.url), JSON.stringify({ text: `*${m.title}*\n${body(m)}` }), json);
  },
};

const discord: ChannelKind = {
  kind: 'discord',
  description: 'a Discord webhook',
  schema: Type.Object({ url: Url('the webhook URL (it holds the token: sealed, never answered)') }, { additionalProperties: false }),
  secretFields: ['url'],
  async check(c, s) { await s.checkUrl(String(c.url), 'url'); },
  view: (c) => ({ urlHost: hostOf(c.url) }),
  async send(c, m, { sender }) {
    // Discord refuses content over 2000 characters
    await sender.post(String(c.url), JSON.stringify({ content: `**${m.title}**\n${body(m)}`.slice(0, 2000), allowed_mentions: { parse: [] } }), json);
  },
};

const telegram: ChannelKind = {
  kind: 'telegram',
  description: 'a Telegram bot message (Bot API sendMessage)',
  schema: Type.Object({
    botToken: Type.String({ minLength: 1, maxLength: 200, pattern: '^[0-9]+:[A-Za-z0-9_-]+$', description: 'the bot token (sealed, never answered)' }),
    chatId: Type.String({ minLength: 1, maxLength: 100, pattern: '^(-?[0-9]+|@[A-Za-z0-9_]+)$', description: 'the chat id or @channel' }),
    baseUrl: Type.Optional(Url('the Bot API server (default https://api.telegram.org)')),
  }, { additionalProperties: false }),
  secretFields: ['botToken'],
  async check(c, s) { await s.checkUrl(String(c.baseUrl ?? 'https://api.telegram.org'), 'baseUrl'); },
  async send(c, m, { sender }) {
    const url = joinUrl(String(c.baseUrl ?? 'https://api.telegram.org'), `bot${c.botToken}/sendMessage`);
    await sender.post(url, JSON.stringify({ chat_id: c.chatId, text: `${m.title}\n${body(m)}`.slice(0, 4096), disable_web_page_preview: true }), json);
  },
};

const ntfyPriority: Record<Severity, string> = { critical: '5', warning: '4', info: '3' };
const ntfy: ChannelKind = {
  kind: 'ntfy',
  description: 'an ntfy topic (POST <server>/<topic>)',
  schema: Type.Object({
    topic: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
    baseUrl: Type.Optional(Url('the ntfy server (default https://ntfy.sh)')),
    token: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'an access token (sealed, never answered)' })),
  }, { additionalProperties: false }),
  secretFields: ['token'],
  async check(c, s) { await s.checkUrl(String(c.baseUrl ?? 'https://ntfy.sh'), 'baseUrl'); },
  async send(c, m, { sender }) {
    const headers: Record<string, string> = {
      'content-type': 'text/plain; charset=utf-8', title: m.title.replace(/[^\x20-\x7e]/g, '?'), priority: ntfyPriority[m.severity],
      tags: m.event === 'resolved' ? 'white_check_mark' : m.severity === 'critical' ? 'rotating_light' : 'warning',
    };
    if (c.token) headers.authorization = `Bearer ${c.token}`;
    await sender.post(joinUrl(String(c.baseUrl ?? 'https://ntfy.sh'), String(c.topic)), body(m), headers);
  },
};

const gotifyPriority: Record<Severity, number> = { critical: 8, warning: 5, info: 2 };
const gotify: ChannelKind = {
  kind: 'gotify',
  description: 'a Gotify application message (POST <server>/message)',
  schema: Type.Object({
    baseUrl: Url('the Gotify server'),
    appToken: Type.String({ minLength: 1, maxLength: 200, description: 'the application token (sealed, never answered)' }),
  }, { additionalProperties: false }),
  secretFields: ['appToken'],
  async check(c, s) { await s.checkUrl(String(c.baseUrl), 'baseUrl'); },
  async send(c, m, { sender }) {
    await sender.post(joinUrl(String(c.baseUrl), 'message'), JSON.stringify({ title: m.title, message: body(m), priority: gotifyPriority[m.severity] }),
      { ...json, 'x-gotify-key': String(c.appToken) });
  },
};

const Address = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@<>,;]+@[^\\s@<>,;]+$' });
const email: ChannelKind = {
  kind: 'email',
  description: 'an email through an SMTP server (STARTTLS required on port 587/25, or TLS from the start with secure)',
  schema: Type.Object({
    host: Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:\\[\\]_-]+$', description: 'the SMTP server' }),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: 587 })),
    secure: Type.Optional(Type.Boolean({ description: 'TLS from the start (port 465); otherwise STARTTLS is required' })),
    username: Type.Optional(Type.String({ maxLength: 255 })),
    password: Type.Optional(Type.String({ maxLength: 1024, description: 'sealed, never answered' })),
    from: Address,
    to: Type.Array(Address, { minItems: 1, maxItems: 20 }),
    caCertificate: Type.Optional(Type.String({ maxLength: 20_000, description: 'a PEM CA the server\'s certificate is checked against (a private CA)' })),
  }, { additionalProperties: false }),
  secretFields: ['password'],
  async check(c, s) { await s.checkHost(String(c.host)); },
  async send(c, m, { sender }) {
    await sender.mail({
      host: String(c.host), port: Number(c.port ?? 587), secure: c.secure === true, username: c.username as string | undefined, password: c.password as string | undefined,
      ca: c.caCertificate as string | undefined, from: String(c.from), to: c.to as string[], subject: m.title, text: body(m),
    });
  },
};

export const builtInKinds: readonly ChannelKind[] = [webhook, email, slack, discord, telegram, ntfy, gotify];
