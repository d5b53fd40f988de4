// The site endpoints of /api/v1 (definition, content, versions, drafts, restore, files, check, webhook) and the check webhook under /api.
import { createReadStream } from 'node:fs';
import { ActorSchema, defineRoute, JobSchema, keyedLock, Nullable, problem, reply, streamReply, Type, type AnyRoute, type ContextWith } from '../../sdk/index.ts';
import type { GitApi } from '../git/index.ts';
import type { Files, Manifest } from './files.ts';
import { checkKind, sitePath, type Sites } from './sites.ts';
import { siteTag } from './site-context.ts';
import type { SiteStore } from './store.ts';
import { resourceOf, syncType, type SyncJob } from './sync.ts';

const types: Record<string, string> = {
  html: 'text/html; charset=utf-8', htm: 'text/html; charset=utf-8', css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8', mjs: 'text/javascript; charset=utf-8',
  json: 'application/json', map: 'application/json', txt: 'text/plain; charset=utf-8', md: 'text/markdown; charset=utf-8', xml: 'application/xml', csv: 'text/csv; charset=utf-8',
  svg: 'image/svg+xml', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif', ico: 'image/x-icon',
  woff: 'font/woff', woff2: 'font/woff2', ttf: 'font/ttf', otf: 'font/otf', pdf: 'application/pdf', wasm: 'application/wasm', webmanifest: 'application/manifest+json',
  mp4: 'video/mp4', webm: 'video/webm', mp3: 'audio/mpeg', zip: 'application/zip',
};
export const contentTypeOf = (path: string) => types[/\.([A-Za-z0-9]+)$/.exec(path)?.[1].toLowerCase() ?? ''] ?? 'application/octet-stream';

export const SiteName = Type.String({ pattern: '^[a-z0-9](?:[a-z0-9-]{0,54}[a-z0-9])?$', description: 'lowercase letters, digits and hyphens (it becomes a hostname label of the preview host)' });
const Params = Type.Object({ name: SiteName });
/** If-Match (an ETag as GET answered it) or If-None-Match: * ('absent'); undefined: the write is unconditional */
const expectedOf = (headers: Record<string, string | string[] | undefined>): string | undefined => {
  const ifMatch = headers['if-match'];
  if (typeof ifMatch === 'string') return ifMatch.trim();
  return headers['if-none-match'] === '*' ? 'absent' : undefined;
};

const FileItem = Type.Object({ path: Type.String(), size: Type.Integer(), sha256: Type.String(), contentType: Type.String() });
const LastDeploy = Nullable(Type.Object({ at: Type.String(), version: Type.Integer(), commit: Nullable(Type.String()) }));
const Build = Type.Object({
  image: Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9][A-Za-z0-9._/:@-]*$', description: 'the image the build runs in' }),
  command: Type.Array(Type.String({ maxLength: 4096 }), { minItems: 1, maxItems: 64, description: 'the command and its arguments (no shell unless the command names one inside the image)' }),
  output: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'the folder the build leaves the site in, relative to the source folder (default: the source folder itself)' })),
}, { additionalProperties: false });
const SiteView = Type.Object({
  name: Type.String(), hostnames: Type.Array(Type.String()),
  source: Nullable(Type.Object({ url: Type.String(), branch: Type.String(), path: Type.String(), build: Nullable(Build), credentials: Nullable(Type.Object({ kind: Type.String() })) })),
  version: Type.Integer({ description: 'the published version, 0 before the first publish' }),
  lastDeploy: LastDeploy, lastError: Nullable(Type.String()), syncedCommit: Nullable(Type.String()),
  draft: Nullable(Type.Object({ files: Type.Integer(), changedAt: Type.String(), basedOn: Type.Integer(), previewUrl: Nullable(Type.String()) })),
  previewUrl: Nullable(Type.String({ description: 'the draft preview (HTTP basic auth: user "preview", the preview token as password); null without a previewDomain' })),
  webhook: Type.Object({ enabled: Type.Boolean() }),
  createdAt: Type.String(), updatedAt: Type.String(),
});
const Published = Type.Object({ version: Type.Integer(), fileCount: Type.Integer(), bytes: Type.Integer() });
const DraftView = Type.Object({ files: Type.Integer(), changedAt: Type.String(), basedOn: Type.Integer(), previewUrl: Nullable(Type.String()) });
const JobAnswer = Type.Object({ id: Type.String(), jobId: Type.String(), status: Type.String(), attached: Type.Boolean() }, { additionalProperties: true });

