// Before a login is saved: the outbound-address policy for its host and for the token service it sends logins to, then a real login by our own client (never the engine's /auth).
import { OutboundRefused, Problem, problem, type OutboundApi, type ContextWith } from '../../sdk/index.ts';
import { RegistryAuthRefused, RegistryUnreachable, transportFailure, verifyLogin } from '../docker/api.ts';

/**
 * The outbound-address policy (SPEC: loopback, private and other non-global addresses are refused unless `outbound.allow`
 * lets them through). For registries it is checked here at save, and again before each pull (registry-auth.ts).
 */
export async function checkOutboundPolicy(ctx: ContextWith<'outbound'>, host: string): Promise<void> {
  // the policy takes a bare host: `[v6]:port` and `name:port` lose their port (and brackets) here
  const bare = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '');
  await ctx.outbound.check(bare);
}

/** the token service a registry sends logins to: the realm of the Bearer challenge in its WWW-Authenticate, if it has one */
export function bearerRealm(challenges: string): string | null {
  const bearer = /(?:^|[\s,])Bearer\s/i.exec(challenges);
  if (!bearer) return null;
  const realm = /(?:^|[\s,])realm\s*=\s*(?:"([^"]*)"|([^\s,]+))/i.exec(challenges.slice(bearer.index));
  return realm ? realm[1] ?? realm[2] : null;
}

/**
 * Logs in as the engine's /auth would, but with our own client (registry-auth.ts): the token service the registry's
 * Bearer challenge names is checked against the outbound policy before it is sent the login, redirects are refused, and
 * the engine is never handed the password to follow a realm with. A refusal or an unreachable registry is a 422 naming
 * what failed; a token service the policy refuses is a 422 outbound-refused.
 */
export async function checkLogin(outbound: OutboundApi, login: { host: string; username: string; password: string }): Promise<void> {
  try {
    await verifyLogin(outbound, login.host, login);
  } catch (err) {
    if (err instanceof Problem || err instanceof OutboundRefused) {
      if (err instanceof OutboundRefused) throw new OutboundRefused(err.host, `${err.reason.replace(/, so the engine was not asked$/, '')}, so the login was not tried and nothing was saved`);
      throw err;
    }
    if (err instanceof RegistryUnreachable) {
      throw problem(422, `the login could not be checked, because Dockwright could not reach the registry ${login.host}: ${transportFailure(err.failure)}; nothing was saved`, { code: 'registry-unreachable' });
    }
    const reason = String((err as Error)?.message ?? err).split(login.password).join('[redacted]');
    if (err instanceof RegistryAuthRefused && refusedLogin.test(reason)) {
      throw problem(422, `the registry ${login.host} refused the login of ${login.username}: ${reason}; nothing was saved`, { code: 'registry-login-refused' });
    }
    throw problem(422, `the login could not be checked with the registry ${login.host}: ${reason}; nothing was saved`, { code: 'registry-unreachable' });
  }
}

/** how registries say the login is wrong */
const refusedLogin = /unauthorized|denied|incorrect username or password|authentication required/i;
