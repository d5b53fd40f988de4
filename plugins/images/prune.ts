// The prune job: removes this installation's images that no container uses, no kept release of a stack and no site's build needs.
import type Dockerode from 'dockerode';
import type { JobRun } from '../../sdk/index.ts';
import type { ImageCatalog, ImageEntry } from './catalog.ts';

const short = (id: string) => id.replace(/^sha256:/, '').slice(0, 12);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** untags an image tag by tag, then removes what is left by id; the engine refuses (409) an image a container took meanwhile */
async function removeImage(docker: Dockerode, image: ImageEntry): Promise<string | null> {
  try {
    for (const tag of image.tags) await docker.getImage(tag).remove();
    await docker.getImage(image.id).remove().catch((err: { statusCode?: number }) => { if (err.statusCode !== 404) throw err; });
    return null;
  } catch (err) {
    const e = err as { statusCode?: number; json?: { message?: string }; message: string };
    return e.json?.message ?? e.message;
  }
}

export async function prune(job: Pick<JobRun<unknown>, 'log' | 'signal'>, catalog: ImageCatalog, docker: Dockerode, keepReleases: number): Promise<{ removed: number; reclaimedBytes: number; kept: number; failed: number }> {
  const images = await catalog.list();
  const candidates = images.filter((i) => !i.kept);
  job.log(`images: ${images.length} of this installation, ${images.length - candidates.length} kept (used by a container, one of the last ${keepReleases} releases of a stack, or a site's build), ${candidates.length} to remove`);
  const removed: string[] = [];
  let reclaimed = 0;
  let failed = 0;
  for (const image of candidates) {
    job.signal.throwIfAborted();
    const refusal = await removeImage(docker, image);
    const name = `${short(image.id)}${image.tags.length ? ` (${image.tags.join(', ')})` : ''}`;
    if (refusal) { failed++; job.log(`kept ${name}: the engine refused: ${refusal}`); continue; }
    removed.push(image.id);
    reclaimed += image.size;
    job.log(`removed ${name}, ${mb(image.size)}`);
  }
  await catalog.forget(removed);
  job.log(`done: ${removed.length} removed, ${mb(reclaimed)} reclaimed${failed ? `, ${failed} the engine kept` : ''}`);
  return { removed: removed.length, reclaimedBytes: reclaimed, kept: images.length - candidates.length, failed };
}
