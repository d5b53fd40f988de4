// A compose file with some services' images replaced (pinned by digest for a rollback, an update's new tag): the rest of the file as it was.
import { CORE_SCHEMA, dump, load, mergeTag } from 'js-yaml';

const schema = CORE_SCHEMA.withTags(mergeTag);

/**
 * The compose text with `services.<name>.image` set for each entry of `images` (and `deploy.update_config.monitor`, unless
 * set, for each entry of `monitors`). An image given by its local id (an
 * image built here, which no registry holds) is used as it is: its service is not built again and never pulled.
 */
export function withImages(compose: string, images: Readonly<Record<string, string>>, monitors: Readonly<Record<string, number>> = {}): string {
  if (!Object.keys(images).length) return compose;
  const doc = load(compose, { schema }) as { services?: Record<string, Record<string, unknown>> };
  for (const [service, image] of Object.entries(images)) {
    const def = doc.services?.[service];
    if (!def || typeof def !== 'object') continue;
    def.image = image;
    // an update's window: a replaced container that fails in it hands back to the old one, which is kept until then
    if (monitors[service] !== undefined) {
      const deploy = (def.deploy ??= {}) as Record<string, unknown>;
      const update = (deploy.update_config ??= {}) as Record<string, unknown>;
      update.monitor ??= `${monitors[service]}s`;
    }
    if (image.startsWith('sha256:')) {
      delete def.build;
      def.pull_policy = 'never';
    }
  }
  return dump(doc, { schema, noRefs: true, lineWidth: -1 });
}
