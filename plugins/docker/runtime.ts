// The DockerRuntime: one client, the compose engine and the read views behind the API other plugins call.
import type { AccessGuard, ComposeProject, DeployIo, DockerRuntime, LoadedCompose, RegistryAuthProvider } from './types.ts';
import { createClient, reasonOf, statusOf } from './client.ts';
import { loadCompose } from './compose/load.ts';
import { deployProject } from './deploy.ts';
import { imageId, pullImage, type ImageDeps } from './images.ts';
import { removeVolumes, takeDown } from './resources.ts';
import { filterFor } from './labels.ts';
import { engineState, projectStatus, publishedPorts } from './status.ts';
import { projectNamePattern } from './compose/load.ts';

export interface RuntimeOptions {
  endpoint: string;
  timeoutMs: number;
  pullTimeoutMs: number;
  healthTimeoutMs: number;
  stopTimeoutSeconds: number;
  parallel: number;
}

export const runtimeDefaults = { timeoutMs: 30_000, pullTimeoutMs: 600_000, healthTimeoutMs: 120_000, stopTimeoutSeconds: 10, parallel: 8 };

function loadOrThrow(project: ComposeProject): LoadedCompose {
  const loaded = loadCompose(project);
  if (loaded.errors.length) {
    const list = loaded.errors.map((e) => `${e.path ? `${e.path}: ` : ''}${e.message}`).join('; ');
    throw new Error(`the compose file of "${project.name}" has ${loaded.errors.length === 1 ? 'an error' : `${loaded.errors.length} errors`}: ${list}`);
  }
  return loaded;
}

function checkName(name: string): void {
  if (!projectNamePattern.test(name)) throw new Error(`"${name}" is not a project name (${projectNamePattern.source})`);
}

export function createRuntime(opts: RuntimeOptions): DockerRuntime {
  const docker = createClient({ endpoint: opts.endpoint, timeoutMs: opts.timeoutMs });
  let auth: RegistryAuthProvider | null = null;
  let guard: AccessGuard | null = null;
  const images: ImageDeps = { docker, auth: () => auth, pullTimeoutMs: opts.pullTimeoutMs };
  const resources = { docker, stopSeconds: opts.stopTimeoutSeconds };

  return {
    docker,
    endpoint: opts.endpoint,
    load: loadCompose,
    async deploy(project, io) {
      const loaded = loadOrThrow(project);
      return deployProject({ docker, images, stopSeconds: opts.stopTimeoutSeconds, healthTimeoutMs: opts.healthTimeoutMs, parallel: opts.parallel }, project.name, loaded, io);
    },
    async stop(name, io) {
      checkName(name);
      return { removed: await takeDown(resources, name, io, { volumes: false }) };
    },
    async remove(name, io: DeployIo, { volumes }) {
      checkName(name);
      await takeDown(resources, name, io, { volumes });
      if (volumes) await removeVolumes(docker, name, io);
    },
    async pull(project, io) {
      const loaded = loadOrThrow(project);
      const refs = [...new Set(loaded.services.filter((s) => !(s.build && s.pullPolicy === 'build')).map((s) => s.image))];
      const failures: string[] = [];
      const results = await Promise.all(refs.map(async (image) => {
        const before = await imageId(docker, image);
        try {
          await pullImage(images, image, io);
        } catch (err) {
          if (io.signal?.aborted) throw err;
          failures.push(`${image}: ${reasonOf(err)}`);
          return null;
        }
        const after = (await imageId(docker, image))!;
        io.log(`${image}: ${before === after ? 'unchanged' : before ? 'updated' : 'pulled'}`);
        return { image, before, after, changed: before !== after };
      }));
      if (failures.length) throw new Error(`pulling failed for ${failures.join('; ')}`);
      return { images: results.filter((r) => r !== null) };
    },
    async volumes(name) {
      checkName(name);
      const { Volumes } = await docker.listVolumes({ filters: filterFor.project(name) });
      return (Volumes ?? []).map((v) => ({ name: v.Name, driver: v.Driver, mountpoint: v.Mountpoint })).sort((a, b) => a.name.localeCompare(b.name));
    },
    status: (names) => projectStatus(docker, names),
    publishedPorts: (except) => publishedPorts(docker, except),
    engine: () => engineState(docker, opts.endpoint),
    setRegistryAuth(provider: RegistryAuthProvider) { auth = provider; },
    setAccessGuard(g: AccessGuard) { guard = g; },
    errorOf: (err) => ({ status: statusOf(err), reason: reasonOf(err) }),
    allowedProjects: (principal, projects, need) => (guard ? guard(principal, projects, need) : Promise.resolve(new Set(projects))),
  };
}
