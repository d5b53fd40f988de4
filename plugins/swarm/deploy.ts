// The swarm runtime: a loaded compose project converged as Swarm services (overlay networks, secrets and configs, rolling updates with rollback) through the Engine API.
import { createHash } from 'node:crypto';
import type Dockerode from 'dockerode';
import { registryHost } from '../docker/api.ts';
import type { ComposeProject, DeployIo, DockerRuntime, FileReference, LoadedCompose, NormalizedService, ServiceStatus } from '../docker/types.ts';

/** the docker plugin's ownership labels (so its views and port checks know task containers as the stack's), and the spec hash */
export const labels = { managed: 'dockwright.managed', installation: 'dockwright.installation', project: 'dockwright.project', service: 'dockwright.service', spec: 'dockwright.spec-hash', tasks: 'dockwright.task-hash' } as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** what the swarm runtime will not run, each with its path: the stacks plugin refuses these at validation (422) */
export function swarmIssues(loaded: LoadedCompose, registry: string | null): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  const raw = isObj(loaded.raw.services) ? loaded.raw.services : {};
  for (const s of loaded.services) {
    const path = `services.${s.name}`;
    const r = isObj(raw[s.name]) ? raw[s.name] as Obj : {};
    if ((s.build || r.build !== undefined) && !registry) issues.push({ path: `${path}.build`, message: 'a swarm stack cannot build without a registry: workers cannot pull an image built on the manager. Set the swarm plugin option registry (plugins.swarm.options.registry, e.g. registry.example.com/team) to build and push it there, or push the image yourself and name it in image' });
    if (isObj(r.depends_on)) issues.push({ path: `${path}.depends_on`, message: 'long-form depends_on (conditions) has no meaning on a swarm: services start in any order. Use the list form, or a healthcheck and retries in the service' });
    if (s.containerName) issues.push({ path: `${path}.container_name`, message: 'a swarm service has one container per task: container_name cannot be kept' });
    if (s.networkMode) issues.push({ path: `${path}.network_mode`, message: 'network_mode is not available to swarm services: use networks' });
    for (const kind of ['secrets', 'configs'] as const) {
      const map = r[`x-dockwright-${kind}`];
      if (map !== undefined && !(isObj(map) && Object.values(map).every((v) => typeof v === 'string'))) {
        issues.push({ path: `${path}.x-dockwright-${kind}`, message: `must map a ${kind === 'secrets' ? 'secret file name' : 'file path in the container'} to the name of one of the stack's variables` });
      }
    }
  }
  return issues;
}

/** a stack runs on the swarm when its compose file asks for it (x-dockwright.runtime), or by the install default */
export function wantsSwarm(raw: Obj, installDefault: boolean): boolean {
  const ext = isObj(raw['x-dockwright']) ? raw['x-dockwright'] : {};
  if (ext.runtime === 'swarm') return true;
  if (ext.runtime === 'compose') return false;
  return installDefault;
}

const ns = (seconds: unknown): number | undefined => {
  if (typeof seconds === 'number') return seconds * 1e9;
  if (typeof seconds !== 'string') return undefined;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(seconds.trim());
  if (!m) return undefined;
  return Number(m[1]) * ({ ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 }[m[2] ?? 's'] ?? 1e9);
};

/** the labels by which a service asks the edge for a hostname: its tasks carry them, so the edge follows the tasks */
const edgeLabels = (serviceLabels: Record<string, string>) => Object.fromEntries(Object.entries(serviceLabels).filter(([k]) => k.startsWith('dockwright.http.')));

/**
 * The update order a service gets when update_config names none: start-first for a service the edge routes (a new task
 * beside the old, health-gated, as the compose runtime does), unless it publishes a port in host mode (which cannot
 * be bound twice on a node); stop-first, swarm's own default, for the others.
 */
function defaultOrder(s: NormalizedService, raw: Obj): 'start-first' | 'stop-first' {
  const routed = s.labels['dockwright.http.host'] !== undefined;
  const hostPorts = s.ports.some((p) => p.published && isHostMode(raw, p.target));
  return routed && !hostPorts ? 'start-first' : 'stop-first';
}

