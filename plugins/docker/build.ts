// Image builds from a service's build section: BuildKit through the Engine API (no client session), the classic builder where the engine has none; the context as a tar, the progress as job lines, a failure naming its step.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import dockerignore from '@balena/dockerignore';
import type Dockerode from 'dockerode';
import { create as tarCreate, Header, type WriteEntry } from 'tar';
import { isWithin, linkOutOf, realExisting } from '../../sdk/index.ts';
import { BuildProgress, decodeStatus } from './buildkit-status.ts';
import { reasonOf } from './client.ts';
import { baseImages, dockerfileText, sessionFeatures, stepLine, syntaxImage } from './dockerfile.ts';
import { olderFrontend, translateForEngine, type ContextFile } from './dockerfile-translate.ts';
import { engineAuth, repositoryOf, type EngineAuthConfig } from './registry-auth.ts';
import { boundedSignal, credentialsRefused, follow, imageId, pullImage, registryRefusal, type BuilderChoice, type ImageDeps } from './images.ts';
import { registryHost } from './registry-names.ts';
import type { DeployIo, NormalizedBuild, NormalizedService } from './types.ts';

export interface Builder { kind: 'buildkit' | 'classic'; why: string; /** the engine's version, when asked */ engine?: string }

/** the Engine API version that brought BuildKit builds (`version=2`, Docker Engine 18.09) */
const buildkitApi = [1, 39];

/** the builder an engine offers, from its `GET /version` answer: BuildKit on Linux engines of API 1.39 and later */
export function builderOf(version: { Os?: string; ApiVersion?: string; Version?: string }): Builder {
  const [major = 0, minor = 0] = (version.ApiVersion ?? '').split('.').map(Number);
  if ((version.Os ?? 'linux') !== 'linux') return { kind: 'classic', why: `the engine runs on ${version.Os}, where it has no BuildKit` };
  if (major < buildkitApi[0] || (major === buildkitApi[0] && minor < buildkitApi[1])) {
    return { kind: 'classic', why: `the engine's API ${version.ApiVersion} predates BuildKit (1.39, Docker Engine 18.09)` };
  }
  return { kind: 'buildkit', why: '', ...(version.Version ? { engine: version.Version } : {}) };
}

const detected = new WeakMap<Dockerode, Promise<Builder>>();
async function builderFor(docker: Dockerode, choice: BuilderChoice): Promise<Builder> {
  if (choice !== 'auto') return { kind: choice, why: 'the docker plugin\'s option builder says so' };
  let found = detected.get(docker);
  if (!found) {
    found = docker.version().then((v) => builderOf(v));
    detected.set(docker, found);
    found.catch(() => detected.delete(docker));
  }
  return found;
}

/** where an inline Dockerfile (`dockerfile_inline`) goes in the context sent to the engine */
export const inlineDockerfileName = '.dockwright-inline.Dockerfile';

/** how much of the context is read ahead of the engine, which starts reading it only once its build has begun (per build: a deploy builds its services together) */
const readAhead = 8 * 1024 * 1024;

/**
 * Entries without access and change times (reading a file changes its access time): the same tree gives the same bytes,
 * so BuildKit, which keys the context by its digest, takes its unpacking of an unchanged context from the cache.
 */
const timeless = (entry: WriteEntry) => { if (entry.stat) Object.assign(entry.stat, { atime: undefined, ctime: undefined }); };

/** the largest `.dockerignore` read (Docker's own are a few hundred bytes) */
const maxIgnoreBytes = 1 << 20;

/**
 * The text of the context's `.dockerignore`, or null when it has none. The tree is the user's (a git checkout may hold
 * any link): a link out of the context, or anything but a regular file of a bounded size, fails the build naming it,
 * never reading a host file (or a device that never ends) in its place.
 */