const fileList = (m: Manifest, after: string | undefined, limit: number) => {
  const paths = Object.keys(m).sort().filter((p) => after === undefined || p > after);
  const page = paths.slice(0, limit);
  return { items: page.map((path) => ({ path, size: m[path].size, sha256: m[path].sha256, contentType: contentTypeOf(path) })), next: paths.length > limit ? page.at(-1) : undefined };
};

/** what the route groups of a site work with */
export interface SiteRouteDeps { ctx: ContextWith<'actionTokens'>; sites: Sites; store: SiteStore; files: Files; sync: SyncJob; git: GitApi }

/** the files of the published version (none before the first publish) */
async function publishedManifest({ sites, store }: SiteRouteDeps, name: string): Promise<Manifest> {
  const row = await sites.rowOf(name);
  return row.version ? (await store.manifest(name, row.version)) ?? {} : {};
}
/** the files of the draft; without a draft, those of the published version */
const draftManifest = async (d: SiteRouteDeps, name: string) => (await d.store.draft(name))?.manifest ?? publishedManifest(d, name);
const jobAnswer = <J extends { id: string }>(job: J & { attached?: boolean }) => ({ ...job, jobId: job.id, attached: job.attached ?? false });

/** the site endpoints of /api/v1, in their groups */
export function siteRoutes(d: SiteRouteDeps): AnyRoute[] {
  return [...siteDefinitionRoutes(d), ...siteContentRoutes(d), ...siteDraftRoutes(d), ...siteCheckRoutes(d)];
}

/** the site itself: list, read, create or replace, remove */
function siteDefinitionRoutes(d: SiteRouteDeps): AnyRoute[] {
  const { sites, sync, git } = d;
  return [
    defineRoute({
      method: 'GET', path: '/sites', scopes: ['sites:read'], page: true, response: SiteView,
      summary: 'List sites with their published version, last deploy, last error and draft',
      handler: async ({ page }) => sites.listViews(page.cursor, page.limit),
    }),
    defineRoute({
      method: 'GET', path: '/sites/:name', scopes: ['sites:read'], params: Params, response: SiteView, errors: [404],
      summary: 'One site (its ETag names its last change: send it as If-Match with PUT or DELETE)',
      handler: async ({ params }) => { const view = await sites.viewOf(params.name); return reply(200, view, { ETag: siteTag(view.updatedAt) }); },
    }),
    defineRoute({
      method: 'PUT', path: '/sites/:name', scopes: ['sites:write'], params: Params, errors: [409, 412, 422], successes: [201],
      summary: 'Create or replace a site: its hostnames and either a git source (optionally built in a container) or none (upload-only)',
      description: 'A hostname another site or stack holds (a stack holds the hostnames its saved compose file names, running or not) answers 409, naming the owner '
        + 'when the caller may see it. Creating answers 201 with `previewToken`, the password of the draft '
        + 'preview (user "preview"), shown this once; POST /sites/{name}/draft/token makes a new one. A site with a source is synced right away (jobId). '
        + 'Optional `If-Match` (the ETag of GET /sites/{name}) or `If-None-Match: *` (create only): a site changed since (or one that exists) answers 412.',
      body: Type.Object({
        hostnames: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: 100 }),
        source: Type.Optional(Nullable(Type.Object({
          url: Type.String({ minLength: 1, maxLength: 2048 }),
          branch: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'default main' })),
          path: Type.Optional(Type.String({ maxLength: 1024, description: 'the folder of the repository that is the site (default: its root)' })),
          credentials: Type.Optional(git.credentialsSchema),
          build: Type.Optional(Build),
        }, { additionalProperties: false }))),
      }, { additionalProperties: false }),
      response: Type.Intersect([SiteView, Type.Object({ previewToken: Type.Optional(Type.String()), jobId: Type.Optional(Type.String()) })]),
      activity: 'site.write', resource: 'site:{name}',
      handler: async ({ params, body, principal, headers }) => {
        const { created, previewToken } = await sites.put(params.name, body, principal, expectedOf(headers));
        const job = body.source && (created || principal.can('sites:publish')) ? await sync.start(params.name, principal.actor) : null;
        const answer = { ...(await sites.viewOf(params.name)), ...(previewToken ? { previewToken } : {}), ...(job ? { jobId: job.id } : {}) };
        return created ? reply(201, answer) : answer;
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/sites/:name', scopes: ['sites:write'], params: Params, errors: [404, 412],
      summary: 'Remove a site: its routes, versions, draft and files (optional If-Match: its ETag as read, else 412)',
      response: Type.Object({ removed: Type.String() }),
      activity: 'site.delete', resource: 'site:{name}',
      handler: async ({ params, headers }) => { await sites.remove(params.name, expectedOf(headers)); return { removed: params.name }; },
    }),
  ] as AnyRoute[];
}

