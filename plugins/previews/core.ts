// Previews as a service: create or update (within maxActive), remove, and the deploy and remove jobs that do the work on the engine and the edge.
import { defineJob, problem, Type, type Actor, type Job, type ContextWith } from '../../sdk/index.ts';
import type { AlertsApi } from '../alerts/api.ts';
import type { ComposeProject, DockerRuntime, LoadedCompose } from '../docker/api.ts';
import type { EdgeApi } from '../edge/api.ts';
import type { GitApi } from '../git/api.ts';
import type { StacksApi } from '../stacks/api.ts';
import { hostnameOf } from './hostnames.ts';
import type { PreviewStore } from './store.ts';

type ProxyRoute = ReturnType<EdgeApi['routesOf']>['routes'][number];

export const tokenKind = 'preview';
export const projectOf = (stack: string, key: string) => `${stack}-${key}`;
export const ownerOf = (stack: string, key: string) => `preview:${stack}/${key}`;
export const resourceOf = (stack: string) => `stack:${stack}`;
const serialKeyOf = (stack: string, key: string) => `preview:${stack}/${key}`;
const maxProjectName = 63;

export interface PreviewChange { pullRequest?: number | null; ref?: string | null; fallbackBranch?: string | null; commit?: string | null; variables?: Record<string, string> }
export type Requested = { outcome: 'limit'; reason: string } | { outcome: 'deploying'; job: Job & { attached: boolean }; created: boolean };

