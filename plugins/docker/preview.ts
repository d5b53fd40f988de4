// A compose project deployed as a preview of a stack: its own volumes and networks, no published ports, suffixed container names, the preview's hostnames and labels.
import type { LoadedCompose, PreviewOf } from './types.ts';

export const previewLabels = { key: 'dockwright.preview', parent: 'dockwright.parent' } as const;
const hostLabel = 'dockwright.http.host';

/**
 * The loaded project changed in place into the preview `preview` of its parent stack. What a preview does not get is said
 * in `warnings` (a deploy logs them); an external volume is an error (a preview never shares data with its parent).
 */
export function asPreview(loaded: LoadedCompose, preview: PreviewOf): LoadedCompose {
  const suffix = `-${preview.key}`;
  for (const s of loaded.services) {
    if (s.ports.length) {
      loaded.warnings.push({ path: `services.${s.name}.ports`, message: `published ports of ${s.name} (${s.ports.map((p) => p.published ?? p.target).join(', ')}) are not published in a preview: the edge routes it` });
      s.ports = [];
    }
    if (s.containerName) s.containerName += suffix;
    const host = preview.hostnames[s.name];
    if (host) s.labels[hostLabel] = host;
    else delete s.labels[hostLabel];
    s.labels[previewLabels.key] = preview.key;
    s.labels[previewLabels.parent] = preview.parent;
  }
  // a `name:` given in the file would be the parent's own volume or network: the preview's gets the key appended
  const own = (name: string) => name.startsWith(`${preview.parent}${suffix}_`) ? name : `${name}${suffix}`;
  const volumes = new Map<string, string>();
  for (const v of loaded.volumes) {
    if (v.external) loaded.errors.push({ path: `volumes.${v.key}`, message: `the external volume ${v.name} is not given to a preview: a preview has its own, new volumes` });
    else volumes.set(v.name, (v.name = own(v.name)));
  }
  const networks = new Map<string, string>();
  for (const n of loaded.networks) if (!n.external) networks.set(n.name, (n.name = own(n.name)));
  for (const s of loaded.services) {
    for (const m of s.mounts) if (m.type === 'volume' && m.source && volumes.has(m.source)) m.source = volumes.get(m.source)!;
    for (const n of s.networks) if (networks.has(n.name)) n.name = networks.get(n.name)!;
  }
  return loaded;
}