/** the published content: upload, versions, restore, its files */
function siteContentRoutes(d: SiteRouteDeps): AnyRoute[] {
  const { sites, store, files } = d;
  return [
    defineRoute({
      method: 'PUT', path: '/sites/:name/content', scopes: ['sites:publish'], params: Params, upload: true, errors: [404, 413, 415, 422],
      summary: 'Upload the site as a tar, tar.gz or zip archive: published at once as a new version (?draft=1: it becomes the draft)',
      description: 'The archive is unpacked as it streams into a folder of its own, every entry checked as it comes and all of them before any link '
        + 'is made: entries leading out of the tree (.., absolute paths, links pointing out), devices, too many entries, more bytes unpacked than '
        + 'the limit (counted as they are decompressed), more than the time budget, or data after the archive\'s end refuse the whole archive '
        + 'and nothing changes. Exempt from the rate limit.',
      query: Type.Object({
        draft: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('true'), Type.Literal('0'), Type.Literal('false')])),
        strip: Type.Optional(Type.Integer({ minimum: 0, maximum: 8, default: 0, description: 'leading folders to remove from every entry' })),
      }),
      response: Type.Union([Published, Type.Object({ draft: DraftView })]),
      activity: 'site.content.upload', resource: 'site:{name}',
      handler: async ({ params, query, rawBody, principal }) => {
        if (!rawBody?.length) throw problem(400, 'the body must be the archive (tar, tar.gz or zip)');
        return sites.upload(params.name, rawBody, { strip: query.strip ?? 0, draft: query.draft === '1' || query.draft === 'true', actor: principal.actor });
      },
    }),
    defineRoute({
      method: 'GET', path: '/sites/:name/versions', scopes: ['sites:read'], params: Params, page: true, errors: [404],
      summary: 'The kept versions, newest first: number, when, by whom, from what (commit, upload, draft, restore), file count and bytes',
      response: Type.Object({
        number: Type.Integer(), at: Type.String(), by: Type.String(), actor: ActorSchema,
        from: Type.String(), commit: Nullable(Type.String()), restoredFrom: Nullable(Type.Integer()), fileCount: Type.Integer(), bytes: Type.Integer(), published: Type.Boolean(),
      }),
      handler: async ({ params, page }) => {
        const row = await sites.rowOf(params.name);
        const all = await store.versions(params.name);
        const from = all.filter((v) => page.cursor === undefined || v.number < Number(page.cursor));
        const items = from.slice(0, page.limit).map((v) => ({
          number: v.number, at: v.at, by: v.actor.name ?? v.actor.kind, actor: { ...v.actor }, from: v.origin, commit: v.commit, restoredFrom: v.restoredFrom,
          fileCount: v.fileCount, bytes: v.bytes, published: v.number === row.version,
        }));
        return { items, next: from.length > page.limit ? String(items.at(-1)!.number) : undefined };
      },
    }),
    defineRoute({
      method: 'POST', path: '/sites/:name/restore', scopes: ['sites:publish'], params: Params, errors: [404],
      summary: 'Publish an earlier version again, as a new version number',
      body: Type.Object({ version: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
      response: Published,
      activity: 'site.restore', resource: 'site:{name}',
      handler: async ({ params, body, principal }) => sites.restore(params.name, body.version, principal.actor),
    }),
    defineRoute({
      method: 'GET', path: '/sites/:name/files', scopes: ['sites:read'], params: Params, page: true, errors: [404], response: FileItem,
      summary: 'The files of the published version: path, size, sha256, content type',
      handler: async ({ params, page }) => fileList(await publishedManifest(d, params.name), page.cursor, page.limit),
    }),
    defineRoute({
      method: 'GET', path: '/sites/:name/file', scopes: ['sites:read'], params: Params, errors: [404],
      // the file's own content type (text/html, image/png, …): any media type, raw bytes
      response: Type.String({ format: 'binary', description: 'the bytes of the file' }), mediaType: '*/*',
      summary: 'The bytes of one file of the published version (?draft=1: of the draft, which without a draft is the published version), with its content type',
      query: Type.Object({
        path: Type.String({ minLength: 1, maxLength: 1024 }),
        draft: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('true'), Type.Literal('0'), Type.Literal('false')])),
      }),
      handler: async ({ params, query }) => {
        const path = sitePath(query.path);
        if (!path) throw problem(400, 'path is relative, without .., control characters or backslashes', { errors: [{ path: '/query/path', message: 'not a file path' }] });
        const ofDraft = query.draft === '1' || query.draft === 'true';
        const entry = (ofDraft ? await draftManifest(d, params.name) : await publishedManifest(d, params.name))[path];
        if (!entry) throw problem(404, `the ${ofDraft ? 'draft' : 'published version'} of site "${params.name}" has no file ${path}`, { code: 'no-such-file' });
        return streamReply(createReadStream(files.objectPath(entry.sha256)), contentTypeOf(path), { 'Content-Length': String(entry.size), ETag: `"${entry.sha256}"` });
      },
    }),
  ] as AnyRoute[];
}

