// Images on the engine and in registries: find them locally, pull them and push them (with registry credentials from the auth hook); never from a registry the outbound policy refuses.
import type Dockerode from 'dockerode';
import { OutboundRefused, Problem, type OutboundApi } from '../../sdk/index.ts';
import { dockerfileText } from './dockerfile.ts';
import { pulledImages } from './dockerfile-translate.ts';
import type { DeployIo, GitContextFetcher, ImageIssue, NormalizedService, RegistryAuthProvider } from './types.ts';
import { reasonOf, statusOf } from './client.ts';
import { limiter } from './util.ts';
import { engineAuth, repositoryOf } from './registry-auth.ts';
import { policyHost, registryHost } from './registry-names.ts';

/** which builder builds: `auto` asks the engine (BuildKit where it has it) */
export type BuilderChoice = 'auto' | 'buildkit' | 'classic';

export interface ImageDeps {
  docker: Dockerode;
  auth: () => RegistryAuthProvider | null;
  /** bounds a pull, a push or a build */
  pullTimeoutMs: number;
  builder: BuilderChoice;
  /** the install's outbound policy: the engine is never asked to contact a registry it refuses */
  outbound: OutboundApi;
  /** who fetches build contexts given as git URLs; null: nobody (the git plugin is off) */
  gitContexts: () => GitContextFetcher | null;
}

/**
 * Why the outbound policy refuses a registry (`host[:port]`; null when the engine may contact it). Asked before the engine
 * is asked to pull, build from or push to it: afterwards the engine connects by itself.
 */
export async function registryRefusal(outbound: OutboundApi, registry: string): Promise<string | null> {
  try {
    await outbound.check(policyHost(registry));
    return null;
  } catch (err) {
    if (err instanceof OutboundRefused) return `the outbound policy refuses its registry ${registry} (${err.message})`;
    throw err;
  }
}

/** the local image id, or null when the engine has no such image. */
export async function imageId(docker: Dockerode, ref: string): Promise<string | null> {
  try {
    return (await docker.getImage(ref).inspect()).Id;
  } catch (err) {
    if (statusOf(err) === 404) return null;
    throw err;
  }
}

/** follows a JSON-lines progress stream; rejects on the first `error` line. */
export function follow(docker: Dockerode, stream: NodeJS.ReadableStream, onLine: (event: Record<string, unknown>) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let failed: string | null = null;
    docker.modem.followProgress(stream, (err: unknown) => {
      if (err) reject(err);
      else if (failed) reject(new Error(failed));
      else resolve();
    }, (event: Record<string, unknown>) => {
      if (typeof event.error === 'string') failed ??= event.error;
      onLine(event);
    });
  });
}

export function boundedSignal(io: DeployIo, ms: number): AbortSignal {
  const timeout = AbortSignal.timeout(ms);
  return io.signal ? AbortSignal.any([io.signal, timeout]) : timeout;
}

export async function pullImage(deps: ImageDeps, ref: string, io: DeployIo): Promise<void> {
  const refusal = await registryRefusal(deps.outbound, registryHost(ref));
  if (refusal) throw new Error(refusal);
  const host = registryHost(ref);
  // right before the engine is asked: its token service checked, the token fetched here (registry-auth.ts); the pull is
  // named with the saved login's user also when the registry cannot be reached
  const saved = deps.auth();
  let user: string | null = null;
  const asking: RegistryAuthProvider | null = saved && (async (h) => { const login = await saved(h); user = login?.username ?? null; return login; });
  const pulling = (as: string | null) => io.log(`pulling ${ref}${as ? ` (as ${as} on ${host})` : ''}`);
  const { authconfig, username } = await engineAuth(deps.outbound, asking, host, [repositoryOf(ref)], 'pull').catch((err: unknown) => { pulling(user); throw err; });
  pulling(username);
  const signal = boundedSignal(io, deps.pullTimeoutMs);
  try {
    const stream = await deps.docker.pull(ref, { ...(authconfig ? { authconfig } : {}), abortSignal: signal });
    let last = '';
    await follow(deps.docker, stream, (e) => { if (typeof e.status === 'string' && /^(Status|Digest):/.test(e.status)) last = e.status; });
    if (last) io.log(`${ref}: ${last}`);
  } catch (err) {
    if (signal.aborted && !io.signal?.aborted) throw new Error(`pulling ${ref} took longer than ${Math.round(deps.pullTimeoutMs / 1000)} s`);
    const reason = reasonOf(err);
    if (credentialsRefused.test(reason)) {
      const login = username ? `its saved login (user ${username}) was rejected` : 'no login for it is saved';
      throw new Error(`the registry ${host} refused the pull: ${login}; add or replace it with POST /api/v1/registries (${reason})`);
    }
    throw err;
  }
}

