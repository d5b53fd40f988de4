// The plugin registry at boot: order by requires, clear errors for disabled dependencies, cycles, duplicate or unscoped routes; npm-packaged plugins.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { boot } from '../../kernel/app.ts';
import { orderPlugins } from '../../kernel/registry.ts';
import { call, createDatabase, root } from '../helpers/harness.ts';

/** writes plugins as npm packages into a scratch install root, boots it, and returns the error or the running app. */
async function bootWith(plugins: Record<string, string>, enabled: Record<string, unknown>) {
  const dir = mkdtempSync(join(tmpdir(), 'dw-registry-'));
  cpSync(join(root, 'config'), join(dir, 'config'), { recursive: true });
  // only the plugins of the test: the install's own built-in plugins are not in this scratch root
  const defaults = JSON.parse(readFileSync(join(dir, 'config/default.json'), 'utf8'));
  writeFileSync(join(dir, 'config/default.json'), JSON.stringify({ ...defaults, plugins: {} }));
  writeFileSync(join(dir, 'package.json'), '{"name":"scratch","type":"module"}');
  for (const [name, source] of Object.entries(plugins)) {
    const pkg = join(dir, 'node_modules', `dockwright-plugin-${name}`);
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: `dockwright-plugin-${name}`, type: 'module', main: 'index.js' }));
    writeFileSync(join(pkg, 'index.js'), source);
  }
  const db = await createDatabase();
  const config = Object.fromEntries(Object.entries(enabled).map(([name, entry]) => [name, { package: `dockwright-plugin-${name}`, ...(entry as object) }]));
  try {
    const app = await boot({ root: dir, env: { NODE_ENV: 'test' }, config: { host: '127.0.0.1', port: 0, dataDir: join(dir, 'data'), databaseUrl: db.url, log: { level: 'silent' }, plugins: config } });
    return { app, cleanup: async () => { await app.close(); await db.drop(); rmSync(dir, { recursive: true, force: true }); } };
  } catch (err) {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
    return { error: err as Error };
  }
}

const plugin = (name: string, requires: string[] = [], body = '') => `
export default { name: '${name}', version: '1.0.0', requires: ${JSON.stringify(requires.map((r) => ({ name: r })))}, setup(ctx) { ${body} return { hello: () => '${name}' }; } };`;
const route = (path: string, extra = "scopes: ['admin']") => `ctx.routes.add({ method: 'GET', path: '${path}', summary: 's', ${extra}, handler: async () => ({ from: ctx.name, dep: Object.keys(ctx.deps) }) });`;

test('a third-party plugin loads from its npm package like a built-in one, after what it requires', async () => {
  const { app, cleanup, error } = await bootWith(
    { hello: plugin('hello', ['base'], route('/hello')), base: plugin('base') },
    { hello: {}, base: {} },
  );
  assert.ifError(error);
  try {
    assert.deepEqual(app!.plugins.map((p) => p.name), ['base', 'hello']);
    const token = (await app!.tokens.create({ user: 'admin', name: 't', scopes: ['admin'] })).token;
    const res = await call(app!.url, 'GET', '/api/v1/hello', { token });
    assert.deepEqual(res.body, { from: 'hello', dep: ['base'] });
  } finally {
    await cleanup!();
  }
});

test('a required plugin that is disabled stops the boot, naming the chain', async () => {
  const { error } = await bootWith(
    { top: plugin('top', ['mid']), mid: plugin('mid', ['base']), base: plugin('base') },
    { top: {}, mid: {}, base: { enabled: false } },
  );
  assert.match(error!.message, /plugin top → mid requires "base", which is disabled in config/);
});

test('a cycle of requires stops the boot, naming the cycle', async () => {
  const { error } = await bootWith({ a: plugin('a', ['b']), b: plugin('b', ['a']) }, { a: {}, b: {} });
  assert.match(error!.message, /cycle: a → b → a/);
});

test('a duplicate route or a route without scopes stops the boot', async () => {
  const dup = await bootWith({ one: plugin('one', [], route('/same')), two: plugin('two', [], route('/same')) }, { one: {}, two: {} });
  assert.match(dup.error!.message, /two: GET \/same: duplicate route, already defined by one/);
  const unscoped = await bootWith({ open: plugin('open', [], route('/open', 'scopes: []')) }, { open: {} });
  assert.match(unscoped.error!.message, /a route needs exactly one of scopes, authenticated, public or actionToken/);
  const kernelClash = await bootWith({ me: plugin('me', [], route('/me')) }, { me: {} });
  assert.match(kernelClash.error!.message, /duplicate route/);
});

test('registration after setup is refused, and bad plugin options stop the boot', async () => {
  const late = await bootWith({ late: plugin('late', [], `ctx.onStart(() => { ${route('/late')} });`) }, { late: {} });
  assert.match(late.error!.message, /routes.add is only possible during setup/);
  const missing = await bootWith({}, { ghost: {} });
  assert.match(missing.error!.message, /plugin "ghost" could not be loaded/);
  const misnamed = await bootWith({ alias: plugin('other') }, { alias: {} });
  assert.match(misnamed.error!.message, /configured as "alias" calls itself "other"/);
});

test('orderPlugins keeps independent plugins in config order', () => {
  const p = (name: string, requires: string[] = []) => ({ def: { name, version: '1', requires: requires.map((r) => ({ name: r })), setup: () => undefined }, entry: {} });
  assert.deepEqual(orderPlugins([p('c', ['a']), p('b'), p('a')], {}).map((x) => x.def.name), ['a', 'c', 'b']);
});

test('a plugin is given the services it declares: another one is an error that says what to declare; an unknown name stops the boot', async () => {
  const narrow = `export default { name: 'narrow', version: '1.0.0', services: ['db'], setup(ctx) {
    const attempt = (fn) => { try { return fn(); } catch (err) { return err.message; } };
    ctx.routes.add({ method: 'GET', path: '/narrow', summary: 's', scopes: ['admin'], handler: async () => ({
      db: typeof ctx.db.query, own: Object.keys(ctx).filter((k) => ['db', 'databaseUrl', 'events'].includes(k)),
      url: attempt(() => ctx.databaseUrl), events: attempt(() => ctx.events.emit('x', {})),
    }) });
  } };`;
  const { app, cleanup, error } = await bootWith({ narrow }, { narrow: {} });
  assert.ifError(error);
  try {
    const token = (await app!.tokens.create({ user: 'admin', name: 't', scopes: ['admin'] })).token;
    const { body } = await call(app!.url, 'GET', '/api/v1/narrow', { token });
    assert.equal(body.db, 'function');
    assert.deepEqual(body.own, ['db']);
    assert.equal(body.url, `plugin "narrow" uses the service databaseUrl, which it does not declare: add 'databaseUrl' to the services of its definition`);
    assert.match(body.events, /uses the service events, which it does not declare/);
  } finally {
    await cleanup!();
  }
  const unknown = await bootWith({ odd: `export default { name: 'odd', version: '1.0.0', services: ['database'], setup() {} };` }, { odd: {} });
  assert.match(unknown.error!.message, /plugin "odd": services database do not exist; the kernel offers db, databaseUrl, /);
});
