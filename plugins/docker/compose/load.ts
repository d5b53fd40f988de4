// Loading a compose file: YAML, interpolation (the stack's variables over the project's .env), included files and extended services, top-level networks and volumes, the active profiles' services normalized, the dependency graph checked, all within the limits.
import type { ComposeProject, LoadedCompose, NormalizedNetwork, NormalizedService, NormalizedVolume } from './model.ts';
import { projectEnv } from './environment.ts';
import { applyExtends, applyInclude, ProjectFiles } from './extends.ts';
import { interpolateTree } from './interpolate.ts';
import { composeLimits, LimitExceeded } from './limits.ts';
import { resolveNetworkModes } from './network-mode.ts';
import { ignoredTopLevelKeys, networkKeys, resolveVolumesFrom, warnIgnoredTopLevelKeys } from './keys.ts';
import { checkTargets, fileObjects } from './secrets.ts';
import { cycles } from './graph.ts';
import { settleTags } from './tags.ts';
import { parseYaml } from './yaml.ts';
import { normalizeService } from './service.ts';
import { Issues } from './issues.ts';
import { bool, isObj, mapOrList, type Obj, str } from './shape.ts';
import { labelsFor } from '../labels.ts';

export const projectNamePattern = /^[a-z0-9][a-z0-9_-]{0,62}$/;

function stringMap(v: unknown, path: string, issues: Issues): Record<string, string> {
  return Object.fromEntries(mapOrList(v, path, issues).map(([k, val]) => [k, val ?? '']));
}

function labelMap(v: unknown, path: string, issues: Issues): Record<string, string> {
  const labels = stringMap(v, path, issues);
  issues.atMost('labelsPerObject', Object.keys(labels).length, path, 'labels');
  return labels;
}

/** a top-level `name:` (or `external: { name }`) wins; otherwise `<project>_<key>`, as compose names them. */
function engineName(spec: Obj, key: string, project: string, path: string, issues: Issues): { name: string; external: boolean } {
  const externalSpec = spec.external;
  const external = isObj(externalSpec) ? true : bool(externalSpec, `${path}.external`, issues) ?? false;
  const legacy = isObj(externalSpec) ? str(externalSpec.name, `${path}.external.name`, issues) : null;
  const name = str(spec.name, `${path}.name`, issues) ?? legacy;
  return { name: name ?? (external ? key : `${project}_${key}`), external };
}

function networks(doc: Obj, project: string, issues: Issues): Map<string, NormalizedNetwork> {
  const out = new Map<string, NormalizedNetwork>();
  const raw = doc.networks ?? {};
  if (!isObj(raw)) { issues.error('networks', 'must be a map'); return out; }
  const entries = Object.entries(raw);
  if (!('default' in raw)) entries.push(['default', null]);
  for (const [key, value] of entries) {
    const path = `networks.${key}`;
    if (value !== null && !isObj(value)) { issues.error(path, 'must be a map (or empty)'); continue; }
    const spec = value ?? {};
    const { name, external } = engineName(spec, key, project, path, issues);
    out.set(key, {
      key, name, external,
      driver: str(spec.driver, `${path}.driver`, issues) ?? 'bridge',
      driverOpts: stringMap(spec.driver_opts, `${path}.driver_opts`, issues),
      internal: bool(spec.internal, `${path}.internal`, issues) ?? false,
      attachable: bool(spec.attachable, `${path}.attachable`, issues) ?? false,
      ...networkKeys(spec, path, issues),
      labels: { ...labelMap(spec.labels, `${path}.labels`, issues), ...labelsFor.project(project) },
    });
  }
  return out;
}

