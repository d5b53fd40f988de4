// The registries plugin: registry logins checked on save, sealed at rest, and handed to the docker runtime for every pull and build.
import { definePlugin } from '../../sdk/index.ts';
import { problems } from './problems.ts';
import { dockerPlugin, registryAuths } from '../docker/api.ts';
import { normaliseHost, serverAddressOf } from './hosts.ts';
import { registryRoutes } from './routes.ts';
import { createStore } from './store.ts';

export default definePlugin({
  name: 'registries',
  version: '1.0.0',
  services: ['db', 'activity', 'secrets', 'outbound'],
  description: 'Registry logins: checked against the registry when saved, sealed at rest, used by deploys, pulls, builds and autoupdate',
  requires: [dockerPlugin],
  problems,
  setup(ctx) {
    const runtime = ctx.deps.docker;
    ctx.migrations.from(new URL('./migrations', import.meta.url));
    ctx.scopes.define({
      'registries:read': { description: 'list registry logins (hosts and users, never passwords)', role: 'viewer' },
      'registries:write': { description: 'add, replace and delete registry logins', role: 'admin' },
    });
    const store = createStore(ctx.db);
    for (const route of registryRoutes({ ctx, store, runtime })) ctx.routes.add(route);

    // the docker runtime asks for the registry of each image it pulls (and each base image a build pulls)
    ctx.extensions.add(registryAuths, async (imageRegistry) => {
      const checked = normaliseHost(imageRegistry);
      const row = checked.ok ? await store.get(checked.host) : null;
      if (!row) return null;
      let password: string;
      try {
        password = ctx.secrets.open(row.passwordSealed);
      } catch {
        throw new Error(`the saved login for the registry ${row.host} cannot be opened (was the secret key changed?): save it again with POST /api/v1/registries`);
      }
      await store.markUsed(row.host).catch((err) => ctx.log.warn({ err, registry: row.host }, 'could not note the use of a registry login'));
      return { username: row.username, password, serveraddress: serverAddressOf(row.host) };
    });
    return {};
  },
});
