// The /registries endpoints: list the saved logins, save one (checked against the registry first), delete one.
import { defineRoute, pageOf, keyedLock, Problem, problem, reply, Type, type Actor, type AnyRoute, type ContextWith, type Static } from '../../sdk/index.ts';
import type { DockerRuntime } from '../docker/types.ts';
import { normaliseHost } from './hosts.ts';
import { checkLogin, checkOutboundPolicy } from './login-check.ts';
import type { LoginRow, LoginStore } from './store.ts';

const HostText = Type.String({ minLength: 1, maxLength: 261, pattern: '^[^\\s/]+$', description: 'host or host:port; docker.io, index.docker.io and registry-1.docker.io are one' });

export const LoginView = Type.Object({
  host: Type.String({ description: 'the normalised host[:port]' }),
  username: Type.String(),
  addedAt: Type.String({ format: 'date-time' }),
  addedBy: Type.Object({ kind: Type.String(), name: Type.Optional(Type.String()) }, { description: 'who saved this login' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'the last pull or build that used it' }),
}, { description: 'a registry login; its password is never answered' });

const SaveBody = Type.Object({
  host: HostText,
  username: Type.String({ minLength: 1, maxLength: 255, pattern: '^[^\\x00-\\x20:\\x7f]+$', description: 'no spaces, control characters or ":"' }),
  password: Type.String({ minLength: 1, maxLength: 16384, description: 'the password, or an access token' }),
}, { additionalProperties: false });

const viewOf = (row: LoginRow): Static<typeof LoginView> => ({
  host: row.host, username: row.username, addedAt: row.addedAt,
  addedBy: { kind: row.addedBy.kind, ...(row.addedBy.name ? { name: row.addedBy.name } : {}) }, lastUsedAt: row.lastUsedAt,
});

function hostOf(input: string): string {
  const checked = normaliseHost(input);
  if (!checked.ok) throw problem(400, `"${input}" is not a registry host: ${checked.message}`, { code: 'invalid-request', errors: [{ path: '/host', message: checked.message }] });
  return checked.host;
}

export function registryRoutes(deps: { ctx: ContextWith<'activity' | 'outbound' | 'secrets'>; store: LoginStore; runtime: DockerRuntime }): AnyRoute[] {
  const { ctx, store, runtime } = deps;
  // a save checks then writes: two saves of one host must not interleave, or the answer could describe the other's login
  const lock = keyedLock();

  /** every change is activity, including those the registry refused (the kernel's own entry cannot name the normalised host) */
  async function audit<T>(actor: Actor, action: string, host: string, change: () => Promise<{ value: T; detail: Record<string, unknown> }>): Promise<T> {
    try {
      const { value, detail } = await change();
      await ctx.activity.record({ actor, action, resource: `registry:${host}`, result: 'ok', detail });
      return value;
    } catch (err) {
      const status = err instanceof Problem ? err.status : 500;
      await ctx.activity.record({ actor, action, resource: `registry:${host}`, result: 'failed', detail: { status, ...(err instanceof Problem ? { reason: err.detail } : {}) } });
      throw err;
    }
  }

  return [
    defineRoute({
      method: 'GET', path: '/registries', scopes: ['registries:read'], page: true, response: LoginView,
      summary: 'List the registry logins (never their passwords)',
      handler: async ({ page }) => {
        const { shown, next } = pageOf(await store.page(page.cursor, page.limit + 1), page.limit, (r) => r.host);
        return { items: shown.map(viewOf), next };
      },
    }),
    defineRoute({
      method: 'POST', path: '/registries', scopes: ['registries:write'], body: SaveBody, response: LoginView, status: 201, successes: [200], errors: [422, 503], activity: false,
      summary: 'Add a registry login, or replace the login of that host: checked against the registry first',
      description: 'The registry, and the token service its Bearer challenge names (WWW-Authenticate realm), must pass the outbound policy '
        + '(422 outbound-refused otherwise, before the engine is asked). '
        + 'Dockwright logs in (at that token service, or at the registry for Basic; redirects are not followed) before anything is saved: a refused login or an unreachable registry '
        + 'answers 422 naming what failed, and nothing is saved. A token goes in password. 201 when the host had no login, 200 when it replaced one. '
        + 'Deploys, pulls, builds (base images) and autoupdate then pull that registry\'s images with this login: the token service is checked again before each pull, and the engine gets only the token.',
      handler: async ({ body, principal }) => {
        const host = hostOf(body.host);
        return lock(host, () => audit(principal.actor, 'registry.save', host, async () => {
          await checkOutboundPolicy(ctx, host);
          // an absent engine is a 503 before the registry is asked anything
          await runtime.docker.ping();
          await checkLogin(ctx.outbound, { host, username: body.username, password: body.password });
          const { row, created } = await store.put({ host, username: body.username, passwordSealed: ctx.secrets.seal(body.password), addedBy: principal.actor });
          return { value: reply(created ? 201 : 200, viewOf(row)), detail: { username: row.username, replaced: !created } };
        }));
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/registries/:host', scopes: ['registries:write'], params: Type.Object({ host: HostText }), status: 204, errors: [404], activity: false,
      summary: 'Delete a registry login: pulls from that registry go anonymous',
      handler: async ({ params, principal }) => {
        const host = hostOf(params.host);
        await lock(host, () => audit(principal.actor, 'registry.delete', host, async () => {
          if (!(await store.remove(host))) throw problem(404, `there is no login for the registry ${host}`);
          return { value: undefined, detail: {} };
        }));
      },
    }),
  ];
}
