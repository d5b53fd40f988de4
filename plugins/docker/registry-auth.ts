// What the engine is given to authenticate to a registry: our client finds the token service (realm) right before the engine is asked, checks it, fetches the token itself; the engine gets that token, never a password it could follow a realm with.
import { OutboundRefused, type OutboundApi } from '../../sdk/index.ts';
import { policyHost, registryHost } from './registry-names.ts';
import type { RegistryAuthProvider } from './types.ts';

const timeoutMs = 15_000;

/** the repository path of an image reference in its registry (Docker Hub's single names under library/) */
export function repositoryOf(ref: string): string {
  const first = ref.split('/')[0];
  const explicit = ref.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  let path = (explicit ? ref.slice(first.length + 1) : ref).split('@')[0];
  const colon = path.lastIndexOf(':');
  if (colon > path.lastIndexOf('/')) path = path.slice(0, colon);
  return policyHost(registryHost(ref)) === 'docker.io' && !path.includes('/') ? `library/${path}` : path;
}

/**
 * The challenge of a registry's 401 (WWW-Authenticate, possibly several challenges): Bearer wins, as the engine picks
 * it, with its parameters (realm, service); else Basic; null for none Dockwright speaks.
 */
function challengeOf(header: string): { scheme: 'bearer' | 'basic'; params: Record<string, string> } | null {
  const bearer = /(?:^|[\s,])Bearer\s/i.exec(header);
  if (!bearer && !/(?:^|[\s,])Basic(?:\s|$)/i.test(header)) return null;
  const params: Record<string, string> = {};
  if (bearer) for (const p of header.slice(bearer.index).matchAll(/(\w+)\s*=\s*(?:"([^"]*)"|([^\s,]+))/g)) params[p[1].toLowerCase()] ??= p[2] ?? p[3];
  return { scheme: bearer ? 'bearer' : 'basic', params };
}

/** why a connection got no answer, in words (connection refused, a TLS failure, a timeout) */
export function transportFailure(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = e?.code ?? e?.cause?.code;
  const words = code === 'ECONNREFUSED' ? 'connection refused' : code === 'UND_ERR_CONNECT_TIMEOUT' || e?.name === 'TimeoutError' ? 'no answer in time' : null;
  return `${words ? `${words} ` : ''}(${e?.message ?? String(err)})`;
}

/** a registry that could not be reached over https nor http, with the transport's failure */
export class RegistryUnreachable extends Error {
  constructor(readonly host: string, readonly failure: unknown) {
    super(`the registry ${host} could not be reached: ${transportFailure(failure)}`);
  }
}

/** why the engine is not asked: a registry (or its token service) that redirects, or refuses the login */
export class RegistryAuthRefused extends Error {}

type Login = { username: string; password: string; serveraddress?: string };
/** the engine's authconfig (null: none), and the user of the saved login it stands for */
export type EngineAuthConfig = { serveraddress: string; username?: string; password?: string; registrytoken?: string };
export interface EngineAuth { authconfig: EngineAuthConfig | null; username: string | null }
type Answer = { statusCode: number; headers: Record<string, string | string[] | undefined>; body: AsyncIterable<Buffer> & { dump(): Promise<void> } };
/** a token service's answer is a small JSON document: what is longer is refused, never held */
const maxTokenAnswer = 64 * 1024;

/**
 * The authconfig for the engine's pull or push of these repositories of one registry, found right before it is asked:
 * the registry's /v2/ (https, then http) names its token service in a Bearer challenge; that realm must pass the
 * outbound policy, and the token is fetched here through it (the saved login sent only to that checked realm), redirects
 * refused. The engine gets `registrytoken` and so never contacts a realm itself, whatever the registry answers it. A
 * registry that asks for Basic gets the saved login from the engine (its host was checked); an open one, a token that
 * stands for none (so the engine follows no realm it is shown later either).
 */
export async function engineAuth(outbound: OutboundApi, auth: RegistryAuthProvider | null, registry: string, repositories: readonly string[], actions: 'pull' | 'pull,push'): Promise<EngineAuth> {
  const host = policyHost(registry) === 'docker.io' ? 'docker.io' : registry;
  await outbound.check(policyHost(host));
  const http = await session(outbound);
  try {
    // the saved login first: a job that fails at the registry still says whose login it would have used
    const login = auth ? await auth(host) : null;
    const { challenge } = await pingRegistry(host, http.send);
    // a token that stands for none: with any registrytoken the engine never asks a token service, should the registry
    // answer it with a challenge it did not send us; a registry that is open needs nothing from it
    const none = { authconfig: { registrytoken: 'anonymous', serveraddress: login?.serveraddress ?? host }, username: null };
    if (!challenge) return none;
    if (challenge.scheme === 'basic') return login ? { authconfig: login, username: login.username } : none;
    if (challenge.scheme !== 'bearer' || !challenge.params.realm) return none;
    const token = await registryToken(outbound, host, challenge.params, repositories, actions, login, http.send);
    return { authconfig: { ...token, serveraddress: login?.serveraddress ?? host }, username: login?.username ?? null };
  } finally {
    await http.close();
  }
}

/**
 * A login checked as the engine's /auth would, but by our client: its token service (the realm, checked against the
 * policy) or, for a Basic registry, the registry itself must accept it; redirects refused. The engine is not asked.
 */
export async function verifyLogin(outbound: OutboundApi, registry: string, login: Login): Promise<void> {
  await outbound.check(policyHost(registry));
  const http = await session(outbound);
  try {
    const { challenge, url } = await pingRegistry(registry, http.send);
    if (challenge?.scheme === 'bearer' && challenge.params.realm) {
      await registryToken(outbound, registry, challenge.params, [], 'pull', login, http.send);
    } else if (challenge?.scheme === 'basic') {
      const answer = await http.send(url, { authorization: `Basic ${Buffer.from(`${login.username}:${login.password}`).toString('base64')}` });
      await answer.body.dump();
      if (answer.statusCode !== 200) throw new RegistryAuthRefused(`unauthorized: the registry answered ${answer.statusCode} to the login of ${login.username}`);
    }
  } finally {
    await http.close();
  }
}

/** requests through the outbound policy that never follow a redirect (a 3xx refuses); TLS verified where a secret may go */
async function session(outbound: OutboundApi) {
  const { request } = await import('undici');
  const probe = outbound.dispatcher({ connect: { rejectUnauthorized: false, timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const verified = outbound.dispatcher({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const send = async (url: URL, headers: Record<string, string> = {}): Promise<Answer> => {
    // nothing secret goes to the registry's /v2/ probe; credentials go over verified TLS (or plain http, as the realm says)
    const dispatcher = headers.authorization && url.protocol === 'https:' ? verified : probe;
    const answer = await request(url, { dispatcher, headers, signal: AbortSignal.timeout(timeoutMs) }) as unknown as Answer;
    if (answer.statusCode >= 300 && answer.statusCode < 400) {
      await answer.body.dump();
      throw new RegistryAuthRefused(`${url.origin}${url.pathname} redirects${answer.headers.location ? ` to ${String(answer.headers.location).slice(0, 200)}` : ''}: the redirects of a registry and its token service are not followed, so the engine was not asked`);
    }
    return answer;
  };
  return { send, close: () => Promise.all([probe.close(), verified.close()]).then(() => undefined) };
}

/** GET /v2/ as the engine first asks it (https, then http: what an insecure registry speaks): the challenge of a 401 */
async function pingRegistry(host: string, send: (url: URL) => Promise<Answer>): Promise<{ url: URL; challenge: ReturnType<typeof challengeOf> }> {
  let failure: unknown;
  for (const scheme of ['https', 'http']) {
    const url = new URL(`${scheme}://${policyHost(host) === 'docker.io' ? 'registry-1.docker.io' : host}/v2/`);
    try {
      const answer = await send(url);
      await answer.body.dump();
      return { url, challenge: answer.statusCode === 401 ? challengeOf([answer.headers['www-authenticate'] ?? []].flat().join(', ')) : null };
    } catch (err) {
      if (err instanceof RegistryAuthRefused || err instanceof OutboundRefused) throw err;
      failure = err;
    }
  }
  throw new RegistryUnreachable(host, failure);
}

/** the token of the realm, checked against the policy before it is contacted, for these repositories */
async function registryToken(outbound: OutboundApi, host: string, params: Record<string, string>, repositories: readonly string[], actions: string, login: Login | null,
  send: (url: URL, headers: Record<string, string>) => Promise<Answer>): Promise<{ registrytoken: string }> {
  let url: URL;
  try {
    url = new URL(params.realm);
  } catch {
    throw new RegistryAuthRefused(`the registry ${host} names a token service that is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new RegistryAuthRefused(`the registry ${host} names a token service that is not http(s): ${url.protocol}`);
  try {
    await outbound.check(url.hostname);
  } catch (err) {
    if (!(err instanceof OutboundRefused)) throw err;
    throw new OutboundRefused(url.host, `${err.reason}. The registry ${host} sends logins there (its token service, the realm ${url.origin}${url.pathname}), so the engine was not asked`);
  }
  if (params.service) url.searchParams.set('service', params.service);
  for (const repository of new Set(repositories)) url.searchParams.append('scope', `repository:${repository}:${actions}`);
  const answer = await send(url, login ? { authorization: `Basic ${Buffer.from(`${login.username}:${login.password}`).toString('base64')}` } : {});
  if (answer.statusCode !== 200) {
    await answer.body.dump();
    const who = login ? `its saved login (user ${login.username}) was rejected` : 'no login for it is saved';
    throw new RegistryAuthRefused(`the token service of the registry ${host} answered ${answer.statusCode}: unauthorized: ${who}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of answer.body) {
    size += chunk.length;
    if (size > maxTokenAnswer) throw new RegistryAuthRefused(`the token service of the registry ${host} answered more than ${maxTokenAnswer / 1024} KiB`);
    chunks.push(chunk);
  }
  let body: { token?: unknown; access_token?: unknown };
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8')) ?? {};
  } catch {
    throw new RegistryAuthRefused(`the token service of the registry ${host} answered no JSON`);
  }
  const token = typeof body.token === 'string' ? body.token : typeof body.access_token === 'string' ? body.access_token : null;
  if (!token) throw new RegistryAuthRefused(`the token service of the registry ${host} answered no token`);
  return { registrytoken: token };
}
