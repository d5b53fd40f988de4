// The kernel's own endpoints: the OpenAPI document, /me, /overview (with the host's free memory and disk), /jobs (their output followed too) and /activity.
import { readFile, statfs } from 'node:fs/promises';
import { freemem, totalmem } from 'node:os';
import { Type, type Static } from '@sinclair/typebox';
import type { AttentionItem, Db, OverviewContributor, Principal } from '../sdk/index.ts';
import { Readable } from 'node:stream';
import { ActorSchema as Actor, defineRoute, pageOf, JobSchema, problem, reply, streamReply, type AnyRoute } from '../sdk/index.ts';
import { followOutput } from './jobs/follow.ts';
import type { JobRunner } from './jobs/runner.ts';
import type { Visibility } from './services/visibility.ts';

const ActivityEntrySchema = Type.Object({
  id: Type.Integer(), at: Type.String({ format: 'date-time' }), actor: Actor, action: Type.String(),
  resource: Type.Union([Type.String(), Type.Null()]), result: Type.String(), detail: Type.Unknown(),
});
const JobId = Type.Object({ id: Type.String({ format: 'uuid' }) });
/** the cursors of the kernel's lists: the sequence number of the last entry of the previous page */
const SeqCursor = Type.String({ pattern: '^[0-9]{1,15}$' });

function cursorOf(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  if (!/^[0-9]{1,15}$/.test(cursor)) throw problem(400, 'the cursor is not one this server gave out', { code: 'invalid-cursor' });
  return Number(cursor);
}

export interface CoreDeps {
  db: Db;
  jobs: JobRunner;
  visibility: Visibility;
  openapi(): unknown;
  contributors: readonly { owner: string; contributor: OverviewContributor }[];
  /** DATA_DIR: the overview tells the free space of its file system */
  dataDir: string;
}

const HostSchema = Type.Object({
  memory: Type.Object({ totalBytes: Type.Number(), freeBytes: Type.Number({ description: "what programs can still get (Linux's MemAvailable: free memory and the cache it can drop)" }) }),
  disk: Type.Union([Type.Object({ path: Type.String({ description: 'the folder measured: DATA_DIR' }), totalBytes: Type.Number(), freeBytes: Type.Number() }), Type.Null()], { description: 'the file system of DATA_DIR; null when it cannot be read' }),
}, { description: "the host's free memory and disk beside the counts" });

/** the memory programs can still get (MemAvailable where Linux tells it, else the free memory) and the free space of DATA_DIR's file system */
export async function hostResources(dataDir: string): Promise<Static<typeof HostSchema>> {
  const available = await readFile('/proc/meminfo', 'utf8').then((t) => /^MemAvailable:\s+(\d+) kB/m.exec(t)?.[1], () => undefined);
  const fs = await statfs(dataDir).catch(() => null);
  return {
    memory: { totalBytes: totalmem(), freeBytes: available ? Number(available) * 1024 : freemem() },
    disk: fs ? { path: dataDir, totalBytes: fs.blocks * fs.bsize, freeBytes: fs.bavail * fs.bsize } : null,
  };
}

export async function overviewFor(principal: Principal, contributors: CoreDeps['contributors'], visibility: Visibility) {
  const visible = contributors.filter(({ contributor }) => principal.can(contributor.scope));
  // a contributor's summary and attention are asked at once, so both may share one read in flight
  const parts = await Promise.all(visible.map(async ({ owner, contributor }) => {
    const [summary, attention] = await Promise.all([contributor.summary?.(principal), contributor.attention?.(principal)]);
    return { owner, summary: summary ?? null, attention: attention ?? [] };
  }));
  const rank = { critical: 0, warning: 1, info: 2 };
  const summary: Record<string, unknown> = {};
  const attention: (AttentionItem & { source: string })[] = [];
  for (const part of parts) {
    if (part.summary) summary[part.owner] = part.summary;
    attention.push(...part.attention.map((a) => ({ ...a, source: part.owner })));
  }
  // one rule for every plugin's items: what is about a resource hidden from the caller (a stack's access list) is left out
  const seen = await visibility.filter(principal, attention.map((a) => a.resource ?? null), 'read');
  const shown = attention.filter((a) => seen(a.resource ?? null));
  shown.sort((a, b) => rank[a.severity] - rank[b.severity]);
  return { summary, attention: shown };
}

