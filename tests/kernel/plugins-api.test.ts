// GET /api/v1/plugins over the built-in plugins and a path plugin: sources, scopes, routes, job types, extension points offered and used (resource providers), migrations; admins only; the portal's Plugins page shows the same.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { root, startServer, type TestServer } from '../helpers/harness.ts';
import { addUser, launch, shot, signedIn } from '../plugins/portal/helpers.ts';

let s: TestServer;
before(async () => {
  s = await startServer({
    plugins: {
      docker: { options: { reconcile: false } }, stacks: {}, git: {}, backups: {}, alerts: {}, portal: {},
      'alerts-client': { path: 'tests/fixtures/alerts-client/index.ts' },
    },
  });
});
after(async () => { await s?.close(); });

interface Info {
  name: string; version: string | null; enabled: boolean; source: { kind: string; path?: string }; requires: string[]; services: string[]; scopes: string[]; routes: number; jobTypes: string[];
  extensionPoints: { offered: { name: string; resource: string | null; contributions: number }[]; used: string[] };
  migrations: { files: number; applied: number } | null;
}

test('every plugin in boot order, then the disabled ones, with what each registered', async () => {
  const answer = await s.api<Info[]>('GET', '/api/v1/plugins');
  assert.equal(answer.status, 200);
  const byName = new Map(answer.body.map((p) => [p.name, p]));
  const enabled = answer.body.filter((p) => p.enabled).map((p) => p.name);
  assert.ok(enabled.indexOf('docker') < enabled.indexOf('stacks') && enabled.indexOf('stacks') < enabled.indexOf('git'), 'boot order');
  assert.deepEqual(answer.body.filter((p) => !p.enabled).map((p) => p.name), ['certificates', 'containers', 'edge', 'images', 'metrics', 'previews', 'registries', 'releases', 'sites', 'swarm', 'tasks', 'templates']);

  const stacks = byName.get('stacks')!;
  assert.deepEqual(stacks.source, { kind: 'built-in' });
  assert.deepEqual(stacks.requires, ['docker']);
  assert.deepEqual(stacks.services, ['db', 'revisions', 'actionTokens', 'secrets', 'events']);
  // the database URL only for the plugin that needs it (pg_dump of the database target)
  assert.deepEqual(answer.body.filter((p) => p.services.includes('databaseUrl')).map((p) => p.name), ['backups', 'alerts-client']);
  assert.ok(stacks.scopes.includes('stacks:deploy'));
  assert.ok(stacks.routes > 10);
  assert.ok(stacks.jobTypes.includes('stacks.deploy'));
  assert.ok(stacks.migrations && stacks.migrations.applied === stacks.migrations.files && stacks.migrations.files > 0);
  const offered = new Map(stacks.extensionPoints.offered.map((e) => [e.name, e]));
  // resource providers: the docker runtime is the stack runtime of the engine itself (swarm is off), git a stack source
  assert.equal(offered.get('stacks.runtimes')?.resource, 'stack runtime');
  assert.deepEqual(offered.get('stacks.sources'), { name: 'stacks.sources', resource: 'stack source', contributions: 1 });
  assert.equal(offered.get('stacks.rules')?.resource, null);
  assert.ok(byName.get('git')!.extensionPoints.used.includes('stacks.sources'));
  assert.deepEqual(byName.get('backups')!.extensionPoints.offered, [{ name: 'backups.targets', resource: 'backup target', contributions: 0 }]);
  assert.deepEqual(byName.get('alerts')!.extensionPoints.offered, [{ name: 'alerts.channel-kinds', resource: 'alert channel kind', contributions: 1 }]);

  const client = byName.get('alerts-client')!;
  assert.deepEqual(client.source, { kind: 'path', path: `${root}/tests/fixtures/alerts-client/index.ts` });
  assert.deepEqual(client.extensionPoints, { offered: [], used: ['alerts.channel-kinds'] });
  assert.deepEqual(byName.get('swarm'), {
    name: 'swarm', version: null, description: null, source: { kind: 'built-in' }, enabled: false, reason: 'disabled in config', requires: [], services: [], scopes: [], routes: 0,
    jobTypes: [], extensionPoints: { offered: [], used: [] }, migrations: null,
  });
});

test('admins only: an operator may not list the plugins', async () => {
  const operator = await s.token('operator', ['*']);
  assert.equal((await s.api('GET', '/api/v1/plugins', { token: operator })).status, 403);
  const asked = await s.token('operator', ['plugins:read']);
  assert.equal((await s.api('GET', '/api/v1/plugins', { token: asked })).status, 403);
});

test('the portal\'s Plugins page shows each plugin, its source and its extension points; a viewer has no such page', async () => {
  let browser: Browser | undefined;
  try {
    browser = await launch();
    await addUser(s, 'ada', 'admin');
    await addUser(s, 'vic', 'viewer');
    const page = await signedIn(browser, s, 'ada');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('navigation', { name: 'Section' }).getByRole('link', { name: 'Plugins', exact: true }).click();
    await page.getByRole('heading', { name: 'Plugins' }).waitFor();
    const stacks = page.getByRole('region', { name: /^stacks/ });
    await stacks.waitFor();
    assert.match(await stacks.innerText(), /enabled[\s\S]*built-in[\s\S]*docker[\s\S]*stacks:deploy[\s\S]*stacks\.runtimes \(stack runtime provider\)/);
    assert.match(await page.getByRole('region', { name: /^alerts-client/ }).innerText(), /path[\s\S]*alerts-client\/index\.ts[\s\S]*alerts\.channel-kinds/);
    assert.match(await page.getByRole('region', { name: /^swarm/ }).innerText(), /disabled/);
    await shot(page, 'plugins');
    const viewer = await signedIn(browser, s, 'vic');
    await viewer.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity', exact: true }).waitFor();
    assert.equal(await viewer.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^(Plugins|Settings)$/ }).count(), 0, 'a viewer has neither Plugins nor the Settings group they belong to');
  } finally {
    await browser?.close();
  }
});
