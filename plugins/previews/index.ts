// The previews plugin: a stack's pull requests (or CI's branches) deployed as isolated compose projects on hostnames of their own, gone when done.
import { definePlugin, Type, type Actor, type Principal } from '../../sdk/index.ts';
import { problems } from './problems.ts';
import { alertsPlugin } from '../alerts/api.ts';
import { dockerPlugin } from '../docker/api.ts';
import { edgePlugin } from '../edge/api.ts';
import { gitPlugin, pullRequestReceivers } from '../git/api.ts';
import { projectParents, stacksPlugin } from '../stacks/api.ts';
import { createPreviews, resourceOf, tokenKind } from './core.ts';
import { pullRequestReceiver } from './pull-requests.ts';
import { previewRoutes } from './routes.ts';
import { createStore } from './store.ts';
import { previewWebhook } from './webhook.ts';

const Options = Type.Object({
  webhookWindowSeconds: Type.Integer({ minimum: 1, default: 30, description: 'one call per window is accepted with a stack\'s preview token (a call during a queued job of that preview attaches to it)' }),
  idleCheckIntervalMs: Type.Integer({ minimum: 1000, default: 3_600_000, description: 'how often previews idle for their stack\'s idleDays are looked for and removed' }),
}, { additionalProperties: false });

const system: Actor = { kind: 'system', name: 'previews' };

export default definePlugin({
  name: 'previews',
  version: '1.0.0',
  description: 'Preview environments: pull requests and CI branches of a stack deployed as isolated projects on their own hostnames',
  requires: [dockerPlugin, stacksPlugin, edgePlugin, gitPlugin, alertsPlugin],
  services: ['db', 'activity', 'actionTokens', 'secrets', 'events'],
  options: Options,
  problems,
  setup(ctx) {
    const { docker, stacks, edge, git, alerts } = ctx.deps;
    ctx.migrations.from(new URL('./migrations', import.meta.url));
    const store = createStore(ctx.db, ctx.secrets);
    const previews = createPreviews(ctx, { store, stacks, docker, edge, git, alerts });
    alerts.addKind({ kind: 'preview-limit', severity: 'warning', description: 'a stack has maxActive previews, so a new one was refused' });

    for (const route of previewRoutes({ ctx, previews, store, stacks, edge })) ctx.routes.add(route);
    for (const route of previewWebhook({ ctx, previews, stacks, windowSeconds: ctx.options.webhookWindowSeconds })) ctx.webhooks.add(route);
    ctx.extensions.add(pullRequestReceivers, pullRequestReceiver(previews, store));
    // a preview's containers, volumes and jobs are as visible, and as usable, as its stack's
    ctx.extensions.add(projectParents, (projects) => store.parentsOf(projects));

    // a preview's edge routes (owner preview:<stack>/<key>) are as visible as its stack
    ctx.visibility.add({
      prefix: 'preview:',
      async visible(principal: Principal, names: readonly string[], need: 'read' | 'act') {
        const stackOf = (n: string) => resourceOf(n.slice(0, n.indexOf('/')));
        const seen = await ctx.visibility.filter(principal, names.map(stackOf), need);
        return new Set(names.filter((n) => seen(stackOf(n))));
      },
    });

    // removing a stack removes its previews (their jobs need nothing of the stack) and its preview token
    ctx.events.on('stack.removed', async ({ stack }) => {
      await ctx.actionTokens.revoke(tokenKind, String(stack));
      for (const row of await store.list(String(stack))) await previews.remove(row.stack, row.key, system);
      // without previews its settings go now (else the last removal job drops them): a new stack of that name starts afresh
      await store.dropSettings(String(stack));
    });
    ctx.schedule.every('idle', ctx.options.idleCheckIntervalMs, async () => {
      for (const row of await store.idle()) {
        ctx.log.info({ stack: row.stack, key: row.key, updatedAt: row.updatedAt }, 'removing an idle preview');
        await ctx.activity.record({ actor: system, action: 'stack.preview.remove', resource: resourceOf(row.stack), result: 'ok', detail: { key: row.key, reason: `idle since ${row.updatedAt}` } });
        await previews.remove(row.stack, row.key, system);
      }
    });
    // a removal whose job another start took over as interrupted (its process stopped while it ran, and this one started
    // after the start-up check below) is queued again: nothing of the preview survives
    ctx.events.on('job.failed', async ({ jobId, type, resource, error }) => {
      if (type !== 'previews.remove' || error !== 'interrupted by restart' || typeof resource !== 'string' || !resource.startsWith('stack:')) return;
      for (const row of await store.list(resource.slice('stack:'.length))) {
        if (row.lastJob === jobId && row.status === 'removing') await previews.remove(row.stack, row.key, system);
      }
    });
    ctx.onStart(async () => {
      // a removal interrupted by a restart (its job failed as interrupted) is taken up again, and so are the previews of
      // a stack removed while this process could not hear of it: nothing of them survives
      for (const row of await store.all()) {
        const open = row.lastJob ? await ctx.jobs.get(row.lastJob) : null;
        const orphan = !(await stacks.exists(row.stack));
        if ((row.status === 'removing' || orphan) && (!open || open.done)) await previews.remove(row.stack, row.key, system);
        else if ((row.status === 'deploying' || row.status === 'queued') && open?.done) await store.set(row.stack, row.key, { status: 'failed' });
      }
    });

    ctx.overview.add({
      scope: 'stacks:read',
      async summary(viewer) {
        const counts = await store.counts();
        const seen = await ctx.visibility.filter(viewer, [...counts.keys()].map(resourceOf), 'read');
        let total = 0;
        for (const [stack, n] of counts) if (seen(resourceOf(stack))) total += n;
        return { total };
      },
    });
    return {};
  },
});
