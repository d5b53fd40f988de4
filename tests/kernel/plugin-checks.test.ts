// What the kernel checks of a plugin: its SDK range and route scopes at boot, problems by brand across SDK copies, and the env it declared.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, startServer } from '../helpers/harness.ts';

const scratch = mkdtempSync(join(root, '.scratch-'));
chmodSync(scratch, 0o755);
after(() => rmSync(scratch, { recursive: true, force: true }));

/** a plugin folder whose index.ts is `source`; `sdk` is the SDK it imports (the kernel's own, or a copy of its own) */
function plugin(name: string, source: (sdk: string) => string, ownCopy = false): string {
  const dir = join(scratch, name);
  mkdirSync(dir);
  let sdk = join(root, 'sdk/index.ts');
  if (ownCopy) {
    cpSync(join(root, 'sdk'), join(dir, 'sdk'), { recursive: true });
    sdk = './sdk/index.ts';
  }
  writeFileSync(join(dir, 'index.ts'), `// test plugin ${name}\n${source(sdk)}`);
  return dir;
}

test('a plugin whose sdk range excludes this SDK is refused at boot, naming both', async () => {
  const path = plugin('future', (sdk) => `import { definePlugin } from '${sdk}';
export default definePlugin({ name: 'future', version: '3.0.0', sdk: '^2', setup() { return {}; } });`);
  await assert.rejects(startServer({ plugins: { future: { path } } }), /plugin "future" 3\.0\.0 supports the SDK \^2, but this Dockwright provides SDK 1\.\d+\.\d+/);
  const fits = plugin('fits', (sdk) => `import { definePlugin } from '${sdk}';
export default definePlugin({ name: 'fits', version: '1.0.0', sdk: '^1.0.0', setup() { return {}; } });`);
  const s = await startServer({ plugins: { fits: { path: fits } } });
  await s.close();
});

test('a route needing a scope nobody declared stops the boot with a clear message', async () => {
  const path = plugin('scopeless', (sdk) => `import { definePlugin, defineRoute, Type } from '${sdk}';
export default definePlugin({ name: 'scopeless', version: '1.0.0', setup(ctx) {
  ctx.routes.add(defineRoute({ method: 'GET', path: '/scopeless', scopes: ['scopeless:read'], summary: 'x', response: Type.Object({}), handler: async () => ({}) }));
  return {};
} });`);
  await assert.rejects(startServer({ plugins: { scopeless: { path } } }),
    /plugin "scopeless": route GET \/scopeless requires the scope "scopeless:read", which no plugin declares; declare it in setup with ctx\.scopes\.define/);
  const optional = plugin('widened', (sdk) => `import { definePlugin, defineRoute, Type } from '${sdk}';
export default definePlugin({ name: 'widened', version: '1.0.0', setup(ctx) {
  ctx.routes.add(defineRoute({ method: 'GET', path: '/widened', authenticated: true, optionalScopes: ['widened:all'], summary: 'x', response: Type.Object({}), handler: async () => ({}) }));
  return {};
} });`);
  await assert.rejects(startServer({ plugins: { widened: { path: optional } } }), /plugin "widened": route GET \/widened asks for the scope "widened:all", which no plugin declares/);
  const misplaced = plugin('misplaced', (sdk) => `import { definePlugin, defineRoute, Type } from '${sdk}';
export default definePlugin({ name: 'misplaced', version: '1.0.0', setup(ctx) {
  ctx.routes.add(defineRoute({ method: 'GET', path: '/misplaced', scopes: ['jobs:read'], optionalScopes: ['jobs:cancel'], summary: 'x', response: Type.Object({}), handler: async () => ({}) }));
  return {};
} });`);
  await assert.rejects(startServer({ plugins: { misplaced: { path: misplaced } } }), /misplaced: GET \/misplaced: optionalScopes widen an authenticated or public route; with scopes, list them there/);
});

