// The build options of the compose specification: those Dockwright's builds through the Engine API carry, and why each other one cannot be (the supported-build-options rule names them).

/** honoured: what `POST /build` takes without a BuildKit session */
export const carriedBuildOptions: ReadonlySet<string> = new Set([
  'context', 'dockerfile', 'dockerfile_inline', 'args', 'target', 'cache_from', 'labels', 'network', 'shm_size', 'extra_hosts', 'platforms', 'no_cache', 'pull',
]);

const session = 'which Dockwright\'s builds through the Engine API do not open (not supported)';

/** the other options of the specification, each with why a build through the Engine API cannot carry it */
const uncarried: Readonly<Record<string, string>> = {
  secrets: `build secrets need a BuildKit session, ${session}`,
  ssh: `SSH forwarding in a build needs a BuildKit session, ${session}`,
  additional_contexts: 'additional build contexts need a BuildKit session and named contexts of Dockerfile syntax 1.4, which Dockwright\'s builds through the Engine API do not have (not supported); copy them into the build context or use a stage',
  cache_to: 'exporting the build cache needs buildx (not supported): a build through the Engine API keeps its cache in the engine, where the next build finds it',
  tags: 'further tags of the built image need buildx (not supported): the image is tagged <stack>-<service>, as the containers use it',
  entitlements: 'build entitlements (network.host, security.insecure) need buildx (not supported)',
  privileged: 'a privileged build needs buildx\'s security.insecure entitlement (not supported)',
  isolation: 'build isolation is a setting of Windows containers (not supported on this engine)',
  provenance: 'build attestations (provenance) need buildx and a push to a registry (not supported)',
  sbom: 'build attestations (sbom) need buildx and a push to a registry (not supported)',
  no_cache_filter: 'no_cache_filter (rebuilding some stages only) needs buildx (not supported); no_cache rebuilds them all',
  ulimits: 'ulimits of the build\'s RUN steps are not passed to the Engine API build (not supported)',
};

/** why a build option of the specification is not carried; null when it is, or when it is no option of the specification */
export function uncarriedBuildOption(key: string): string | null {
  return Object.hasOwn(uncarried, key) ? uncarried[key] : null;
}
