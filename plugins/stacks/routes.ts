// The stack endpoints of /api/v1: stacks, compose, variables, settings, deploy/stop/pull, revisions, access list, autoupdate, deploy webhook.
import { ActorSchema, defineRoute, pageOf, JobAcceptedSchema, Nullable, problem, reply, Type, type ContextWith, type RevisionMode, type RouteDef, type TSchema } from '../../sdk/index.ts';
import { AccessEntrySchema, AccessEntryViewSchema, assertAccess, canSee, mayWrite, type AccessEntry, type Need } from './access.ts';
import { contentOf, deployKind, type Core } from './core.ts';
import type { StackDetail, StackRow, StackStore, StackSummary } from './store.ts';
import type { Templates } from './templates.ts';
import { StackDetailSchema, stackView, StackViewSchema, visibleSettings, visibleVariables } from './view.ts';

export const StackName = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: 'lowercase letters, digits and - (not _, which separates a stack from the names of its volumes and networks)' });
const Params = Type.Object({ name: StackName });
const RevisionParams = Type.Object({ name: StackName, id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
const Revision = Type.Optional(Type.Integer({ minimum: 0, description: 'the revision this write is based on (or If-Match)' }));
const Message = Type.Optional(Type.String({ maxLength: 500, description: 'a note kept with the revision' }));
const VariableName = '^[A-Za-z_][A-Za-z0-9_]{0,127}$';
const Values = Type.Record(Type.String({ pattern: VariableName }), Type.String({ maxLength: 65536 }), { maxProperties: 500, additionalProperties: false });
// the compose loader's own content limit (composeLimits.maxLength): what it can load and judge in milliseconds
const Compose = Type.String({ maxLength: 256 * 1024 });
const Settings = Type.Record(Type.String(), Type.Unknown());
/** a yes/no query parameter as written in a URL: ?volumes=1 (or true; 0 or false, or absent, is no) */
export const Flag = (description: string) => Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('true'), Type.Literal('0'), Type.Literal('false')], { description }));
export const isOn = (flag: string | undefined): boolean => flag === '1' || flag === 'true';
const VolumeFates = Type.Object({
  kept: Type.Array(Type.String(), { description: 'named volumes left on the engine' }),
  removed: Type.Array(Type.String(), { description: 'named volumes removed with the stack' }),
});
/** the compose loader's warnings about the saved file (an unset ${VAR}, say): it is saved all the same, as validate would say */
const Warnings = Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), { description: "the compose loader's warnings (an unset ${VAR}, say); the file is saved all the same" });
const RevisionEntry = { id: Type.Integer(), revision: Type.Integer(), author: ActorSchema, message: Nullable(Type.String()), createdAt: Type.String() };

export interface RouteDeps {
  ctx: ContextWith<'actionTokens' | 'revisions'>;
  core: Core;
  store: StackStore;
  templates: Templates;
  autoupdateCron: string;
  /** extra fields of the stack answer from other plugins (the git source) */
  describe(stack: string): Promise<Record<string, unknown>>;
}