function updateConfig(v: unknown, fallback: 'rollback' | 'pause', order: 'start-first' | 'stop-first' = 'stop-first') {
  const c = isObj(v) ? v : {};
  return {
    Parallelism: typeof c.parallelism === 'number' ? c.parallelism : 1,
    Delay: ns(c.delay) ?? 0,
    FailureAction: typeof c.failure_action === 'string' ? c.failure_action : fallback,
    Monitor: ns(c.monitor) ?? 5e9,
    MaxFailureRatio: typeof c.max_failure_ratio === 'number' ? c.max_failure_ratio : 0,
    Order: c.order === 'start-first' || c.order === 'stop-first' ? c.order : order,
  };
}

export interface SwarmDeps {
  docker: Dockerode; installation: string; pollMs: number; convergeTimeoutMs: number;
  /** where images built on the manager are pushed (a registry host and path prefix); null: builds are refused */
  registry: string | null;
  images: Pick<DockerRuntime, 'build' | 'push' | 'refusedImages'>;
  /** the saved login of a registry (the registries plugin, through the docker plugin's registry-auth point), handed to the swarm so every node pulls with it */
  login(registryHost: string): Promise<Dockerode.AuthConfig | null>;
}

const serviceName = (project: string, service: string) => `${project}_${service}`;
const ownLabels = (deps: SwarmDeps, project: string, extra: Obj = {}) => ({ ...extra, [labels.managed]: 'true', [labels.installation]: deps.installation, [labels.project]: project }) as Record<string, string>;
const projectFilter = (deps: SwarmDeps, project: string) => ({ label: [`${labels.installation}=${deps.installation}`, `${labels.project}=${project}`] });

async function ensureNetworks(deps: SwarmDeps, project: string, loaded: LoadedCompose, io: DeployIo): Promise<void> {
  const existing = new Set((await deps.docker.listNetworks({ filters: { driver: ['overlay'] } })).map((n) => n.Name));
  for (const n of loaded.networks) {
    if (n.external || existing.has(n.name)) continue;
    io.log(`creating overlay network ${n.name}`);
    await deps.docker.createNetwork({ Name: n.name, Driver: 'overlay', Attachable: true, Internal: n.internal, Labels: ownLabels(deps, project, n.labels), CheckDuplicate: true });
  }
}

type Kind = 'secrets' | 'configs';
type Stored = Map<string, { id: string; name: string }>;

/** the engine calls of swarm secrets and configs, which work alike */
const store = (docker: Dockerode, kind: Kind) => ({
  list: async (filters: Obj) => ((kind === 'secrets' ? await docker.listSecrets({ filters }) : await docker.listConfigs({ filters })) as { ID: string; Spec?: { Name?: string } }[]),
  create: async (spec: Obj) => ((kind === 'secrets' ? await docker.createSecret(spec) : await docker.createConfig(spec)) as unknown as { id: string }).id,
  remove: (id: string) => (kind === 'secrets' ? docker.getSecret(id) : docker.getConfig(id)).remove(),
});

/** secrets and configs are immutable on a swarm: one per value (named by its hash), the unused ones removed after the update */
async function ensureStored(deps: SwarmDeps, kind: Kind, project: string, wanted: Map<string, { data: Buffer; labels?: Record<string, string> }>): Promise<Stored> {
  const engine = store(deps.docker, kind);
  const present = new Map((await engine.list(projectFilter(deps, project))).map((s) => [s.Spec?.Name ?? '', s.ID]));
  const out: Stored = new Map();
  for (const [key, { data, labels: extra }] of wanted) {
    const name = `${project}_${key.replace(/[^A-Za-z0-9_.-]/g, '_')}_${createHash('sha256').update(data).digest('hex').slice(0, 12)}`.slice(-64);
    const id = present.get(name) ?? await engine.create({ Name: name, Labels: ownLabels(deps, project, extra), Data: data.toString('base64') });
    out.set(key, { id, name });
  }
  return out;
}

/** the compose file's external secrets and configs the services use, by the names the swarm knows them by */
async function findExternal(deps: SwarmDeps, kind: Kind, loaded: LoadedCompose): Promise<Stored> {
  const out: Stored = new Map();
  const engine = store(deps.docker, kind);
  const used = new Set(loaded.services.flatMap((s) => s[kind].map((r) => r.source)));
  for (const o of loaded[kind].filter((x) => x.external && used.has(x.key))) {
    const found = (await engine.list({ name: [o.name] })).find((x) => x.Spec?.Name === o.name);
    if (!found) throw new Error(`the external ${kind === 'secrets' ? 'secret' : 'config'} "${o.name}" (${kind}.${o.key}) does not exist on the swarm: create it first (docker ${kind === 'secrets' ? 'secret' : 'config'} create)`);
    out.set(`compose:${o.key}`, { id: found.ID, name: o.name });
  }
  return out;
}

