// The stacks plugin's public API: what a plugin that requires it gets as ctx.deps.stacks.
import type { TString } from '@sinclair/typebox';
import { extensionPoint, pluginRef, type Actor, type Db, type Job, type PluginRef, type Principal } from '../../sdk/index.ts';
import type { LoadedCompose } from '../docker/types.ts';
import type { Need } from './access.ts';
import type { StackRuntime, StackSource } from './core.ts';
import type { PlatformRule, RuleError } from './rules.ts';
import type { StackTemplate } from './templates.ts';

export type { Need, PlatformRule, RuleError, StackRuntime, StackSource, StackTemplate };

/** what other plugins may do with stacks */
export interface StacksApi {
  /** @deprecated contribute to the extension point platformRules (ctx.extensions.add) */
  addRule(rule: PlatformRule): void;
  /** @deprecated contribute to the extension point stackTemplates */
  addTemplate(template: StackTemplate): void;
  /** @deprecated contribute to the extension point stackSources */
  addSource(source: StackSource, describe?: (stack: string) => Promise<Record<string, unknown>>): void;
  /** queues a deploy of the stack (attached to a queued one when asked) */
  deploy(stack: string, actor: Actor, attach?: boolean): Promise<Job & { attached: boolean }>;
  exists(stack: string): Promise<boolean>;
  /** the schema of a stack name, for routes of other plugins with a stack in their path */
  nameSchema: TString;
  /** the action-token kinds of the stack webhooks (the push secret is kept under `push`) */
  webhookKinds: { deploy: string; push: string };
  /** the stack for this caller: a 404 problem when absent or invisible to them, 403 when their role on it is too low */
  access(stack: string, principal: Principal, need: Need): Promise<void>;
  /** the stored compose file and the variables a deploy interpolates with (template inputs applied); null when there is no such stack */
  content(stack: string): Promise<{ compose: string; variables: Record<string, string> } | null>;
  /** the platform rules' errors for a compose file loaded for this stack (a preview of it: no more than the stack gets) */
  check(stack: string, loaded: LoadedCompose, workdir?: string): Promise<RuleError[]>;
}

/** a provider of source trees (the git plugin), and the fields it adds to the stack's answer */
export const stackSources = extensionPoint<{ source: StackSource; describe?(stack: string): Promise<Record<string, unknown>> }>('stacks', 'sources');
/** a further platform rule every compose file must pass (the edge plugin's hostname ownership) */
export const platformRules = extensionPoint<PlatformRule>('stacks', 'rules');
/**
 * What another plugin keeps in step with a stack's saved content (the edge's hostname claims). `saved` and `removed`
 * run inside the transaction that saves or removes the stack: a problem thrown there refuses the change, and nothing is
 * saved. `deploying` runs in a deploy job before any container changes: an error thrown fails the deploy with its message.
 */
export interface StackHook {
  saved?(tx: Db, stack: string, loaded: LoadedCompose): Promise<void>;
  deploying?(stack: string, loaded: LoadedCompose): Promise<void>;
  removed?(tx: Db, stack: string): Promise<void>;
}
/** a hook on a stack's saves, deploys and removal */
export const stackHooks = extensionPoint<StackHook>('stacks', 'hooks');
/** a runtime beside the compose runtime: it deploys the stacks it claims (the swarm plugin's) */
export const stackRuntimes = extensionPoint<StackRuntime>('stacks', 'runtimes');
/** the stack whose access list governs a compose project that is no stack (a preview of it): project → stack, for the projects it knows */
export const projectParents = extensionPoint<(projects: readonly string[]) => Promise<ReadonlyMap<string, string>>>('stacks', 'project-parents');
/** a further stack template */
export const stackTemplates = extensionPoint<StackTemplate>('stacks', 'templates');

/** `requires: [stacksPlugin]` types ctx.deps.stacks */
export const stacksPlugin: PluginRef<'stacks', StacksApi> = pluginRef('stacks');
