// The stacks plugin's public API: what a plugin that requires it gets as ctx.deps.stacks.
import type { TString } from '@sinclair/typebox';
import { extensionPoint, pluginRef, type Actor, type Db, type Job, type JobRun, type PluginRef, type Principal } from '../../sdk/index.ts';
import type { LoadedCompose } from '../docker/types.ts';
import type { Need } from './access.ts';
import type { DeployOverride, Saved, StackDeployed, StackHook, StackRuntime, StackSource } from './core.ts';
import type { PlatformRule, RuleError } from './rules.ts';
import type { StackTemplate } from './templates.ts';

export type { DeployOverride, Need, Saved, PlatformRule, RuleError, StackDeployed, StackHook, StackRuntime, StackSource, StackTemplate };


/** what other plugins may do with stacks */
export interface StacksApi {
  /** queues a deploy of the stack (attached to a queued one when asked) */
  deploy(stack: string, actor: Actor, attach?: boolean): Promise<Job & { attached: boolean }>;
  exists(stack: string): Promise<boolean>;
  /** a create (If-None-Match: *) may go on: a 412 problem when the stack exists and the caller sees it, 404 when it is hidden from them (as a write would) */
  assertNew(stack: string, principal: Principal): Promise<void>;
  /**
   * Creates the stack (revision 1) from the compose file of a source tree that is not the stack's yet: the platform rules
   * judge it in `workdir` as a deploy would (build contexts, env files); `within` writes the source in the same
   * transaction, so a refusal of either creates nothing. A 412 problem when the stack exists, 422 naming the broken rules.
   */
  createFromTree(stack: string, principal: Principal, input: { compose: string; workdir: string; message?: string }, within: (tx: Db) => Promise<void>): Promise<Saved>;
  /**
   * Creates the stack (revision 1) from a compose file and its variables once it passes the platform rules; `within`
   * writes what the caller keeps about it in the same transaction. A 412 problem when the stack exists, 422 naming the broken rules.
   */
  create(stack: string, principal: Principal, input: { compose: string; env: Record<string, string>; message?: string }, within?: (tx: Db) => Promise<void>): Promise<Saved>;
  /**
   * Saves a new revision of the stack after `expected` (412 when it moved on) with this compose file and these
   * variables (each left out keeps the stack's own), once it passes the platform rules (422 otherwise); `within`
   * writes what the caller keeps about it in the same transaction.
   */
  write(stack: string, principal: Principal, expected: number, change: { compose?: string; env?: Record<string, string>; message?: string }, within?: (tx: Db) => Promise<void>): Promise<Saved>;
  /** the schema of a stack name, for routes of other plugins with a stack in their path */
  nameSchema: TString;
  /** the action-token kinds of the stack webhooks (the push secret is kept under `push`) */
  webhookKinds: { deploy: string; push: string };
  /** the stack for this caller: a 404 problem when absent or invisible to them, 403 when their role on it is too low */
  access(stack: string, principal: Principal, need: Need): Promise<void>;
  /**
   * Deploys the stack inside the calling job, which must hold the stack's serial key (`stack:<name>`, see `resourceOf`),
   * as a deploy job does (hooks, the stack's state, the deployed event); `override` deploys other content.
   */
  deployIn(job: JobRun<{ stack: string }>, override?: DeployOverride): Promise<Record<string, unknown>>;
  /** the stack's saved state: revision and whether it should run */
  state(stack: string): Promise<{ revision: number; desired: string; autoupdate: boolean } | null>;
  /** the stored compose file and the variables a deploy interpolates with (template inputs applied); null when there is no such stack */
  content(stack: string): Promise<{ compose: string; variables: Record<string, string> } | null>;
  /** the platform rules' errors for a compose file loaded for this stack (a preview of it: no more than the stack gets) */
  check(stack: string, loaded: LoadedCompose, workdir?: string): Promise<RuleError[]>;
}

/** a provider of source trees (the git plugin), and the fields it adds to the stack's answer */
export const stackSources = extensionPoint<{ source: StackSource; describe?(stack: string): Promise<Record<string, unknown>> }>('stacks', 'sources', { resource: 'stack source' });
/** a further platform rule every compose file must pass (the edge plugin's hostname ownership) */
export const platformRules = extensionPoint<PlatformRule>('stacks', 'rules');
/** a hook on a stack's saves, deploys and removal */
export const stackHooks = extensionPoint<StackHook>('stacks', 'hooks');
/** a runtime beside the compose runtime: it deploys the stacks it claims (the swarm plugin's) */
export const stackRuntimes = extensionPoint<StackRuntime>('stacks', 'runtimes', { resource: 'stack runtime' });
/** what the nightly autoupdate runs for a stack that has it on instead of its own pull-and-redeploy (the releases plugin's update); the first one answers, null: not for this stack */
export const stackUpdaters = extensionPoint<(stack: string, actor: Actor) => Promise<unknown>>('stacks', 'updaters');
/** fields another plugin adds to a stack's full answer (GET /stacks/{name}): the releases plugin's `release` */
export const stackDescribers = extensionPoint<(stack: string) => Promise<Record<string, unknown>>>('stacks', 'describers');
/** the stack whose access list governs a compose project that is no stack (a preview of it): project → stack, for the projects it knows */
export const projectParents = extensionPoint<(projects: readonly string[]) => Promise<ReadonlyMap<string, string>>>('stacks', 'project-parents');
/** the names of a stack's variables whose values no answer shows, even to its writers (values a template generated) */
export const secretVariables = extensionPoint<(stack: string) => Promise<readonly string[]>>('stacks', 'secret-variables');
/** a further stack template */
export const stackTemplates = extensionPoint<StackTemplate>('stacks', 'templates');

/** `requires: [stacksPlugin]` types ctx.deps.stacks */
export const stacksPlugin: PluginRef<'stacks', StacksApi> = pluginRef('stacks');
