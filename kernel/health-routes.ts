// The endpoints beside /api for load balancers and Prometheus: /healthz (alive), /readyz (database and start done; the engine and edge as details) and /metrics.
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { Db, HealthCheck } from '../sdk/index.ts';
import { defineRoute, problem, streamReply, type AnyRoute } from '../sdk/index.ts';
import type { Metrics } from './services/metrics.ts';

export interface HealthDeps {
  db: Db;
  metrics: Metrics;
  /** true once the boot is done: migrations applied, plugins started */
  started(): boolean;
  /** what plugins report beside (the engine, the edge): shown, never a reason to be unready */
  details: readonly { name: string; check: HealthCheck }[];
  /** how long the database may take to answer before it counts as unready */
  timeoutMs?: number;
}

const Part = Type.Object({ ok: Type.Boolean(), state: Type.String(), detail: Type.Optional(Type.String()) });
const Ready = Type.Object({
  ready: Type.Boolean(),
  parts: Type.Record(Type.String(), Part, { description: 'database and start gate readiness; the others are details' }),
});

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([promise, new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(timer));
}

export function healthRoutes(deps: HealthDeps): AnyRoute[] {
  const timeoutMs = deps.timeoutMs ?? 2000;
  return [
    defineRoute({
      method: 'GET', path: '/healthz', public: true, activity: false, summary: 'The process is alive (no check of what it depends on): for a load balancer or a supervisor',
      response: Type.Object({ ok: Type.Literal(true) }),
      handler: async () => ({ ok: true as const }),
    }),
    defineRoute({
      method: 'GET', path: '/readyz', public: true, optionalScopes: ['metrics:read'], activity: false, errors: [503],
      summary: 'Ready to serve: 200 when the database answers and the start is done; else 503, a problem whose parts name what is not. The engine and the edge are details',
      description: 'Without a token each part says only ok and state; a token with metrics:read also gets each part\'s detail (the engine\'s version and '
        + 'address, why the database or the edge is down). The status is the same for both.',
      response: Ready,
      handler: async ({ principal }) => {
        const detailed = principal.can('metrics:read');
        const parts: Record<string, { ok: boolean; state: string; detail?: string }> = {};
        const [database, details] = await Promise.all([
          within(deps.db.query('SELECT 1'), timeoutMs, 'the database').then(() => ({ ok: true, state: 'up' }), (err: Error) => ({ ok: false, state: 'down', detail: err.message })),
          Promise.all(deps.details.map(async ({ name, check }) => [name, await within(check(), timeoutMs, name).catch((err: Error) => ({ ok: false, state: 'unknown', detail: err.message }))] as const)),
        ]);
        parts.database = database;
        parts.start = deps.started() ? { ok: true, state: 'done' } : { ok: false, state: 'starting' };
        for (const [name, part] of details) parts[name] = part;
        // what the engine runs and where, or why the database is away, is for who monitors the service, not for anyone
        if (!detailed) for (const [name, { ok, state }] of Object.entries(parts)) parts[name] = { ok, state };
        if (database.ok && parts.start.ok) return { ready: true, parts };
        const waiting = ['database', 'start'].filter((p) => !parts[p].ok);
        throw problem(503, `not ready: ${waiting.map((p) => `${p} ${parts[p].state}${parts[p].detail ? ` (${parts[p].detail})` : ''}`).join(', ')}`, {
          code: 'not-ready', title: 'Not ready', headers: { 'Retry-After': '2' }, extra: { ready: false, parts },
        });
      },
    }),
    defineRoute({
      method: 'GET', path: '/metrics', scopes: ['metrics:read'], activity: false,
      summary: 'Prometheus metrics in the text exposition format: requests, jobs, queue depth, containers, alerts, edge, database pool, process',
      response: Type.String({ description: 'Prometheus text format 0.0.4' }), mediaType: 'text/plain',
      handler: async () => {
        const { text, contentType } = await deps.metrics.render();
        return streamReply(Readable.from([text]), contentType, { 'Cache-Control': 'no-store' });
      },
    }),
  ];
}
