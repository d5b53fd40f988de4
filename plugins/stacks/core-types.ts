// The stacks core's contract: what it offers (Core), what other plugins plug into it (hooks, sources, runtimes) and its constants.
import type { Actor, Db, Job, JobHandle, Principal } from '../../sdk/index.ts';
import type { ComposeProject, DeployIo, LoadedCompose, ServiceStatus } from '../docker/types.ts';
import type { Need } from './access.ts';
import type { RuleError } from './rules.ts';
import type { StackContent, StackDetail, StackRow, StackSummary } from './store.ts';
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

/** what a deploy needs of its job */
export type DeployJob = { input: { stack: string }; log(l: string): void; redact(s: string): void; signal: AbortSignal; id: string };
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