/** a compose reference as the swarm mounts it: a secret's target under /run/secrets by its name there, others by their absolute path */
const fileOf = (kind: Kind, r: FileReference) => ({
  Name: kind === 'secrets' && r.target.startsWith('/run/secrets/') ? r.target.slice('/run/secrets/'.length) : r.target,
  UID: r.uid ?? '0', GID: r.gid ?? '0', Mode: r.mode,
});

/** the service's x-dockwright-secrets or -configs: file (or path) → the stack variable that holds its content */
const mapOf = (raw: Obj, kind: Kind): Record<string, string> => (isObj(raw[`x-dockwright-${kind}`]) ? raw[`x-dockwright-${kind}`] as Record<string, string> : {});

/**
 * A registry repository name for `<stack>_<service>`: lower case, and every run of characters a repository path may not
 * hold there (or a separator run it does not allow, like "-_") made one "_".
 */
export function repositoryOf(registry: string, project: string, service: string): string {
  const component = `${project}_${service}`.toLowerCase()
    .replace(/[^a-z0-9]+/g, (run) => (/^([._]|__|-+)$/.test(run) ? run : '_'))
    .replace(/[^a-z0-9]+$/, '');
  return `${registry.replace(/\/+$/, '')}/${component}`;
}

/**
 * Builds every service that has a build section on the manager and pushes it to the registry, before any service is
 * touched: the image reference (repository:tag@digest) each such service runs. The tag is the image id's start, so an
 * unchanged tree pushes the same tag and leaves the service alone.
 */
async function buildAndPush(deps: SwarmDeps, project: string, loaded: LoadedCompose, io: DeployIo): Promise<Map<string, string>> {
  const images = new Map<string, string>();
  const registry = deps.registry;
  if (!registry) return images;
  for (const s of loaded.services.filter((x) => x.build)) {
    const id = await deps.images.build(s, io);
    const tag = id.replace(/^sha256:/, '').slice(0, 16);
    let pushed: { reference: string; digest: string };
    try {
      pushed = await deps.images.push(s.image, { repository: repositoryOf(registry, project, s.name), tag }, io);
    } catch (err) {
      throw new Error(`${(err as Error).message}; no service was changed`);
    }
    images.set(s.name, `${pushed.reference}@${pushed.digest}`);
  }
  return images;
}

