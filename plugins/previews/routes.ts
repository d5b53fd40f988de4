// The preview endpoints of /api/v1: a stack's preview settings and list, create/update and remove a preview, the preview token.
import { defineRoute, JobAcceptedSchema, Nullable, problem, reply, Type, type AnyRoute, type Job, type ContextWith, type Principal } from '../../sdk/index.ts';
import type { EdgeApi } from '../edge/api.ts';
import type { StacksApi } from '../stacks/api.ts';
import { tokenKind, type Previews } from './core.ts';
import { templateProblem } from './hostnames.ts';
import type { PreviewRow, PreviewStore, Settings } from './store.ts';

export const PreviewKey = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,31}$', description: 'lowercase letters, digits and -, at most 32 (pull requests make pr-<number>)' });
const Variables = Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' }), Type.String({ maxLength: 65536 }), { maxProperties: 500 });
export const PreviewBody = Type.Object({
  ref: Type.Optional(Type.String({ pattern: '^(?!.*(\\.\\.|//|@\\{|\\.lock$|/$))[A-Za-z0-9][A-Za-z0-9._/-]{0,254}$', description: 'a branch (feature/x) or a full ref (refs/pull/7/head); default the stack\'s branch' })),
  commit: Type.Optional(Type.String({ pattern: '^[0-9a-f]{40}([0-9a-f]{24})?$', description: 'the full commit id to deploy (default: the ref\'s head)' })),
  variables: Type.Optional(Variables),
}, { additionalProperties: false });
const SettingsBody = Type.Object({
  enabled: Type.Boolean(),
  hostname: Type.Optional(Nullable(Type.String({ maxLength: 253, description: 'a template with {key}, {stack} and {service}, e.g. {key}.{stack}.preview.example.com' }))),
  maxActive: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 5 })),
  idleDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 7, description: 'a preview not created or updated for this long is removed' })),
  fromForks: Type.Optional(Type.Boolean({ default: false, description: 'pull requests from forks make previews too' })),
  variables: Type.Optional(Variables),
}, { additionalProperties: false });
const PreviewView = Type.Object({
  key: Type.String(), pullRequest: Nullable(Type.Integer()), ref: Nullable(Type.String()), commit: Nullable(Type.String({ description: 'the commit asked for (null: the ref\'s head)' })),
  deployedCommit: Nullable(Type.String()), urls: Type.Array(Type.String()),
  status: Type.String({ description: 'queued, deploying, running, failed or removing' }),
  createdAt: Type.String(), updatedAt: Type.String({ description: 'the last create or update asked for' }), deployedAt: Nullable(Type.String()),
  lastJob: Nullable(Type.Object({ id: Type.String(), type: Type.String(), status: Type.String(), error: Nullable(Type.String()) })),
});
const SettingsView = Type.Object({
  stack: Type.String(), enabled: Type.Boolean(), hostname: Nullable(Type.String()), maxActive: Type.Integer(), idleDays: Type.Integer(), fromForks: Type.Boolean(),
  variables: Type.Record(Type.String(), Type.String(), { description: 'values shown to callers who may change the stack' }),
  token: Type.Object({ enabled: Type.Boolean() }),
  previews: Type.Array(PreviewView),
});
const Params = (name: StacksApi['nameSchema']) => Type.Object({ name });

/** the preview as answers show it */
export function previewView(row: PreviewRow, jobs: ReadonlyMap<string, Job>) {
  const job = row.lastJob ? jobs.get(row.lastJob) : undefined;
  return {
    key: row.key, pullRequest: row.pullRequest, ref: row.ref, commit: row.commit, deployedCommit: row.deployedCommit,
    urls: row.hostnames.map((h) => `http://${h}`), status: row.status, createdAt: row.createdAt, updatedAt: row.updatedAt, deployedAt: row.deployedAt,
    lastJob: job ? { id: job.id, type: job.type, status: job.status, error: job.error } : null,
  };
}

/** the ref as git names it: a bare branch name is a branch */
export const fullRef = (ref: string | undefined) => (ref === undefined ? null : ref.startsWith('refs/') ? ref : `refs/heads/${ref}`);