function volumes(doc: Obj, project: string, issues: Issues): Map<string, NormalizedVolume> {
  const out = new Map<string, NormalizedVolume>();
  const raw = doc.volumes ?? {};
  if (!isObj(raw)) { issues.error('volumes', 'must be a map'); return out; }
  for (const [key, value] of Object.entries(raw)) {
    const path = `volumes.${key}`;
    if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(key)) issues.error(path, `the volume name "${key}" may only hold letters, digits, "_", "." and "-"`);
    if (value !== null && !isObj(value)) { issues.error(path, 'must be a map (or empty)'); continue; }
    const spec = value ?? {};
    const { name, external } = engineName(spec, key, project, path, issues);
    out.set(key, {
      key, name, external,
      driver: str(spec.driver, `${path}.driver`, issues) ?? 'local',
      driverOpts: stringMap(spec.driver_opts, `${path}.driver_opts`, issues),
      labels: { ...labelMap(spec.labels, `${path}.labels`, issues), ...labelsFor.project(project) },
    });
  }
  return out;
}

/** unknown depends_on targets, and cycles named service by service. */
function checkGraph(services: NormalizedService[], issues: Issues): void {
  const byName = new Map(services.map((s) => [s.name, s]));
  for (const s of services) {
    s.dependsOn.forEach((d) => {
      if (!byName.has(d.service)) issues.error(`services.${s.name}.depends_on`, `depends on "${d.service}", which is not a service of this file`);
      if (d.service === s.name) issues.error(`services.${s.name}.depends_on`, 'a service cannot depend on itself');
    });
  }
  const edges = new Map(services.map((s) => [s.name, s.dependsOn.map((d) => d.service).filter((d) => byName.has(d) && d !== s.name)]));
  for (const cycle of cycles(edges.keys(), (name) => edges.get(name)!)) issues.error(`services.${cycle[0]}.depends_on`, `dependency cycle: ${cycle.join(' → ')}`);
}

/** the profiles COMPOSE_PROFILES names (comma-separated, from the stack's variables or the project's .env); `*` activates all */
function activeProfiles(variables: Record<string, string>): Set<string> {
  return new Set((variables.COMPOSE_PROFILES ?? '').split(',').map((p) => p.trim()).filter(Boolean));
}

function serviceProfiles(spec: unknown, path: string, issues: Issues): string[] {
  if (!isObj(spec) || spec.profiles === undefined) return [];
  const list = Array.isArray(spec.profiles) ? spec.profiles : null;
  if (!list || list.some((p) => typeof p !== 'string' || !/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(p))) {
    issues.error(path, 'must be a list of profile names (letters, digits, "_", "." and "-")');
    return [];
  }
  return list as string[];
}

function checkNames(services: NormalizedService[], project: string, issues: Issues): void {
  const names = new Map<string, string>();
  for (const s of services) {
    for (let n = 1; n <= s.replicas; n++) {
      const container = s.containerName ?? `${project}-${s.name}-${n}`;
      const other = names.get(container);
      if (other) issues.error(`services.${s.name}`, `its container name "${container}" is also used by the service "${other}"`);
      names.set(container, s.name);
    }
  }
}

const topLevel = new Set(['version', 'name', 'services', 'networks', 'volumes', 'configs', 'secrets']);

export function loadCompose(project: ComposeProject): LoadedCompose {
  const issues = new Issues();
  try {
    return load(project, issues);
  } catch (err) {
    if (!(err instanceof LimitExceeded)) throw err;
    // nothing else is reported: what was found before the limit is incomplete, and the rest was never looked at
    return { raw: {}, services: [], errors: [{ path: err.path, message: err.message, limit: err.limit }], warnings: [], networks: [], volumes: [], secrets: [], configs: [] };
  }
}

