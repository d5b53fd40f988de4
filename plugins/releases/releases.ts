// Releases: one recorded by every successful deploy of a stack, and a deploy of exactly an earlier one, every image pinned by digest.
import type { Actor, JobRun, ContextWith } from '../../sdk/index.ts';
import type { DockerRuntime } from '../docker/api.ts';
import type { StackDeployed, StacksApi } from '../stacks/api.ts';
import { withImages } from './pin.ts';
import { parseRef, pinned } from './refs.ts';
import { servicesRunning } from './running.ts';
import type { ImageUpdate, Release, ReleaseService, ReleaseStore } from './store.ts';

/** what a deploy of this plugin tells the deployed hook (DeployOverride.note) */
export interface ReleaseNote {
  kind?: 'rollback' | 'update';
  rolledBackTo?: number;
  /** per service, the reference to record instead of the deployed one (a pinned reference deployed for a tag) */
  images?: Record<string, string>;
  origins?: Record<string, 'compose' | 'update'>;
}

/** the reference a release's service is deployed by: its digest (or, for an image no registry holds, its local id) */
export function pinOf(s: ReleaseService): string {
  if (s.digest) return pinned(s.image, s.digest);
  return s.imageId ?? s.image;
}

/** the updates still on top of the compose file (its image of the service is the one they were applied to), as pins by service */
export function updatePins(updates: readonly ImageUpdate[], composeImages: ReadonlyMap<string, string>): { pins: Record<string, string>; shown: Record<string, string>; stale: string[] } {
  const pins: Record<string, string> = {};
  const shown: Record<string, string> = {};
  const stale: string[] = [];
  for (const u of updates) {
    if (composeImages.get(u.service) !== u.composeImage) { stale.push(u.service); continue; }
    pins[u.service] = pinned(u.image, u.digest);
    shown[u.service] = u.image;
  }
  return { pins, shown, stale };
}

export function createReleases(deps: { ctx: ContextWith<'secrets'>; runtime: DockerRuntime; stacks: () => StacksApi; store: ReleaseStore }) {
  const { ctx, runtime, store } = deps;

  /** the deployed hook: the release of a successful deploy */
  async function record(d: StackDeployed): Promise<Release> {
    const note = d.note as ReleaseNote;
    const job = await ctx.jobs.get(d.jobId);
    const actor: Actor = job?.actor ?? { kind: 'system', name: 'releases' };
    const origins = new Map(Object.entries(note.origins ?? {}));
    const services = (await servicesRunning(runtime, d.stack, d.loaded, origins)).map((s) => {
      const image = note.images?.[s.service] ?? s.image;
      return { ...s, image, digest: s.digest ?? parseRef(image).digest };
    });
    return store.add({
      stack: d.stack, actor, jobId: d.jobId, kind: note.kind ?? 'deploy', rolledBackTo: note.rolledBackTo ?? null,
      revision: d.revision, commit: d.commit, compose: d.project.compose, variablesSealed: ctx.secrets.seal(JSON.stringify(d.project.variables)), services,
    });
  }

  /** every image of the release is on the engine, or pulled by digest now; else an error naming the first that is gone */
  async function ensureImages(release: Release, job: JobRun<{ stack: string }>): Promise<void> {
    for (const s of release.services) {
      const ref = pinOf(s);
      if (await runtime.docker.getImage(ref).inspect().then(() => true, () => false)) continue;
      if (!s.digest) throw new Error(`the image of ${s.service} in release ${release.number} (${s.image}, ${ref}) is gone from the engine, and no registry holds it by digest: nothing was changed`);
      job.log(`pulling ${ref} (${s.service})`);
      try {
        await runtime.pull({ name: release.stack, compose: `services:\n  ${JSON.stringify(s.service)}:\n    image: ${JSON.stringify(ref)}\n`, variables: {} }, { log: job.log, signal: job.signal });
      } catch (err) {
        throw new Error(`the image of ${s.service} in release ${release.number} (${s.image} at ${s.digest}) cannot be pulled by digest: ${(err as Error).message}; nothing was changed`);
      }
    }
  }

  /** deploys exactly this release in the job (which holds the stack's serial key): its commit's tree, compose text, variables and pinned images */
  async function deployRelease(release: Release, job: JobRun<{ stack: string }>, note: ReleaseNote, opts: { keepUpdates?: boolean } = {}): Promise<Record<string, unknown>> {
    await ensureImages(release, job);
    const variables = JSON.parse(ctx.secrets.open(release.variablesSealed)) as Record<string, string>;
    for (const value of Object.values(variables)) if (value.length >= 6) job.redact(value);
    const pins = Object.fromEntries(release.services.map((s) => [s.service, pinOf(s)]));
    const result = await deps.stacks().deployIn(job, {
      project: (prepared) => ({ ...prepared, compose: withImages(release.compose, pins), variables }),
      revision: release.revision,
      // a stack deployed from a repository deploys the release's commit of it, not the branch as it is now
      ...(release.commit ? { commit: release.commit } : {}),
      note: { ...note, images: Object.fromEntries(release.services.map((s) => [s.service, s.image])), origins: Object.fromEntries(release.services.map((s) => [s.service, s.origin])) } satisfies ReleaseNote,
    });
    // later deploys deploy the compose file again: what an update had put on top of it is not carried past a rollback
    // (an update's own rollback keeps them: they are the updates its previous release ran with)
    if (!opts.keepUpdates) await store.dropUpdates(release.stack);
    return result;
  }

  return { record, deployRelease };
}
export type Releases = ReturnType<typeof createReleases>;
