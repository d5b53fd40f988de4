// The stack endpoints on what a stack deploys: its compose file (read, write, validate), its variables and its template settings.
import { defineRoute, Nullable, problem, Type, type RouteDef } from '../../../sdk/index.ts';
import { assertAccess, mayWrite } from '../access.ts';
import { contentOf } from '../core.ts';
import { keepHidden, StackDetailSchema, visibleSettings, visibleVariables } from '../view.ts';
import { Compose, Message, Params, Revision, Settings, Values, Warnings, type RouteDeps, type StackRouteKit } from './kit.ts';

export function contentRoutes({ core, store, templates, hiddenVariables }: RouteDeps, { stackRoute, fullView }: StackRouteKit): RouteDef<any, any, any, any, any>[] {
  return [
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
        template: Type.Optional(Type.String({ description: 'create from this template (GET /stack-templates); content defaults to its compose file' })),
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
        const env = row ? visibleVariables(row.env, mayWrite(principal, row.access, row.name), await hiddenVariables(row.name)).values : {};
        const settings = row && { template: row.template, settings: visibleSettings(row.settings, mayWrite(principal, row.access, row.name)) };
        const { loaded, errors } = await core.validate(params.name, body.content, env, settings ?? undefined, principal);
        return { valid: errors.length === 0, errors, warnings: loaded.warnings, services: loaded.services.map((s) => s.name) };
      },
    }),
    stackRoute('read', {
      method: 'GET', path: '/stacks/:name/env', scopes: ['stacks:read'], params: Params,
      summary: 'The variables; values of secret-looking names are hidden unless the token has stacks:write',
      response: Type.Object({ name: Type.String(), revision: Type.Integer(), values: Values, redacted: Type.Array(Type.String()) }),
      handler: async ({ principal }, row) => ({ name: row.name, revision: row.revision, ...visibleVariables(row.env, mayWrite(principal, row.access, row.name), await hiddenVariables(row.name)) }),
    }),
    stackRoute('write', {
      method: 'PUT', path: '/stacks/:name/env', scopes: ['stacks:write'], params: Params, revision: 'required', errors: [422],
      summary: 'Replace the variables (they fill ${VAR} in the compose file); a hidden one (a value a template generated) left out or sent as *** keeps its value',
      body: Type.Object({ values: Values, revision: Revision, message: Message }, { additionalProperties: false }),
      response: Type.Object({ name: Type.String(), revision: Type.Integer(), values: Values, redacted: Type.Array(Type.String()), warnings: Warnings }),
      activity: 'stack.env.write', resource: 'stack:{name}',
      handler: async ({ body, revision, principal }, row) => {
        const hidden = await hiddenVariables(row.name);
        const { warnings } = await core.write(row.name, revision!, principal, { ...contentOf(row), env: keepHidden(row.env, body.values, hidden) }, body.message);
        const after = (await store.get(row.name))!;
        return { name: after.name, revision: after.revision, ...visibleVariables(after.env, true, hidden), warnings };
      },
    }),
    stackRoute('read', {
      method: 'GET', path: '/stacks/:name/settings', scopes: ['stacks:read'], params: Params, summary: "The template settings and the template's input schema",
      response: Type.Object({ name: Type.String(), revision: Type.Integer(), template: Nullable(Type.String()), settings: Settings, inputs: Nullable(Settings) }),
      handler: async ({ principal }, row) => ({
        name: row.name, revision: row.revision, template: row.template, settings: visibleSettings(row.settings, mayWrite(principal, row.access, row.name)),
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
  ];
}
