// Configuration as code beyond stacks, with the installed dw: sites, backups and alert channels planned, applied, exported and applied again with nothing to do; conflicts, prune and a channel the API cannot change.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '../../cli/src/client.ts';
import { applyPlan, makePlan } from '../../cli/src/declarative/plan.ts';
import { startSitesServer, type SitesServer } from '../plugins/sites/helpers.ts';
import { busybox, createStack, uniqueName } from '../plugins/stacks/helpers.ts';
import { dw, installCli, type Installed } from './helpers.ts';

let s: SitesServer;
let cli: Installed;
let env: Record<string, string>;
let dir: string;
const stack = uniqueName('kstack');
const site = uniqueName('ksite');
const backup = uniqueName('kbackup');
const channel = uniqueName('kchannel');

const write = (name: string, text: string) => { const path = join(dir, name); writeFileSync(path, text); return path; };
const declarations = (hostnames: string[]) => `kind: site
name: ${site}
spec:
  hostnames: [${hostnames.join(', ')}]
---
kind: backup
name: ${backup}
spec:
  targets: { stacks: [${stack}] }
  password: \${env:KIND_BACKUP_PASSWORD}
  schedule: "@daily"
  retention: { daily: 7, weekly: 4 }
  consistency: live
---
kind: alert-channel
name: ${channel}
spec:
  type: webhook
  config: { url: "http://127.0.0.1:9/hook" }
  events: [deploy-failed]
  minSeverity: warning
`;

before(async () => {
  [s, cli] = await Promise.all([startSitesServer({ more: { alerts: {} } }), installCli()]);
  env = { DOCKWRIGHT_URL: s.url, DOCKWRIGHT_TOKEN: s.admin, KIND_BACKUP_PASSWORD: 'backup-password-value' };
  dir = mkdtempSync(join(tmpdir(), 'dw-kinds-'));
  await createStack(s, stack, busybox());
});
after(async () => { await s?.close(); cli?.remove(); });

test('a site, a backup and an alert channel are created from the files, and a second plan finds nothing', async () => {
  const file = write('all.yaml', declarations([`${site}.test`]));
  const planned = await dw(cli.bin, ['plan', '-f', file, '--json'], env);
  assert.equal(planned.code, 0, planned.stderr);
  assert.deepEqual(JSON.parse(planned.stdout).changes.map((c: any) => [c.kind, c.name, c.action]), [['site', site, 'create'], ['backup', backup, 'create'], ['alert-channel', channel, 'create']]);
  const applied = await dw(cli.bin, ['apply', '-f', file], env);
  assert.equal(applied.code, 0, applied.stderr);
  assert.deepEqual((await s.api('GET', `/api/v1/sites/${site}`)).body.hostnames, [`${site}.test`]);
  const b = (await s.api('GET', `/api/v1/backups/${backup}`)).body;
  assert.deepEqual([b.schedule, b.retention.daily, b.consistency], ['@daily', 7, 'live']);
  const ch = (await s.api('GET', '/api/v1/alerts/channels')).body.find((c: any) => c.name === channel);
  assert.deepEqual([ch.kind, ch.events, ch.minSeverity], ['webhook', ['deploy-failed'], 'warning']);
  const again = await dw(cli.bin, ['plan', '-f', file, '--json'], env);
  assert.deepEqual(JSON.parse(again.stdout), { changes: [] });
});

test('export of every kind, applied again, plans nothing; no secret is exported', async () => {
  const exported = await dw(cli.bin, ['export'], env);
  assert.equal(exported.code, 0, exported.stderr);
  for (const kind of ['stack', 'site', 'backup', 'alert-channel']) assert.match(exported.stdout, new RegExp(`^kind: ${kind}$`, 'm'), kind);
  assert.ok(!exported.stdout.includes('backup-password-value'));
  mkdirSync(join(dir, 'export'));
  writeFileSync(join(dir, 'export', 'all.yaml'), exported.stdout);
  const planned = await dw(cli.bin, ['plan', '-f', join(dir, 'export'), '--json', '--prune'], env);
  assert.equal(planned.code, 0, planned.stderr);
  assert.deepEqual(JSON.parse(planned.stdout), { changes: [] });
});

