// What a stack's services run on the engine: per service the image reference, its repository digest (RepoDigests) and local image id.
import type { DockerRuntime, LoadedCompose } from '../docker/api.ts';
import { digestIn, parseRef } from './refs.ts';
import type { Policy, ReleaseService } from './store.ts';

const policies: readonly Policy[] = ['digest', 'patch', 'minor', 'major', 'none'];
export const defaultMonitorSeconds = 60;

/** the service's update policy (label dockwright.update; digest when absent or unknown) and monitor window (dockwright.update.monitor) */
export function policyOf(labels: Readonly<Record<string, string>>): { policy: Policy; monitorSeconds: number } {
  const policy = (policies as readonly string[]).includes(labels['dockwright.update'] ?? '') ? labels['dockwright.update'] as Policy : 'digest';
  const seconds = Number(labels['dockwright.update.monitor']);
  return { policy, monitorSeconds: Number.isFinite(seconds) && seconds >= 0 && seconds <= 3600 ? Math.round(seconds) : defaultMonitorSeconds };
}

/** the running containers of a project by service: id and image id, one list call */
export async function runningContainers(runtime: DockerRuntime, project: string): Promise<Map<string, { id: string; imageId: string }[]>> {
  const list = await runtime.docker.listContainers({ all: true, filters: { label: [`dockwright.project=${project}`, `dockwright.installation=${runtime.installationId}`] } });
  const out = new Map<string, { id: string; imageId: string }[]>();
  for (const c of list) {
    const service = c.Labels?.['dockwright.service'];
    if (!service) continue;
    out.set(service, [...(out.get(service) ?? []), { id: c.Id, imageId: c.ImageID }]);
  }
  return out;
}

/** every service of the loaded compose file as it runs now: what a release records */
export async function servicesRunning(runtime: DockerRuntime, project: string, loaded: LoadedCompose, origins: ReadonlyMap<string, 'compose' | 'update'>): Promise<ReleaseService[]> {
  const containers = await runningContainers(runtime, project);
  const images = new Map<string, string[]>();
  return Promise.all(loaded.services.map(async (s) => {
    const imageId = containers.get(s.name)?.[0]?.imageId ?? null;
    let digest = parseRef(s.image).digest;
    if (!digest && imageId) {
      if (!images.has(imageId)) images.set(imageId, (await runtime.docker.getImage(imageId).inspect().catch(() => null))?.RepoDigests ?? []);
      digest = digestIn(images.get(imageId), s.image);
    }
    return { service: s.name, image: s.image, digest, imageId, ...policyOf(s.labels), origin: origins.get(s.name) ?? 'compose' };
  }));
}