function specOf(deps: SwarmDeps, project: ComposeProject, loaded: LoadedCompose, s: NormalizedService, stored: Record<Kind, Stored>, image: string, warn: (l: string) => void): Obj {
  const rawServices = isObj(loaded.raw.services) ? loaded.raw.services : {};
  const raw = isObj(rawServices[s.name]) ? rawServices[s.name] as Obj : {};
  const deploy = isObj(raw.deploy) ? raw.deploy : {};
  const placement = isObj(deploy.placement) ? deploy.placement : {};
  const constraints = Array.isArray(placement.constraints) ? placement.constraints.map(String) : [];
  const namedVolumes = s.mounts.filter((m) => m.type === 'volume' && m.source);
  if (namedVolumes.length && !constraints.length) {
    // a named volume lives on one node: without a constraint a task moved elsewhere starts on an empty volume
    constraints.push('node.role == manager');
    warn(`service ${s.name} uses named volumes, which are per node: it is placed on the manager (node.role == manager); set deploy.placement.constraints to choose`);
  }
  return {
    Name: serviceName(project.name, s.name),
    Labels: ownLabels(deps, project.name, { ...s.labels, [labels.service]: s.name }),
    TaskTemplate: {
      ContainerSpec: {
        Image: image,
        ...(s.entrypoint ? { Command: s.entrypoint } : {}),
        ...(s.command ? { Args: s.command } : {}),
        Env: Object.entries(s.environment).map(([k, v]) => `${k}=${v}`),
        Labels: ownLabels(deps, project.name, { ...edgeLabels(s.labels), [labels.service]: s.name }),
        ...(s.user ? { User: s.user } : {}),
        ...(s.workingDir ? { Dir: s.workingDir } : {}),
        ...(s.hostname ? { Hostname: s.hostname } : {}),
        ...(s.stopSignal ? { StopSignal: s.stopSignal } : {}),
        StopGracePeriod: (s.stopGracePeriodSeconds ?? 10) * 1e9,
        ...(s.healthcheck ? { Healthcheck: { Test: s.healthcheck.test, Interval: s.healthcheck.intervalNs, Timeout: s.healthcheck.timeoutNs, Retries: s.healthcheck.retries, StartPeriod: s.healthcheck.startPeriodNs } } : {}),
        Mounts: s.mounts.filter((m) => m.type === 'volume' || m.type === 'bind' || m.type === 'tmpfs').map((m) => ({ Type: m.type, Source: m.source || undefined, Target: m.target, ReadOnly: m.readOnly })),
        Secrets: Object.keys(mapOf(raw, 'secrets')).map((file) => {
          const sec = stored.secrets.get(`${s.name}.${file}`)!;
          return { SecretID: sec.id, SecretName: sec.name, File: { Name: file, UID: '0', GID: '0', Mode: 0o400 } };
        }).concat(s.secrets.map((r) => {
          const sec = stored.secrets.get(`compose:${r.source}`)!;
          return { SecretID: sec.id, SecretName: sec.name, File: fileOf('secrets', r) };
        })),
        Configs: Object.keys(mapOf(raw, 'configs')).map((path) => {
          const conf = stored.configs.get(`${s.name}.${path}`)!;
          return { ConfigID: conf.id, ConfigName: conf.name, File: { Name: path, UID: '0', GID: '0', Mode: 0o444 } };
        }).concat(s.configs.map((r) => {
          const conf = stored.configs.get(`compose:${r.source}`)!;
          return { ConfigID: conf.id, ConfigName: conf.name, File: fileOf('configs', r) };
        })),
        ...(s.init !== null ? { Init: s.init } : {}),
        TTY: s.tty,
        ReadOnly: s.readOnly,
      },
      Resources: {
        Limits: { ...(s.resources.nanoCpus ? { NanoCPUs: s.resources.nanoCpus } : {}), ...(s.resources.memory ? { MemoryBytes: s.resources.memory } : {}) },
        Reservations: { ...(s.resources.memoryReservation ? { MemoryBytes: s.resources.memoryReservation } : {}) },
      },
      RestartPolicy: { Condition: s.restart.name === 'no' ? 'none' : s.restart.name === 'on-failure' ? 'on-failure' : 'any', MaxAttempts: s.restart.maximumRetryCount, Delay: 1e9 },
      Placement: { Constraints: constraints },
      Networks: s.networks.map((n) => ({ Target: n.name, Aliases: [s.name, ...n.aliases] })),
      ...(s.logging ? { LogDriver: { Name: s.logging.driver, Options: s.logging.options } } : {}),
    },
    Mode: s.global ? { Global: {} } : { Replicated: { Replicas: s.replicas } },
    UpdateConfig: updateConfig(deploy.update_config, 'rollback', defaultOrder(s, raw)),
    RollbackConfig: updateConfig(deploy.rollback_config, 'pause', defaultOrder(s, raw)),
    EndpointSpec: {
      Ports: s.ports.filter((p) => p.published).map((p) => ({
        Protocol: p.protocol, TargetPort: p.target, PublishedPort: Number(p.published),
        // the routing mesh by default; "mode: host" binds on the node that runs the task
        PublishMode: isHostMode(raw, p.target) ? 'host' : 'ingress',
      })),
    },
  };
}

function isHostMode(raw: Obj, target: number): boolean {
  return Array.isArray(raw.ports) && raw.ports.some((p) => isObj(p) && Number(p.target) === target && p.mode === 'host');
}

interface EngineService { ID: string; Version: { Index: number }; Spec: Obj & { Name: string; Labels?: Record<string, string> }; UpdateStatus?: { State?: string; Message?: string } }
interface EngineTask { ID: string; ServiceID: string; DesiredState: string; Status: { State: string; Err?: string; Message?: string; ContainerStatus?: { ContainerID?: string } }; Spec?: { ContainerSpec?: { Image?: string } }; CreatedAt: string; Slot?: number }

