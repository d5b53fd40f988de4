// The stack jobs (deploy, stop, pull, autoupdate, remove) and the project a deploy runs: its source tree, the rules it meets then, the hooks around it.
import { defineJob, Type, type ContextWith } from '../../sdk/index.ts';
import type { ComposeProject, DeployIo, DockerRuntime } from '../docker/types.ts';
import { deployKind, pushKind, type DeployJob, type DeployOverride, type StackHook, type StackRuntime, type StackSource } from './core-types.ts';
import { checkRules, type PlatformRule } from './rules.ts';
import type { StackRow, StackStore } from './store.ts';
import { templateVariables } from './templates.ts';

/** the variables a compose file is read with: its environment, or the settings of its template */
export const variablesOf = (env: Record<string, string>, t?: { template: string | null; settings: Record<string, unknown> }) =>
  t?.template ? templateVariables(t.settings, env) : env;

/** what the jobs work with: the engine, the stacks' rows and rules, and what other plugins registered with the core */
export interface StackJobParts {
  runtime: DockerRuntime; store: StackStore; rules: PlatformRule[]; switches: Record<string, boolean>;
  sources: StackSource[]; runtimes: StackRuntime[]; hooks: StackHook[];
}

/** the stack jobs, defined with the job runner, and the deploy they share (another plugin's deployIn runs it too) */
export function stackJobs(ctx: ContextWith<'actionTokens' | 'events' | 'revisions'>, deps: StackJobParts) {
  const { runtime, store, sources, runtimes, hooks } = deps;
  const others = async <R>(fn: (r: StackRuntime) => Promise<R>) => Promise.all(runtimes.map(fn));

  async function projectOf(row: StackRow, io: DeployIo & { redact(secret: string): void }, at?: { commit?: string }) {
    for (const value of [...Object.values(row.env), ...Object.values(row.settings).map(String)]) if (value.length >= 6) io.redact(value);
    let prepared: Awaited<ReturnType<StackSource['prepare']>> = null;
    for (const source of sources) prepared ??= await source.prepare(row.name, io, at);
    if (prepared?.commit) io.log(`source at commit ${prepared.commit}`);
    const project: ComposeProject = { name: row.name, compose: prepared?.compose ?? row.compose, variables: variablesOf(row.env, row), workdir: prepared?.workdir };
    return { project, commit: prepared?.commit ?? null, fromSource: prepared?.compose !== undefined };
  }

  /** the project a job runs; a compose file that comes from a source tree meets the platform rules here, as it was never saved */
  async function load(stack: string, io: DeployIo & { redact(secret: string): void }, at?: { commit?: string }) {
    const row = await store.get(stack);
    if (!row) throw new Error(`stack ${stack} no longer exists`);
    const { project, commit, fromSource } = await projectOf(row, io, at);
    const loaded = runtime.load(project);
    // a saved file met every rule when saved; those that judge what may have changed since are asked again
    const errors = fromSource
      ? await checkRules(deps.rules, deps.switches, { stack, loaded, hasSource: true, workdir: project.workdir })
      : [...loaded.errors.map((e) => ({ rule: 'compose-valid', ...e })), ...await checkRules(deps.rules.filter((r) => r.atDeploy), deps.switches, { stack, loaded, hasSource: project.workdir !== undefined, workdir: project.workdir })];
    if (errors.length) throw new Error(`the compose file of ${stack} is refused: ${errors.map((e) => `${e.path}: ${e.message} (${e.rule})`).join('; ')}`);
    return { row, project, commit, loaded, fromSource };
  }

  const Input = Type.Object({ stack: Type.String() });
  const deploy = async (job: DeployJob, override?: DeployOverride) => {
    const prepared = await load(job.input.stack, job, override?.commit ? { commit: override.commit } : undefined);
    const { row, commit, fromSource } = prepared;
    // what another plugin deploys instead (a release pinned by digest): the stack's source tree as prepared, its content its own
    let project = override ? override.project(prepared.project) : prepared.project;
    // a plain deploy: what other plugins keep on top of the compose file (an applied image update)
    for (const hook of override ? [] : hooks) project = (await hook.adjust?.(row.name, project, prepared.loaded)) ?? project;
    const loaded = project === prepared.project ? prepared.loaded : runtime.load(project);
    if (loaded.errors.length) throw new Error(`the compose file to deploy is refused: ${loaded.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
    const revision = override?.revision ?? row.revision;
    const other = runtimes.find((r) => r.claims(loaded));
    job.log(`deploying ${row.name} at revision ${revision}${commit ? `, commit ${commit}` : ''}${other ? ` on the ${other.name} runtime` : ''}`);
    try {
      // a secret's content is read by the runtime: it hands it to the job's redaction
      const io = { log: job.log, signal: job.signal, redact: job.redact };
      // before any container changes: a deploy the edge would not route fails with the reason instead of succeeding unrouted
      for (const hook of hooks) await hook.deploying?.(row.name, loaded);
      // a stack moved back to the compose runtime leaves nothing running on the others
      if (!other) await others((r) => r.remove(row.name, io));
      const result = other ? await other.deploy(project, loaded, io) : await runtime.deploy(project, io);
      // a stack deployed from a source tree shows the services of the file that deployed, not of its stored placeholder
      await store.set(row.name, { desired: 'running', deployed_revision: revision, ...(fromSource ? { services: loaded.services.map((s) => s.name) } : {}) });
      for (const hook of hooks) {
        await hook.deployed?.({ stack: row.name, revision, commit, jobId: job.id, project, loaded, note: override?.note ?? {} })
          .catch((err: Error) => job.log(`the deploy succeeded, but a plugin could not note it: ${err.message}`));
      }
      ctx.events.emit('stack.deployed', { stack: row.name, revision, commit, jobId: job.id });
      return { revision, commit, ...result };
    } catch (err) {
      // no error text here: it is raw; listeners read the job, whose error is redacted
      ctx.events.emit('stack.deploy.failed', { stack: row.name, revision: row.revision, jobId: job.id });
      throw err;
    }
  };

  const jobs = {
    deploy: ctx.jobs.define(defineJob({ type: 'stacks.deploy', input: Input, run: deploy })),
    stop: ctx.jobs.define(defineJob({
      type: 'stacks.stop', input: Input,
      async run(job) {
        const io = { log: job.log, signal: job.signal };
        // the other runtimes first: their services would replace the containers the compose runtime removes
        const removed = (await others((r) => r.stop(job.input.stack, io))).flatMap((r) => r.removed);
        const result = await runtime.stop(job.input.stack, io);
        result.removed.push(...removed);
        await store.set(job.input.stack, { desired: 'stopped' });
        ctx.events.emit('stack.stopped', { stack: job.input.stack, jobId: job.id });
        return result;
      },
    })),
    pull: ctx.jobs.define(defineJob({
      type: 'stacks.pull', input: Input,
      async run(job) {
        const { project } = await load(job.input.stack, job);
        return runtime.pull(project, { log: job.log, signal: job.signal });
      },
    })),
    autoupdate: ctx.jobs.define(defineJob({
      type: 'stacks.autoupdate', input: Input,
      async run(job) {
        const { project } = await load(job.input.stack, job);
        const pulled = await runtime.pull(project, { log: job.log, signal: job.signal });
        const changed = pulled.images.filter((i) => i.changed).map((i) => i.image);
        if (!changed.length) {
          job.log('every image is up to date: nothing to redeploy');
          return { changed, redeployed: false };
        }
        job.log(`new images: ${changed.join(', ')}; redeploying the services that use them`);
        return { changed, redeployed: true, deploy: await deploy(job) };
      },
    })),
    remove: ctx.jobs.define(defineJob({
      type: 'stacks.remove', input: Type.Object({ stack: Type.String(), revision: Type.Integer(), volumes: Type.Boolean() }),
      async run(job) {
        const { stack, revision, volumes } = job.input;
        if ((await ctx.revisions.current('stack', stack)) !== revision) throw new Error(`stack ${stack} changed since revision ${revision}: read it again and retry`);
        await others((r) => r.remove(stack, { log: job.log, signal: job.signal }));
        const { volumes: named } = await runtime.remove(stack, { log: job.log, signal: job.signal }, { volumes });
        await ctx.revisions.remove({
          kind: 'stack', key: stack, expected: revision,
          apply: async (tx) => {
            await store.remove(tx, stack);
            for (const hook of hooks) await hook.removed?.(tx, stack);
          },
        });
        await Promise.all([deployKind, pushKind].map((kind) => ctx.actionTokens.revoke(kind, stack)));
        ctx.events.emit('stack.removed', { stack });
        job.log(`stack ${stack} removed${volumes ? ' with its volumes' : named.kept.length ? `; its volumes are kept (${named.kept.join(', ')}): DELETE /api/v1/volumes/{name} removes one` : ''}`);
        // the named volumes either way: what was kept stays on the engine (GET /api/v1/volumes) until removed on purpose
        return { removed: stack, volumes: named };
      },
    })),
  };

  return { jobs, deploy };
}
