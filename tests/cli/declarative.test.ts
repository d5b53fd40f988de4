// Configuration as code with the installed dw: plan/apply of stacks from YAML (inline compose, composeFile, ${env:}/${file:} secrets), export → apply plans nothing, a concurrent edit is a conflict, prune only when asked and never for protected names.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '../../cli/src/client.ts';
import { applyPlan, makePlan } from '../../cli/src/declarative/plan.ts';
import type { TestServer } from '../helpers/harness.ts';
import { busybox, createStack, startStacksServer, uniqueName } from '../plugins/stacks/helpers.ts';
import { dw, installCli, type Installed } from './helpers.ts';

let s: TestServer;
let cli: Installed;
let env: Record<string, string>;
let dir: string;
const web = uniqueName('cacweb');
const api = uniqueName('cacapi');

const write = (name: string, text: string) => { const path = join(dir, name); writeFileSync(path, text); return path; };
const envOf = async (name: string) => (await s.api('GET', `/api/v1/stacks/${name}/env`)).body.values;

before(async () => {
  [s, cli] = await Promise.all([startStacksServer(), installCli()]);
  env = { DOCKWRIGHT_URL: s.url, DOCKWRIGHT_TOKEN: s.admin };
  dir = mkdtempSync(join(tmpdir(), 'dw-cac-'));
});
after(async () => { await s?.close(); cli?.remove(); });

test('plan shows the creates, apply writes them, a second plan finds nothing; secrets come from ${env:} and ${file:}', async () => {
  mkdirSync(join(dir, 'secrets'), { recursive: true });
  write('secrets/token.txt', 'file-secret-value\n');
  write('api-compose.yaml', busybox({ api: 'sleep 60' }));
  const file = write('stacks.yaml', `kind: stack
name: ${web}
spec:
  compose: |
${busybox().split('\n').map((l) => (l ? `    ${l}` : l)).join('\n')}
  variables:
    MODE: blue
    DB_PASSWORD: \${env:CAC_DB_PASSWORD}
    API_TOKEN: \${file:secrets/token.txt}
  autoupdate: true
---
kind: stack
name: ${api}
spec:
  composeFile: api-compose.yaml
`);
  const planned = await dw(cli.bin, ['plan', '-f', file, '--json'], { ...env, CAC_DB_PASSWORD: 'env-secret-value' });
  assert.equal(planned.code, 0, planned.stderr);
  assert.deepEqual(JSON.parse(planned.stdout), { changes: [
    { kind: 'stack', name: web, action: 'create', fields: ['compose', 'variables', 'autoupdate'] },
    { kind: 'stack', name: api, action: 'create', fields: ['compose'] },
  ] });
  assert.equal((await s.api('GET', `/api/v1/stacks/${web}`)).status, 404, 'plan writes nothing');
  const missingEnv = await dw(cli.bin, ['apply', '-f', file], env);
  assert.equal(missingEnv.code, 2);
  assert.match(missingEnv.stderr, /\$\{env:CAC_DB_PASSWORD\}, which is not set/);
  const applied = await dw(cli.bin, ['apply', '-f', dir], { ...env, CAC_DB_PASSWORD: 'env-secret-value' });
  assert.equal(applied.code, 0, applied.stderr);
  assert.match(applied.stderr, new RegExp(`applied: create stack ${web} \\(compose, variables, autoupdate\\)`));
  assert.ok(!applied.stdout.includes('secret-value') && !applied.stderr.includes('secret-value'));
  assert.deepEqual(await envOf(web), { MODE: 'blue', DB_PASSWORD: 'env-secret-value', API_TOKEN: 'file-secret-value' });
  assert.equal((await s.api('GET', `/api/v1/stacks/${web}`)).body.autoupdate, true);
  assert.match((await s.api('GET', `/api/v1/stacks/${api}/compose`)).body.content, /sleep 60/);
  const again = await dw(cli.bin, ['plan', '-f', dir], { ...env, CAC_DB_PASSWORD: 'env-secret-value' });
  assert.equal(again.stdout.trim(), 'No changes: the server matches the files.');
});

test('a declared secret without a value keeps the server\'s; one the server lacks is refused', async () => {
  const file = write('keep.yaml', `kind: stack\nname: ${web}\nspec:\n  variables:\n    MODE: green\n    DB_PASSWORD:\n    API_TOKEN: ~\n`);
  const res = await dw(cli.bin, ['apply', '-f', file, '--json'], env);
  assert.equal(res.code, 0, res.stderr);
  assert.deepEqual(JSON.parse(res.stdout).changes, [{ kind: 'stack', name: web, action: 'update', fields: ['variables'] }]);
  assert.deepEqual(await envOf(web), { MODE: 'green', DB_PASSWORD: 'env-secret-value', API_TOKEN: 'file-secret-value' });
  const lacking = write('lacking.yaml', `kind: stack\nname: ${web}\nspec:\n  variables:\n    NEW_SECRET:\n`);
  const refused = await dw(cli.bin, ['plan', '-f', lacking], env);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /declares NEW_SECRET without a value, and the server has none/);
});