export async function projectServices(deps: SwarmDeps, project: string): Promise<EngineService[]> {
  return (await deps.docker.listServices({ filters: projectFilter(deps, project) })) as unknown as EngineService[];
}

/** converges the project: unchanged services untouched, changed ones updated (rolling, rolled back on failure), removed ones removed */
export async function deploySwarm(deps: SwarmDeps, project: ComposeProject, loaded: LoadedCompose, io: DeployIo): Promise<{ services: string[]; updated: string[]; removed: string[] }> {
  const refused = swarmIssues(loaded, deps.registry);
  if (refused.length) throw new Error(`the stack cannot run on the swarm: ${refused.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
  // before anything changes: a secret or config whose variable is not set
  for (const o of [...loaded.secrets, ...loaded.configs]) {
    const used = loaded.services.some((s) => (o.kind === 'secret' ? s.secrets : s.configs).some((r) => r.source === o.key));
    if (used && !o.external && !o.content) throw new Error(`the ${o.kind} "${o.key}" takes the variable ${o.from}, which is not set: set it among the stack's variables (or in the project's .env)`);
  }
  // the nodes pull what they lack: an image missing here whose registry the outbound policy refuses stops the deploy before anything changes
  const blocked = (await deps.images.refusedImages(loaded.services)) ?? [];
  if (blocked.length) throw new Error(`the stack cannot run on the swarm: ${blocked.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
  const built = await buildAndPush(deps, project.name, loaded, io);
  await removeComposeLeftovers(deps, project.name, io);
  await ensureNetworks(deps, project.name, loaded, io);
  const wanted: Record<Kind, Map<string, { data: Buffer; labels?: Record<string, string> }>> = { secrets: new Map(), configs: new Map() };
  const rawServices = isObj(loaded.raw.services) ? loaded.raw.services : {};
  for (const s of loaded.services) {
    const raw = isObj(rawServices[s.name]) ? rawServices[s.name] as Obj : {};
    for (const kind of ['secrets', 'configs'] as const) {
      for (const [file, variable] of Object.entries(mapOf(raw, kind))) {
        const value = project.variables[variable];
        if (value === undefined) throw new Error(`service ${s.name}: ${kind === 'secrets' ? 'the secret' : 'the config'} ${file} names the variable ${variable}, which the stack does not set`);
        wanted[kind].set(`${s.name}.${file}`, { data: Buffer.from(value) });
      }
    }
  }
  // the compose file's own: the swarm keeps the content; the job's output never shows a secret's
  for (const kind of ['secrets', 'configs'] as const) {
    const used = new Set(loaded.services.flatMap((s) => s[kind].map((r) => r.source)));
    for (const o of loaded[kind].filter((x) => !x.external && used.has(x.key))) {
      const data = o.content!();
      if (kind === 'secrets') io.redact?.(data.toString('utf8'));
      wanted[kind].set(`compose:${o.key}`, { data, labels: o.labels });
    }
  }
  const external = { secrets: await findExternal(deps, 'secrets', loaded), configs: await findExternal(deps, 'configs', loaded) };
  const stored = {
    secrets: new Map([...await ensureStored(deps, 'secrets', project.name, wanted.secrets), ...external.secrets]),
    configs: new Map([...await ensureStored(deps, 'configs', project.name, wanted.configs), ...external.configs]),
  };
  const existing = new Map((await projectServices(deps, project.name)).map((s) => [s.Spec.Labels?.[labels.service] ?? '', s]));
  const updated: string[] = [];
  const rolling = new Set<string>();
  for (const s of loaded.services) {
    const spec = specOf(deps, project, loaded, s, stored, built.get(s.name) ?? s.image, io.log);
    const hash = createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 16);
    // the task template's own hash tells a rolling update (the deploy waits for it to complete) from a scale or label change
    const taskHash = createHash('sha256').update(JSON.stringify(spec.TaskTemplate)).digest('hex').slice(0, 16);
    Object.assign(spec.Labels as Record<string, string>, { [labels.spec]: hash, [labels.tasks]: taskHash });
    const current = existing.get(s.name);
    if (current && current.Spec.Labels?.[labels.spec] === hash) continue;
    // with the login the engine keeps it for the tasks (never in the spec), as docker service create --with-registry-auth does
    const login = (await deps.login(registryHost(String((spec.TaskTemplate as Obj & { ContainerSpec: Obj }).ContainerSpec.Image)))) ?? undefined;
    if (current) {
      io.log(`updating service ${s.name}`);
      // dockerode takes the login as a first argument (its typings know only the one-argument form)
      const service = deps.docker.getService(current.ID) as unknown as { update(auth: Dockerode.AuthConfig | undefined, options: Obj): Promise<unknown> };
      await service.update(login, { ...spec, version: current.Version.Index });
    } else {
      io.log(`creating service ${s.name} (${s.replicas} replica${s.replicas === 1 ? '' : 's'})`);
      await (login ? deps.docker.createService(login, spec) : deps.docker.createService(spec));
    }
    updated.push(s.name);
    // a service from before the task hash: its update may or may not roll, so it is not waited for as rolling
    const before = current?.Spec.Labels?.[labels.tasks];
    if (before !== undefined && before !== taskHash) rolling.add(s.name);
  }
  const removed: string[] = [];
  for (const [name, svc] of existing) {
    if (loaded.services.some((s) => s.name === name)) continue;
    io.log(`removing service ${name} (no longer in the compose file)`);
    await deps.docker.getService(svc.ID).remove();
    removed.push(name);
  }
  const failures: string[] = [];
  for (const name of updated) {
    const error = await converge(deps, project.name, name, existing.has(name), rolling.has(name), io);
    if (error) failures.push(`${name}: ${error}`);
  }
  for (const kind of ['secrets', 'configs'] as const) await prune(deps, kind, project.name, new Set([...stored[kind].values()].map((x) => x.id)));
  if (failures.length) throw new Error(`the update failed and was rolled back: ${failures.join('; ')}`);
  return { services: loaded.services.map((s) => s.name), updated, removed };
}