test('a site changed on the server after the plan is a conflict; a site update applies', async () => {
  const file = write('all.yaml', declarations([`${site}.test`, `www.${site}.test`]));
  const client = new Client(s.url, s.admin);
  process.env.KIND_BACKUP_PASSWORD = env.KIND_BACKUP_PASSWORD;
  const changes = await makePlan(client, [file], { prune: false });
  assert.deepEqual(changes.map((c) => [c.kind, c.action, c.fields]), [['site', 'update', ['hostnames']]]);
  await new Promise((r) => setTimeout(r, 5));
  assert.equal((await s.api('PUT', `/api/v1/sites/${site}`, { body: { hostnames: [`other.${site}.test`] } })).status, 200);
  await assert.rejects(applyPlan(changes, () => undefined), /conflict: site .* changed on the server since dw read it/);
  assert.deepEqual((await s.api('GET', `/api/v1/sites/${site}`)).body.hostnames, [`other.${site}.test`], 'the other change stands');
  const applied = await dw(cli.bin, ['apply', '-f', file], env);
  assert.equal(applied.code, 0, applied.stderr);
  assert.deepEqual((await s.api('GET', `/api/v1/sites/${site}`)).body.hostnames.sort(), [`${site}.test`, `www.${site}.test`].sort());
});

test('a changed alert channel is refused with what to do (the API cannot change one in place)', async () => {
  const file = write('all.yaml', declarations([`${site}.test`, `www.${site}.test`]).replace('minSeverity: warning', 'minSeverity: critical'));
  const res = await dw(cli.bin, ['apply', '-f', file], env);
  assert.equal(res.code, 2);
  assert.match(res.stderr, /alert-channel .* differs \(minSeverity\), and the API cannot change a channel in place[^]*→ remove it/);
});

test('prune removes an undeclared site and channel, keeps a protected backup, and touches no undeclared kind', async () => {
  const file = write('prune.yaml', `kind: site\nname: ${uniqueName('knew')}\nspec:\n  hostnames: []\n---\nkind: backup\nname: ${backup}\nprotected: true\n---\nkind: alert-channel\nname: ${uniqueName('kch')}\nspec:\n  type: webhook\n  config: { url: "http://127.0.0.1:9/other" }\n`);
  const planned = JSON.parse((await dw(cli.bin, ['plan', '-f', file, '--prune', '--json'], env)).stdout).changes;
  assert.deepEqual(planned.filter((c: any) => c.action === 'delete').map((c: any) => [c.kind, c.name]).sort(), [['alert-channel', channel], ['site', site]]);
  const applied = await dw(cli.bin, ['apply', '-f', file, '--prune'], env);
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal((await s.api('GET', `/api/v1/sites/${site}`)).status, 404);
  assert.equal((await s.api('GET', `/api/v1/backups/${backup}`)).status, 200, 'protected');
  assert.equal((await s.api('GET', `/api/v1/stacks/${stack}`)).status, 200, 'stacks are not a declared kind here');
});

test('sites upload sends a folder as the draft, or published with --publish', async () => {
  const name = uniqueName('kup');
  assert.equal((await s.api('PUT', `/api/v1/sites/${name}`, { body: { hostnames: [] } })).status, 201);
  const folder = join(dir, 'www');
  mkdirSync(join(folder, 'css'), { recursive: true });
  writeFileSync(join(folder, 'index.html'), '<p>hello</p>\n');
  writeFileSync(join(folder, 'css', 'site.css'), 'p { color: red }\n');
  const draft = await dw(cli.bin, ['sites', 'upload', name, folder], env);
  assert.equal(draft.code, 0, draft.stderr);
  assert.match(draft.stdout, /draft of 2 files/);
  const published = await dw(cli.bin, ['sites', 'upload', name, folder, '--publish', '--json'], env);
  assert.equal(published.code, 0, published.stderr);
  assert.equal(JSON.parse(published.stdout).version, 1);
  const file = await s.api('GET', `/api/v1/sites/${name}/file?path=css/site.css`);
  assert.equal(file.text, 'p { color: red }\n');
  assert.equal((await dw(cli.bin, ['sites', 'upload', name, join(dir, 'nope')], env)).code, 2);
});

