// The portal plugin: serves the web portal's built files at `/`; the portal itself speaks only to /api/v1, as the signed-in user.
import { basename, join, resolve } from 'node:path';
import { definePlugin, Type } from '../../sdk/index.ts';

/** dist/portal of this install: above plugins/portal in the sources, above dist/plugins/portal in the build */
function builtPortal(): string {
  const up = resolve(import.meta.dirname, '..', '..');
  return basename(up) === 'dist' ? join(up, 'portal') : join(up, 'dist', 'portal');
}

export default definePlugin({
  name: 'portal',
  version: '0.1.0',
  services: [],
  description: 'The web portal at /: the same permissions and activity log as the API (npm install builds it into dist/portal)',
  options: Type.Object({ dir: Type.Optional(Type.String({ minLength: 1, description: 'serve the portal from this folder instead of dist/portal' })) }, { additionalProperties: false }),
  setup(ctx) {
    const options = ctx.options as { dir?: string };
    ctx.web.serve(options.dir ?? builtPortal());
  },
});