/** how engines and registries say "who are you?": anonymous, a wrong login, or Docker Hub's "denied / may require docker login" */
export const credentialsRefused = /no basic auth credentials|unauthorized|authentication required|access denied|denied:/i;

/**
 * Tags a local image as `repository:tag` and pushes it with the saved login of its registry (the registry-auth hook);
 * answers the pushed reference and the digest the registry stored, so nodes pull exactly what was pushed.
 */
export async function pushImage(deps: ImageDeps, image: string, target: { repository: string; tag: string }, io: DeployIo): Promise<{ reference: string; digest: string }> {
  const reference = `${target.repository}:${target.tag}`;
  const host = registryHost(reference);
  const refusal = await registryRefusal(deps.outbound, host);
  if (refusal) throw new Error(`${reference} is not pushed: ${refusal}`);
  const { authconfig, username } = await engineAuth(deps.outbound, deps.auth(), host, [repositoryOf(reference)], 'pull,push').catch((err: unknown) => {
    io.log(`pushing ${reference}`);
    throw err instanceof Problem ? err : new Error(`pushing ${reference} to the registry ${host} failed: ${reasonOf(err)}`);
  });
  await deps.docker.getImage(image).tag({ repo: target.repository, tag: target.tag });
  io.log(`pushing ${reference}${username ? ` (as ${username} on ${host})` : ''}`);
  const signal = boundedSignal(io, deps.pullTimeoutMs);
  let digest = '';
  try {
    // the engine wants an X-Registry-Auth header on every push, an empty login for an open registry
    const stream = await deps.docker.getImage(target.repository).push({ tag: target.tag, authconfig: authconfig ?? ({} as Dockerode.AuthConfig), abortSignal: signal });
    await follow(deps.docker, stream, (e) => {
      const aux = e.aux as { Digest?: unknown } | undefined;
      if (typeof aux?.Digest === 'string') digest = aux.Digest;
    });
  } catch (err) {
    if (signal.aborted && !io.signal?.aborted) throw new Error(`pushing ${reference} took longer than ${Math.round(deps.pullTimeoutMs / 1000)} s`);
    const reason = reasonOf(err);
    if (credentialsRefused.test(reason)) {
      const login = username ? `its saved login (user ${username}) was rejected` : 'no login for it is saved';
      throw new Error(`the registry ${host} refused the push of ${reference}: ${login}; add or replace it with POST /api/v1/registries (${reason})`);
    }
    throw new Error(`pushing ${reference} to the registry ${host} failed: ${reason}`);
  }
  if (!/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`the registry ${host} answered the push of ${reference} without a digest`);
  io.log(`${reference}: pushed, digest ${digest}`);
  return { reference, digest };
}

/**
 * The images the outbound policy keeps the engine from fetching for these services: an image that is pulled (pull_policy
 * missing or always) and the base images of a build (FROM, COPY --from), each missing locally, whose registry the policy
 * refuses. An image present locally is used as it is (a refused pull of pull_policy always falls back to it), so it passes.
 * Paths are the compose file's. null when the engine cannot say which images it has.
 */
export async function refusedImages(deps: ImageDeps, services: readonly NormalizedService[]): Promise<ImageIssue[] | null> {
  const wanted: { service: string; path: string; ref: string; base: boolean }[] = [];
  for (const s of services) {
    if (s.pullPolicy === 'build') {
      const text = s.build ? dockerfileText(s.build) : null;
      if (text) for (const ref of await pulledImages(deps.docker, text, s.build!.args)) wanted.push({ service: s.name, path: `services.${s.name}.build`, ref, base: true });
    } else if (s.pullPolicy !== 'never') {
      wanted.push({ service: s.name, path: `services.${s.name}.image`, ref: s.image, base: false });
    }
  }
  // the policy is asked once per registry, the engine once per refused image (a few at a time)
  const registries = [...new Set(wanted.map((w) => registryHost(w.ref)))];
  const byRegistry = new Map(await Promise.all(registries.map(async (r) => [r, await registryRefusal(deps.outbound, r)] as const)));
  const refusals = new Map(wanted.map((w) => [w.ref, byRegistry.get(registryHost(w.ref)) ?? null]));
  const limit = limiter(8);
  const present = new Map<string, boolean>();
  try {
    await Promise.all([...refusals].filter(([, refusal]) => refusal).map(([ref]) => limit(async () => { present.set(ref, (await imageId(deps.docker, ref)) !== null); })));
  } catch {
    return null;
  }
  return wanted.filter((w) => refusals.get(w.ref) && !present.get(w.ref)).map((w) => ({
    service: w.service, path: w.path, image: w.ref,
    message: `${w.base ? `the base image ${w.ref} of service ${w.service}'s build` : `the image ${w.ref} of service ${w.service}`} is not present locally and cannot be pulled: ${refusals.get(w.ref)}`,
  }));
}