/** the draft: its files, written and published or discarded, and its preview token */
function siteDraftRoutes(d: SiteRouteDeps): AnyRoute[] {
  const { sites } = d;
  return [
    defineRoute({
      method: 'GET', path: '/sites/:name/draft/files', scopes: ['sites:read'], params: Params, page: true, errors: [404], response: FileItem,
      summary: 'The files of the draft (without a draft: those of the published version, which a first write starts from)',
      handler: async ({ params, page }) => fileList(await draftManifest(d, params.name), page.cursor, page.limit),
    }),
    defineRoute({
      method: 'PUT', path: '/sites/:name/draft/files', scopes: ['sites:write'], params: Params, errors: [404, 412, 422],
      summary: 'Write and delete files of the draft (a first write starts it as a copy of the published version); nothing is served until it is published',
      description: 'With `base`, the write goes through only if each named file still holds what the writer read (its sha256, or null for a file that '
        + 'did not exist); otherwise 412 (code draft-changed) with `changed` [{ path, sha256 }] and nothing is written: an editor\'s guard against a '
        + 'concurrent write.',
      body: Type.Object({
        files: Type.Optional(Type.Record(Type.String({ maxLength: 1024 }), Type.Object({
          content: Type.String({ maxLength: 64 * 1024 * 1024 }),
          encoding: Type.Optional(Type.Union([Type.Literal('utf8'), Type.Literal('base64')])),
        }, { additionalProperties: false }))),
        delete: Type.Optional(Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 10_000, description: 'files (or folders) to remove' })),
        base: Type.Optional(Type.Record(Type.String({ maxLength: 1024 }), Nullable(Type.String({ pattern: '^[0-9a-f]{64}$' })), {
          description: 'what the writer read: path → sha256 (null: absent); a file that differs now answers 412',
        })),
      }, { additionalProperties: false }),
      response: DraftView,
      activity: 'site.draft.write', resource: 'site:{name}',
      handler: async ({ params, body }) => sites.writeDraftFiles(params.name, body),
    }),
    defineRoute({
      method: 'POST', path: '/sites/:name/draft/publish', scopes: ['sites:publish'], params: Params, errors: [404, 409], response: Published,
      summary: 'Publish the draft as a new version (the draft is then gone)',
      activity: 'site.draft.publish', resource: 'site:{name}',
      handler: async ({ params, principal }) => sites.publishDraft(params.name, principal.actor),
    }),
    defineRoute({
      method: 'DELETE', path: '/sites/:name/draft', scopes: ['sites:write'], params: Params, errors: [404],
      summary: 'Discard the draft', response: Type.Object({ name: Type.String(), draft: Type.Null() }),
      activity: 'site.draft.discard', resource: 'site:{name}',
      handler: async ({ params }) => { await sites.discardDraft(params.name); return { name: params.name, draft: null }; },
    }),
    defineRoute({
      method: 'POST', path: '/sites/:name/draft/token', scopes: ['sites:write'], params: Params, errors: [404],
      summary: 'A new preview token (the password of user "preview" on the preview host), shown this once; the previous one stops working',
      response: Type.Object({ previewToken: Type.String(), previewUrl: Nullable(Type.String()), username: Type.String() }),
      activity: 'site.preview.rotate', resource: 'site:{name}',
      handler: async ({ params }) => ({ previewToken: await sites.rotatePreviewToken(params.name), previewUrl: sites.previewUrl(params.name), username: 'preview' }),
    }),
  ] as AnyRoute[];
}

