// The /settings endpoints (scopes settings:read, settings:write; admins only): read and change the live settings, and test a connection against the outbound policy.
import { connect } from 'node:net';
import { Type } from '@sinclair/typebox';
import type { ActivityApi, OutboundApi } from '../../sdk/index.ts';
import { defineRoute, OutboundRefused, Problem, type AnyRoute } from '../../sdk/index.ts';
import { createOutbound, type NameResolver } from '../services/outbound.ts';
import type { LiveSettings } from './service.ts';

export interface SettingsRouteDeps { settings: LiveSettings; activity: ActivityApi; outbound: OutboundApi; resolveName?: NameResolver }

const Source = Type.Union(['default', 'file', 'env', 'portal'].map((s) => Type.Literal(s)));
const SettingsView = Type.Object({
  revision: Type.Integer({ description: 'give it back as If-Match: "N" to change settings' }),
  settings: Type.Record(Type.String(), Type.Unknown(), { description: 'each setting by the config file\'s dotted path; a secret one as { secret: true, set }' }),
  sources: Type.Record(Type.String(), Source, { description: 'where each value comes from: file and env are the operator\'s and cannot be changed here' }),
  restartNeeded: Type.Array(Type.String(), { description: 'changed settings that apply only once the service restarts' }),
  about: Type.Record(Type.String(), Type.Object({
    label: Type.String(), group: Type.String(), secret: Type.Boolean(), live: Type.Boolean({ description: 'applied without a restart' }),
    description: Type.Optional(Type.String()), schema: Type.Unknown({ description: 'the JSON schema the value must fit (the config file\'s)' }),
  }), { description: 'how the Settings page shows each setting' }),
});
const Host = Type.String({ minLength: 1, maxLength: 255, pattern: '^[^\\s/]+$' });
const TestBody = Type.Object({
  host: Host, port: Type.Integer({ minimum: 1, maximum: 65535 }),
  allow: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 1000, description: 'test against this outbound.allow instead of the current one (before saving it)' })),
  allowHostnames: Type.Optional(Type.Union([Type.Boolean(), Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 1000 })])),
}, { additionalProperties: false });
const TestResult = Type.Object({
  host: Type.String(), port: Type.Integer(),
  allowed: Type.Boolean({ description: 'the outbound policy lets the host be reached' }),
  reason: Type.Optional(Type.String({ description: 'why the policy refuses it, or why the connection failed' })),
  address: Type.Optional(Type.String({ description: 'the address tried' })),
  connected: Type.Boolean({ description: 'a TCP connection was made (tried only when allowed)' }),
  ms: Type.Optional(Type.Integer({ description: 'how long the connection took' })),
});

const connectTimeoutMs = 3000;

/** GET /settings: every setting with its value (a secret one only as set or unset), its source, and those that wait for a restart */
function viewOf(settings: LiveSettings) {
  const values: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  const about: Record<string, { label: string; group: string; secret: boolean; live: boolean; description?: string; schema: unknown }> = {};
  for (const s of settings.catalogue.list) {
    const value = settings.get(s.path);
    values[s.path] = s.secret ? { secret: true, set: value !== undefined && value !== null } : value ?? null;
    sources[s.path] = settings.source(s.path);
    about[s.path] = { label: s.label, group: s.group, secret: s.secret === true, live: s.restart !== true, description: s.schema.description, schema: s.schema };
  }
  return { revision: settings.currentRevision, settings: values, sources: sources as Record<string, 'default'>, restartNeeded: settings.restartNeeded(), about };
}

/** one TCP connection to an address the policy checked, closed at once */
function tryConnect(address: string, port: number): Promise<{ connected: boolean; ms: number; reason?: string }> {
  const start = Date.now();
  return new Promise((done) => {
    const socket = connect({ host: address, port, timeout: connectTimeoutMs });
    const end = (reason?: string) => {
      socket.destroy();
      done({ connected: reason === undefined, ms: Date.now() - start, ...(reason ? { reason } : {}) });
    };
    socket.once('connect', () => end());
    socket.once('timeout', () => end(`no answer within ${connectTimeoutMs / 1000} s`));
    socket.once('error', (err: NodeJS.ErrnoException) => end(`the connection failed (${err.code ?? err.message})`));
  });
}

export function settingsRoutes(deps: SettingsRouteDeps): AnyRoute[] {
  const { settings } = deps;
  return [
    defineRoute({
      method: 'GET', path: '/settings', scopes: ['settings:read'], response: SettingsView,
      summary: 'The settings admins change at run time: values (secrets only as set or unset), where each comes from, and those waiting for a restart',
      handler: async () => viewOf(settings),
    }),
    defineRoute({
      method: 'PATCH', path: '/settings', scopes: ['settings:write'], revision: 'required', activity: false, errors: [409, 422],
      summary: 'Change settings by dotted path (null: back to the config file\'s value), all or none; applied at once on every instance',
      description: 'A path the config file or the environment sets is refused (409, naming its source). Each change is in the activity log with the paths changed, never values.',
      body: Type.Record(Type.String({ pattern: '^[A-Za-z0-9_.-]+$', maxLength: 200 }), Type.Unknown(), { description: '{ "<dotted path>": value }', maxProperties: 100 }),
      response: SettingsView,
      handler: async ({ body, revision, principal }) => {
        const { revision: _given, ...changes } = body as Record<string, unknown>;
        const paths = Object.keys(changes);
        try {
          const { revision: after } = await settings.write(changes, revision!, principal.actor);
          await deps.activity.record({ actor: principal.actor, action: 'kernel.settings.write', resource: 'settings', result: 'ok', detail: { paths, revision: after } });
        } catch (err) {
          const status = err instanceof Problem ? err.status : 500;
          await deps.activity.record({ actor: principal.actor, action: 'kernel.settings.write', resource: 'settings', result: status === 409 || status === 412 ? 'refused' : 'failed', detail: { paths, status } });
          throw err;
        }
        return viewOf(settings);
      },
    }),
    defineRoute({
      method: 'POST', path: '/settings/outbound/test', scopes: ['settings:read'], activity: false, response: TestResult,
      summary: 'Test a connection: is host:port allowed by the outbound policy (the current one, or allow/allowHostnames as given), and does a TCP connection open within 3 s',
      body: TestBody,
      handler: async ({ body }) => {
        let policy: OutboundApi = deps.outbound;
        if (body.allow !== undefined || body.allowHostnames !== undefined) {
          try {
            policy = createOutbound({ allow: body.allow ?? settings.get('outbound.allow') as string[], allowHostnames: body.allowHostnames ?? settings.get('outbound.allowHostnames') as boolean | string[] }, deps.resolveName);
          } catch (err) {
            return { host: body.host, port: body.port, allowed: false, connected: false, reason: (err as Error).message.replace(/^config: /, '') };
          }
        }
        let address: string;
        try {
          [{ address }] = await policy.resolve(body.host);
        } catch (err) {
          const refused = err instanceof OutboundRefused;
          return { host: body.host, port: body.port, allowed: !refused, connected: false, reason: (err as Error).message };
        }
        return { host: body.host, port: body.port, allowed: true, address, ...await tryConnect(address, body.port) };
      },
    }),
  ];
}
