// The stacks core: the stack rules (lookup with access, validate and save by revision, create, settings, restore, removal), the project a deploy runs, live state, and the stack jobs.
import { defineJob, problem, Type, type Actor, type Db, type Job, type JobHandle, type ContextWith, type Principal } from '../../sdk/index.ts';
import type { ComposeProject, DeployIo, DockerRuntime, LoadedCompose, ServiceStatus } from '../docker/types.ts';
import { assertAccess, assertWithinLimit, canSee, type AccessEntry, type Need } from './access.ts';
import { checkRules, type PlatformRule, type RuleError } from './rules.ts';
import type { StackContent, StackDetail, StackRow, StackStore, StackSummary } from './store.ts';
import { templateVariables, type Templates } from './templates.ts';
import type { LiveState } from './view.ts';

/**
 * What another plugin keeps in step with a stack's saved content (the edge's hostname claims), through the extension point stackHooks. `saved` and `removed`
 * run inside the transaction that saves or removes the stack: a problem thrown there refuses the change, and nothing is
 * saved. `deploying` runs in a deploy job before any container changes: an error thrown fails the deploy with its message.
 */
export interface StackHook {
  saved?(tx: Db, stack: string, loaded: LoadedCompose): Promise<void>;
  deploying?(stack: string, loaded: LoadedCompose): Promise<void>;
  /** before a plain deploy (not another plugin's deployIn with an override): the project to deploy instead, or null */
  adjust?(stack: string, project: ComposeProject, loaded: LoadedCompose): Promise<ComposeProject | null>;
  /** after every successful deploy, by any path (API, webhook, push, autoupdate, another plugin's deployIn): what was deployed */
  deployed?(deploy: StackDeployed): Promise<void>;
  removed?(tx: Db, stack: string): Promise<void>;
}

/** a successful deploy: the project as deployed (its variables are secret) and the deploy's note (DeployOverride) */
export interface StackDeployed {
  stack: string; revision: number; commit: string | null; jobId: string;
  project: ComposeProject; loaded: LoadedCompose; note: Record<string, unknown>;
}

/** where a stack's files come from when it has a source tree (the git plugin provides one). */
export interface StackSource {
  hasSource(stack: string): Promise<boolean>;
  /**
   * Called by every deploy, pull and autoupdate job of the stack (one at a time per stack): the tree to deploy from
   * (checked out at the commit to deploy), the compose text found there, and the commit; null when the stack has no source.
   * `at.commit`: that commit of the repository instead of its branch head or pinned commit (a rollback to a release).
   */
  prepare(stack: string, io: DeployIo & { redact(secret: string): void }, at?: { commit?: string }): Promise<{ workdir: string; compose?: string; commit?: string } | null>;
  /** the tree as it is now, fetching nothing (an upload; a repository's last checkout), for validate; null when there is none yet */
  current(stack: string): Promise<{ workdir: string } | null>;
  /** the compose file a deploy would use now, fetching nothing, and where it comes from; null when the stack has no source (or no file yet) */
  composeFile?(stack: string): Promise<{ text: string; origin: ComposeOrigin } | null>;
}

/** where the compose file that deploys comes from: the stack's own (the editor), an uploaded archive, or a commit of its repository */
export interface ComposeOrigin {
  kind: 'editor' | 'upload' | 'git';
  /** the file in the tree */
  path?: string;
  /** upload: when, and the archive's sha256 */
  at?: string; sha256?: string;
  /** git: the repository, branch and commit (the deployed one, else the last head seen) */
  url?: string; branch?: string; commit?: string; subject?: string | null;
}

/**
 * A runtime beside the docker plugin's compose runtime (the swarm plugin's): a stack whose compose file it claims is
 * deployed by it. Stop, remove and status ask every runtime, so a stack moved from one runtime to another leaves nothing behind.
 */
export interface StackRuntime {
  name: string;
  claims(loaded: LoadedCompose): boolean;
  deploy(project: ComposeProject, loaded: LoadedCompose, io: DeployIo): Promise<Record<string, unknown>>;
  stop(stack: string, io: DeployIo): Promise<{ removed: string[] }>;
  remove(stack: string, io: DeployIo): Promise<void>;
  status(names: readonly string[]): Promise<Map<string, ServiceStatus[]>>;
}

export const deployKind = 'stacks.deploy';
export const pushKind = 'stacks.push';
export const resourceOf = (stack: string) => `stack:${stack}`;
/** the content a revision counts, as the stack has it now */
export const contentOf = (row: StackRow): StackContent => ({ compose: row.compose, env: row.env, template: row.template, settings: row.settings, services: row.services });

/** what a removal did with the stack's named volumes */
export interface VolumeFates { kept: string[]; removed: string[] }

/** a new stack's compose file: written out, or its template's (with the template's inputs) */
export interface NewStack { content?: string; template?: string; settings?: Record<string, unknown>; message?: string; env?: Record<string, string> }

/**
 * A save whose compose file comes from a source tree that is not the stack's yet (a stack created from an archive or a
 * repository): the rules judge it in `workdir` as a deploy would, and `within` writes the source in the same transaction.
 */
