// The templates plugin: catalogues of one-click apps (bundled, HTTPS, git; our format, Dokploy's, Portainer's), deploys with values generated once, provenance.
import { definePlugin, Type } from '../../sdk/index.ts';
import { gitPlugin } from '../git/api.ts';
import { secretVariables, stackDescribers, stackHooks, stacksPlugin } from '../stacks/api.ts';
import { bundledSource, Catalogue, readFolder } from './catalogue.ts';
import { TemplateDeployer } from './deploy.ts';
import { systemRandom } from './generators.ts';
import { templateRoutes } from './routes.ts';
import { sourceRoutes } from './source-routes.ts';
import { SourceStore } from './source-store.ts';
import { readDokploy } from './readers/dokploy.ts';
import { readPortainer } from './readers/portainer.ts';
import { Sources } from './sources.ts';
import { ProvenanceStore } from './store.ts';
import { updateRoutes } from './update-routes.ts';
import { TemplateUpdates } from './updates.ts';
import { problems } from './problems.ts';

const Options = Type.Object({
  bundled: Type.Boolean({ default: true, description: 'offer the bundled catalogue (source `bundled`, read from the install: no network)' }),
  folders: Type.Array(Type.Object({ name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }), path: Type.String({ pattern: '^/' }) }, { additionalProperties: false }), {
    default: [], description: 'further catalogues in our format in folders of this server (one <id>.yaml per template), read at start',
  }),
  refreshIntervalMs: Type.Integer({ minimum: 1000, default: 6 * 3_600_000, description: 'how often every added source is read again' }),
}, { additionalProperties: false });

export default definePlugin({
  name: 'templates',
  problems,
  version: '1.0.0',
  services: ['db', 'outbound'],
  env: ['NODE_EXTRA_CA_CERTS'],
  description: 'Templates: one-click apps from the catalogues an admin chooses, with secrets generated once',
  requires: [stacksPlugin, gitPlugin],
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
    const sourceStore = new SourceStore(ctx.db);
    const sources = new Sources({ store: sourceStore, catalogue, git: ctx.deps.git, outbound: ctx.outbound, extraCaFile: ctx.env.NODE_EXTRA_CA_CERTS || undefined, readers: { dokploy: readDokploy, portainer: readPortainer }, log: ctx.log });
    for (const route of templateRoutes({ catalogue, deployer, stacks, sources })) ctx.routes.add(route);
    for (const route of sourceRoutes({ catalogue, sources, store: sourceStore })) ctx.routes.add(route);
    const updates = new TemplateUpdates({ stacks, store, catalogue, random: () => systemRandom, sync: () => sources.sync() });
    for (const route of updateRoutes({ stacks, updates, store, catalogue })) ctx.routes.add(route);
    ctx.extensions.add(stackDescribers, async (stack) => {
      const p = await store.get(stack);
      return p ? { template: { source: p.source, id: p.id, version: p.version, variables: p.variables } } : {};
    });
    ctx.schedule.every('refresh-sources', ctx.options.refreshIntervalMs, () => sources.refreshAll());
    ctx.onStart(() => sources.sync());
    return { catalogue };
  },
});
