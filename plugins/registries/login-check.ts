// Before a login is saved: the outbound-address policy for its host and for the token service it sends logins to, then a real login through the engine's /auth.
import { OutboundRefused, Problem, problem, type OutboundApi, type ContextWith } from '../../sdk/index.ts';
import type { DockerRuntime } from '../docker/types.ts';
import { dockerHub, serverAddressOf } from './hosts.ts';

/**
 * The outbound-address policy (SPEC: loopback, private and other non-global addresses are refused unless `outbound.allow`
 * lets them through). For registries it is checked here, at save, because afterwards the engine connects by itself.
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

const probeTimeoutMs = 15_000;
const maxRedirects = 10;

/** why a probe of the registry got no answer, in words (connection refused, a TLS failure, a timeout) */
function failureOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = e?.code ?? e?.cause?.code;
  const words = code === 'ECONNREFUSED' ? 'connection refused' : code === 'UND_ERR_CONNECT_TIMEOUT' || e?.name === 'TimeoutError' ? 'no answer in time' : null;
  return `${words ? `${words} ` : ''}(${e?.message ?? String(err)})`;
}

/**
 * Where the engine's login would go besides the registry: asks the registry's /v2/ as the engine does first (https, then
 * http; redirects followed, each through the policy) and checks the token service its Bearer challenge names (the realm,
 * which the engine would follow with the password) against the outbound policy, before the engine is asked. Nothing
 * secret is sent, so the probe does not need to verify TLS certificates (an insecure registry's are not, by the engine).
 */
export async function checkTokenRealm(outbound: OutboundApi, host: string): Promise<void> {
  const { request } = await import('undici');
  const dispatcher = outbound.dispatcher({ connect: { rejectUnauthorized: false, timeout: probeTimeoutMs }, headersTimeout: probeTimeoutMs, bodyTimeout: probeTimeoutMs });
  let failure: unknown;
  try {
    for (const scheme of ['https', 'http']) {
      // Docker Hub's logins are checked by the engine at its registry
      let url = new URL(`${scheme}://${host === dockerHub ? 'registry-1.docker.io' : host}/v2/`);
      try {
        for (let hops = 0; ; hops++) {
          const answer = await request(url, { dispatcher, signal: AbortSignal.timeout(probeTimeoutMs) });
          await answer.body.dump();
          const location = answer.headers.location;
          if (answer.statusCode >= 300 && answer.statusCode < 400 && typeof location === 'string' && hops < maxRedirects) {
            url = new URL(location, url);
            continue;
          }
          const challenges = [answer.headers['www-authenticate'] ?? []].flat().join(', ');
          const realm = bearerRealm(challenges);
          if (realm) await checkRealm(outbound, host, realm);
          return;
        }
      } catch (err) {
        // a refusal of the policy (a redirect or the realm) is final; anything else is the transport's, and the next scheme may work
        if (err instanceof OutboundRefused) throw err;
        failure = err;
      }
    }
  } finally {
    await dispatcher.close();
  }
  throw problem(422, `the login could not be checked, because Dockwright could not reach the registry ${host}: ${failureOf(failure)}; nothing was saved`, { code: 'registry-unreachable' });
}

async function checkRealm(outbound: OutboundApi, host: string, realm: string): Promise<void> {
  let url: URL;
  try {
    url = new URL(realm);
  } catch {
    return; // not a URL: the engine cannot follow it either, and fails the login
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return;
  try {
    await outbound.check(url.hostname);
  } catch (err) {
    if (!(err instanceof OutboundRefused)) throw err;
    throw new OutboundRefused(url.host, `${err.reason}. The registry ${host} sends logins there (its token service, the realm ${url.origin}${url.pathname}), so the login was not tried and nothing was saved`);
  }
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
