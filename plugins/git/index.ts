// The git plugin: a stack's source from a git repository or an uploaded archive, pin/unpin, polling and the push receiver.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { definePlugin, keyedLock, Type } from '../../sdk/index.ts';
import { problems } from './problems.ts';
import { stackHooks, stackSources, stacksPlugin } from '../stacks/api.ts';
import { dockerPlugin, gitContexts } from '../docker/api.ts';
import { createGitApi, pullRequestReceivers, type GitApi } from './api.ts';
import { gitBuildContexts } from './build-contexts.ts';
import { defaultArchiveLimits } from './archive.ts';
import { createGit } from './git.ts';
import { previewTrees } from './previews.ts';
import { pushReceiver } from './push.ts';
import { sourceRoutes } from './routes.ts';
import { deployKeyRoutes } from './deploy-key-routes.ts';
import { createDeployKeys } from './deploy-keys.ts';
import { createSources } from './sources.ts';
import { createStore } from './store.ts';
import { createWorkspace } from './workspace.ts';

export type * from './api.ts';

const Options = Type.Object({
  allowedLocalRoots: Type.Array(Type.String({ pattern: '^/' }), { default: [], description: 'folders whose repositories may be used by local path or file:// URL (admins only)' }),
  pollIntervalMs: Type.Integer({ minimum: 1000, default: 300_000, description: 'how often git stacks with autodeploy look for a new head' }),
  gitTimeoutMs: Type.Integer({ minimum: 1000, default: 120_000 }),
  gitOutputLimit: Type.Integer({ minimum: 65536, default: 4 * 1024 * 1024, description: 'bytes a git command may print' }),
  pinSearchDepth: Type.Integer({ minimum: 1, maximum: 100_000, default: 200, description: 'commits of the branch fetched to find an abbreviated id' }),
  archiveMaxEntries: Type.Integer({ minimum: 1, default: defaultArchiveLimits.maxEntries, description: 'entries of an uploaded archive (a stack source, a site): the install\'s limit, which other plugins may only lower' }),
  archiveMaxBytes: Type.Integer({ minimum: 1024, default: defaultArchiveLimits.maxBytes, description: 'bytes an uploaded archive may unpack to, counted as they are decompressed (headers and padding too): the install\'s limit, which other plugins may only lower' }),
  archiveTimeoutMs: Type.Integer({ minimum: 1000, default: defaultArchiveLimits.timeoutMs, description: 'how long unpacking one uploaded archive may take' }),
  deployKeyExpiryMs: Type.Integer({ minimum: 1000, default: 86_400_000, description: 'how long a deploy key made for a stack (POST …/source/deploy-key) waits for a source to use it before it goes' }),
  keepDeliveries: Type.Integer({ minimum: 1, default: 100, description: 'push deliveries kept per stack' }),
});

export default definePlugin({
  name: 'git',
  version: '1.0.0',
  services: ['db', 'activity', 'actionTokens', 'secrets', 'events', 'outbound'],
  env: ['NODE_EXTRA_CA_CERTS'],
  requires: [dockerPlugin, stacksPlugin],
  options: Options,
  problems,
  setup(ctx): GitApi {
    const options = ctx.options;
    const stacks = ctx.deps.stacks;
    ctx.migrations.from(new URL('./migrations', import.meta.url));

    const store = createStore(ctx.db, options.keepDeliveries);
    const git = createGit({ allowFile: options.allowedLocalRoots.length > 0, timeoutMs: options.gitTimeoutMs, maxOutputBytes: options.gitOutputLimit, outbound: ctx.outbound, stateDir: () => ctx.dataDir, extraCaFile: ctx.env.NODE_EXTRA_CA_CERTS || undefined });
    const workspace = createWorkspace(() => ctx.dataDir, git);
    const previews = previewTrees({ store, workspace: createWorkspace(() => join(ctx.dataDir, 'previews'), git), stacks: workspace, secrets: ctx.secrets, searchDepth: options.pinSearchDepth });
    const sources = createSources({
      store, workspace, lock: keyedLock(), secrets: ctx.secrets, stacks, log: ctx.log,
      settings: { pinSearchDepth: options.pinSearchDepth, archive: { maxEntries: options.archiveMaxEntries, maxBytes: options.archiveMaxBytes, timeoutMs: options.archiveTimeoutMs } },
    });

    // builds whose context is a git URL: the same rules, outbound policy and git as a stack's source
    ctx.extensions.add(gitContexts, gitBuildContexts({ git, root: () => join(ctx.dataDir, 'build-contexts'), allowedLocalRoots: options.allowedLocalRoots, outbound: ctx.outbound }));
    ctx.extensions.add(stackSources, { source: sources.source, describe: async (stack) => ({ source: await sources.viewOf(stack) }) });
    const deployKeys = createDeployKeys(ctx.db, ctx.secrets, { expiresAfterMs: () => options.deployKeyExpiryMs, comment: (stack) => `dockwright-${stack}` });
    ctx.extensions.add(stackHooks, { removed: (tx, stack) => deployKeys.remove(stack, tx) });
    for (const route of deployKeyRoutes({ stacks, keys: deployKeys })) ctx.routes.add(route);
    for (const route of sourceRoutes({ stacks, sources, store, deployKeys, actionTokens: ctx.actionTokens, outbound: ctx.outbound, allowedLocalRoots: options.allowedLocalRoots })) ctx.routes.add(route);
    const pullRequests = () => ctx.extensions.of(pullRequestReceivers)[0] ?? null;
    for (const route of pushReceiver({ stacks, store, actionTokens: ctx.actionTokens, activity: ctx.activity, pullRequests })) ctx.webhooks.add(route);

    ctx.events.on('stack.deployed', async ({ stack, commit }) => {
      if (typeof stack !== 'string' || !(await store.get(stack))) return;
      await store.set(stack, { deployedCommit: typeof commit === 'string' ? commit : null, deployedAt: new Date().toISOString() });
    });
    ctx.events.on('stack.removed', async () => {
      await workspace.prune(new Set((await store.all()).map((r) => r.stack)), false);
    });
    ctx.schedule.every('deploy-key-sweep', Math.min(options.deployKeyExpiryMs, 3_600_000), async () => { await deployKeys.sweep(); });
    ctx.schedule.every('poll', options.pollIntervalMs, () => sources.poll({ kind: 'system', name: 'git-poll' }));
    ctx.onStart(async () => {
      // trees of stacks removed while this process was not looking, and half-written uploads
      await workspace.prune(new Set((await store.all()).map((r) => r.stack)), true);
      // the trees of builds a stopped process was running
      await rm(join(ctx.dataDir, 'build-contexts', 'trees'), { recursive: true, force: true });
    });
    return createGitApi({
      git, dataDir: () => ctx.dataDir, allowedLocalRoots: options.allowedLocalRoots, outbound: ctx.outbound,
      archive: { maxEntries: options.archiveMaxEntries, maxBytes: options.archiveMaxBytes, timeoutMs: options.archiveTimeoutMs },
      previews: { previewTree: previews.at, removePreviewTree: previews.remove },
    });
  },
});