export function stackRoutes({ ctx, core, store, templates, autoupdateCron, describe }: RouteDeps): RouteDef<any, any, any, any, any>[] {
  /** a route on one stack (`:name` in its path): its handler is given that stack as this caller may use it (404 when absent or invisible to them, 403 when their role is too low) */
  function stackRoute<P extends TSchema, Q extends TSchema = TSchema, B extends TSchema = TSchema, R extends TSchema = TSchema, V extends RevisionMode | undefined = undefined>(
    need: Need,
    route: Omit<RouteDef<P, Q, B, R, V>, 'handler'> & { handler(req: Parameters<RouteDef<P, Q, B, R, V>['handler']>[0], stack: StackRow): ReturnType<RouteDef<P, Q, B, R, V>['handler']> },
  ): RouteDef<P, Q, B, R, NoInfer<V>> {
    const { handler, ...rest } = route;
    return defineRoute<P, Q, B, R, V>({ ...rest, handler: async (req) => handler(req, await core.stackFor((req.params as { name: string }).name, req.principal, need)) });
  }

  /** the stack's full answer; `known`: its detail, when the caller has just read it */
  async function fullView(name: string, known?: StackDetail) {
    const row = known ?? (await store.detail(name))!;
    const [live, extra] = await Promise.all([core.live([row]), describe(name)]);
    const view = stackView(row, live);
    const source = (extra.source ?? null) as Record<string, unknown> | null;
    return { ...view, ...extra, source, webhooks: { ...view.webhooks, deploy: { ...view.webhooks.deploy, recent: row.recentWebhookCalls } } };
  }

  const action = (verb: 'deploy' | 'stop' | 'pull', summary: string) => stackRoute('deploy', {
    method: 'POST', path: `/stacks/:name/${verb}`, scopes: ['stacks:deploy'], summary, params: Params, status: 202, response: JobAcceptedSchema,
    description: 'The job is queued even when the Docker engine does not answer; it then fails with the reason (see the overview).',
    activity: `stack.${verb}`, resource: 'stack:{name}',
    handler: async ({ principal }, stack) => {
      const job = await core.start(verb, stack.name, principal.actor);
      return reply(202, { ...job, jobId: job.id }, { Location: `/api/v1/jobs/${job.id}` });
    },
  });

  return [
    defineRoute({
      method: 'GET', path: '/stacks', scopes: ['stacks:read'], page: true, cursor: StackName, summary: 'List stacks with their live status',
      response: StackViewSchema,
      handler: async ({ page, principal }) => {
        const rows: StackSummary[] = [];
        let after = page.cursor;
        // invisible stacks are skipped, so a page may need more than one read
        for (let more = true; more && rows.length <= page.limit;) {
          const batch = await store.page(after, page.limit + 1);
          more = batch.length === page.limit + 1;
          after = batch.at(-1)?.name;
          rows.push(...batch.filter((r) => canSee(principal, r.access)));
        }
        const items = rows.slice(0, page.limit);
        const live = await core.live(items);
        return { items: items.map((r) => stackView(r, live)), next: rows.length > page.limit ? items.at(-1)!.name : undefined };
      },
    }),
    defineRoute({
      method: 'GET', path: '/stacks/:name', scopes: ['stacks:read'], params: Params,
      summary: 'One stack: revision, status, services with their containers, last deploy, webhooks, source',
      response: StackDetailSchema,
      handler: async ({ params, principal }) => fullView(params.name, await core.detailFor(params.name, principal, 'read')),
    }),
    stackRoute('write', {
      method: 'DELETE', path: '/stacks/:name', scopes: ['stacks:write'], params: Params, revision: 'required',
      query: Type.Object({ volumes: Flag('also remove the named volumes (default: keep them; GET /volumes lists what was kept)') }),
      summary: 'Stop and remove a stack (a job; answers when it is done, or 202 with the job after 30 s); its named volumes are kept unless ?volumes=1',
      description: 'Either answer names the stack\'s named volumes: `volumes.kept` stay on the engine (listed by GET /volumes, removed one by one with DELETE /volumes/{name}), `volumes.removed` are gone. The 202 answer names those the stack has when the call is made, by what the job will do with them; the job\'s result names them as done.',
      activity: 'stack.delete', resource: 'stack:{name}', status: 200, successes: [202],
      response: Type.Object({ removed: Type.String(), jobId: Type.String(), volumes: VolumeFates }),
      responses: { 202: Type.Object({ ...JobAcceptedSchema.properties, volumes: VolumeFates }) },
      handler: async ({ query, revision, principal }, stack) => {
        const removal = await core.remove(stack, revision!, isOn(query.volumes), principal.actor);
        if (!removal.done) return reply(202, { ...removal.job, jobId: removal.job.id, volumes: removal.volumes }, { Location: `/api/v1/jobs/${removal.job.id}` });
        return { removed: stack.name, jobId: removal.jobId, volumes: removal.volumes };
      },
    }),
    stackRoute('read', {
      method: 'GET', path: '/stacks/:name/compose', scopes: ['stacks:read'], params: Params,
      summary: 'The compose file that deploys, and where it comes from: the editor (the stack\'s own), an uploaded archive or a commit of the git source',
      description: 'With a source, `content` is the source\'s file (of the upload, or of the deployed commit, else the last head seen: nothing is fetched) and `saved` the stack\'s own, which deploys do not use.',
      response: Type.Object({
        name: Type.String(), revision: Type.Integer(), content: Type.String(), template: Type.Union([Type.String(), Type.Null()]),
        origin: Type.Object({
          kind: Type.Union([Type.Literal('editor'), Type.Literal('upload'), Type.Literal('git')]),
          path: Type.Optional(Type.String()), at: Type.Optional(Type.String()), sha256: Type.Optional(Type.String()),
          url: Type.Optional(Type.String()), branch: Type.Optional(Type.String()), commit: Type.Optional(Type.String()), subject: Type.Optional(Nullable(Type.String())),
        }),
        saved: Type.String({ description: "the stack's own compose file (the editor's): what deploys when it has no source" }),
      }),
      handler: async (_, row) => {
        const { text, origin } = await core.composeOf(row);
        return { name: row.name, revision: row.revision, content: text, template: row.template, origin, saved: row.compose };
      },
    }),
    defineRoute({
      method: 'PUT', path: '/stacks/:name/compose', scopes: ['stacks:write'], params: Params, revision: 'required', errors: [409, 422],
      summary: 'Replace the compose file; creates the stack with If-None-Match: * (or revision 0), optionally from a template',
      body: Type.Object({
        content: Type.Optional(Compose),
        template: Type.Optional(Type.String({ description: 'create from this template (GET /templates); content defaults to its compose file' })),
        settings: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "the template's inputs" })),
        revision: Revision, message: Message,
      }, { additionalProperties: false, anyOf: [{ required: ['content'] }, { required: ['template'] }] }),
      response: Type.Object({ ...StackDetailSchema.properties, warnings: Warnings }),
      activity: 'stack.compose.write', resource: 'stack:{name}',
      handler: async ({ params, body, revision, principal }) => {
        // revision 0 (or If-None-Match: *) creates the stack; any other replaces the compose file of the one there is
        let saved;
        if (revision === 0) {
          saved = await core.create(params.name, principal, body);
        } else {
          const row = await core.stackFor(params.name, principal, 'write');
          if (body.template !== undefined || body.settings !== undefined) throw problem(400, 'a template is chosen when a stack is created; change settings with PUT /stacks/{name}/settings');
          if (body.content === undefined) throw problem(400, 'content is required', { errors: [{ path: '/body/content', message: 'is required' }] });
          saved = await core.write(params.name, revision, principal, { ...contentOf(row), compose: body.content }, body.message);
        }
        return { ...(await fullView(params.name)), warnings: saved.warnings };
      },
    }),
    defineRoute({
      method: 'POST', path: '/stacks/:name/validate', scopes: ['stacks:read'], params: Params, errors: [422],
      summary: "Check a compose file against the platform rules (with the stack's variables) without saving it",
      body: Type.Object({ content: Compose }, { additionalProperties: false }),
      response: Type.Object({
        valid: Type.Boolean(),
        errors: Type.Array(Type.Object({ rule: Type.String(), path: Type.String(), message: Type.String() })),
        warnings: Type.Array(Type.Object({ path: Type.String(), message: Type.String() })),
        services: Type.Array(Type.String()),
      }),
      activity: false,
      handler: async ({ params, body, principal }) => {
        const row = await store.get(params.name);
        if (row) assertAccess(principal, params.name, row.access, 'read');
        // interpolated values can surface in error messages: a reader validates with the secrets they may not see hidden
        const env = row ? visibleVariables(row.env, mayWrite(principal, row.access)).values : {};
        const settings = row && { template: row.template, settings: visibleSettings(row.settings, mayWrite(principal, row.access)) };
        const { loaded, errors } = await core.validate(params.name, body.content, env, settings ?? undefined, principal);
        return { valid: errors.length === 0, errors, warnings: loaded.warnings, services: loaded.services.map((s) => s.name) };
      },
    }),
    stackRoute('read', {
      method: 'GET', path: '/stacks/:name/env', scopes: ['stacks:read'], params: Params,
      summary: 'The variables; values of secret-looking names are hidden unless the token has stacks:write',
      response: Type.Object({ name: Type.String(), revision: Type.Integer(), values: Values, redacted: Type.Array(Type.String()) }),
      handler: async ({ principal }, row) => ({ name: row.name, revision: row.revision, ...visibleVariables(row.env, mayWrite(principal, row.access)) }),
    }),
    stackRoute('write', {
      method: 'PUT', path: '/stacks/:name/env', scopes: ['stacks:write'], params: Params, revision: 'required', errors: [422],
      summary: 'Replace the variables (they fill ${VAR} in the compose file)',
      body: Type.Object({ values: Values, revision: Revision, message: Message }, { additionalProperties: false }),
      response: Type.Object({ name: Type.String(), revision: Type.Integer(), values: Values, redacted: Type.Array(Type.String()), warnings: Warnings }),
      activity: 'stack.env.write', resource: 'stack:{name}',
      handler: async ({ body, revision, principal }, row) => {
        const { warnings } = await core.write(row.name, revision!, principal, { ...contentOf(row), env: body.values }, body.message);
        const after = (await store.get(row.name))!;
        return { name: after.name, revision: after.revision, values: after.env, redacted: [], warnings };
      },
    }),
    stackRoute('read', {
      method: 'GET', path: '/stacks/:name/settings', scopes: ['stacks:read'], params: Params, summary: "The template settings and the template's input schema",
      response: Type.Object({ name: Type.String(), revision: Type.Integer(), template: Nullable(Type.String()), settings: Settings, inputs: Nullable(Settings) }),
      handler: async ({ principal }, row) => ({
        name: row.name, revision: row.revision, template: row.template, settings: visibleSettings(row.settings, mayWrite(principal, row.access)),
        inputs: row.template ? templates.get(row.template)?.inputs ?? null : null,
      }),
    }),
    stackRoute('write', {
      method: 'PUT', path: '/stacks/:name/settings', scopes: ['stacks:write'], params: Params, revision: 'required', errors: [409, 422],
      summary: "Change the template settings (validated against the template's input schema)",
      body: Type.Object({ settings: Type.Record(Type.String(), Type.Unknown()), revision: Revision, message: Message }, { additionalProperties: false }),
      response: Type.Object({ name: Type.String(), revision: Type.Integer(), template: Nullable(Type.String()), settings: Settings }),
      activity: 'stack.settings.write', resource: 'stack:{name}',
      handler: async ({ body, revision, principal }, row) => {
        await core.changeSettings(row, revision!, principal, body.settings, body.message);
        const after = (await store.get(row.name))!;
        return { name: after.name, revision: after.revision, template: after.template, settings: after.settings };
      },
    }),
    action('deploy', 'Deploy the stack (a job: 202 with its id)'),
    action('stop', "Stop the stack: remove its containers, keep its volumes (a job)"),
    action('pull', 'Pull the images of the stack (a job)'),
    stackRoute('write', {
      method: 'PUT', path: '/stacks/:name/autoupdate', scopes: ['stacks:write'], params: Params,
      summary: 'Nightly update on or off: pull, and redeploy only when an image changed',
      body: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
      response: Type.Object({ name: Type.String(), autoupdate: Type.Boolean(), schedule: Type.String() }),
      activity: 'stack.autoupdate', resource: 'stack:{name}',
      handler: async ({ body }, stack) => {
        await store.set(stack.name, { autoupdate: body.enabled });
        return { name: stack.name, autoupdate: body.enabled, schedule: autoupdateCron };
      },
    }),
    stackRoute('read', {
      method: 'GET', path: '/stacks/:name/revisions', scopes: ['stacks:read'], params: Params, page: true, summary: 'The revision history, newest first',
      response: Type.Object(RevisionEntry),
      cursor: Type.String({ pattern: '^[1-9][0-9]{0,8}$', description: 'the revision number of the last entry of the previous page' }),
      handler: async ({ params, page }) => {
        const before = page.cursor === undefined ? undefined : Number(page.cursor);
        if (before !== undefined && !(Number.isInteger(before) && before > 0 && before <= 2_147_483_647)) throw problem(400, 'the cursor is not one this server gave out');
        const { shown, next } = pageOf(await ctx.revisions.list('stack', params.name, { limit: page.limit + 1, before }), page.limit, (r) => r.revision);
        return { items: shown.map((r) => ({ id: r.revision, ...r })), next };
      },
    }),
    stackRoute('read', {
      method: 'GET', path: '/stacks/:name/revisions/:id', scopes: ['stacks:read'], params: RevisionParams, summary: 'One revision: compose, variables, settings, author',
      response: Type.Object({ ...RevisionEntry, compose: Type.String(), values: Values, redacted: Type.Array(Type.String()), template: Nullable(Type.String()), settings: Settings }),
      handler: async ({ params, principal }, row) => {
        const found = await ctx.revisions.get('stack', params.name, params.id);
        if (!found) throw problem(404, `stack "${params.name}" has no revision ${params.id}`);
        const content = store.contentOf(found.snapshot);
        return {
          id: found.revision, revision: found.revision, author: found.author, message: found.message, createdAt: found.createdAt,
          compose: content.compose, ...visibleVariables(content.env, mayWrite(principal, row.access)), template: content.template, settings: visibleSettings(content.settings, mayWrite(principal, row.access)),
        };
      },
    }),
    stackRoute('deploy', {
      method: 'POST', path: '/stacks/:name/revisions/:id/restore', scopes: ['stacks:deploy'], params: RevisionParams, revision: 'optional', errors: [422],
      summary: 'Restore a revision: a new revision whose compose, variables and settings equal it (deploy to apply it)',
      response: StackDetailSchema,
      activity: 'stack.restore', resource: 'stack:{name}',
      handler: async ({ params, revision, principal }, row) => {
        await core.restore(row, params.id, revision, principal);
        return fullView(row.name);
      },
    }),
    stackRoute('read', {
      method: 'GET', path: '/stacks/:name/access', scopes: ['stacks:read'], params: Params, summary: 'The access list (empty: every user, by their role)',
      response: Type.Array(AccessEntryViewSchema),
      handler: async (_, row) => row.access,
    }),
    stackRoute('write', {
      method: 'POST', path: '/stacks/:name/access', scopes: ['stacks:write'], params: Params,
      summary: 'Replace the access list; managers and admins may change it',
      body: Type.Object({ entries: Type.Array(AccessEntrySchema, { maxItems: 200 }) }, { additionalProperties: false }),
      response: Type.Object({ name: Type.String(), entries: Type.Array(AccessEntrySchema) }),
      activity: 'stack.access.write', resource: 'stack:{name}',
      handler: async ({ body }, stack) => {
        const entries = [...new Map(body.entries.map((e) => [e.principal, e as AccessEntry])).values()];
        await store.set(stack.name, { access: entries });
        return { name: stack.name, entries };
      },
    }),
    stackRoute('write', {
      method: 'POST', path: '/stacks/:name/webhooks/deploy', scopes: ['stacks:write'], params: Params,
      summary: 'Enable or rotate the deploy webhook: the token is shown this once; the previous one stops working at once',
      response: Type.Object({ token: Type.String(), url: Type.String() }),
      activity: 'stack.webhook.deploy.rotate', resource: 'stack:{name}',
      handler: async ({ baseUrl }, stack) => {
        const token = await ctx.actionTokens.issue(deployKind, stack.name);
        return { token, url: `${baseUrl}/api/stacks/${stack.name}/deploy` };
      },
    }),
    stackRoute('write', {
      method: 'DELETE', path: '/stacks/:name/webhooks/deploy', scopes: ['stacks:write'], params: Params, summary: 'Disable the deploy webhook',
      response: Type.Object({ name: Type.String(), enabled: Type.Boolean() }),
      activity: 'stack.webhook.deploy.disable', resource: 'stack:{name}',
      handler: async (_, stack) => {
        await ctx.actionTokens.revoke(deployKind, stack.name);
        return { name: stack.name, enabled: false };
      },
    }),
    defineRoute({
      method: 'GET', path: '/templates', scopes: ['stacks:read'], summary: 'Stack templates: a compose file and the schema of its inputs',
      response: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), compose: Type.String(), inputs: Settings })),
      handler: async () => templates.list(),
    }),
  ];
}
