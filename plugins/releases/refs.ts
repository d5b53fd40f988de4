// Image references taken apart as the engine reads them: registry, repository, tag, digest; and a reference pinned to a digest.

export interface ImageRef {
  /** host[:port] as `docker login` names it; docker.io for Docker Hub */
  registry: string;
  /** the repository inside the registry (library/ added for Docker Hub's official images) */
  repository: string;
  tag: string | null;
  digest: string | null;
  /** registry/repository, the name RepoDigests are compared by */
  name: string;
}

const digestPattern = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-fA-F0-9]{32,}$/;

export function parseRef(ref: string): ImageRef {
  let rest = ref;
  let digest: string | null = null;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!digestPattern.test(digest)) digest = null;
  }
  let tag: string | null = null;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const first = rest.split('/')[0];
  const explicit = rest.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  let registry = explicit ? first : 'docker.io';
  if (['index.docker.io', 'registry-1.docker.io'].includes(registry)) registry = 'docker.io';
  let repository = explicit ? rest.slice(first.length + 1) : rest;
  if (registry === 'docker.io' && !repository.includes('/')) repository = `library/${repository}`;
  return { registry, repository, tag: tag ?? (digest ? null : 'latest'), digest, name: `${registry}/${repository}` };
}

/** the digest of this image among an image's RepoDigests (`name@sha256:…`), matched by repository */
export function digestIn(repoDigests: readonly string[] | undefined, ref: string): string | null {
  const want = parseRef(ref).name;
  for (const entry of repoDigests ?? []) {
    const parsed = parseRef(entry);
    if (parsed.name === want && parsed.digest) return parsed.digest;
  }
  return null;
}

/** `registry/repository@digest` as written in the original reference (no tag: the engine would ignore it) */
export function pinned(ref: string, digest: string): string {
  const at = ref.indexOf('@');
  const base = at >= 0 ? ref.slice(0, at) : ref;
  const colon = base.lastIndexOf(':');
  return `${colon > base.lastIndexOf('/') ? base.slice(0, colon) : base}@${digest}`;
}

/** the same image under another tag */
export function withTag(ref: string, tag: string): string {
  return pinned(ref, 'x').replace(/@x$/, `:${tag}`);
}