/** checking the source: now, and the check webhook's token */
function siteCheckRoutes(d: SiteRouteDeps): AnyRoute[] {
  const { ctx, sites, sync } = d;
  return [
    defineRoute({
      method: 'POST', path: '/sites/:name/check', scopes: ['sites:publish'], params: Params, status: 202, errors: [404, 409], response: JobAnswer,
      summary: 'Fetch the source now: a new commit is synced (and built) and published as a new version; 202 with the sync job (a queued one is reused)',
      activity: 'site.check', resource: 'site:{name}',
      handler: async ({ params, principal }) => {
        const row = await sites.rowOf(params.name);
        if (!row.source) throw problem(409, `site "${params.name}" is upload-only: it has no source to check`, { code: 'no-source' });
        const job = await sync.start(params.name, principal.actor);
        return reply(202, jobAnswer(job), { Location: `/api/v1/jobs/${job.id}` });
      },
    }),
    defineRoute({
      method: 'POST', path: '/sites/:name/webhooks/check', scopes: ['sites:write'], params: Params, errors: [404],
      summary: 'Enable or rotate the check webhook: the token is shown this once; the previous one stops working at once',
      response: Type.Object({ token: Type.String(), url: Type.String(), statusUrl: Type.String() }),
      activity: 'site.webhook.check.rotate', resource: 'site:{name}',
      handler: async ({ params, baseUrl }) => {
        await sites.rowOf(params.name);
        const token = await ctx.actionTokens.issue(checkKind, params.name);
        return { token, url: `${baseUrl}/api/sites/${params.name}/check`, statusUrl: `${baseUrl}/api/sites/${params.name}/status` };
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/sites/:name/webhooks/check', scopes: ['sites:write'], params: Params, errors: [404],
      summary: 'Disable the check webhook', response: Type.Object({ name: Type.String(), enabled: Type.Boolean() }),
      activity: 'site.webhook.check.disable', resource: 'site:{name}',
      handler: async ({ params }) => {
        await sites.rowOf(params.name);
        await ctx.actionTokens.revoke(checkKind, params.name);
        return { name: params.name, enabled: false };
      },
    }),
  ] as AnyRoute[];
}

export function checkWebhook({ ctx, sites, sync, windowSeconds }: { ctx: ContextWith<'actionTokens'>; sites: Sites; sync: SyncJob; windowSeconds: number }): AnyRoute[] {
  // one call at a time per site in this process, so "attach, else take the window" is decided in order
  const serialized = keyedLock();
  const token = { kind: checkKind, param: 'name' };
  return [
    defineRoute({
      method: 'POST', path: '/sites/:name/check', actionToken: token, status: 202, errors: [409, 429], response: JobAnswer,
      summary: 'Start a sync of the site with its check webhook token (202 with the job)',
      description: `A call while a sync of the site is queued attaches to it. Otherwise one check is accepted per ${windowSeconds} s (429 with Retry-After).`,
      params: Params, activity: 'site.check', resource: 'site:{name}',
      handler: async ({ params, principal }) => {
        const name = params.name;
        const row = await sites.rowOf(name);
        if (!row.source) throw problem(409, `site "${name}" is upload-only: it has no source to check`, { code: 'no-source' });
        const job = await serialized(name, async () => {
          const queued = (await ctx.jobs.open(resourceOf(name))).find((j) => j.type === syncType && j.status === 'queued');
          if (queued) return { ...queued, attached: true };
          const taken = await ctx.actionTokens.take(checkKind, name, windowSeconds);
          if (!taken.ok) throw problem(429, `one check per ${windowSeconds} s is accepted through this webhook; retry after ${taken.retryAfter} s`, { headers: { 'Retry-After': String(taken.retryAfter) } });
          return sync.start(name, principal.actor);
        });
        return reply(202, { ...job, jobId: job.id, attached: job.attached }, { Location: `/api/sites/${name}/jobs/${job.id}` });
      },
    }),
    defineRoute({
      method: 'GET', path: '/sites/:name/jobs/:id', actionToken: token, errors: [404], activity: false,
      summary: 'Follow a sync of this site with its check webhook token (where the check\'s Location points)',
      params: Type.Object({ name: SiteName, id: Type.String({ format: 'uuid' }) }), response: JobSchema,
      handler: async ({ params }) => {
        const job = await ctx.jobs.get(params.id);
        // the token checks, so it follows this site's syncs: nothing else
        if (!job || job.resource !== resourceOf(params.name) || job.type !== syncType) throw problem(404, `site ${params.name} has no sync job ${params.id}`);
        return job;
      },
    }),
    defineRoute({
      method: 'GET', path: '/sites/:name/status', actionToken: token, params: Params, errors: [404],
      summary: 'The last sync of the site with its check webhook token: lastDeploy ({ at, version, commit } or null) and lastError',
      response: Type.Object({ name: Type.String(), version: Type.Integer(), lastDeploy: LastDeploy, lastError: Nullable(Type.String()) }),
      activity: false,
      handler: async ({ params }) => {
        const row = await sites.rowOf(params.name);
        return { name: row.name, version: row.version, lastDeploy: row.lastDeploy, lastError: row.lastError };
      },
    }),
  ] as AnyRoute[];
}