/** a stack moved from the compose runtime: its containers (not swarm tasks) and networks would hold its ports and names */
async function removeComposeLeftovers(deps: SwarmDeps, project: string, io: DeployIo): Promise<void> {
  const leftovers = (await deps.docker.listContainers({ all: true, filters: projectFilter(deps, project) }))
    .filter((c) => !c.Labels['com.docker.swarm.task.id']);
  for (const c of leftovers) {
    io.log(`removing container ${c.Names[0]?.replace(/^\//, '') ?? c.Id} of the compose runtime (the stack now runs on the swarm)`);
    await deps.docker.getContainer(c.Id).remove({ force: true }).catch((err: { statusCode?: number }) => { if (err.statusCode !== 404) throw err; });
  }
  // its bridge networks hold the names the overlay networks take
  for (const n of await deps.docker.listNetworks({ filters: projectFilter(deps, project) })) {
    if (n.Driver !== 'overlay') await deps.docker.getNetwork(n.Id).remove().catch((err: { statusCode?: number }) => { if (err.statusCode !== 404) throw err; });
  }
}

/**
 * Waits until the service runs its replicas (and, for a rolling update, until the swarm says it completed: right after
 * the update call the old tasks still run and the update state is not set yet); null, or why it failed with the tasks' errors.
 */
async function converge(deps: SwarmDeps, project: string, name: string, wasUpdate: boolean, rolling: boolean, io: DeployIo): Promise<string | null> {
  const until = Date.now() + deps.convergeTimeoutMs;
  for (;;) {
    if (io.signal?.aborted) throw io.signal.reason ?? new Error('aborted');
    const [svc] = (await projectServices(deps, project)).filter((s) => s.Spec.Labels?.[labels.service] === name);
    if (!svc) return 'the service disappeared';
    const state = svc.UpdateStatus?.State;
    const tasks = (await deps.docker.listTasks({ filters: { service: [svc.ID] } })) as unknown as EngineTask[];
    const errors = [...new Set(tasks.filter((t) => t.Status.Err).map((t) => t.Status.Err!))];
    if (state === 'rollback_completed' || state === 'rollback_paused' || state === 'paused') {
      return `${svc.UpdateStatus?.Message ?? state}${errors.length ? `; task errors: ${errors.join('; ')}` : ''}`;
    }
    // a global service has a task per node the scheduler finds: as many as it asked to run (at least one)
    const replicas = (svc.Spec.Mode as Obj)?.Global !== undefined ? Math.max(tasks.filter((t) => t.DesiredState === 'running').length, 1)
      : ((svc.Spec.Mode as Obj)?.Replicated as Obj | undefined)?.Replicas as number ?? 1;
    const running = tasks.filter((t) => t.DesiredState === 'running' && t.Status.State === 'running').length;
    const settled = rolling ? state === 'completed' : wasUpdate ? state === 'completed' || state === undefined : true;
    if (settled && running >= replicas && tasks.filter((t) => t.DesiredState === 'running').length === replicas) return null;
    if (!wasUpdate && errors.length >= 3 && running === 0) return `its tasks fail: ${errors.join('; ')}`;
    if (Date.now() > until) return `not converged after ${Math.round(deps.convergeTimeoutMs / 1000)} s (${running}/${replicas} running${errors.length ? `; task errors: ${errors.join('; ')}` : ''})`;
    await new Promise((r) => setTimeout(r, deps.pollMs));
  }
}

