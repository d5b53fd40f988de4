// The DockerRuntime: one client, the compose engine and the read views (from the live table when it is followed) behind the API other plugins call.
import type { AddressPool } from './address-pool.ts';
import { compareText, type OutboundApi } from '../../sdk/index.ts';
import type Dockerode from 'dockerode';
import type { ContainerInfo } from 'dockerode';
import type { AccessGuard, ComposeProject, DeployIo, DockerRuntime, EdgeRouting, GitContextFetcher, LoadedCompose, RegistryAuthProvider, ServiceStatus } from './types.ts';
import { createClient, reasonOf, statusOf } from './client.ts';
import { loadCompose } from './compose/load.ts';
import { deployProject } from './deploy.ts';
import { builtImageId } from './build.ts';
import type { BuilderChoice } from './images.ts';
import { imageId, pullImage, pushImage, refusedImages, registryRefusal, type ImageDeps } from './images.ts';
import { registryHost } from './registry-names.ts';
import { filterFor, ownershipOf } from './labels.ts';
import { installationVolumes, removeVolume, removeVolumes, takeDown, volumeProject } from './resources.ts';
import { removeServiceFiles, type SecretsDir } from './secrets.ts';
import { containerNameHolders, engineState, projectStatus, publishedPorts, reservedNetworks, resourceHolders, servicesOfProjects } from './status.ts';
import { projectNamePattern } from './compose/load.ts';
import { asPreview } from './preview.ts';
import type { ContainerWatch } from './watch.ts';

export interface RuntimeOptions {
  endpoint: string;
  /** the installation whose containers are the only ones acted on (see labels.ts) */
  installation: string;
  /** the client to use (default: one on `endpoint`) */
  docker?: Dockerode;
  /** the live container table; without it every read asks the engine */
  watch?: ContainerWatch;
  /** the install's outbound policy, which every registry the engine is asked to contact must pass */
  outbound: OutboundApi;
  timeoutMs: number;
  pullTimeoutMs: number;
  healthTimeoutMs: number;
  stopTimeoutSeconds: number;
  parallel: number;
  /** which builder builds images (default: BuildKit where the engine has it) */
  builder?: BuilderChoice;
  /** where the services' secret and config files are kept (DATA_DIR/plugins/docker/secrets) */
  secretsDir: SecretsDir;
  /** the edge's view of the services it routes, asked at each deploy (it is contributed once every plugin is set up) */
  routing?: () => EdgeRouting | null;
  /** who fetches build contexts given as git URLs (the git plugin, when it is on) */
  gitContexts?: () => GitContextFetcher | null;
  /** the registry logins contributed to registryAuths (the registries plugin) */
  registryAuth?: () => RegistryAuthProvider | null;
  /** who may see and act on the containers of which project, as contributed to accessGuards (the stacks plugin) */
  accessGuard?: () => AccessGuard | null;
  /** where the bridge networks deploys create take their subnets (absent: Docker's default pools) */
  addresses?: AddressPool;
}

export const runtimeDefaults = { timeoutMs: 30_000, pullTimeoutMs: 600_000, healthTimeoutMs: 120_000, stopTimeoutSeconds: 10, parallel: 8, builder: 'auto' as BuilderChoice };

/** the project as compose loads it, changed into a preview when it is one */
const load = (project: ComposeProject): LoadedCompose => (project.preview ? asPreview(loadCompose(project), project.preview) : loadCompose(project));