export function dockerignoreText(b: NormalizedBuild, service: string): string | null {
  const out = linkOutOf(b.context, '.dockerignore');
  if (out) throw new Error(`building the image of "${service}" failed: its .dockerignore is a symbolic link to ${out.target}, out of the build context; refusing to read it`);
  const st = statSync(join(b.context, '.dockerignore'), { throwIfNoEntry: false });
  if (!st) return null;
  if (!st.isFile() || st.size > maxIgnoreBytes) throw new Error(`building the image of "${service}" failed: its .dockerignore is ${st.isFile() ? `larger than ${maxIgnoreBytes} bytes` : 'not a regular file'}`);
  return readFileSync(join(b.context, '.dockerignore'), 'utf8');
}

/**
 * The build context as the engine wants it: a tar of the context directory without what `.dockerignore` excludes (the
 * Dockerfile and `.dockerignore` itself always go), and the inline Dockerfile as a file of its own. Made ahead of the
 * engine's reading (up to `readAhead`), with the same bytes for the same tree.
 */
export function contextTar(b: NormalizedBuild, added: ContextFile[] = [], ignoreText: string | null = null): Readable {
  let ignore: ((path: string) => boolean) | null = null;
  let negations = false;
  if (ignoreText !== null) {
    // the package is CommonJS typed as an ES module: its function is also its own `default`
    const rules = dockerignore.default({ ignorecase: false }).add(ignoreText);
    ignore = (path) => rules.ignores(path);
    negations = /^\s*!/m.test(ignoreText);
  }
  const keep = (path: string, entry: { isDirectory?: () => boolean }) => {
    const rel = path.replace(/^\.\//, '');
    if (!ignore || rel === b.dockerfile || rel === '.dockerignore' || !ignore(rel)) return true;
    // an excluded directory is walked when a `!` rule may take something inside it back
    return negations && !!entry.isDirectory?.();
  };
  // files are read 1 MiB at a time (the package reads up to 16 MiB at once), so what is made ahead stays near readAhead
  const pack = tarCreate({ cwd: b.context, filter: keep as (path: string) => boolean, onWriteEntry: timeless, maxReadSize: 1024 * 1024 }, readdirSync(b.context).sort());
  const out = new PassThrough({ readableHighWaterMark: readAhead });
  const inline = b.dockerfileInline !== undefined ? [{ path: inlineDockerfileName, content: b.dockerfileInline, mode: 0o644 }] : [];
  for (const file of [...inline, ...added]) {
    const body = Buffer.from(file.content);
    const header = new Header({ path: file.path, mode: file.mode, size: body.length, mtime: new Date(0), type: 'File', uid: 0, gid: 0 });
    header.encode();
    out.write(header.block);
    out.write(Buffer.concat([body, Buffer.alloc((512 - (body.length % 512)) % 512)]));
  }
  (pack as unknown as Readable).on('error', (err) => out.destroy(err));
  (pack as unknown as Readable).pipe(out);
  return out;
}

/** the engine's query for a build (POST /build) */
function buildQuery(s: NormalizedService, b: NormalizedBuild, builder: Builder, cacheFrom: string[]): Record<string, unknown> {
  return {
    t: s.image,
    dockerfile: b.dockerfileInline !== undefined ? inlineDockerfileName : b.dockerfile,
    buildargs: JSON.stringify(b.args),
    ...(b.target ? { target: b.target } : {}),
    ...(b.labels && Object.keys(b.labels).length ? { labels: JSON.stringify(b.labels) } : {}),
    ...(b.network ? { networkmode: b.network } : {}),
    ...(b.shmSize ? { shmsize: b.shmSize } : {}),
    ...(b.extraHosts?.length ? { extrahosts: b.extraHosts.join(',') } : {}),
    ...(b.platform ? { platform: b.platform } : {}),
    ...(b.noCache ? { nocache: '1' } : {}),
    ...(cacheFrom.length ? { cachefrom: JSON.stringify(cacheFrom) } : {}),
    // BuildKit gets its base images from the engine's store, where they were pulled before; the classic builder pulls itself
    ...(builder.kind === 'buildkit' ? { version: '2' } : { rm: '1', forcerm: '1', ...(b.pull ? { pull: '1' } : {}) }),
  };
}

type RegistryConfig = Record<string, EngineAuthConfig>;

/** POST /build with the context as the body (no session: BuildKit's secrets and SSH need one); answers the progress stream */
function postBuild(docker: Dockerode, body: Readable, query: Record<string, unknown>, registryconfig: RegistryConfig, signal: AbortSignal): Promise<NodeJS.ReadableStream> {
  return new Promise((resolve, reject) => {
    (docker.modem as unknown as { dial(o: object, cb: (err: unknown, data?: unknown) => void): void }).dial({
      path: '/build?', method: 'POST', file: body, options: query, isStream: true, abortSignal: signal,
      ...(Object.keys(registryconfig).length ? { registryconfig } : {}),
      statusCodes: { 200: true, 400: 'bad parameter', 500: 'server error' },
    }, (err, data) => (err ? reject(err) : resolve(data as NodeJS.ReadableStream)));
  });
}

/**
 * What the engine authenticates with to the registries the build pulls from, keyed as its X-Registry-Config wants: per
 * registry a token for its repositories, fetched here from a checked token service (registry-auth.ts), with the user
 */
async function logins(deps: ImageDeps, refs: string[]): Promise<{ config: RegistryConfig; users: string[] }> {
  const byRegistry = new Map<string, string[]>();
  for (const ref of refs) byRegistry.set(registryHost(ref), [...(byRegistry.get(registryHost(ref)) ?? []), repositoryOf(ref)]);
  const found = await Promise.all([...byRegistry].map(async ([host, repositories]) => ({ host, ...await engineAuth(deps.outbound, deps.auth(), host, repositories, 'pull') })));
  const config: RegistryConfig = {};
  for (const f of found) if (f.authconfig) config[f.authconfig.serveraddress] = f.authconfig;
  return { config, users: found.flatMap((f) => (f.username ? [`${f.username} on ${f.host}`] : [])) };
}

/** an image's id on the engine, asked once per build (the policy check and the pulls before a build both want it) */
type LocalId = (ref: string) => Promise<string | null>;
function lookups(docker: Dockerode): LocalId {
  const seen = new Map<string, Promise<string | null>>();
  return (ref) => {
    let id = seen.get(ref);
    if (!id) seen.set(ref, id = imageId(docker, ref));
    return id;
  };
}

/**
 * BuildKit over the Engine API cannot pull (that takes a client session): it finds its base images in the engine's store.
 * So those the Dockerfile names are pulled first, through the engine, with their saved logins: missing ones, or all
 * with `pull`. Cache sources are pulled when missing and left out when that fails.
 */
async function pullForBuildKit(deps: ImageDeps, s: NormalizedService, bases: string[], localId: LocalId, io: DeployIo): Promise<string[]> {
  const b = s.build!;
  await Promise.all(bases.map(async (ref) => {
    if (!b.pull && await localId(ref)) return;
    try {
      await pullImage(deps, ref, io);
    } catch (err) {
      if (io.signal?.aborted) throw err;
      const reason = reasonOf(err);
      if (credentialsRefused.test(reason)) {
        throw new Error(`building the image of "${s.name}" failed: a registry refused to give the base image ${ref} (a login for ${registryHost(ref)} is missing or rejected; add or replace it with POST /api/v1/registries): ${reason}`);
      }
      throw new Error(`building the image of "${s.name}" failed: its base image ${ref} could not be pulled: ${reason}`);
    }
  }));
  const cacheFrom: string[] = [];
  for (const ref of b.cacheFrom ?? []) {
    if (!(await localId(ref))) {
      try { await pullImage(deps, ref, io); } catch (err) {
        if (io.signal?.aborted) throw err;
        io.log(`${s.name}: cache_from ${ref} is not present and could not be pulled (${reasonOf(err)}); building without it`);
        continue;
      }
    }
    cacheFrom.push(ref);
  }
  return cacheFrom;
}

/** the job's error for a failed BuildKit build: the step that failed and its Dockerfile line, or the feature that is missing */
function buildKitFailure(s: NormalizedService, text: string | null, progress: BuildProgress, reason: string): string {
  const what = `building the image of "${s.name}" failed`;
  if (/no active sessions/.test(reason)) {
    const features = text ? sessionFeatures(text) : [];
    if (features.length) return `${what}: ${features.join(' and ')} need a BuildKit session, which Dockwright's builds through the Engine API do not open (not supported)`;
    const metadata = /^\[internal\] load metadata for (\S+)/.exec(progress.failed?.name ?? '');
    if (metadata) return `${what}: the base image ${metadata[1]} is not on the engine, and BuildKit through the Engine API cannot pull it itself; name it without build args Dockwright cannot fill in, so that it is pulled first, or pull it onto the engine`;
    return `${what}: the build needs a BuildKit session, which Dockwright's builds through the Engine API do not open: ${reason}`;
  }
  if (progress.failed && /^\[/.test(progress.failed.name) && !progress.failed.name.startsWith('[internal]')) {
    const line = text ? stepLine(text, progress.failed.name) : null;
    return `${what} at step ${progress.failed.name}${line ? ` (Dockerfile line ${line})` : ''}: ${progress.failed.error}`;
  }
  if (/dockerfile parse error/i.test(reason) && text && !syntaxImage(text)) {
    return `${what}: ${reason} (the engine's built-in Dockerfile frontend read it; newer syntax such as heredocs, COPY --link or RUN --network needs Docker Engine 23 or later, or a "# syntax=docker/dockerfile:1" line with that image pullable)`;
  }
  return `${what}: ${reason}`;
}

/**
 * Builds the image of a service from its context in the source tree, tagged with the service's image name; answers the
 * image's id when the engine gave it at the end of the build (BuildKit does).
 */
export async function buildImage(deps: ImageDeps, s: NormalizedService, io: DeployIo): Promise<string | null> {
  const b = s.build!;
  const ignoreText = dockerignoreText(b, s.name);
  const builder = await builderFor(deps.docker, deps.builder);
  const text = dockerfileText(b);
  // syntax newer than the engine's built-in frontend is translated (dockerfile-translate.ts); a `# syntax=` image is then not pulled
  const older = await olderFrontend(deps.docker, builder.kind, text);
  const bases = text ? baseImages(text, b.args).filter((ref) => !older || ref !== syntaxImage(text)) : [];
  const localId = lookups(deps.docker);
  // a base image missing here is pulled (by Dockwright for BuildKit, by the engine for the classic builder): only from a registry the policy allows
  const refusals = await Promise.all(bases.map(async (base) => {
    const refusal = await registryRefusal(deps.outbound, registryHost(base));
    return refusal && !(await localId(base)) ? `building the image of "${s.name}" failed: its base image ${base} is not present locally and is not pulled: ${refusal}` : null;
  }));
  const refused = refusals.find((r) => r !== null);
  if (refused) throw new Error(refused);
  // only the classic builder pulls by itself (Dockwright pulls for BuildKit): tokens of checked token services for what it
  // pulls (every base with build.pull, else the missing ones)
  const missing = builder.kind !== 'classic' ? [] : b.pull ? bases : (await Promise.all(bases.map(async (base) => ((await localId(base)) ? [] : [base])))).flat();
  const { config: registryconfig, users } = await logins(deps, [...missing, ...(builder.kind === 'classic' ? b.cacheFrom ?? [] : [])]);
  io.log(`${s.name}: building ${s.image}${users.length ? ` (base images as ${users.join(', ')})` : ''} ${builder.kind === 'buildkit' ? 'with BuildKit' : `with the classic builder (${builder.why})`}`);
  if (builder.kind === 'buildkit') {
    // measured on 20.10: its BuildKit leaves /dev/shm of RUN steps at 64 MB whatever the build asks
    if (b.shmSize && /^(1\d|20)\./.test(builder.engine ?? '')) io.log(`${s.name}: warning: build.shm_size is not applied by the BuildKit of Docker Engine ${builder.engine} (RUN steps get 64 MB)`);
    const features = text ? sessionFeatures(text) : [];
    if (features.length) throw new Error(`building the image of "${s.name}" failed: ${features.join(' and ')} need a BuildKit session, which Dockwright's builds through the Engine API do not open (not supported)`);
  }
  const signal = boundedSignal(io, deps.pullTimeoutMs);
  const cacheFrom = builder.kind === 'buildkit' ? await pullForBuildKit(deps, s, bases, localId, io) : b.cacheFrom ?? [];
  const sent = older ? await translateForEngine(deps.docker, b, text!, older, io, s.name) : { build: b, files: [] };
  const progress = new BuildProgress((line) => io.log(`${s.name}: ${line}`));
  let built: string | null = null;
  try {
    const stream = await postBuild(deps.docker, contextTar(sent.build, sent.files, ignoreText), buildQuery(s, sent.build, builder, cacheFrom), builder.kind === 'classic' ? registryconfig : {}, signal);
    await follow(deps.docker, stream, (e) => {
      if (e.id === 'moby.buildkit.trace' && typeof e.aux === 'string') progress.add(decodeStatus(e.aux));
      else if (e.id === 'moby.image.id') { const id = (e.aux as { ID?: unknown } | undefined)?.ID; if (typeof id === 'string') built = id; }
      else if (typeof e.stream === 'string') for (const line of e.stream.split('\n')) if (line.trim()) io.log(`${s.name}: ${line.trimEnd()}`);
    });
  } catch (err) {
    progress.end();
    if (signal.aborted && !io.signal?.aborted) throw new Error(`building the image of "${s.name}" took longer than ${Math.round(deps.pullTimeoutMs / 1000)} s`);
    const reason = reasonOf(err);
    if (builder.kind === 'buildkit') throw new Error(buildKitFailure(s, text, progress, reason));
    if (credentialsRefused.test(reason) && bases.length) {
      throw new Error(`building the image of "${s.name}" failed: a registry refused to give a base image (a login for ${[...new Set(bases.map(registryHost))].join(' or ')} is missing or rejected; add or replace it with POST /api/v1/registries): ${reason}`);
    }
    throw new Error(`building the image of "${s.name}" failed: ${reason}`);
  } finally {
    progress.end();
  }
  return built;
}

/**
 * A git build context fetched (by the git plugin) for the length of `build`: the service as it builds from the checkout's
 * folder. Nothing of the checkout is trusted: the folder and the Dockerfile must be inside it, symbolic links included.
 */
async function fromGit<T>(deps: ImageDeps, s: NormalizedService, io: DeployIo, build: (s: NormalizedService) => Promise<T>): Promise<T> {
  const b = s.build!;
  const { dir } = b.git!;
  const fetcher = deps.gitContexts();
  if (!fetcher) throw new Error(`the build context of "${s.name}" is a git repository, which the git plugin fetches, and it is off: enable plugins.git, or build from a folder of the source tree`);
  return fetcher(b.git!, { ...io, log: (line) => io.log(`${s.name}: ${line}`) }, async (tree, commit) => {
    const at = `at commit ${commit.slice(0, 12)}`;
    const context = realExisting(join(tree, dir ?? '.'));
    if (!isWithin(tree, context) || !statSync(context, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`the build context of "${s.name}": the repository has no folder ${dir} ${at}`);
    if (b.dockerfileInline === undefined) {
      const file = realExisting(join(context, b.dockerfile));
      if (!isWithin(context, file) || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
        throw new Error(`the build of "${s.name}": there is no ${b.dockerfile} in ${dir ? `the folder ${dir} of the repository` : 'the repository'} ${at}`);
      }
    }
    return build({ ...s, build: { ...b, context } });
  });
}

/** builds the service's image (from its git context, fetched first, when it has one) and answers its id */
export async function builtImageId(deps: ImageDeps, s: NormalizedService, io: DeployIo): Promise<string> {
  if (s.build?.git && !s.build.context) return fromGit(deps, s, io, (fetched) => builtImageId(deps, fetched, io));
  const id = (await buildImage(deps, s, io)) ?? await imageId(deps.docker, s.image);
  if (!id) throw new Error(`the build of "${s.name}" did not produce ${s.image}`);
  return id;
}
