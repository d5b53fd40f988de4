// What a registry is called: the registry an image reference lives in, and a registry's host as the outbound policy takes it.

/** the registry an image reference lives in, as `docker login` names it. */
export function registryHost(ref: string): string {
  const first = ref.split('/')[0];
  return ref.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost') ? first : 'docker.io';
}

const dockerHubNames = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

/** a registry `host[:port]` as the outbound policy takes it: without port and brackets; Docker Hub's names as docker.io */
export function policyHost(registry: string): string {
  const bare = registry.startsWith('[') ? registry.slice(1, registry.indexOf(']')) : registry.replace(/:\d+$/, '');
  return dockerHubNames.has(bare.toLowerCase()) ? 'docker.io' : bare;
}
