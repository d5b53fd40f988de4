// What every group of stack routes shares: the schemas of paths and bodies, the dependencies, and a route on one stack that is given that stack as the caller may use it.
import { ActorSchema, defineRoute, Nullable, Type, type ContextWith, type RevisionMode, type RouteDef, type TSchema } from '../../../sdk/index.ts';
import type { Need } from '../access.ts';
import type { Core } from '../core.ts';
import type { StackDetail, StackRow, StackStore } from '../store.ts';
import type { Templates } from '../templates.ts';
import { stackView } from '../view.ts';

export const StackName = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: 'lowercase letters, digits and - (not _, which separates a stack from the names of its volumes and networks)' });
export const Params = Type.Object({ name: StackName });
export const RevisionParams = Type.Object({ name: StackName, id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
export const Revision = Type.Optional(Type.Integer({ minimum: 0, description: 'the revision this write is based on (or If-Match)' }));
export const Message = Type.Optional(Type.String({ maxLength: 500, description: 'a note kept with the revision' }));
export const VariableName = '^[A-Za-z_][A-Za-z0-9_]{0,127}$';
export const Values = Type.Record(Type.String({ pattern: VariableName }), Type.String({ maxLength: 65536 }), { maxProperties: 500, additionalProperties: false });
// the compose loader's own content limit (composeLimits.maxLength): what it can load and judge in milliseconds
export const Compose = Type.String({ maxLength: 256 * 1024 });
export const Settings = Type.Record(Type.String(), Type.Unknown());
/** a yes/no query parameter as written in a URL: ?volumes=1 (or true; 0 or false, or absent, is no) */
export const Flag = (description: string) => Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('true'), Type.Literal('0'), Type.Literal('false')], { description }));
export const isOn = (flag: string | undefined): boolean => flag === '1' || flag === 'true';
export const VolumeFates = Type.Object({
  kept: Type.Array(Type.String(), { description: 'named volumes left on the engine' }),
  removed: Type.Array(Type.String(), { description: 'named volumes removed with the stack' }),
});
/** the compose loader's warnings about the saved file (an unset ${VAR}, say): it is saved all the same, as validate would say */
export const Warnings = Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), { description: "the compose loader's warnings (an unset ${VAR}, say); the file is saved all the same" });
export const RevisionEntry = { id: Type.Integer(), revision: Type.Integer(), author: ActorSchema, message: Nullable(Type.String()), createdAt: Type.String() };
export interface RouteDeps {
  ctx: ContextWith<'actionTokens' | 'revisions'>;
  core: Core;
  store: StackStore;
  templates: Templates;
  autoupdateCron: string;
  /** extra fields of the stack answer from other plugins (the git source) */
  describe(stack: string): Promise<Record<string, unknown>>;
  /** the variables of the stack whose values no answer shows (secretVariables) */
  hiddenVariables(stack: string): Promise<ReadonlySet<string>>;
}

/** the helpers a route group is given: stackRoute and fullView */
export type StackRouteKit = ReturnType<typeof stackRouteKit>;

export function stackRouteKit({ core, store, describe }: RouteDeps) {
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

  return { stackRoute, fullView };
}