function loadOrThrow(project: ComposeProject): LoadedCompose {
  const loaded = load(project);
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
  const docker = opts.docker ?? createClient({ endpoint: opts.endpoint, timeoutMs: opts.timeoutMs });
  const { installation } = opts;
  // what the deprecated setters set wins over the extension points' contributions
  let auth: RegistryAuthProvider | null = null;
  let guard: AccessGuard | null = null;
  const authOf = () => auth ?? opts.registryAuth?.() ?? null;
  const guardOf = () => guard ?? opts.accessGuard?.() ?? null;
  const images: ImageDeps = { docker, auth: authOf, pullTimeoutMs: opts.pullTimeoutMs, builder: opts.builder ?? runtimeDefaults.builder, outbound: opts.outbound, gitContexts: opts.gitContexts ?? (() => null) };
  const resources = { docker, installation, stopSeconds: opts.stopTimeoutSeconds, hookTimeoutMs: opts.healthTimeoutMs };
  const visible = (c: ContainerInfo) => ownershipOf(c.Labels, installation).owner !== 'other';
  const ours = (c: ContainerInfo) => ownershipOf(c.Labels, installation).owner === 'this';
  /** the projects of one state of the live table, derived once: a list of stacks reads them on every request */
  let derived: { rows: readonly ContainerInfo[]; projects: Map<string, readonly ServiceStatus[]> } | undefined;

  /** what changed a project's containers ends with the live table shown the result, so the next read sees it */
  const settling = async <R>(project: string, change: () => Promise<R>): Promise<R> => {
    try {
      return await change();
    } finally {
      await opts.watch?.sync({ project }).catch(() => undefined);
    }
  };

  async function projectVolumes(name: string) {
    checkName(name);
    const { Volumes } = await docker.listVolumes({ filters: filterFor.project(name) });
    return (Volumes ?? []).filter((v) => ownershipOf(v.Labels, installation).owner === 'this')
      .map((v) => ({ name: v.Name, driver: v.Driver, mountpoint: v.Mountpoint })).sort((a, b) => compareText(a.name, b.name));
  }

  return {
    docker,
    endpoint: opts.endpoint,
    installationId: installation,
    load,
    async deploy(project, io) {
      const loaded = loadOrThrow(project);
      return settling(project.name, () => deployProject({ docker, installation, images, stopSeconds: opts.stopTimeoutSeconds, healthTimeoutMs: opts.healthTimeoutMs, parallel: opts.parallel, secretsDir: opts.secretsDir, routing: opts.routing?.() ?? null, addresses: opts.addresses }, project.name, loaded, io));
    },
    async stop(name, io) {
      checkName(name);
      const removed = await settling(name, () => takeDown(resources, name, io, { volumes: false }));
      removeServiceFiles(opts.secretsDir, name);
      return { removed };
    },
    async remove(name, io: DeployIo, { volumes }) {
      checkName(name);
      await settling(name, () => takeDown(resources, name, io, { volumes }));
      removeServiceFiles(opts.secretsDir, name);
      if (volumes) return { volumes: { kept: [], removed: await removeVolumes(resources, name, io) } };
      const kept = (await projectVolumes(name)).map((v) => v.name);
      if (kept.length) io.log(`volumes kept: ${kept.join(', ')}`);
      return { volumes: { kept, removed: [] } };
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
    async build(service, io) {
      if (!service.build) throw new Error(`the service "${service.name}" has no build section`);
      return builtImageId(images, service, io);
    },
    push: (image, target, io) => pushImage(images, image, target, io),
    pullImage: (ref, io) => pullImage(images, ref, io),
    refusedImages: (services) => refusedImages(images, services),
    registryRefusal: (ref) => registryRefusal(opts.outbound, registryHost(ref)),
    volumes: projectVolumes,
    installationVolumes: (o) => installationVolumes(resources, o),
    volumeProject: (name) => volumeProject(resources, name),
    removeVolume: (name) => removeVolume(resources, name),
    async status(names) {
      if (!names.length) return new Map();
      const rows = opts.watch?.containers();
      if (!rows) {
        const list = await docker.listContainers({ all: true, size: false, filters: names.length === 1 ? filterFor.project(names[0]) : filterFor.managed() });
        return servicesOfProjects(projectStatus(list.filter(ours)), names);
      }
      if (derived?.rows !== rows) derived = { rows, projects: projectStatus(rows.filter(ours)) };
      return servicesOfProjects(derived.projects, names);
    },
    /**
     * The containers a read may show (this installation's and those not made by Dockwright) that the filter accepts. From
     * the live table while the events stream is followed; else one list call, which the engine narrows first.
     */
    async containers(filter = {}) {
      const filters: Record<string, string[]> = {};
      if (filter.project) filters.label = filterFor.project(filter.project).label;
      if (filter.state) filters.status = [filter.state];
      const list = opts.watch?.containers() ?? await docker.listContainers({ all: true, size: false, filters });
      return list.filter((c) => {
        if (!visible(c) || (filter.state && c.State !== filter.state)) return false;
        if (filter.project === undefined) return true;
        const owner = ownershipOf(c.Labels, installation);
        return owner.owner === 'this' && owner.project === filter.project;
      });
    },
    async listed(id) {
      const list = opts.watch ? await opts.watch.sync({ id }) : await docker.listContainers({ all: true, size: false, filters: { id: [id] } });
      return list.find((c) => c.Id === id) ?? null;
    },
    ownership: (labels) => ownershipOf(labels, installation),
    publishedPorts: (except) => publishedPorts(docker, installation, except),
    containerNameHolders: (names) => containerNameHolders(docker, installation, names),
    resourceHolders: (kind, names) => resourceHolders(docker, installation, kind, names),
    reservedNetworks: (names) => reservedNetworks(docker, names),
    async engine() {
      const version = opts.watch?.version();
      return version ? { ok: true, version } : engineState(docker, opts.endpoint);
    },
    setRegistryAuth(provider: RegistryAuthProvider) { auth = provider; },
    setAccessGuard(g: AccessGuard) { guard = g; },
    errorOf: (err) => ({ status: statusOf(err), reason: reasonOf(err) }),
    allowedProjects: (principal, projects, need) => guardOf()?.(principal, projects, need) ?? Promise.resolve(new Set(projects)),
  };
}
