// Before a login is saved: the outbound-address policy for its host, then a real login through the engine's /auth.
import { Problem, problem, type PluginContext } from '../../sdk/index.ts';
import type { DockerRuntime } from '../docker/types.ts';
import { serverAddressOf } from './hosts.ts';

/**
 * The outbound-address policy (SPEC: loopback, private and other non-global addresses are refused unless `outbound.allow`
 * lets them through). For registries it is checked here, at save, because afterwards the engine connects by itself.
 */
export async function checkOutboundPolicy(ctx: PluginContext, host: string): Promise<void> {
  // the policy takes a bare host: `[v6]:port` and `name:port` lose their port (and brackets) here
  const bare = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '');
  await ctx.outbound.check(bare);
}

/** how registries say the login is wrong (engines answer /auth with 401, or with 500 carrying the registry's 401) */
const refusedLogin = /unauthorized|denied|incorrect username or password|authentication required/i;

/** logs in to the registry through the engine; a refusal or an unreachable registry is a 422 naming what failed, an absent engine a 503 */
export async function checkLogin(runtime: DockerRuntime, login: { host: string; username: string; password: string }): Promise<void> {
  try {
    await runtime.docker.checkAuth({ username: login.username, password: login.password, serveraddress: serverAddressOf(login.host) });
  } catch (err) {
    if (err instanceof Problem) throw err;
    // the engine quotes the registry; it has no reason to quote the password, and this makes sure it never does
    const { status, reason: said } = runtime.errorOf(err);
    const reason = said.split(login.password).join('[redacted]');
    if (status === 401 || refusedLogin.test(reason)) {
      throw problem(422, `the registry ${login.host} refused the login of ${login.username}: ${reason}; nothing was saved`, { code: 'registry-login-refused' });
    }
    throw problem(422, `the login could not be checked, because the Docker engine could not reach the registry ${login.host}: ${reason}; nothing was saved`, { code: 'registry-unreachable' });
  }
}