test("a plugin with its own copy of the SDK: its problem(404) is a 404, its reply() keeps its status, and it sees only the env it declared", async () => {
  const path = plugin('copy', (sdk) => `import { definePlugin, defineRoute, problem, reply, Type } from '${sdk}';
export default definePlugin({ name: 'copy', version: '1.0.0', sdk: '^1', env: ['DW_COPY_VISIBLE', 'DATABASE_URL_NOT_SET'], setup(ctx) {
  ctx.scopes.define({ 'copy:read': { description: 'read', role: 'viewer' } });
  const Env = Type.Object({ names: Type.Array(Type.String()) });
  ctx.routes.add(defineRoute({ method: 'GET', path: '/copy/missing', scopes: ['copy:read'], summary: 'x', response: Env, errors: [404], handler: async () => { throw problem(404, 'no such thing'); } }));
  ctx.routes.add(defineRoute({ method: 'GET', path: '/copy/env', scopes: ['copy:read'], summary: 'x', response: Env, successes: [203], handler: async () => reply(203, { names: Object.keys(ctx.env) }) }));
  return {};
} });`, true);
  const bare = plugin('bare', (sdk) => `import { definePlugin, defineRoute, Type } from '${sdk}';
export default definePlugin({ name: 'bare', version: '1.0.0', setup(ctx) {
  ctx.scopes.define({ 'bare:read': { description: 'read', role: 'viewer' } });
  ctx.routes.add(defineRoute({ method: 'GET', path: '/bare/env', scopes: ['bare:read'], summary: 'x', response: Type.Object({ names: Type.Array(Type.String()) }), handler: async () => ({ names: Object.keys(ctx.env) }) }));
  return {};
} });`);
  const s = await startServer({
    plugins: { copy: { path }, bare: { path: bare } },
    // the harness's own database setting wins over DATABASE_URL; the variable is here to prove no plugin is handed it
    env: { DW_COPY_VISIBLE: 'yes', DW_OTHER: 'no', SECRET_KEY: 'a1'.repeat(32), DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
  });
  try {
    const missing = await s.api('GET', '/api/v1/copy/missing');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.detail, 'no such thing');
    const env = await s.api('GET', '/api/v1/copy/env');
    assert.equal(env.status, 203);
    assert.deepEqual(env.body.names, ['DW_COPY_VISIBLE']);
    const names = (await s.api('GET', '/api/v1/bare/env')).body.names as string[];
    assert.deepEqual(names, [], 'a plugin that declares no env sees none of it');
  } finally {
    await s.close();
  }
});

test('typed dependencies: a required reference types ctx.deps and opens its extension points; an unrequired owner is refused', async () => {
  const api = join(root, 'plugins/stacks/api.ts');
  const path = plugin('sourcey', (sdk) => `import { definePlugin } from '${sdk}';
import { stackSources, stacksPlugin } from '${api}';
export default definePlugin({ name: 'sourcey', version: '1.0.0', requires: [stacksPlugin], setup(ctx) {
  const schema = ctx.deps.stacks.nameSchema;
  ctx.extensions.add(stackSources, { source: { hasSource: async () => false, prepare: async () => { throw new Error('none'); } } as never });
  return { pattern: schema.pattern };
} });`);
  const s = await startServer({ plugins: { docker: { options: { socketPath: '/nonexistent/dockwright/docker.sock', reconcile: false } }, stacks: {}, sourcey: { path } } });
  try {
    assert.deepEqual(s.app.apis.sourcey, { pattern: '^[a-z0-9][a-z0-9-]{0,62}$' });
  } finally {
    await s.close();
  }
  const stray = plugin('stray', (sdk) => `import { definePlugin } from '${sdk}';
import { platformRules } from '${api}';
export default definePlugin({ name: 'stray', version: '1.0.0', setup(ctx) { ctx.extensions.add(platformRules, {} as never); return {}; } });`);
  await assert.rejects(startServer({ plugins: { stray: { path: stray } } }),
    /plugin "stray": the extension point stacks\.rules belongs to "stacks", which "stray" does not require/);
});

test("a third-party plugin's tables must carry its name as prefix", async () => {
  const path = plugin('sprawl', (sdk) => `import { definePlugin } from '${sdk}';
export default definePlugin({ name: 'sprawl', version: '1.0.0', setup(ctx) { ctx.migrations.from(new URL('./migrations', import.meta.url)); return {}; } });`);
  mkdirSync(join(path, 'migrations'));
  writeFileSync(join(path, 'migrations/1800000000000_sprawl.sql'), '-- Up Migration\nCREATE TABLE sprawl_items (id serial PRIMARY KEY);\nCREATE TABLE jobs_shadow (id int);\n');
  await assert.rejects(startServer({ plugins: { sprawl: { path } } }), /plugin "sprawl": its migrations created jobs_shadow outside its table prefix "sprawl_"/);
});
