// The releases plugin: a release per successful deploy (images pinned by digest), rollback, update checks with semver policies, and updates rolled back when bad.
import { defineJob, definePlugin, Type } from '../../sdk/index.ts';
import { alertsPlugin } from '../alerts/api.ts';
import { dockerPlugin, imageUsers, registryAuths } from '../docker/api.ts';
import { stackDescribers, stackHooks, stacksPlugin, stackUpdaters } from '../stacks/api.ts';
import { createReleases, updatePins } from './releases.ts';
import { releaseRoutes } from './routes.ts';
import { createStore } from './store.ts';
import { alertKinds, createUpdates } from './updates.ts';
import { withImages } from './pin.ts';

const Options = Type.Object({
  keep: Type.Integer({ minimum: 1, default: 3, description: "releases.keep: the images of a stack's last releases that Dockwright's own pruning never removes" }),
});

export default definePlugin({
  name: 'releases',
  version: '1.0.0',
  description: 'Releases of stacks pinned by digest, rollback, update checks with semver policies (label dockwright.update) and automatic rollback of a bad update',
  requires: [dockerPlugin, stacksPlugin, alertsPlugin],
  services: ['db', 'secrets', 'outbound'],
  options: Options,
  setup(ctx) {
    const runtime = ctx.deps.docker;
    const stacks = () => ctx.deps.stacks;
    ctx.migrations.from(new URL('./migrations', import.meta.url));
    const store = createStore(ctx.db);
    ctx.deps.alerts.addKind({ kind: alertKinds.available, severity: 'info', description: 'a newer image of a service exists under its update policy' });
    ctx.deps.alerts.addKind({ kind: alertKinds.rolledBack, severity: 'warning', description: 'an update went wrong in its monitor window and the stack was rolled back' });

    const releases = createReleases({ ctx, runtime, stacks, store });
    const updates = createUpdates({ ctx, runtime, stacks, alerts: ctx.deps.alerts, store, releases, auth: () => ctx.extensions.of(registryAuths)[0] ?? null });

    ctx.extensions.add(stackHooks, {
      // a plain deploy keeps the images updates put on top of the compose file, until its image of that service changes
      async adjust(stack, project, loaded) {
        const applied = await store.updates(stack);
        if (!applied.length) return null;
        const { pins, stale } = updatePins(applied, new Map(loaded.services.map((s) => [s.name, s.image])));
        if (stale.length) await store.dropUpdates(stack, stale);
        return Object.keys(pins).length ? { ...project, compose: withImages(project.compose, pins) } : null;
      },
      async deployed(d) {
        let note = d.note;
        if (!note.kind) {
          // a plain deploy: the services an update still covers say so
          const applied = await store.updates(d.stack);
          const images = Object.fromEntries(applied.map((u) => [u.service, u.image]));
          note = { images, origins: Object.fromEntries(applied.map((u) => [u.service, 'update'])) };
        }
        const release = await releases.record({ ...d, note });
        await updates.deployed(d.stack, release.services);
      },
      async removed(tx, stack) {
        await store.removeStack(tx, stack);
      },
    });

    // the stack's own answer shows which image each service runs and why
    // every release's images, the last keepReleases of each stack kept by pruning so that rollback finds them
    ctx.extensions.add(imageUsers, {
      kind: 'releases',
      uses: async ({ keepReleases }) => (await store.releasedImages(keepReleases)).map((r) => ({ image: r.imageId, owner: `stack:${r.stack}`, release: r.number, keep: r.kept })),
    });
    ctx.extensions.add(stackDescribers, async (stack) => {
      const latest = await store.latest(stack);
      return { release: latest && { number: latest.number, services: latest.services.map(({ service, image, digest, origin }) => ({ service, image, digest, origin })) } };
    });

    const StackInput = Type.Object({ stack: Type.String() });
    const jobs = {
      rollback: ctx.jobs.define(defineJob({
        type: 'releases.rollback', input: Type.Object({ stack: Type.String(), release: Type.Integer({ minimum: 1 }) }),
        async run(job) {
          const target = await store.get(job.input.stack, job.input.release);
          if (!target) throw new Error(`stack ${job.input.stack} has no release ${job.input.release}`);
          job.log(`rolling ${target.stack} back to release ${target.number} (revision ${target.revision}): ${target.services.map((s) => `${s.service} ${s.image}${s.digest ? ` at ${s.digest}` : ''}`).join(', ')}`);
          const result = await releases.deployRelease(target, job, { kind: 'rollback', rolledBackTo: target.number });
          return { rolledBackTo: target.number, release: (await store.latest(target.stack))?.number ?? null, ...result };
        },
      })),
      check: ctx.jobs.define(defineJob({
        type: 'releases.check', input: StackInput,
        async run(job) {
          const { services, ms } = await updates.check(job.input.stack, job.id, job.log);
          return { ms, available: services.filter((s) => s.available).map((s) => s.service) };
        },
      })),
      update: ctx.jobs.define(defineJob({
        type: 'releases.update', input: Type.Object({ stack: Type.String(), services: Type.Optional(Type.Array(Type.String())) }),
        run: (job) => updates.apply(job),
      })),
    };
    // the nightly autoupdate of a stack that has it on: the same update as POST /stacks/{name}/update, watched and rolled back when bad
    ctx.extensions.add(stackUpdaters, async (stack, actor) => {
      if (!(await store.latest(stack))) return null;
      return jobs.update.enqueue({ stack }, { actor, resource: `stack:${stack}`, serialKey: `stack:${stack}`, attachToQueued: true });
    });
    for (const route of releaseRoutes({ stacks, store, keep: ctx.options.keep, jobs, variables: (r) => JSON.parse(ctx.secrets.open(r.variablesSealed)) as Record<string, string> })) ctx.routes.add(route);

    return {
      /** the image ids of every stack's last `releases.keep` releases: what any pruning of images must leave alone */
      keptImages: () => store.keptImages(ctx.options.keep),
    };
  },
});
