// The images list: one call for the engine's images and one for its containers, joined with the releases' and sites' uses; what pruning may remove.
import type Dockerode from 'dockerode';
import type { Db } from '../../sdk/index.ts';
import type { DockerRuntime, ImageUse, ImageUser } from '../docker/api.ts';

export interface UsedBy {
  stacks: string[];
  releases: { stack: string; number: number }[];
  sites: string[];
}
export interface ImageEntry {
  id: string;
  tags: string[];
  digests: string[];
  size: number;
  created: string;
  usedBy: UsedBy;
  /** containers of any owner on the engine (running or not) that use it */
  containers: number;
  /** pruning leaves it: a container uses it, or a kept release, or a site's build */
  kept: boolean;
  /** the resources it belongs to (`stack:web`, `site:docs`), for access lists */
  owners: string[];
}

/** `node:20`, `docker.io/library/node:20` and `node` (`:latest`) as the engine's RepoTags spell them */
function tagOf(ref: string): string {
  let r = ref.replace(/@sha256:[0-9a-f]{64}$/, '');
  const slash = r.lastIndexOf('/');
  if (!r.slice(slash + 1).includes(':')) r += ':latest';
  return r.replace(/^docker\.io\/library\//, '').replace(/^docker\.io\//, '');
}

const uniq = <T>(xs: T[]) => [...new Set(xs)];

export class ImageCatalog {
  constructor(
    private readonly runtime: DockerRuntime,
    private readonly db: Db,
    private readonly users: () => readonly ImageUser[],
    private readonly keepReleases: () => number,
  ) {}

  /** this installation's images, newest first; the ids its stacks use are remembered, so that pruning finds them after the stack is gone */
  async list(): Promise<ImageEntry[]> {
    const docker: Dockerode = this.runtime.docker;
    const keep = this.keepReleases();
    const [images, containers, contributed] = await Promise.all([
      docker.listImages({ all: false }),
      docker.listContainers({ all: true }),
      Promise.all(this.users().map(async (u) => ({ kind: u.kind, uses: await u.uses({ keepReleases: keep }) }))),
    ]);
    const byTag = new Map<string, string>();
    for (const image of images) for (const tag of image.RepoTags ?? []) byTag.set(tagOf(tag), image.Id);
    const idOf = (ref: string) => (ref.startsWith('sha256:') ? ref : byTag.get(tagOf(ref)) ?? null);

    const entries = new Map<string, { stacks: Set<string>; releases: { stack: string; number: number }[]; sites: Set<string>; containers: number; kept: boolean }>();
    const entry = (id: string) => {
      let e = entries.get(id);
      if (!e) entries.set(id, e = { stacks: new Set(), releases: [], sites: new Set(), containers: 0, kept: false });
      return e;
    };
    const ours: string[] = [];
    for (const c of containers) {
      const e = entry(c.ImageID);
      e.containers++;
      e.kept = true;
      const owner = this.runtime.ownership(c.Labels);
      if (owner.owner === 'this') { e.stacks.add(owner.project); ours.push(c.ImageID); }
    }
    for (const { kind, uses } of contributed) {
      for (const use of uses as ImageUse[]) {
        const id = idOf(use.image);
        if (!id) continue;
        const e = entry(id);
        if (use.keep) e.kept = true;
        const name = use.owner.slice(use.owner.indexOf(':') + 1);
        if (kind === 'releases' && use.release !== undefined) e.releases.push({ stack: name, number: use.release });
        if (kind === 'sites') e.sites.add(name);
        ours.push(id);
      }
    }
    const known = await this.remember(uniq(ours));
    return images
      .filter((image) => known.has(image.Id) || (entries.get(image.Id)?.stacks.size ?? 0) > 0)
      .map((image) => {
        const e = entries.get(image.Id);
        const usedBy: UsedBy = { stacks: [...(e?.stacks ?? [])].sort(), releases: e?.releases ?? [], sites: [...(e?.sites ?? [])].sort() };
        return {
          id: image.Id,
          tags: (image.RepoTags ?? []).filter((t) => t !== '<none>:<none>'),
          digests: (image.RepoDigests ?? []).filter((d) => !d.startsWith('<none>@')),
          size: image.Size,
          created: new Date(image.Created * 1000).toISOString(),
          usedBy, containers: e?.containers ?? 0, kept: e?.kept ?? false,
          owners: uniq([...usedBy.stacks.map((s) => `stack:${s}`), ...usedBy.releases.map((r) => `stack:${r.stack}`), ...usedBy.sites.map((s) => `site:${s}`)]),
        };
      })
      .sort((a, b) => b.created.localeCompare(a.created) || a.id.localeCompare(b.id));
  }

  /** adds these ids to the remembered ones (one statement) and answers every remembered id */
  private async remember(ids: string[]): Promise<Set<string>> {
    const { rows } = await this.db.query<{ id: string }>(
      `WITH added AS (INSERT INTO images_known (id) SELECT unnest($1::text[]) ON CONFLICT (id) DO NOTHING RETURNING id)
       SELECT id FROM images_known UNION SELECT id FROM added`, [ids]);
    return new Set(rows.map((r) => r.id));
  }

  async forget(ids: readonly string[]): Promise<void> {
    if (ids.length) await this.db.query('DELETE FROM images_known WHERE id = ANY($1)', [ids]);
  }
}
