// The stacks plugin: compose stacks with variables, settings, revisions, deploy/stop/pull jobs, access lists, autoupdate and the deploy webhook.
import { definePlugin, problem, Type, type Principal } from '../../sdk/index.ts';
import { accessGuards, dockerPlugin } from '../docker/api.ts';
import { assertWithinLimit, canSee, stackRole, type AccessEntry } from './access.ts';
import { platformRules, projectParents, secretVariables, stackDescribers, stackHooks, stackRuntimes, stackSources, stackTemplates, stackUpdaters, type StacksApi } from './api.ts';
import { contentOf, createCore, deployKind, pushKind } from './core.ts';
import { StackName, stackRoutes } from './routes.ts';
import { builtInRules, checkRules, dockerDefaultCapabilities, safeNetworkOptions, safeSecurityOptions, safeSysctls } from './rules.ts';
import { createStore } from './store.ts';
import { Templates, templateVariables } from './templates.ts';
import { stacksOverview } from './overview.ts';
import { problems } from './problems.ts';
import { volumeRoutes } from './volumes.ts';
import { deployWebhook } from './webhook.ts';

export type { Need, PlatformRule, StackHook, StackSource, StackTemplate, StacksApi } from './api.ts';

const Options = Type.Object({
  rules: Type.Record(Type.String(), Type.Boolean(), { default: {}, description: 'false switches a platform rule off for this install, true on one that is off by default (no-container-name)' }),
  allowedBindRoots: Type.Array(Type.String({ pattern: '^/' }), { default: [] }),
  // allow-lists: what is not named is refused (each one's rule can also be switched off under `rules`)
  allowedCapabilities: Type.Array(Type.String(), { default: dockerDefaultCapabilities, description: 'what cap_add may add (no-dangerous-capabilities)' }),
  allowedSecurityOptions: Type.Array(Type.String(), { default: safeSecurityOptions, description: 'security_opt values, as written (allowed-security-options)' }),
  allowedSysctls: Type.Array(Type.String(), { default: safeSysctls, description: 'sysctl names (allowed-sysctls)' }),
  allowedNetworkDrivers: Type.Array(Type.String(), { default: ['bridge', 'overlay'], description: 'allowed-network-drivers' }),
  allowedNetworkOptions: Type.Array(Type.String(), { default: safeNetworkOptions, description: 'network driver_opts names (allowed-network-options)' }),
  allowedVolumeDrivers: Type.Array(Type.String(), { default: ['local'], description: 'allowed-volume-drivers' }),
  allowedLoggingDrivers: Type.Array(Type.String(), { default: ['json-file', 'local', 'none'], description: 'allowed-logging-drivers' }),
  allowedRuntimes: Type.Array(Type.String(), { default: ['runc'], description: 'container runtimes a service may name in runtime: (allowed-runtimes)' }),
  allowedIpamDrivers: Type.Array(Type.String(), { default: ['default'], description: 'IPAM drivers of the stack\'s own networks (allowed-ipam-drivers)' }),
  autoupdateCron: Type.String({ default: '0 3 * * *', description: 'when autoupdate runs (cron of 5 fields or a nickname, server time; minute-grained)' }),
  webhookWindowSeconds: Type.Integer({ minimum: 1, default: 30 }),
  webhookWaitSeconds: Type.Integer({ minimum: 1, default: 600 }),
  templates: Type.Record(Type.String(), Type.Object({ description: Type.String({ default: '' }), compose: Type.String(), inputs: Type.Record(Type.String(), Type.Unknown(), { default: {} }) }), { default: {} }),
});