export interface SavedFrom { workdir?: string; within(tx: Db): Promise<void> }

/** what a save answers beside the stack: the compose loader's warnings (an unset ${VAR}, say), as validate gives them */
export interface Saved { warnings: { path: string; message: string }[] }

export interface Core {
  /** the stack as this caller may use it: 404 when absent or invisible to them, 403 when their role on it is too low */
  stackFor(name: string, principal: Principal, need: Need): Promise<StackRow>;
  /** stackFor without the compose text and the variables (nothing to decrypt), with what the stack's answer shows besides */
  detailFor(name: string, principal: Principal, need: Need): Promise<StackDetail>;
  /**
   * Saves the content as the revision after `expected` (a 412 problem when the stack has moved on, 0 creates it) once it
   * passes the platform rules (a 422 problem naming the broken rules otherwise: nothing is saved).
   */
  write(name: string, expected: number, principal: Principal, content: StackContent, message?: string, from?: SavedFrom): Promise<Saved>;
  /** creates the stack (revision 0) from a compose file or a template; a stack hidden from the caller does not exist for them (404) */
  create(name: string, principal: Principal, input: NewStack, from?: SavedFrom): Promise<Saved>;
  /** new template settings, checked against the template's inputs */
  changeSettings(row: StackRow, expected: number, principal: Principal, settings: Record<string, unknown>, message?: string): Promise<void>;
  /** a new revision whose content equals revision `id` (based on `expected`, or the stack's current revision) */
  restore(row: StackRow, id: number, expected: number | undefined, principal: Principal): Promise<void>;
  /**
   * Removes the stack at revision `expected` (412 otherwise) in a job, waiting 30 s for it: its result, or the job still
   * running with what it will do to the named volumes the stack has now.
   */
  remove(row: StackRow, expected: number, volumes: boolean, actor: Actor): Promise<{ done: true; jobId: string; volumes: VolumeFates } | { done: false; job: Job; volumes: VolumeFates }>;
  /** the compose file that deploys: the source's (an upload, a commit) when the stack has one, else its own, with where it comes from */
  composeOf(row: StackRow): Promise<{ text: string; origin: ComposeOrigin }>;
  /** `principal`: who asks, so that the rules' messages name only what they may see */
  validate(stack: string, content: string, env: Record<string, string>, settings?: { template: string | null; settings: Record<string, unknown> }, principal?: Principal): Promise<{ loaded: LoadedCompose; errors: RuleError[] }>;
  live(rows: readonly StackSummary[]): Promise<LiveState>;
  jobs: { deploy: JobHandle<{ stack: string }>; stop: JobHandle<{ stack: string }>; pull: JobHandle<{ stack: string }>; remove: JobHandle<{ stack: string; revision: number; volumes: boolean }>; autoupdate: JobHandle<{ stack: string }> };
  /** queues a job on the stack's serial key and remembers it on the stack */
  start(kind: 'deploy' | 'stop' | 'pull' | 'autoupdate', stack: string, actor: Actor, attach?: boolean): Promise<Awaited<ReturnType<JobHandle<unknown>['enqueue']>>>;
  /** the names of the stack's named volumes on the engine; null when the engine does not answer */
  volumesOf(stack: string): Promise<string[] | null>;
  sources: StackSource[];
  runtimes: StackRuntime[];
  hooks: StackHook[];
  /** deploys the stack in a job of another plugin that holds the stack's serial key (resourceOf), as a deploy job would */
  deployIn(job: DeployJob, override?: DeployOverride): Promise<Record<string, unknown>>;
}

type DeployJob = { input: { stack: string }; log(l: string): void; redact(s: string): void; signal: AbortSignal; id: string };
/** a deploy of other content than the stack's saved one: `project` turns the prepared project into the one to deploy */
export interface DeployOverride {
  project(prepared: ComposeProject): ComposeProject;
  /** the stack revision the deployed content comes from */
  revision?: number;
  /** the commit of the stack's source tree to deploy from (a release's), instead of its branch head or pinned commit */
  commit?: string;
  /** handed to the deployed hooks as it is */
  note?: Record<string, unknown>;
}

export function createCore(ctx: ContextWith<'actionTokens' | 'events' | 'revisions'>, deps: { runtime: DockerRuntime; store: StackStore; templates: Templates; rules: PlatformRule[]; switches: Record<string, boolean> }): Core {
  const { runtime, store, templates } = deps;
  const sources: StackSource[] = [];
  const runtimes: StackRuntime[] = [];
  const hooks: StackHook[] = [];
  const others = async <R>(fn: (r: StackRuntime) => Promise<R>) => Promise.all(runtimes.map(fn));

  const hasSource = async (stack: string) => (await Promise.all(sources.map((s) => s.hasSource(stack)))).some(Boolean);
  const currentTree = async (stack: string) => (await Promise.all(sources.map((s) => s.current(stack)))).find(Boolean)?.workdir;
  const variablesOf = (env: Record<string, string>, t?: { template: string | null; settings: Record<string, unknown> }) =>
    t?.template ? templateVariables(t.settings, env) : env;

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
