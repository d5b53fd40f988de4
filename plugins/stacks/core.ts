// The stacks core: the stack rules (lookup with access, validate and save by revision, create, settings, restore, removal) and live state; the stack jobs are in core-jobs.ts, the contract in core-types.ts.
import { problem, type ContextWith, type Principal } from '../../sdk/index.ts';
import type { DockerRuntime } from '../docker/types.ts';
import { assertAccess, assertWithinLimit, canSee, type AccessEntry, type Need } from './access.ts';
import { stackJobs, variablesOf } from './core-jobs.ts';
import { contentOf, deployKind, pushKind, resourceOf, type Core, type Saved, type SavedFrom, type StackHook, type StackRuntime, type StackSource, type VolumeFates } from './core-types.ts';
import { checkRules, type PlatformRule } from './rules.ts';
import type { StackContent, StackStore } from './store.ts';
import type { Templates } from './templates.ts';

export {
  contentOf, deployKind, pushKind, resourceOf,
  type ComposeOrigin, type Core, type DeployOverride, type NewStack, type Saved, type SavedFrom, type StackDeployed, type StackHook, type StackRuntime, type StackSource, type VolumeFates,
} from './core-types.ts';

export function createCore(ctx: ContextWith<'actionTokens' | 'events' | 'revisions'>, deps: { runtime: DockerRuntime; store: StackStore; templates: Templates; rules: PlatformRule[]; switches: Record<string, boolean> }): Core {
  const { runtime, store, templates } = deps;
  const sources: StackSource[] = [];
  const runtimes: StackRuntime[] = [];
  const hooks: StackHook[] = [];

  const hasSource = async (stack: string) => (await Promise.all(sources.map((s) => s.hasSource(stack)))).some(Boolean);
  const currentTree = async (stack: string) => (await Promise.all(sources.map((s) => s.current(stack)))).find(Boolean)?.workdir;

  const { jobs, deploy } = stackJobs(ctx, { ...deps, sources, runtimes, hooks });

  function usable<T extends { access: AccessEntry[] }>(row: T | null, name: string, principal: Principal, need: Need): T {
    assertWithinLimit(principal, name);
    if (!row) throw problem(404, `no stack "${name}"`);
    assertAccess(principal, name, row.access, need);
    return row;
  }

  async function validate(stack: string, content: string, env: Record<string, string>, t?: { template: string | null; settings: Record<string, unknown> }, principal?: Principal, tree?: string) {
    const [source, workdir] = tree !== undefined ? [true, tree] : await Promise.all([hasSource(stack), currentTree(stack)]);
    // with a source tree, the file is checked as a deploy would load it there: .env, env_file, build contexts, bind mounts
    const loaded = runtime.load({ name: stack, compose: content, variables: variablesOf(env, t), workdir });
    const errors = await checkRules(deps.rules, deps.switches, { stack, loaded, hasSource: source, workdir, principal });
    return { loaded, errors };
  }

  async function write(name: string, expected: number, principal: Principal, content: StackContent, message?: string, from?: SavedFrom): Promise<Saved> {
    const { loaded, errors } = await validate(name, content.compose, content.env, content, principal, from?.workdir);
    if (errors.length) {
      throw problem(422, `the compose file breaks ${errors.length} platform rule${errors.length > 1 ? 's' : ''}; nothing was saved`, { code: 'compose-refused', errors });
    }
    await ctx.revisions.write({
      kind: 'stack', key: name, expected, actor: principal.actor, message,
      apply: async (tx, revision) => {
        const snapshot = await store.writeContent(tx, name, revision, { ...content, services: loaded.services.map((s) => s.name) });
        for (const hook of hooks) await hook.saved?.(tx, name, loaded);
        await from?.within(tx);
        return snapshot;
      },
    });
    return { warnings: loaded.warnings };
  }

  /** template settings that fit its inputs (a 400 problem otherwise) */
  function checkedSettings(template: string, given: Record<string, unknown> | undefined) {
    const settings = { ...given };
    const invalid = templates.check(template, settings);
    if (invalid) throw problem(400, `the settings do not fit template ${template}`, { code: 'invalid-settings', errors: invalid });
    return settings;
  }

  const volumesOf = async (stack: string) => (await runtime.volumes(stack).catch(() => null))?.map((v) => v.name) ?? null;

  return {
    jobs,
    volumesOf,
    async deployIn(job, override) {
      await store.set(job.input.stack, { last_deploy_job: job.id, last_job: job.id });
      return deploy(job, override);
    },
    sources,
    runtimes,
    hooks,
    validate,
    write,
    async composeOf(row) {
      for (const source of sources) {
        const found = await source.composeFile?.(row.name);
        if (found) return found;
      }
      return { text: row.compose, origin: { kind: 'editor' } };
    },
    stackFor: async (name, principal, need) => usable(await store.get(name), name, principal, need),
    detailFor: async (name, principal, need) => usable(await store.detail(name), name, principal, need),
    async create(name, principal, input, from) {
      const access = (await store.accessOf([name])).get(name);
      assertWithinLimit(principal, name);
      if (access && !canSee(principal, access, name)) throw problem(404, `no stack "${name}"`);
      const template = input.template ? templates.get(input.template) : undefined;
      if (input.template && !template) throw problem(400, `no template "${input.template}"; GET /api/v1/stack-templates lists them`);
      const settings = template ? checkedSettings(template.name, input.settings) : { ...input.settings };
      const compose = input.content ?? template?.compose;
      if (!compose) throw problem(400, 'content (the compose file) or template is required', { errors: [{ path: '/body/content', message: 'is required' }] });
      return write(name, 0, principal, { compose, env: { ...input.env }, template: template?.name ?? null, settings, services: [] }, input.message, from);
    },
    async changeSettings(row, expected, principal, given, message) {
      if (!row.template) throw problem(409, `stack "${row.name}" was not created from a template: it has no settings`);
      if (!templates.get(row.template)) throw problem(409, `the template "${row.template}" of this stack is no longer installed`);
      await write(row.name, expected, principal, { ...contentOf(row), settings: checkedSettings(row.template, given) }, message);
    },
    async restore(row, id, expected, principal) {
      const found = await ctx.revisions.get('stack', row.name, id);
      if (!found) throw problem(404, `stack "${row.name}" has no revision ${id}`);
      await write(row.name, expected ?? row.revision, principal, store.contentOf(found.snapshot), `restore of revision ${id}`);
    },
    async remove(row, expected, volumes, actor) {
      const { name } = row;
      if (row.revision !== expected) throw problem(412, `stack "${name}" is at revision ${row.revision}; read it again and retry`, { code: 'stale-revision', extra: { currentRevision: row.revision } });
      // named before the job runs, for an answer that cannot wait for it; the job's result names them as done
      const named = (await volumesOf(name)) ?? [];
      const job = await jobs.remove.enqueue({ stack: name, revision: expected, volumes }, { actor, resource: resourceOf(name), serialKey: resourceOf(name) });
      const done = await ctx.jobs.wait(job.id, 30_000);
      if (!done?.done) return { done: false, job, volumes: volumes ? { kept: [], removed: named } : { kept: named, removed: [] } };
      if (done.status !== 'succeeded') throw problem(409, `removing stack "${name}" failed: ${done.error}`, { extra: { jobId: done.id } });
      return { done: true, jobId: done.id, volumes: (done.result as { volumes: VolumeFates }).volumes };
    },
    async live(rows) {
      const names = rows.map((r) => r.name);
      const jobIds: string[] = [];
      for (const r of rows) {
        if (r.lastDeployJob) jobIds.push(r.lastDeployJob);
        if (r.lastJob && r.lastJob !== r.lastDeployJob) jobIds.push(r.lastJob);
      }
      const [services, jobsById, deployWebhooks, pushWebhooks] = await Promise.all([
        Promise.all([runtime.status(names), ...runtimes.map((r) => r.status(names))]).then((maps) => {
          const m = maps[0];
          // another runtime's view of a service wins: the engine here sees only the tasks on its own node
          for (const extra of maps.slice(1)) {
            for (const [name, services] of extra) m.set(name, [...(m.get(name) ?? []).filter((x) => !services.some((o) => o.service === x.service)), ...services]);
          }
          return { m, err: null as string | null };
        }, (err: Error) => ({ m: null, err: err.message })),
        ctx.jobs.getMany(jobIds, { output: false }),
        ctx.actionTokens.enabled(deployKind, names),
        ctx.actionTokens.enabled(pushKind, names),
      ]);
      return { services: services.m, engineError: services.err, jobs: jobsById, deployWebhooks, pushWebhooks };
    },
    async start(kind, stack, actor, attach = false) {
      const job = await jobs[kind].enqueue({ stack }, { actor, resource: resourceOf(stack), serialKey: resourceOf(stack), attachToQueued: attach });
      if (!job.attached) await store.set(stack, kind === 'deploy' ? { last_deploy_job: job.id, last_job: job.id } : { last_job: job.id });
      return job;
    },
  };
}