test('export then apply plans nothing: secrets are exported as names without values', async () => {
  await s.api('POST', `/api/v1/stacks/${api}/access`, { body: { entries: [{ principal: 'team:ops', role: 'operator' }] } });
  const exported = await dw(cli.bin, ['export', web, api], env);
  assert.equal(exported.code, 0, exported.stderr);
  assert.match(exported.stdout, /DB_PASSWORD: null/);
  assert.ok(!exported.stdout.includes('secret-value'), 'no secret value in the export');
  assert.match(exported.stdout, /principal: team:ops/);
  const file = write('exported.yaml', exported.stdout);
  const planned = await dw(cli.bin, ['plan', '-f', file, '--json'], env);
  assert.equal(planned.code, 0, planned.stderr);
  assert.deepEqual(JSON.parse(planned.stdout), { changes: [] });
  const all = await dw(cli.bin, ['export', '--json'], env);
  assert.deepEqual(JSON.parse(all.stdout).map((d: any) => d.name).sort(), [web, api].sort());
  assert.equal((await dw(cli.bin, ['export', 'no-such-stack'], env)).code, 2);
});

test('a change made on the server after plan read it is a conflict: nothing is overwritten', async () => {
  const file = write('conflict.yaml', `kind: stack\nname: ${web}\nspec:\n  variables:\n    MODE: red\n    DB_PASSWORD: ~\n    API_TOKEN: ~\n`);
  const client = new Client(s.url, s.admin);
  const changes = await makePlan(client, [file], { prune: false });
  assert.deepEqual(changes.map((c) => c.fields), [['variables']]);
  // someone else changes the stack between the plan and the write
  const current = (await s.api('GET', `/api/v1/stacks/${web}`)).body.revision;
  assert.equal((await s.api('PUT', `/api/v1/stacks/${web}/env`, { body: { values: { ...(await envOf(web)), MODE: 'purple' } }, headers: { 'if-match': `"${current}"` } })).status, 200);
  await assert.rejects(applyPlan(changes, () => undefined), (err: Error) => /conflict: stack .* changed on the server since dw read it \(now revision \d+\); dw wrote nothing over it/.test(err.message));
  assert.equal((await envOf(web)).MODE, 'purple', 'the other change stands');
});

test('prune deletes only when asked, only the declared kinds, never a protected name', async () => {
  const stray = uniqueName('cacstray');
  const kept = uniqueName('cackeep');
  await createStack(s, stray, busybox());
  await createStack(s, kept, busybox());
  const exported = (await dw(cli.bin, ['export', web, api], env)).stdout;
  const file = write('prune.yaml', `${exported}---\nkind: stack\nname: ${kept.slice(0, 7)}*\nprotected: true\n`);
  const without = await dw(cli.bin, ['plan', '-f', file, '--json'], env);
  assert.deepEqual(JSON.parse(without.stdout).changes, []);
  const withPrune = await dw(cli.bin, ['plan', '-f', file, '--prune', '--json'], env);
  assert.deepEqual(JSON.parse(withPrune.stdout).changes, [{ kind: 'stack', name: stray, action: 'delete', fields: [] }]);
  const applied = await dw(cli.bin, ['apply', '-f', file, '--prune'], env);
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal((await s.api('GET', `/api/v1/stacks/${stray}`)).status, 404);
  assert.equal((await s.api('GET', `/api/v1/stacks/${kept}`)).status, 200, 'protected');
  assert.equal((await s.api('GET', `/api/v1/stacks/${web}`)).status, 200);
});

test('a malformed file is refused with its name and what is wrong, before any request', async () => {
  const cases: [string, RegExp][] = [
    ['kind: nothing\nname: x\nspec: {}\n', /kind must be one of stack, site, backup, alert-channel/],
    [`kind: stack\nname: x\nspec:\n  image: nginx\n`, /unknown spec key image \(known: compose, composeFile, variables, access, autoupdate\)/],
    ['kind: stack\nname: x\n', /has no spec/],
    ['kind: stack\nname: x\nspec: {}\n---\nkind: stack\nname: x\nspec: {}\n', /stack\/x is declared twice/],
    ['kind: [unclosed\n', /not valid YAML/],
  ];
  for (const [text, message] of cases) {
    const file = write('bad.yaml', text);
    const res = await dw(cli.bin, ['plan', '-f', file], { DOCKWRIGHT_URL: 'http://127.0.0.1:9', DOCKWRIGHT_TOKEN: 'dw_x' });
    assert.equal(res.code, 2, text);
    assert.match(res.stderr, message);
    assert.match(res.stderr, /bad\.yaml/);
  }
  assert.equal((await dw(cli.bin, ['plan'], env)).code, 2, '-f is required');
});