async function prune(deps: SwarmDeps, kind: Kind, project: string, keep: Set<string>): Promise<void> {
  const engine = store(deps.docker, kind);
  for (const x of await engine.list(projectFilter(deps, project))) {
    if (!keep.has(x.ID)) await engine.remove(x.ID).catch(() => undefined); // still in use by a task being replaced
  }
}

/** removes the project's services (and, with `everything`, its overlay networks, secrets and configs) */
export async function stopSwarm(deps: SwarmDeps, project: string, io: DeployIo, everything = false): Promise<{ removed: string[] }> {
  const services = await projectServices(deps, project);
  for (const s of services) {
    io.log(`removing service ${s.Spec.Labels?.[labels.service]}`);
    await deps.docker.getService(s.ID).remove().catch((err: { statusCode?: number }) => { if (err.statusCode !== 404) throw err; });
  }
  if (everything) {
    // an overlay network is free once the tasks' containers are gone (the compose runtime's own containers and bridge networks are not ours to wait for)
    const tasksLeft = async () => (await deps.docker.listContainers({ all: true, filters: projectFilter(deps, project) })).some((c) => c.Labels['com.docker.swarm.task.id']);
    const until = Date.now() + deps.convergeTimeoutMs;
    while (services.length && (await tasksLeft()) && Date.now() < until) await new Promise((r) => setTimeout(r, deps.pollMs));
    for (const n of await deps.docker.listNetworks({ filters: { ...projectFilter(deps, project), driver: ['overlay'] } })) await deps.docker.getNetwork(n.Id).remove().catch(() => undefined);
    for (const kind of ['secrets', 'configs'] as const) await prune(deps, kind, project, new Set());
  }
  return { removed: services.map((s) => s.Spec.Labels?.[labels.service] ?? s.Spec.Name) };
}

/** every project's services with their task containers, in two engine calls */
export async function statusSwarm(deps: SwarmDeps, names: readonly string[]): Promise<Map<string, ServiceStatus[]>> {
  const out = new Map<string, ServiceStatus[]>();
  if (!names.length) return out;
  const wanted = new Set(names);
  const services = ((await deps.docker.listServices({ filters: { label: [`${labels.installation}=${deps.installation}`] } })) as unknown as EngineService[])
    .filter((s) => wanted.has(s.Spec.Labels?.[labels.project] ?? ''));
  if (!services.length) return out;
  const tasks = (await deps.docker.listTasks({ filters: { 'desired-state': ['running'] } })) as unknown as EngineTask[];
  for (const svc of services) {
    const project = svc.Spec.Labels![labels.project];
    const mine = tasks.filter((t) => t.ServiceID === svc.ID);
    const list = out.get(project) ?? [];
    list.push({
      service: svc.Spec.Labels?.[labels.service] ?? svc.Spec.Name,
      containers: mine.map((t) => ({
        id: t.Status.ContainerStatus?.ContainerID ?? t.ID, name: `${svc.Spec.Name}.${t.Slot ?? ''}`, state: t.Status.State === 'running' ? 'running' : t.Status.State,
        status: t.Status.Message ?? t.Status.State, health: null, image: t.Spec?.ContainerSpec?.Image ?? '', createdAt: t.CreatedAt,
      })),
    });
    out.set(project, list);
  }
  return out;
}