export function coreRoutes(deps: CoreDeps): AnyRoute[] {
  const { db, jobs, visibility } = deps;
  /** the job, when the caller may see it (404 otherwise: a hidden stack's jobs do not exist for them) */
  const visibleJob = async (id: string, principal: Principal, need: 'read' | 'act' = 'read') => {
    const job = await jobs.get(id);
    if (!job || !(await visibility.filter(principal, [job.resource], 'read'))(job.resource)) throw problem(404, `no job ${id}`);
    if (need === 'act' && !(await visibility.filter(principal, [job.resource], 'act'))(job.resource)) throw problem(403, `your role on ${job.resource} does not allow acting on its jobs`);
    return job;
  };
  return [
    defineRoute({
      method: 'GET', path: '/openapi.json', public: true, summary: 'This API as an OpenAPI 3.1 document',
      response: Type.Object({ openapi: Type.String(), info: Type.Object({ title: Type.String(), version: Type.String() }), paths: Type.Record(Type.String(), Type.Unknown()) }),
      handler: async () => deps.openapi() as never,
    }),
    defineRoute({
      method: 'GET', path: '/me', authenticated: true, summary: 'Who the token belongs to, and its effective scopes',
      response: Type.Object({
        user: Type.Object({ name: Type.String(), role: Type.String() }),
        token: Type.Union([Type.Object({ id: Type.String(), name: Type.String(), expiresAt: Type.Union([Type.String(), Type.Null()]) }), Type.Null()]),
        session: Type.Optional(Type.Object({ expiresAt: Type.String() })),
        scopes: Type.Array(Type.String()),
        stacks: Type.Optional(Type.Array(Type.String(), { description: 'a token exchanged by CI federation: the only stacks it reaches' })),
      }),
      handler: async ({ principal }) => ({
        // a token exchanged by CI federation belongs to no user: its subject and the role it acts with
        user: principal.user ? { name: principal.user.name, role: principal.user.role } : { name: principal.actor.name ?? principal.actor.kind, role: principal.role ?? 'viewer' },
        token: principal.token ?? null,
        ...(principal.session ? { session: { expiresAt: principal.session.expiresAt } } : {}),
        scopes: [...principal.scopes],
        ...(principal.stacks ? { stacks: [...principal.stacks] } : {}),
      }),
    }),
    defineRoute({
      method: 'GET', path: '/overview', authenticated: true,
      summary: 'Summary counts and attention items, limited to what the token may see',
      response: Type.Object({
        summary: Type.Record(Type.String(), Type.Unknown()),
        attention: Type.Array(Type.Object({
          severity: Type.String(), kind: Type.String(), source: Type.String(), message: Type.String(),
          resource: Type.Optional(Type.String()), since: Type.Optional(Type.String()),
        })),
        host: HostSchema,
      }),
      handler: async ({ principal }) => {
        const [parts, host] = await Promise.all([overviewFor(principal, deps.contributors, visibility), hostResources(deps.dataDir)]);
        return { ...parts, host };
      },
    }),
    defineRoute({
      method: 'GET', path: '/jobs', scopes: ['jobs:read'], page: true, cursor: SeqCursor, summary: 'List jobs, newest first',
      query: Type.Object({
        status: Type.Optional(Type.Union(['queued', 'running', 'succeeded', 'failed', 'canceled'].map((s) => Type.Literal(s)))),
        type: Type.Optional(Type.String({ maxLength: 100 })),
        resource: Type.Optional(Type.String({ maxLength: 300 })),
        internal: Type.Optional(Type.Boolean({ description: "true: only the service's own background jobs (alert deliveries); false: all but those; absent: every job" })),
      }),
      response: JobSchema,
      handler: async ({ query, page, principal }) => {
        const { internal, ...filter } = query;
        const types = internal === undefined ? undefined : internal ? { only: jobs.internalTypes() } : { except: jobs.internalTypes() };
        const { shown, next } = pageOf(await jobs.list({ ...filter, types, before: cursorOf(page.cursor), limit: page.limit + 1 }), page.limit, (j) => j.seq);
        // hidden jobs are left out, so a page may hold fewer than limit; the cursor still moves past them
        const visible = await visibility.filter(principal, shown.map((j) => j.resource), 'read');
        return { items: shown.filter((j) => visible(j.resource)).map(({ seq: _, ...job }) => job), next };
      },
    }),
    defineRoute({
      method: 'GET', path: '/jobs/:id', scopes: ['jobs:read'], summary: 'One job with its status and output',
      params: JobId, response: JobSchema,
      handler: async ({ params, principal }) => visibleJob(params.id, principal),
    }),
    defineRoute({
      method: 'GET', path: '/jobs/:id/wait', scopes: ['jobs:read'],
      summary: 'Wait for a job: answers as soon as it is done, or after the timeout with done: false',
      description: 'timeout is in seconds (default 30); values above 120 are clamped to 120. Call again while done is false.',
      params: JobId,
      query: Type.Object({ timeout: Type.Optional(Type.Integer({ minimum: 0, default: 30, description: 'seconds, capped at 120' })) }),
      response: JobSchema,
      handler: async ({ params, query, signal, principal }) => {
        await visibleJob(params.id, principal);
        const seconds = Math.min(query.timeout ?? 30, 120);
        const job = await Promise.race([
          jobs.wait(params.id, seconds * 1000),
          new Promise<null>((resolve) => signal.addEventListener('abort', () => resolve(null), { once: true })),
        ]);
        return job ?? Promise.reject(problem(404, `no job ${params.id}`));
      },
    }),
    defineRoute({
      method: 'GET', path: '/jobs/:id/output', scopes: ['jobs:read'],
      summary: "A job's output as text, one line per entry, each prefixed with its UTC time; ?follow=1 streams it as it is written until the job ends",
      description: 'Without follow: the output so far. With follow=1 (or true): a chunked text/plain stream of the output so far, then each line as the job writes it, '
        + 'then a last line `-- job <status>[: <error>]`; the answer ends when the job does (e.g. `curl -N`). Lines are those of the job\'s `output` field (secrets redacted, the middle of a long output omitted).',
      params: JobId,
      query: Type.Object({ follow: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('true'), Type.Literal('0'), Type.Literal('false')])) }),
      response: Type.String({ description: 'lines of text: `<ISO time> <text>`' }), mediaType: 'text/plain',
      handler: async ({ params, query, principal }) => {
        const job = await visibleJob(params.id, principal);
        const follow = query.follow === '1' || query.follow === 'true';
        const headers = { 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' };
        return streamReply(follow ? followOutput(jobs, job.id) : Readable.from([job.output]), 'text/plain; charset=utf-8', headers);
      },
    }),
    defineRoute({
      method: 'POST', path: '/jobs/:id/cancel', scopes: ['jobs:cancel'],
      summary: 'Cancel a job: a queued job at once (200), a running one is asked to stop (202; 200 when it stopped before the answer)',
      params: JobId, response: JobSchema, status: 202, successes: [200], errors: [409],
      handler: async ({ params, principal }) => {
        await visibleJob(params.id, principal, 'act');
        const job = await jobs.cancel(params.id, principal.actor);
        if (!job) throw problem(404, `no job ${params.id}`);
        if (job.done && job.status !== 'canceled') throw problem(409, `job ${params.id} has already ${job.status}`, { extra: { jobId: job.id } });
        return reply(job.done ? 200 : 202, job);
      },
    }),
    defineRoute({
      method: 'GET', path: '/activity', scopes: ['activity:read'], page: true, cursor: SeqCursor, summary: 'The activity log, newest first',
      query: Type.Object({
        resource: Type.Optional(Type.String({ maxLength: 300 })),
        actor: Type.Optional(Type.Union(['user', 'webhook', 'github', 'system', 'federation'].map((s) => Type.Literal(s)))),
        action: Type.Optional(Type.String({ maxLength: 200, description: 'exact action, or a prefix ending in *' })),
      }),
      response: ActivityEntrySchema,
      handler: async ({ query, page, principal }) => {
        const action = query.action?.endsWith('*') ? { prefix: query.action.slice(0, -1) } : { exact: query.action };
        const { rows } = await db.query<Static<typeof ActivityEntrySchema>>(
          `SELECT id, at, actor, action, resource, result, detail FROM activity
            WHERE ($1::text IS NULL OR resource = $1) AND ($2::text IS NULL OR actor->>'kind' = $2)
              AND ($3::text IS NULL OR action = $3) AND ($4::text IS NULL OR starts_with(action, $4))
              AND ($5::bigint IS NULL OR id < $5)
            ORDER BY id DESC LIMIT $6`,
          [query.resource ?? null, query.actor ?? null, action.exact ?? null, action.prefix ?? null, cursorOf(page.cursor) ?? null, page.limit + 1]);
        const { shown, next } = pageOf(rows, page.limit, (a) => a.id);
        const visible = await visibility.filter(principal, shown.map((a) => a.resource), 'read');
        return { items: shown.filter((a) => visible(a.resource)), next };
      },
    }),
  ] as AnyRoute[];
}
