// Platform rules about images and builds: a stack without a source tree names its images, builds carry only what the Engine API can, images come from allowed registries.
import { isRemoteContext, uncarriedBuildOption } from '../../docker/api.ts';
import type { LoadedCompose } from '../../docker/types.ts';
import { servicesOf, type Raw } from './compose.ts';
import type { PlatformRule, RuleIssue, RuleOptions } from './types.ts';

/** a build section whose context is a git URL: it needs no source tree */
const fromGit = (build: unknown) => {
  const context = typeof build === 'string' ? build : build && typeof build === 'object' ? (build as Raw).context : undefined;
  return typeof context === 'string' && isRemoteContext(context);
};

/** each build option a build through the Engine API cannot carry, with why */
const uncarriedBuildOptions = (loaded: LoadedCompose): RuleIssue[] => servicesOf(loaded).flatMap(([name, s]) => {
  const build = s.build;
  if (!build || typeof build !== 'object' || Array.isArray(build)) return [];
  return Object.keys(build).flatMap((key) => {
    const why = uncarriedBuildOption(key);
    return why ? [{ path: `services.${name}.build.${key}`, message: why }] : [];
  });
});

export function imageRules(opts: RuleOptions): PlatformRule[] {
  return [
    {
      id: 'image-required', description: 'every service names an image (build only when the stack has a source tree, or from a git URL)',
      check: ({ loaded, hasSource }) => hasSource ? [] : servicesOf(loaded)
        .filter(([, s]) => s.build !== undefined && s.image === undefined && !fromGit(s.build))
        .map(([name]) => ({ path: `services.${name}.build`, message: `service ${name} builds an image, but this stack has no source tree: name an image` })),
    },
    {
      id: 'supported-build-options', description: 'build options a build through the Engine API can carry: not BuildKit sessions (secrets, ssh, additional_contexts), cache exports, further tags, attestations, entitlements, privileged builds; switched off, each is left out of builds with a warning',
      check: ({ loaded }) => uncarriedBuildOptions(loaded),
      whenOff: ({ loaded }) => uncarriedBuildOptions(loaded).map(({ path, message }) => ({ path, message: `is ignored (the rule supported-build-options is switched off): ${message}` })),
    },
    {
      id: 'outbound-registry', description: 'images missing locally (pulled ones, and the base images of builds) come from registries the outbound policy allows (outbound.allow)',
      // when the engine cannot say which images it has, the deploy's own check before any pull decides
      check: async ({ loaded }) => (await opts.refusedImages(loaded)) ?? [],
    },
  ];
}