function load(project: ComposeProject, issues: Issues): LoadedCompose {
  const empty = (): LoadedCompose => ({ raw: {}, services: [], ...issues.done(), networks: [], volumes: [], secrets: [], configs: [] });
  if (!projectNamePattern.test(project.name)) issues.error('name', `the project name "${project.name}" must match ${projectNamePattern.source}`);
  if (project.compose.length > composeLimits.maxLength) {
    issues.stop('maxLength', '', `the compose file has ${project.compose.length.toLocaleString('en-US')} characters: at most ${composeLimits.maxLength.toLocaleString('en-US')} are allowed`);
  }
  const parsed = parseYaml(project.compose, issues);
  if (parsed === undefined) return empty();
  if (!isObj(parsed)) { issues.error('', 'a compose file must be a map with services'); return empty(); }
  // counted before anything is done per entry
  for (const key of ['services', 'networks', 'volumes'] as const) {
    const section = parsed[key];
    if (isObj(section)) issues.atMost(key, Object.keys(section).length, key, key);
  }
  // compose reads the project's .env for interpolation; what the stack sets wins, as the shell's environment does in compose
  const variables = { ...projectEnv(project.workdir, issues), ...project.variables };
  const raw = interpolateTree(parsed, '', { variables, issues, warned: new Set() }) as Obj;
  // other files of the tree: included projects join this one, and services extend others
  const files = new ProjectFiles(project.workdir, variables, issues);
  applyInclude(raw, files, project.workdir, variables, issues);
  let unresolved = new Set<string>();
  if (isObj(raw.services)) {
    unresolved = applyExtends(raw.services, files, issues);
    issues.atMost('services', Object.keys(raw.services).length, 'services', 'services (included ones too)');
  }
  // merges are done: !reset keys go, !override values are what they wrap
  settleTags(raw);
  warnIgnoredTopLevelKeys(raw, issues);
  for (const key of Object.keys(raw)) {
    if (key.startsWith('x-') || topLevel.has(key) || key in ignoredTopLevelKeys) continue;
    issues.error(key, `"${key}" is not a top-level compose key (services, networks, volumes, secrets, configs, include, x-…)`);
  }
  if (typeof raw.name === 'string' && raw.name !== project.name) issues.warn('name', `the file names its project "${raw.name}"; the stack name "${project.name}" is used`);
  if (!isObj(raw.services) || Object.keys(raw.services).length === 0) {
    issues.error('services', 'a compose file needs at least one service');
    return { ...empty(), raw };
  }
  const ctx = {
    project: project.name, workdir: project.workdir, variables, issues,
    networks: networks(raw, project.name, issues), volumes: volumes(raw, project.name, issues),
    usedNetworks: new Set<string>(), usedVolumes: new Set<string>(),
    secrets: fileObjects(raw, 'secret', { project: project.name, workdir: project.workdir, variables, issues }),
    configs: fileObjects(raw, 'config', { project: project.name, workdir: project.workdir, variables, issues }),
  };
  const active = activeProfiles(variables);
  const services: NormalizedService[] = [];
  const inactive = new Map<string, string[]>();
  for (const [name, spec] of Object.entries(raw.services)) {
    if (unresolved.has(name)) continue;
    const profiles = serviceProfiles(spec, `services.${name}.profiles`, issues);
    const runs = !profiles.length || active.has('*') || profiles.some((p) => active.has(p));
    // a service of no active profile is still checked, but neither runs nor claims networks and volumes
    const s = normalizeService(name, spec, runs ? ctx : { ...ctx, usedNetworks: new Set(), usedVolumes: new Set() });
    if (!runs) inactive.set(name, profiles);
    else if (s) services.push(s);
  }
  if (!services.length && inactive.size) issues.error('services', `no service runs: every service belongs to a profile, and COMPOSE_PROFILES (${[...active].join(',') || 'unset'}) activates none of them`);
  for (const s of services) {
    for (const d of s.dependsOn) {
      const profiles = inactive.get(d.service);
      if (profiles) issues.error(`services.${s.name}.depends_on`, `depends on "${d.service}", whose profiles (${profiles.join(', ')}) are not active: add one to COMPOSE_PROFILES`);
    }
  }
  resolveVolumesFrom(services, project.name, issues);
  resolveNetworkModes(services, project.name, issues);
  checkGraph(services.map((s) => ({ ...s, dependsOn: s.dependsOn.filter((d) => !inactive.has(d.service)) })), issues);
  checkNames(services, project.name, issues);
  for (const s of services) checkTargets(s.name, s.mounts, s.secrets, s.configs, issues);
  const declared = <T>(m: Map<string, T | null>) => [...m.values()].filter((x): x is T => x !== null);
  return {
    raw,
    services,
    ...issues.done(),
    networks: [...ctx.networks.values()].filter((n) => ctx.usedNetworks.has(n.key)),
    volumes: [...ctx.volumes.values()],
    secrets: declared(ctx.secrets),
    configs: declared(ctx.configs),
  };
}