export function previewRoutes({ ctx, previews, store, stacks, edge }: { ctx: ContextWith<'actionTokens'>; previews: Previews; store: PreviewStore; stacks: StacksApi; edge: EdgeApi }): AnyRoute[] {
  const NameParams = Params(stacks.nameSchema);
  const KeyParams = Type.Object({ name: stacks.nameSchema, key: PreviewKey });
  const mayWrite = (name: string, principal: Principal) => principal.can('stacks:write') && stacks.access(name, principal, 'write').then(() => true, () => false);

  async function view(name: string, principal: Principal) {
    const [settings, rows, tokens, writer] = await Promise.all([store.settings(name), store.list(name), ctx.actionTokens.enabled(tokenKind, [name]), mayWrite(name, principal)]);
    const jobs = await ctx.jobs.getMany(rows.flatMap((r) => (r.lastJob ? [r.lastJob] : [])), { output: false });
    const variables = Object.fromEntries(Object.entries(settings.variables).map(([k, v]) => [k, writer ? v : '********']));
    return { stack: name, ...settings, variables, token: { enabled: tokens.has(name) }, previews: rows.map((r) => previewView(r, jobs)) };
  }

  return [
    defineRoute({
      method: 'GET', path: '/stacks/:name/previews', scopes: ['stacks:read'], params: NameParams, response: SettingsView,
      summary: 'The stack\'s preview settings and its previews (key, pull request, ref, commit, URLs, status, times, last job)',
      handler: async ({ params, principal }) => {
        await stacks.access(params.name, principal, 'read');
        return view(params.name, principal);
      },
    }),
    defineRoute({
      method: 'PUT', path: '/stacks/:name/previews', scopes: ['stacks:write'], params: NameParams, body: SettingsBody, response: SettingsView, errors: [422],
      summary: 'Set the stack\'s preview settings: enabled, hostname template, maxActive, idleDays, fromForks, variables',
      description: 'Fields left out take their defaults (maxActive 5, idleDays 7, fromForks false, no hostname, no variables). The variables override the stack\'s in previews only.',
      activity: 'stack.previews.settings', resource: 'stack:{name}',
      handler: async ({ params, body, principal }) => {
        await stacks.access(params.name, principal, 'write');
        const hostname = body.hostname ?? null;
        const wrong = hostname === null ? null : templateProblem(hostname, params.name, edge.normalizeHostname);
        if (wrong) throw problem(422, wrong, { code: 'preview-hostname', errors: [{ path: '/hostname', message: wrong }] });
        const settings: Settings = { enabled: body.enabled, hostname, maxActive: body.maxActive ?? 5, idleDays: body.idleDays ?? 7, fromForks: body.fromForks ?? false, variables: body.variables ?? {} };
        await store.putSettings(params.name, settings);
        return view(params.name, principal);
      },
    }),
    defineRoute({
      method: 'PUT', path: '/stacks/:name/previews/:key', scopes: ['stacks:deploy'], params: KeyParams, body: PreviewBody, status: 202, response: JobAcceptedSchema, errors: [409, 422],
      summary: 'Create or update a preview from a ref or commit of the stack\'s source, with variables of its own: 202 with its deploy job',
      description: '409 when previews are off for the stack, when it has maxActive previews already (an alert preview-limit is raised), or when a hostname the preview would get is held by another stack, site or preview (preview-hostname-taken).',
      activity: 'stack.preview.deploy', resource: 'stack:{name}',
      handler: async ({ params, body, principal }) => {
        await stacks.access(params.name, principal, 'deploy');
        const done = await previews.deploy(params.name, params.key, { ref: fullRef(body.ref), commit: body.commit ?? null, variables: body.variables }, principal.actor);
        if (done.outcome === 'limit') throw problem(409, done.reason, { code: 'preview-limit' });
        return { ...done.job, jobId: done.job.id };
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/stacks/:name/previews/:key', scopes: ['stacks:deploy'], params: KeyParams, status: 202, response: JobAcceptedSchema,
      summary: 'Remove a preview: its containers, networks, volumes and routes (202 with the job)',
      activity: 'stack.preview.remove', resource: 'stack:{name}',
      handler: async ({ params, principal }) => {
        await stacks.access(params.name, principal, 'deploy');
        const job = await previews.remove(params.name, params.key, principal.actor);
        if (!job) throw problem(404, `stack ${params.name} has no preview ${params.key}`);
        return { ...job, jobId: job.id };
      },
    }),
    defineRoute({
      method: 'POST', path: '/stacks/:name/webhooks/preview', scopes: ['stacks:write'], params: NameParams,
      summary: 'Enable or rotate the preview token: shown this once; it creates, updates and removes this stack\'s previews, nothing else',
      response: Type.Object({ token: Type.String(), url: Type.String({ description: 'PUT or DELETE it with the preview key in place of {key}' }) }),
      activity: 'stack.webhook.preview.rotate', resource: 'stack:{name}',
      handler: async ({ params, principal, baseUrl }) => {
        await stacks.access(params.name, principal, 'write');
        const token = await ctx.actionTokens.issue(tokenKind, params.name);
        return reply(200, { token, url: `${baseUrl}/api/stacks/${params.name}/previews/{key}` });
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/stacks/:name/webhooks/preview', scopes: ['stacks:write'], params: NameParams, summary: 'Disable the preview token',
      response: Type.Object({ name: Type.String(), enabled: Type.Boolean() }),
      activity: 'stack.webhook.preview.disable', resource: 'stack:{name}',
      handler: async ({ params, principal }) => {
        await stacks.access(params.name, principal, 'write');
        await ctx.actionTokens.revoke(tokenKind, params.name);
        return { name: params.name, enabled: false };
      },
    }),
  ] as AnyRoute[];
}
