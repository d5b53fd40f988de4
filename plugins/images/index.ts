// The images plugin: this installation's images (tags, digests, size, who uses them), their pruning on request or nightly, and their disk use on the overview.
import { defineJob, definePlugin, pageOf, reply, Type, type Principal } from '../../sdk/index.ts';
import { dockerPlugin, imageUsers } from '../docker/api.ts';
import { ImageCatalog, type ImageEntry } from './catalog.ts';
import { prune } from './prune.ts';

const Options = Type.Object({
  nightly: Type.Object({
    enabled: Type.Boolean({ default: false, description: 'prune on a schedule (off by default: removing images is an admin\'s decision; prune keeps what containers and the last releases use either way)' }),
    cron: Type.String({ default: '30 3 * * *', description: 'when the nightly prune runs (five fields, server time)' }),
  }, { default: {} }),
}, { additionalProperties: false });

const UsedBy = Type.Object({
  stacks: Type.Array(Type.String(), { description: 'stacks with a container (any state) of the image' }),
  releases: Type.Array(Type.Object({ stack: Type.String(), number: Type.Integer() }), { description: 'releases that ran it' }),
  sites: Type.Array(Type.String(), { description: 'sites that build with it' }),
});
const ImageView = Type.Object({
  id: Type.String({ description: 'the engine\'s image id (sha256:…)' }),
  tags: Type.Array(Type.String()),
  digests: Type.Array(Type.String(), { description: 'repository digests (repo@sha256:…)' }),
  size: Type.Integer({ description: 'bytes' }),
  created: Type.String({ format: 'date-time' }),
  usedBy: UsedBy,
  containers: Type.Integer({ description: 'containers on the engine (of any owner, in any state) created from it' }),
  kept: Type.Boolean({ description: 'a prune leaves it: a container uses it, or one of the last keepReleases releases of a stack, or a site\'s build' }),
}, { description: 'an image this installation used (a container of its stacks, a release, a site\'s build)' });
const JobAnswer = Type.Object({ jobId: Type.String(), id: Type.String(), type: Type.String(), status: Type.String(), done: Type.Boolean() }, { additionalProperties: true, description: 'the prune job' });

export default definePlugin({
  name: 'images',
  version: '1.0.0',
  services: ['db', 'activity'],
  description: 'Images: what this installation\'s stacks, releases and sites use, and pruning the rest without breaking rollback',
  requires: [dockerPlugin],
  options: Options,
  setup(ctx) {
    const runtime = ctx.deps.docker;
    ctx.migrations.from(new URL('./migrations', import.meta.url));
    ctx.scopes.define({
      'images:read': { description: 'list images (a viewer: those of the stacks and sites it may see)', role: 'viewer' },
      'images:write': { description: 'prune images', role: 'admin' },
    });
    // ctx.options read when used: a setting changed at run time applies at the next list or prune
    // the kernel's live setting (GET /settings): pruning keeps every image of the last this-many releases of each stack
    const keepReleases = () => Number(ctx.settings.get('images.keepReleases') ?? 3);
    const catalog = new ImageCatalog(runtime, ctx.db, () => ctx.extensions.of(imageUsers), keepReleases);

    /** the images the caller may see, with only the users it may see: an admin (images:write) sees every one, unused ones too */
    async function visible(principal: Principal | null): Promise<ImageEntry[]> {
      const all = await catalog.list();
      if (!principal || principal.can('images:write')) return all;
      const seen = await ctx.visibility.filter(principal, all.flatMap((i) => i.owners), 'read');
      return all.filter((i) => i.owners.some((o) => seen(o))).map((i) => ({
        ...i,
        usedBy: { stacks: i.usedBy.stacks.filter((s) => seen(`stack:${s}`)), releases: i.usedBy.releases.filter((r) => seen(`stack:${r.stack}`)), sites: i.usedBy.sites.filter((s) => seen(`site:${s}`)) },
      }));
    }
    const shown = ({ owners: _owners, ...image }: ImageEntry) => image;

    const pruneJob = ctx.jobs.define(defineJob({
      type: 'images.prune',
      input: Type.Object({}),
      run: (job) => prune(job, catalog, runtime.docker, keepReleases()),
    }));
    const startPrune = (actor: Parameters<typeof pruneJob.enqueue>[1]['actor']) =>
      pruneJob.enqueue({}, { actor, resource: 'images', serialKey: 'images:prune', attachToQueued: true });

    ctx.routes.add({
      method: 'GET', path: '/images', scopes: ['images:read'], page: true, response: ImageView,
      cursor: Type.String({ pattern: '^sha256:[0-9a-f]{64}$', description: 'the id of the last image of the previous page' }),
      summary: 'This installation\'s images, newest first: id, tags, digests, size, created, and the stacks, releases and sites that use them',
      description: 'One call for the engine\'s images and one for its containers. Images of other software on the engine are not listed. A viewer sees the images of the stacks and sites it may see.',
      async handler({ page, principal }: { page: { cursor?: string; limit: number }; principal: Principal }) {
        const all = await visible(principal);
        const from = page.cursor === undefined ? 0 : all.findIndex((i) => i.id === page.cursor) + 1;
        const { shown: items, next } = pageOf(all.slice(from, from + page.limit + 1), page.limit, (i) => i.id);
        return { items: items.map(shown), next };
      },
    });
    ctx.routes.add({
      method: 'POST', path: '/images/prune', scopes: ['images:write'], status: 202, response: JobAnswer,
      summary: 'Prune images (202 with the job): removes this installation\'s images that no container, none of the last keepReleases releases of a stack and no site\'s build uses',
      async handler({ principal }: { principal: Principal }) {
        const job = await startPrune(principal.actor);
        return reply(202, { ...job, jobId: job.id }, { Location: `/api/v1/jobs/${job.id}` });
      },
    });

    ctx.schedule.cron('nightly-prune', ctx.options.nightly.cron, async () => {
      if (ctx.options.nightly.enabled) await startPrune({ kind: 'system', name: 'nightly-prune' });
    });

    ctx.overview.add({
      scope: 'images:read',
      async summary(viewer) {
        const images = await visible(viewer);
        const bytes = images.reduce((n, i) => n + i.size, 0);
        const reclaimable = images.filter((i) => !i.kept).reduce((n, i) => n + i.size, 0);
        return { images: { count: images.length, bytes, reclaimableBytes: reclaimable } };
      },
    });
    return {};
  },
});
