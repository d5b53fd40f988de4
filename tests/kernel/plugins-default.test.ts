// Plugins on by default whose requirement is off are left out with a warning (GET /plugins and the Plugins page say why); one the install names stops the boot; disabled package and path plugins show what their package.json says.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { boot, type Running } from '../../kernel/app.ts';
import { setEnabled } from '../../kernel/plugin-admin.ts';
import type { Logger } from '../../sdk/index.ts';
import { call, createDatabase, root, type TestServer } from '../helpers/harness.ts';
import { addUser, launch, shot, signedIn } from '../plugins/portal/helpers.ts';

/** the warnings logged, as text */
const warned: string[] = [];
function warnings(): Logger {
  const quiet = () => undefined;
  return { info: quiet, debug: quiet, error: quiet, warn: (obj, msg) => { warned.push(typeof obj === 'string' ? obj : msg ?? ''); }, child: () => warnings() };
}

// an install of its own: the shipped config (every built-in plugin on by default), a package and a path plugin beside it
const install = mkdtempSync(join(tmpdir(), 'dw-defaults-'));
cpSync(join(root, 'config'), join(install, 'config'), { recursive: true });
writeFileSync(join(install, 'package.json'), '{"name":"install","type":"module"}');
const pkg = join(install, 'node_modules/dockwright-plugin-hello');
mkdirSync(pkg, { recursive: true });
writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'dockwright-plugin-hello', version: '2.3.4', description: 'says hello', main: 'index.js' }));
writeFileSync(join(pkg, 'index.js'), 'throw new Error("a disabled plugin is never imported");\n');
const local = join(install, 'plugins-local/stats');
mkdirSync(join(local, 'dist'), { recursive: true });
writeFileSync(join(local, 'package.json'), JSON.stringify({ name: 'stats', version: '0.4.0', description: 'counts things' }));
writeFileSync(join(local, 'dist/index.js'), 'throw new Error("a disabled plugin is never imported");\n');
// a plugin that requires sites, which is on by default only
writeFileSync(join(install, 'site-stats.js'), "export default { name: 'site-stats', version: '1.0.0', requires: [{ name: 'sites' }], setup() {} };\n");

const databases: { drop(): Promise<void> }[] = [];
async function bootInstall(plugins: Record<string, unknown>, log?: Logger): Promise<Running> {
  const db = await createDatabase();
  databases.push(db);
  return boot({
    root: install, env: { NODE_ENV: 'test' }, log,
    config: { host: '127.0.0.1', port: 0, dataDir: mkdtempSync(join(install, 'data-')), databaseUrl: db.url, log: { level: 'silent' }, plugins },
  });
}

let app: Running;
let admin: string;
before(async () => {
  // the admin switches the edge off, and names nothing else but two plugins kept off and the engine's options
  app = await bootInstall({
    docker: { options: { reconcile: false } }, edge: { enabled: false },
    hello: { package: 'dockwright-plugin-hello', enabled: false }, stats: { path: 'plugins-local/stats/dist/index.js', enabled: false },
    ghost: { package: 'dockwright-plugin-ghost', enabled: false },
  }, warnings());
  admin = (await app.tokens.create({ user: 'admin', name: 't', scopes: ['*'] })).token;
});
after(async () => {
  await app?.close();
  for (const db of databases) await db.drop();
  rmSync(install, { recursive: true, force: true });
});

interface Info { name: string; version: string | null; description: string | null; enabled: boolean; reason: string | null; source: Record<string, unknown>; requires: string[] }

