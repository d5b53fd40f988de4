// Images of a project: find them locally, pull them (with registry credentials from the auth hook), build them from the source tree, push them; never from a registry the outbound policy refuses.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Dockerode from 'dockerode';
import { OutboundRefused, type OutboundApi } from '../../sdk/index.ts';
import type { DeployIo, ImageIssue, NormalizedBuild, NormalizedService, RegistryAuthProvider } from './types.ts';
import { reasonOf, statusOf } from './client.ts';
import { limiter } from './util.ts';

export interface ImageDeps {
  docker: Dockerode;
  auth: () => RegistryAuthProvider | null;
  pullTimeoutMs: number;
  /** the install's outbound policy: the engine is never asked to contact a registry it refuses */
  outbound: OutboundApi;
}

/** the registry an image reference lives in, as `docker login` names it. */
export function registryHost(ref: string): string {
  const first = ref.split('/')[0];
  return ref.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost') ? first : 'docker.io';
}

const dockerHubNames = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

/** a registry `host[:port]` as the outbound policy takes it: without port and brackets; Docker Hub's names as docker.io */
export function policyHost(registry: string): string {
  const bare = registry.startsWith('[') ? registry.slice(1, registry.indexOf(']')) : registry.replace(/:\d+$/, '');
  return dockerHubNames.has(bare.toLowerCase()) ? 'docker.io' : bare;
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
function follow(docker: Dockerode, stream: NodeJS.ReadableStream, onLine: (event: Record<string, unknown>) => void): Promise<void> {
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

function boundedSignal(io: DeployIo, ms: number): AbortSignal {
  const timeout = AbortSignal.timeout(ms);
  return io.signal ? AbortSignal.any([io.signal, timeout]) : timeout;
}

export async function pullImage(deps: ImageDeps, ref: string, io: DeployIo): Promise<void> {
  const refusal = await registryRefusal(deps.outbound, registryHost(ref));
  if (refusal) throw new Error(refusal);
  const provider = deps.auth();
  const host = registryHost(ref);
  const authconfig = provider ? await provider(host) : null;
  io.log(`pulling ${ref}${authconfig ? ` (as ${authconfig.username} on ${host})` : ''}`);
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
      const login = authconfig ? `its saved login (user ${authconfig.username}) was rejected` : 'no login for it is saved';
      throw new Error(`the registry ${host} refused the pull: ${login}; add or replace it with POST /api/v1/registries (${reason})`);
    }
    throw err;
  }
}

/** how engines and registries say "who are you?": anonymous, a wrong login, or Docker Hub's "denied / may require docker login" */
const credentialsRefused = /no basic auth credentials|unauthorized|authentication required|access denied|denied:/i;

/**
 * The images a Dockerfile pulls while building (FROM and COPY --from), with build args and global ARG defaults filled in;
 * references still holding a variable, earlier stages and scratch are left out.
 */