export default definePlugin({
  name: 'stacks',
  problems,
  version: '1.0.0',
  services: ['db', 'revisions', 'actionTokens', 'secrets', 'events'],
  extensionPoints: [stackRuntimes, stackSources, platformRules, stackHooks, stackTemplates, secretVariables],
  requires: [dockerPlugin],
  options: Options,
  setup(ctx): StacksApi {
    const runtime = ctx.deps.docker;
    const options = ctx.options;
    ctx.scopes.define({
      'stacks:read': { description: 'read stacks, their compose files, variables (secrets hidden), revisions and status', role: 'viewer' },
      'stacks:write': { description: 'change compose files, variables, settings, access lists, autoupdate and webhooks', role: 'operator' },
      'stacks:deploy': { description: 'deploy, stop and pull stacks, restore revisions', role: 'operator' },
    });
    ctx.migrations.from(new URL('./migrations', import.meta.url));

    const store = createStore(ctx.db, ctx.secrets);
    const templates = new Templates();
    for (const [name, t] of Object.entries(options.templates)) templates.add({ name, description: t.description, compose: t.compose, inputs: t.inputs });
    const rules = builtInRules({
      ...options,
      portsInUse: (stack) => runtime.publishedPorts(stack).catch(() => null),
      // a job (no caller) names them: its output is the stack's own
      visibleStacks: async (principal, stacks) => (principal ? allowed(principal, stacks, false) : new Set(stacks)),
      containerNamesHeld: async (stack, names) => {
        const held = await runtime.containerNameHolders(names).catch(() => null);
        type Held = { name: string; holder: 'stack' | 'installation' | 'outside' };
        return held?.flatMap((h): Held[] => h.owner.owner === 'this' ? (h.owner.project === stack ? [] : [{ name: h.name, holder: 'stack' }])
          : [{ name: h.name, holder: h.owner.owner === 'other' ? 'installation' : 'outside' }]) ?? null;
      },
      resourcesHeld: async (stack, kind, names) => {
        const held = await runtime.resourceHolders(kind, names).catch(() => null);
        type Held = { name: string; holder: 'stack' | 'installation' };
        return held?.flatMap((h): Held[] => h.owner.owner === 'this' ? (h.owner.project === stack ? [] : [{ name: h.name, holder: 'stack' }])
          : h.owner.owner === 'other' ? [{ name: h.name, holder: 'installation' }] : []) ?? null;
      },
      reservedNetworks: (names) => runtime.reservedNetworks(names).catch(() => null),
      refusedImages: async (loaded) => (await runtime.refusedImages(loaded.services))?.map(({ path, message }) => ({ path, message })) ?? null,
    });
    const core = createCore(ctx, { runtime, store, templates, rules, switches: options.rules });
    const describers: ((stack: string) => Promise<Record<string, unknown>>)[] = [];
    const hiddenVariables = async (stack: string) => new Set((await Promise.all(ctx.extensions.of(secretVariables).map((f) => f(stack)))).flat());
    const describe = async (stack: string) => Object.assign({ source: null }, ...(await Promise.all(describers.map((d) => d(stack)))));

    for (const route of stackRoutes({ ctx, core, store, templates, autoupdateCron: options.autoupdateCron, describe, hiddenVariables })) ctx.routes.add(route);
    for (const route of volumeRoutes({ runtime, store })) ctx.routes.add(route);
    for (const route of deployWebhook({ ctx, core, store, windowSeconds: options.webhookWindowSeconds, waitSeconds: options.webhookWaitSeconds })) ctx.webhooks.add(route);

    // a stack's containers, jobs and activity are as visible, and as usable, as the stack; what is no stack (any more) is for admins
    const allowed = async (principal: Principal, names: readonly string[], act: boolean) => {
      const access = await store.accessOf(names);
      // a project that is no stack but a preview of one is as visible, and as usable, as that stack
      const others = names.filter((n) => !access.has(n));
      const parents = new Map<string, string>();
      if (others.length) for (const parentsOf of ctx.extensions.of(projectParents)) for (const [p, stack] of await parentsOf(others)) parents.set(p, stack);
      const parentAccess = parents.size ? await store.accessOf([...new Set(parents.values())]) : new Map<string, AccessEntry[]>();
      return new Set(names.filter((n) => {
        const entries = access.get(n) ?? parentAccess.get(parents.get(n) ?? '');
        if (!entries) return principal.role === 'admin' && !principal.stacks;
        const role = stackRole(principal, entries, entries === access.get(n) ? n : parents.get(n)!);
        return role === 'unlimited' || (role !== null && (!act || role !== 'viewer'));
      }));
    };
    ctx.extensions.add(accessGuards, (principal, projects, need) => allowed(principal, projects, need === 'deploy'));
    // what other plugins plugged in, complete once all are set up (the add* setters of the API still work)
    ctx.onStart(() => {
      rules.push(...ctx.extensions.of(platformRules));
      for (const template of ctx.extensions.of(stackTemplates)) templates.add(template);
      core.runtimes.push(...ctx.extensions.of(stackRuntimes));
      core.hooks.push(...ctx.extensions.of(stackHooks));
      describers.push(...ctx.extensions.of(stackDescribers));
      for (const { source, describe: describeFn } of ctx.extensions.of(stackSources)) {
        core.sources.push(source);
        if (describeFn) describers.push(describeFn);
      }
    });
    ctx.visibility.add({
      prefix: 'stack:', visible: (principal, names, need) => allowed(principal, names, need === 'act'),
      // a removed user's or team's entries grant nothing, to a later user or team of the same name neither
      forget: (principal, tx) => store.forget(tx, principal),
    });

    ctx.schedule.cron('autoupdate', options.autoupdateCron, async () => {
      for (const row of await store.all()) {
        if (!row.autoupdate || row.desired !== 'running') continue;
        const updater = ctx.extensions.of(stackUpdaters)[0];
        const actor = { kind: 'system', name: 'autoupdate' } as const;
        if (!(updater && await updater(row.name, actor))) await core.start('autoupdate', row.name, actor, true);
      }
    });

    ctx.overview.add(stacksOverview(store, core));

    async function assertNew(stack: string, principal: Principal) {
      const access = (await store.accessOf([stack])).get(stack);
      assertWithinLimit(principal, stack);
      if (!access) return;
      if (!canSee(principal, access, stack)) throw problem(404, `no stack "${stack}"`);
      throw problem(412, `stack "${stack}" already exists; If-None-Match: * only creates (If-Match: "N" or no condition changes it)`, { code: 'exists' });
    }

    return {
      deploy: (stack, actor, attach) => core.start('deploy', stack, actor, attach),
      deployIn: (job, override) => core.deployIn(job, override),
      state: async (stack) => {
        const row = await store.get(stack);
        return row && { revision: row.revision, desired: row.desired, autoupdate: row.autoupdate };
      },
      exists: async (stack) => (await store.get(stack)) !== null,
      assertNew,
      create: async (stack, principal, input, within) => {
        await assertNew(stack, principal);
        return core.create(stack, principal, { content: input.compose, env: input.env, message: input.message }, within && { within });
      },
      write: async (stack, principal, expected, change, within) => {
        const row = await core.stackFor(stack, principal, 'write');
        const content = { ...contentOf(row), ...(change.compose !== undefined ? { compose: change.compose } : {}), ...(change.env ? { env: change.env } : {}) };
        return core.write(stack, expected, principal, content, change.message, within && { within });
      },
      createFromTree: async (stack, principal, input, within) => {
        await assertNew(stack, principal);
        return core.create(stack, principal, { content: input.compose, message: input.message }, { workdir: input.workdir, within });
      },
      webhookKinds: { deploy: deployKind, push: pushKind },
      nameSchema: StackName,
      access: async (stack, principal, need) => { await core.stackFor(stack, principal, need); },
      content: async (stack) => {
        const row = await store.get(stack);
        return row && { compose: row.compose, variables: row.template ? templateVariables(row.settings, row.env) : row.env };
      },
      check: (stack, loaded, workdir) => checkRules(rules, options.rules, { stack, loaded, hasSource: workdir !== undefined, workdir }),
    };
  },
});
