// Images of a project: find them locally, pull them (with registry credentials from the auth hook) or build them from the source tree.
import { readdirSync } from 'node:fs';
import type Dockerode from 'dockerode';
import type { DeployIo, NormalizedService, RegistryAuthProvider } from './types.ts';
import { reasonOf, statusOf } from './client.ts';

export interface ImageDeps {
  docker: Dockerode;
  auth: () => RegistryAuthProvider | null;
  pullTimeoutMs: number;
}

/** the registry an image reference lives in, as `docker login` names it. */
export function registryHost(ref: string): string {
  const first = ref.split('/')[0];
  return ref.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost') ? first : 'docker.io';
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
    throw err;
  }
}

/** builds the image of a service from its context in the source tree, tagged with the service's image name. */
export async function buildImage(deps: ImageDeps, s: NormalizedService, io: DeployIo): Promise<void> {
  const b = s.build!;
  io.log(`${s.name}: building ${s.image}`);
  const signal = boundedSignal(io, deps.pullTimeoutMs);
  const stream = await deps.docker.buildImage({ context: b.context, src: readdirSync(b.context) }, {
    t: s.image, dockerfile: b.dockerfile, buildargs: b.args, ...(b.target ? { target: b.target } : {}), rm: true, forcerm: true, abortSignal: signal,
  } as Dockerode.ImageBuildOptions);
  try {
    await follow(deps.docker, stream, (e) => {
      if (typeof e.stream === 'string') for (const line of e.stream.split('\n')) if (line.trim()) io.log(`${s.name}: ${line.trimEnd()}`);
    });
  } catch (err) {
    throw new Error(`building the image of "${s.name}" failed: ${reasonOf(err)}`);
  }
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
    ...builds.map(async (s) => {
      await buildImage(deps, s, io);
      const id = await imageId(deps.docker, s.image);
      if (!id) throw new Error(`the build of "${s.name}" did not produce ${s.image}`);
      ids.set(s.image, id);
    }),
  ]);
  return ids;
}