test('a site answers its ETag (its updatedAt, quoted); PUT and DELETE with a stale If-Match, or a create over one that exists, answer 412', async () => {
  const name = uniqueName('ketag');
  const created = await s.api('PUT', `/api/v1/sites/${name}`, { body: { hostnames: [] }, headers: { 'if-none-match': '*' } });
  assert.equal(created.status, 201, created.text);
  const read = await s.api('GET', `/api/v1/sites/${name}`);
  const etag = read.headers.get('etag');
  assert.equal(etag, `"${read.body.updatedAt}"`);
  assert.equal((await s.api('PUT', `/api/v1/sites/${name}`, { body: { hostnames: [] }, headers: { 'if-none-match': '*' } })).status, 412, 'exists already');
  await new Promise((r) => setTimeout(r, 5));
  const changed = await s.api('PUT', `/api/v1/sites/${name}`, { body: { hostnames: [`${name}.test`] }, headers: { 'if-match': etag! } });
  assert.equal(changed.status, 200, changed.text);
  const stale = await s.api('PUT', `/api/v1/sites/${name}`, { body: { hostnames: [] }, headers: { 'if-match': etag! } });
  assert.equal(stale.status, 412);
  assert.match(stale.body.type, /site-changed$/);
  assert.deepEqual((await s.api('GET', `/api/v1/sites/${name}`)).body.hostnames, [`${name}.test`], 'nothing written');
  assert.equal((await s.api('DELETE', `/api/v1/sites/${name}`, { headers: { 'if-match': etag! } })).status, 412);
  const now = (await s.api('GET', `/api/v1/sites/${name}`)).headers.get('etag')!;
  assert.equal((await s.api('DELETE', `/api/v1/sites/${name}`, { headers: { 'if-match': now } })).status, 200);
  assert.equal((await s.api('PUT', `/api/v1/sites/${name}`, { body: { hostnames: [] }, headers: { 'if-match': now } })).status, 412, 'If-Match on a site that is gone');
});

test('a backup answers its ETag; a stale If-Match is refused with 412 and apply reports the conflict without writing', async () => {
  const read = await s.api('GET', `/api/v1/backups/${backup}`);
  const etag = read.headers.get('etag')!;
  assert.equal(etag, `"${read.body.updatedAt}"`);
  const file = write('backup.yaml', `kind: backup\nname: ${backup}\nspec:\n  targets: { stacks: [${stack}] }\n  schedule: "@weekly"\n`);
  const changes = await makePlan(new Client(s.url, s.admin), [file], { prune: false });
  assert.deepEqual(changes.map((c) => [c.kind, c.action, c.fields]), [['backup', 'update', ['schedule', 'retention']]]);
  await new Promise((r) => setTimeout(r, 5));
  const other = await s.api('PUT', `/api/v1/backups/${backup}`, { body: { targets: { stacks: [stack] }, schedule: '@hourly' }, headers: { 'if-match': etag } });
  assert.equal(other.status, 200, other.text);
  assert.equal((await s.api('PUT', `/api/v1/backups/${backup}`, { body: { targets: { stacks: [stack] } }, headers: { 'if-match': etag } })).status, 412);
  assert.equal((await s.api('PUT', `/api/v1/backups/${backup}`, { body: { targets: { stacks: [stack] } }, headers: { 'if-none-match': '*' } })).status, 412);
  assert.equal((await s.api('DELETE', `/api/v1/backups/${backup}`, { headers: { 'if-match': etag } })).status, 412);
  await assert.rejects(applyPlan(changes, () => undefined), /conflict: backup .* changed on the server since dw read it/);
  assert.equal((await s.api('GET', `/api/v1/backups/${backup}`)).body.schedule, '@hourly', 'the other change stands');
});