export function createPreviews(ctx: ContextWith<never>, deps: { store: PreviewStore; stacks: StacksApi; docker: DockerRuntime; edge: EdgeApi; git: GitApi; alerts: AlertsApi }) {
  const { store, stacks, docker, edge, git, alerts } = deps;
  const Input = Type.Object({ stack: Type.String(), key: Type.String() });

  /** the edge routes of the preview: each service the file routes, at the template's hostname for it (the label's path and port kept) */
  function routesOf(stack: string, key: string, template: string | null, loaded: LoadedCompose): ProxyRoute[] {
    const { routes, issues } = edge.routesOf(projectOf(stack, key), loaded.services);
    if (issues.length) throw new Error(`the edge labels are refused: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
    if (!routes.length) return [];
    if (!template) throw new Error(`services of ${stack} declare hostnames, but its preview settings name no hostname template: PUT /api/v1/stacks/${stack}/previews with a hostname such as {key}.{stack}.preview.example.com`);
    const mapped = routes.map((r) => ({ ...r, hostname: hostnameOf(template, { key, stack, service: r.upstream.service }, edge.normalizeHostname) }));
    const seen = new Map<string, string>();
    for (const r of mapped) {
      const at = `${r.hostname}${r.path ?? '/'}`;
      if (seen.has(at)) throw new Error(`services ${seen.get(at)} and ${r.upstream.service} would both be routed at ${at}: put {service} in the hostname template`);
      seen.set(at, r.upstream.service);
    }
    return mapped;
  }

  /**
   * A hostname another stack, site or preview holds is refused when the preview is asked for (409), judged by the services
   * the stack's stored file routes; the deploy judges again with the preview's own file, which a branch may change.
   */
  async function refuseTakenHostnames(stack: string, key: string, template: string | null): Promise<void> {
    const parent = await stacks.content(stack);
    if (!parent || !template) return;
    const loaded = docker.load({ name: stack, compose: parent.compose, variables: parent.variables });
    if (loaded.errors.length) return;
    let routes: ProxyRoute[];
    try { routes = routesOf(stack, key, template, loaded); } catch { return; }
    const taken = await takenHostnames(stack, key, routes);
    if (taken) throw problem(409, `the preview ${key} of ${stack} would use a hostname held elsewhere: ${taken}`, { code: 'preview-hostname-taken' });
  }

  /** what another stack, site or preview holds of these routes' hostnames, in words; null when nothing */
  async function takenHostnames(stack: string, key: string, routes: readonly ProxyRoute[]): Promise<string | null> {
    const taken = await edge.conflicts(ownerOf(stack, key), routes.map((r) => r.hostname));
    return taken.length ? taken.map((c) => c.message).join('; ') : null;
  }

  const jobs = {
    deploy: ctx.jobs.define(defineJob({
      type: 'previews.deploy', input: Input,
      async run(job) {
        const { stack, key } = job.input;
        const row = await store.get(stack, key);
        if (!row || row.status === 'removing') {
          job.log(`the preview ${key} of ${stack} is being removed: nothing to deploy`);
          return { skipped: true };
        }
        await store.set(stack, key, { status: 'deploying' });
        try {
          const [parent, settings] = await Promise.all([stacks.content(stack), store.settings(stack)]);
          if (!parent) throw new Error(`stack ${stack} no longer exists`);
          const variables = { ...parent.variables, ...settings.variables, ...row.variables };
          for (const value of Object.values(variables)) if (value.length >= 6) job.redact(value);
          const io = { log: job.log, redact: job.redact, signal: job.signal };
          const tree = await git.previewTree(stack, key, { ref: row.ref, branch: row.fallbackBranch, commit: row.commit }, io);
          if (!tree) job.log(`source: the stored compose file of ${stack}`);
          const project: ComposeProject = { name: projectOf(stack, key), compose: tree?.compose ?? parent.compose, variables, workdir: tree?.workdir };
          // the file as its stack would load it (its project name too): the platform rules judge it so (a preview gets no more than its parent)
          const loaded = docker.load({ ...project, name: stack });
          const errors = [...loaded.errors.map((e) => ({ rule: 'compose-valid', ...e })), ...(loaded.errors.length ? [] : await stacks.check(stack, loaded, tree?.workdir))];
          if (errors.length) throw new Error(`the compose file of the preview is refused: ${errors.map((e) => `${e.path}: ${e.message} (${e.rule})`).join('; ')}`);
          const routes = routesOf(stack, key, settings.hostname, loaded);
          const taken = await takenHostnames(stack, key, routes);
          if (taken) throw new Error(`the edge would not route this preview: ${taken}; nothing was deployed`);
          const hostnames = Object.fromEntries(routes.map((r) => [r.upstream.service, r.hostname]));
          job.log(`deploying the preview ${key} of ${stack} as the project ${project.name}${tree?.commit ? ` at commit ${tree.commit}` : ''}`);
          const result = await docker.deploy({ ...project, preview: { key, parent: stack, hostnames } }, io);
          await edge.setRoutes(ownerOf(stack, key), routes);
          const urls = [...new Set(routes.map((r) => `http://${r.hostname}${r.path && r.path !== '/' ? r.path : ''}`))];
          await store.set(stack, key, { status: 'running', hostnames: [...new Set(routes.map((r) => r.hostname))], deployedCommit: tree?.commit ?? null, deployed: true });
          if (urls.length) job.log(`the preview serves at ${urls.join(', ')}`);
          return { ...result, commit: tree?.commit ?? null, urls };
        } catch (err) {
          await store.set(stack, key, { status: 'failed' });
          throw err;
        }
      },
    })),
    remove: ctx.jobs.define(defineJob({
      type: 'previews.remove', input: Input,
      async run(job) {
        const { stack, key } = job.input;
        const io = { log: job.log, signal: job.signal };
        // the routes first: no request reaches a container being taken down
        await edge.setRoutes(ownerOf(stack, key), []);
        const { volumes } = await docker.remove(projectOf(stack, key), io, { volumes: true });
        await git.removePreviewTree(stack, key);
        await store.remove(stack, key);
        if (!(await stacks.exists(stack))) await store.dropSettings(stack);
        job.log(`the preview ${key} of ${stack} is removed, with its containers, networks, volumes (${volumes.removed.length}) and routes`);
        return { removed: key, volumes: volumes.removed };
      },
    })),
  };

  return {
    jobs,
    /** creates or updates the preview and queues its deploy; `limit` when the stack has maxActive others (an alert is raised) */
    async deploy(stack: string, key: string, change: PreviewChange, actor: Actor): Promise<Requested> {
      if (projectOf(stack, key).length > maxProjectName) {
        throw problem(422, `the preview's project name ${projectOf(stack, key)} would be longer than ${maxProjectName} characters: choose a shorter key`, { code: 'preview-name-too-long' });
      }
      const settings = await store.settings(stack);
      if (!settings.enabled) throw problem(409, `previews are not enabled for stack ${stack}: PUT /api/v1/stacks/${stack}/previews with enabled true`, { code: 'previews-disabled' });
      await refuseTakenHostnames(stack, key, settings.hostname);
      const outcome = await store.upsert(stack, key, {
        pullRequest: change.pullRequest ?? null, ref: change.ref ?? null, fallbackBranch: change.fallbackBranch ?? null, commit: change.commit ?? null, variables: change.variables,
      }, settings.maxActive);
      if (outcome === 'removing') throw problem(409, `the preview ${key} of ${stack} is being removed; create it again once that job is done`, { code: 'preview-removing' });
      if (outcome === 'limit') {
        const reason = `stack ${stack} has ${settings.maxActive} previews, its maxActive: the preview ${key} was not created`;
        await alerts.raise('preview-limit', { resource: resourceOf(stack), subject: 'previews', message: reason, details: { key } });
        return { outcome: 'limit', reason };
      }
      const job = await jobs.deploy.enqueue({ stack, key }, { actor, resource: resourceOf(stack), serialKey: serialKeyOf(stack, key), attachToQueued: true });
      await store.set(stack, key, { lastJob: job.id });
      return { outcome: 'deploying', job, created: outcome === 'created' };
    },
    /** queues the removal of the preview; null when there is none */
    async remove(stack: string, key: string, actor: Actor): Promise<(Job & { attached: boolean }) | null> {
      if (!(await store.get(stack, key))) return null;
      await store.set(stack, key, { status: 'removing' });
      const job = await jobs.remove.enqueue({ stack, key }, { actor, resource: resourceOf(stack), serialKey: serialKeyOf(stack, key), attachToQueued: true });
      await store.set(stack, key, { lastJob: job.id });
      return job;
    },
    /** the queued or running jobs of this preview */
    async open(stack: string, key: string): Promise<Job[]> {
      const row = await store.get(stack, key);
      return (await ctx.jobs.open(resourceOf(stack))).filter((j) => j.id === row?.lastJob);
    },
  };
}
export type Previews = ReturnType<typeof createPreviews>;
