// The templates plugin: catalogues of one-click apps (bundled, HTTPS, git; our format, Dokploy's, Portainer's), deploys with values generated once, provenance.
import { definePlugin, Type } from '../../sdk/index.ts';
import { secretVariables, stackHooks, stacksPlugin } from '../stacks/api.ts';
import { bundledSource, Catalogue, readFolder } from './catalogue.ts';
import { TemplateDeployer } from './deploy.ts';
import { systemRandom } from './generators.ts';
import { templateRoutes } from './routes.ts';
import { ProvenanceStore } from './store.ts';

const Options = Type.Object({
  bundled: Type.Boolean({ default: true, description: 'offer the bundled catalogue (source `bundled`, read from the install: no network)' }),
  folders: Type.Array(Type.Object({ name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }), path: Type.String({ pattern: '^/' }) }, { additionalProperties: false }), {
    default: [], description: 'further catalogues in our format in folders of this server (one <id>.yaml per template), read at start',
  }),
}, { additionalProperties: false });

export default definePlugin({
  name: 'templates',
  version: '1.0.0',
  services: ['db'],
  description: 'Templates: one-click apps from the catalogues an admin chooses, with secrets generated once',
  requires: [stacksPlugin],
  options: Options,
  setup(ctx) {
    ctx.migrations.from(new URL('./migrations', import.meta.url));
    ctx.scopes.define({
      'templates:read': { description: 'list templates and their sources; deploying one also takes stacks:write and stacks:deploy', role: 'viewer' },
      'templates:write': { description: 'add, remove and refresh template sources', role: 'admin' },
    });
    const stacks = ctx.deps.stacks;
    const store = new ProvenanceStore(ctx.db);
    const catalogue = new Catalogue();
    if (ctx.options.bundled) catalogue.set(readFolder(bundledSource, new URL('./catalogue/', import.meta.url)));
    for (const folder of ctx.options.folders) catalogue.set(readFolder(folder.name, folder.path));
    const deployer = new TemplateDeployer(stacks, store, () => systemRandom);

    ctx.extensions.add(secretVariables, (stack) => store.hidden(stack));
    ctx.extensions.add(stackHooks, { removed: (tx, stack) => store.remove(tx, stack) });
    for (const route of templateRoutes({ catalogue, deployer, stacks })) ctx.routes.add(route);
    return { catalogue };
  },
});