test('a plugin on by default whose requirement is disabled is left out with a warning; GET /plugins shows it disabled and why', async () => {
  const plugins = (await call<Info[]>(app.url, 'GET', '/api/v1/plugins', { token: admin })).body;
  const byName = new Map(plugins.map((p) => [p.name, p]));
  const previews = byName.get('previews')!;
  assert.equal(previews.enabled, false);
  assert.equal(previews.reason, 'it requires "edge", which is disabled in config');
  assert.match(previews.version ?? '', /^\d+\.\d+\.\d+/);
  assert.ok(previews.requires.includes('edge') && previews.requires.includes('git'));
  assert.equal(byName.get('certificates')!.reason, 'it requires "edge", which is disabled in config');
  assert.equal(byName.get('sites')!.reason, 'it requires "edge", which is disabled in config');
  assert.deepEqual({ enabled: byName.get('edge')!.enabled, reason: byName.get('edge')!.reason }, { enabled: false, reason: 'disabled in config' });
  assert.deepEqual({ enabled: byName.get('stacks')!.enabled, reason: byName.get('stacks')!.reason }, { enabled: true, reason: null });
  assert.deepEqual(app.plugins.map((p) => p.name).filter((n) => ['previews', 'sites', 'certificates', 'edge'].includes(n)), []);
  // its routes are not served
  assert.equal((await call(app.url, 'GET', '/api/v1/sites', { token: admin })).status, 404);
  for (const name of ['previews', 'sites', 'certificates']) {
    assert.ok(warned.some((w) => w.startsWith(`plugin "${name}" is enabled by default but was not loaded: it requires "edge", which is disabled in config`)), `a warning for ${name}: ${warned.join(' | ')}`);
  }
});

test('a disabled package or path plugin shows its name, version, description, source and folder from its package.json (never imported)', async () => {
  const plugins = (await call<Info[]>(app.url, 'GET', '/api/v1/plugins', { token: admin })).body;
  const byName = new Map(plugins.map((p) => [p.name, p]));
  assert.deepEqual(byName.get('hello'), {
    ...byName.get('hello'), name: 'hello', version: '2.3.4', description: 'says hello', enabled: false, reason: 'disabled in config',
    source: { kind: 'package', package: 'dockwright-plugin-hello', version: '2.3.4', path: pkg },
  });
  assert.deepEqual(byName.get('stats'), {
    ...byName.get('stats'), name: 'stats', version: '0.4.0', description: 'counts things', enabled: false,
    source: { kind: 'path', path: join(install, 'plugins-local/stats/dist/index.js') },
  });
  // a package that is not installed: what config says
  assert.deepEqual({ version: byName.get('ghost')!.version, source: byName.get('ghost')!.source }, { version: null, source: { kind: 'package', package: 'dockwright-plugin-ghost', version: null, path: null } });
});

test('the Plugins page shows a plugin left out as disabled, with the reason', async () => {
  let browser: Browser | undefined;
  try {
    browser = await launch();
    const s = { app, url: app.url } as unknown as TestServer;
    await addUser(s, 'ada', 'admin');
    const page = await signedIn(browser, s, 'ada');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('navigation', { name: 'Section' }).getByRole('link', { name: 'Plugins', exact: true }).click();
    const previews = page.getByRole('region', { name: /^previews/ });
    await previews.waitFor();
    assert.match(await previews.innerText(), /disabled[\s\S]*it requires "edge", which is disabled in config/);
    assert.match(await page.getByRole('region', { name: /^hello/ }).innerText(), /2\.3\.4[\s\S]*dockwright-plugin-hello/);
    await shot(page, 'plugins-left-out');
  } finally {
    await browser?.close();
  }
});

test('a plugin the install names stops the boot when what it requires is off, naming the chain', async () => {
  await assert.rejects(bootInstall({ docker: { options: { reconcile: false } }, edge: { enabled: false }, previews: {} }),
    /plugin previews requires "edge", which is disabled in config: enable edge, or disable previews/);
  await assert.rejects(bootInstall({ docker: { options: { reconcile: false } }, edge: { enabled: false }, 'site-stats': { path: 'site-stats.js' } }),
    /plugin site-stats requires "sites", which is skipped: it requires "edge", which is disabled in config/);
});

test('the CLI disables a plugin that others on by default require, naming those left out; enabling one of them by name is refused', async () => {
  const env = { NODE_ENV: 'test' };
  const out = await setEnabled(install, env, 'edge', false);
  assert.match(out, /plugin "edge" disabled in config\/local\.json: restart Dockwright to apply it/);
  assert.match(out, /plugin "previews" \(on by default\) will not be loaded: it requires "edge", which is disabled in config/);
  await assert.rejects(setEnabled(install, env, 'previews', true), /enabling "previews" was refused, nothing was written: plugin previews requires "edge", which is disabled in config/);
  assert.deepEqual(JSON.parse(readFileSync(join(install, 'config/local.json'), 'utf8')), { plugins: { edge: { enabled: false } } });
  assert.match(await setEnabled(install, env, 'stacks', true), /plugin "stacks" enabled in config\/local\.json/);
});