export function baseImages(dockerfileText: string, args: Record<string, string>): string[] {
  const lines = dockerfileText.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  const vars: Record<string, string> = {};
  const stages = new Set<string>();
  const refs = new Set<string>();
  let seenFrom = false;
  const fill = (text: string) => text.replace(/\$\{(\w+)(?::?-([^}]*))?\}|\$(\w+)/g, (whole, a, fallback, b) => args[a ?? b] ?? vars[a ?? b] ?? fallback ?? whole);
  const add = (ref: string) => { if (!ref.includes('$') && ref !== 'scratch' && !stages.has(ref.toLowerCase())) refs.add(ref); };
  for (const line of lines) {
    const arg = !seenFrom && /^\s*ARG\s+(\w+)(?:=(\S*))?/i.exec(line);
    if (arg && arg[2] !== undefined) vars[arg[1]] = arg[2].replace(/^(["'])(.*)\1$/, '$2');
    const from = /^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) {
      seenFrom = true;
      add(fill(from[1]));
      if (from[2]) stages.add(from[2].toLowerCase());
      continue;
    }
    const copy = /^\s*COPY\s.*--from=(\S+)/i.exec(line);
    if (copy && !/^\d+$/.test(copy[1])) add(fill(copy[1]));
  }
  return [...refs];
}

/** the images a build's Dockerfile pulls (none when it cannot be read: the engine then fails the build itself) */
function baseImagesOf(b: NormalizedBuild): string[] {
  let text: string;
  try { text = readFileSync(join(b.context, b.dockerfile), 'utf8'); } catch { return []; }
  return baseImages(text, b.args);
}

/** the saved logins of the registries a build pulls its base images from, keyed as the engine's X-Registry-Config wants */
async function buildLogins(deps: ImageDeps, bases: readonly string[]): Promise<{ hosts: string[]; registryconfig: Record<string, { username: string; password: string; serveraddress: string }> }> {
  const hosts = [...new Set(bases.map(registryHost))];
  const provider = deps.auth();
  const logins = provider ? await Promise.all(hosts.map((h) => provider(h))) : [];
  return { hosts, registryconfig: Object.fromEntries(logins.filter((l) => l !== null).map((l) => [l.serveraddress, l])) };
}

/** builds the image of a service from its context in the source tree, tagged with the service's image name. */
export async function buildImage(deps: ImageDeps, s: NormalizedService, io: DeployIo): Promise<void> {
  const b = s.build!;
  const bases = baseImagesOf(b);
  // the builder pulls a base image only when it is missing here: those must come from a registry the policy allows
  for (const base of bases) {
    const refusal = await registryRefusal(deps.outbound, registryHost(base));
    if (refusal && !(await imageId(deps.docker, base))) {
      throw new Error(`building the image of "${s.name}" failed: its base image ${base} is not present locally and is not pulled: ${refusal}`);
    }
  }
  const { hosts, registryconfig } = await buildLogins(deps, bases);
  const logins = Object.values(registryconfig).map((l) => `${l.username} on ${l.serveraddress}`);
  io.log(`${s.name}: building ${s.image}${logins.length ? ` (base images as ${logins.join(', ')})` : ''}`);
  const signal = boundedSignal(io, deps.pullTimeoutMs);
  const stream = await deps.docker.buildImage({ context: b.context, src: readdirSync(b.context) }, {
    t: s.image, dockerfile: b.dockerfile, buildargs: b.args, ...(b.target ? { target: b.target } : {}), rm: true, forcerm: true, abortSignal: signal,
    ...(logins.length ? { registryconfig } : {}),
  } as Dockerode.ImageBuildOptions);
  try {
    await follow(deps.docker, stream, (e) => {
      if (typeof e.stream === 'string') for (const line of e.stream.split('\n')) if (line.trim()) io.log(`${s.name}: ${line.trimEnd()}`);
    });
  } catch (err) {
    const reason = reasonOf(err);
    if (credentialsRefused.test(reason) && hosts.length) {
      throw new Error(`building the image of "${s.name}" failed: a registry refused to give a base image (a login for ${hosts.join(' or ')} is missing or rejected; add or replace it with POST /api/v1/registries): ${reason}`);
    }
    throw new Error(`building the image of "${s.name}" failed: ${reason}`);
  }
}

/** builds the service's image and answers its id */
export async function builtImageId(deps: ImageDeps, s: NormalizedService, io: DeployIo): Promise<string> {
  await buildImage(deps, s, io);
  const id = await imageId(deps.docker, s.image);
  if (!id) throw new Error(`the build of "${s.name}" did not produce ${s.image}`);
  return id;
}

/**
 * Tags a local image as `repository:tag` and pushes it with the saved login of its registry (the registry-auth hook);
 * answers the pushed reference and the digest the registry stored, so nodes pull exactly what was pushed.
 */
export async function pushImage(deps: ImageDeps, image: string, target: { repository: string; tag: string }, io: DeployIo): Promise<{ reference: string; digest: string }> {
  const reference = `${target.repository}:${target.tag}`;
  const host = registryHost(reference);
  const refusal = await registryRefusal(deps.outbound, host);
  if (refusal) throw new Error(`${reference} is not pushed: ${refusal}`);
  const provider = deps.auth();
  const authconfig = provider ? await provider(host) : null;
  await deps.docker.getImage(image).tag({ repo: target.repository, tag: target.tag });
  io.log(`pushing ${reference}${authconfig ? ` (as ${authconfig.username} on ${host})` : ''}`);
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
      const login = authconfig ? `its saved login (user ${authconfig.username}) was rejected` : 'no login for it is saved';
      throw new Error(`the registry ${host} refused the push of ${reference}: ${login}; add or replace it with POST /api/v1/registries (${reason})`);
    }
    throw new Error(`pushing ${reference} to the registry ${host} failed: ${reason}`);
  }
  if (!/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`the registry ${host} answered the push of ${reference} without a digest`);
  io.log(`${reference}: pushed, digest ${digest}`);
  return { reference, digest };
}

/**
 * Makes every image of the services present (pulling or building per pull_policy) and answers their ids by reference.
 * Distinct images are fetched in parallel.
 */
export async function ensureImages(deps: ImageDeps, services: readonly NormalizedService[], io: DeployIo): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const builds = services.filter((s) => s.build && s.pullPolicy === 'build');
  const pulled = new Map<string, NormalizedService['pullPolicy']>();
  for (const s of services) {
    if (s.build && s.pullPolicy === 'build') continue;
    if (pulled.get(s.image) !== 'always') pulled.set(s.image, s.pullPolicy);
  }
  await Promise.all([
    ...[...pulled].map(async ([ref, policy]) => {
      let id = policy === 'always' ? null : await imageId(deps.docker, ref);
      if (!id && policy === 'never') throw new Error(`image "${ref}" is not present locally, and its pull_policy is never`);
      if (!id) {
        try {
          await pullImage(deps, ref, io);
        } catch (err) {
          if (io.signal?.aborted) throw err;
          const local = policy === 'always' ? await imageId(deps.docker, ref) : null;
          if (!local) throw new Error(`image "${ref}" not found locally and could not be pulled: ${reasonOf(err)}`);
          io.log(`${ref}: pulling failed (${reasonOf(err)}); using the local image`);
        }
        id = await imageId(deps.docker, ref);
        if (!id) throw new Error(`image "${ref}" is still missing after pulling it`);
      }
      ids.set(ref, id);
    }),
    ...builds.map(async (s) => { ids.set(s.image, await builtImageId(deps, s, io)); }),
  ]);
  return ids;
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
      if (s.build) for (const ref of baseImagesOf(s.build)) wanted.push({ service: s.name, path: `services.${s.name}.build`, ref, base: true });
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
