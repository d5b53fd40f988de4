// dw against a real server, installed alone from its npm tarball: exit codes of deploy --wait (0, 1 with the job's error, 3), refusals (2 with what to do), env with If-Match, login, completion.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestServer } from '../helpers/harness.ts';
import { busybox, cleanupProjects, createStack, slowCompose, startStacksServer, uniqueName } from '../plugins/stacks/helpers.ts';
import { dw, installCli, type Installed } from './helpers.ts';

let s: TestServer;
let cli: Installed;
let env: Record<string, string>;
const good = uniqueName('dwgood');
const broken = uniqueName('dwbroken');
const slow = uniqueName('dwslow');

before(async () => {
  [s, cli] = await Promise.all([startStacksServer(), installCli()]);
  env = { DOCKWRIGHT_URL: s.url, DOCKWRIGHT_TOKEN: s.admin };
});
after(async () => {
  await cleanupProjects(good, broken, slow);
  await s?.close();
  cli?.remove();
});

test('the tarball holds the built client alone: no dependencies, a bin named dw', () => {
  const listing = execFileSync('tar', ['-tzf', cli.tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
  assert.ok(listing.includes('package/dist/dw.js'), listing.join(', '));
  assert.ok(listing.every((f) => f === 'package/package.json' || f.startsWith('package/dist/') || f === 'package/README.md'), listing.join(', '));
  const manifest = JSON.parse(execFileSync('tar', ['-xzOf', cli.tarball, 'package/package.json'], { encoding: 'utf8' }));
  assert.equal(manifest.name, 'dockwright-cli');
  assert.deepEqual(manifest.bin, { dw: 'dist/dw.js' });
  assert.equal(manifest.dependencies, undefined);
});

test('usage mistakes and a missing server exit 2 with what to do', async () => {
  const unknown = await dw(cli.bin, ['stack', 'explode', 'x'], env);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown verb: dw stack explode x\n {2}→ run `dw help`/);
  const badOption = await dw(cli.bin, ['stack', 'deploy', 'x', '--bogus'], env);
  assert.equal(badOption.code, 2);
  assert.match(badOption.stderr, /--bogus/);
  const noServer = await dw(cli.bin, ['stacks']);
  assert.equal(noServer.code, 2);
  assert.match(noServer.stderr, /DOCKWRIGHT_URL is not set[^]*export DOCKWRIGHT_URL=/);
  const badTimeout = await dw(cli.bin, ['stack', 'deploy', good, '--wait', '--timeout', 'soon'], env);
  assert.equal(badTimeout.code, 2);
  assert.match(badTimeout.stderr, /--timeout must be a number of seconds/);
});

test('deploy --wait of a good stack streams the job output and exits 0; --json prints the job', async () => {
  await createStack(s, good, busybox());
  const res = await dw(cli.bin, ['stack', 'deploy', good, '--wait'], env);
  assert.equal(res.code, 0, res.stderr + res.stdout);
  assert.match(res.stdout, /\d{2}:\d{2}:\d{2}/, 'the job output, lines prefixed with their time');
  assert.match(res.stdout, /job [0-9a-f-]{36} succeeded/);
  const listed = await dw(cli.bin, ['stacks', '--json'], env);
  assert.equal(listed.code, 0);
  const stack = JSON.parse(listed.stdout).find((x: any) => x.name === good);
  assert.equal(stack.status, 'running');
  const got = await dw(cli.bin, ['stack', 'get', good], env);
  assert.match(got.stdout, new RegExp(`^${good} {2}running {2}revision 1\\nSERVICE +STATE +CONTAINERS\\napp +running +1$`, 'm'));
});

test('deploy --wait of a broken stack exits 1 and prints the job\'s error', async () => {
  await createStack(s, broken, 'services:\n  app:\n    image: dockwright-test/missing:404\n    pull_policy: never\n');
  const res = await dw(cli.bin, ['stack', 'deploy', broken, '--wait', '--json'], env);
  assert.equal(res.code, 1, res.stderr);
  assert.match(res.stderr, /dw: job [0-9a-f-]{36} \(stacks\.deploy\) failed: .*missing:404/);
  assert.match(res.stderr, /→ read its whole output with `dw jobs get /);
  assert.equal(JSON.parse(res.stdout).error.exitCode, 1, 'stdout stays JSON with --json');
});

test('deploy --wait past --timeout exits 3 and names the job to wait for again', async () => {
  await createStack(s, slow, slowCompose(8));
  const res = await dw(cli.bin, ['stack', 'deploy', slow, '--wait', '--timeout', '1'], env);
  assert.equal(res.code, 3, res.stderr);
  const id = /job ([0-9a-f-]{36}) \(stacks\.deploy\) is still (queued|running) after 1 s/.exec(res.stderr)?.[1];
  assert.ok(id, res.stderr);
  const quiet = await dw(cli.bin, ['jobs', 'wait', id, '-q', '--timeout', '1'], env);
  assert.equal(quiet.code, 3, quiet.stderr);
  assert.equal(quiet.stdout, '', 'no output streamed with -q');
  const waited = await dw(cli.bin, ['jobs', 'wait', id, '--timeout', '120', '-q'], env);
  assert.equal(waited.code, 0, waited.stderr);
  assert.match(waited.stdout, /^job [0-9a-f-]{36} succeeded\n$/);
});

test('a refused request exits 2 with the problem\'s detail and what to do', async () => {
  const viewer = await s.token('viewer', ['stacks:read']);
  const res = await dw(cli.bin, ['stack', 'deploy', good], { ...env, DOCKWRIGHT_TOKEN: viewer });
  assert.equal(res.code, 2);
  assert.match(res.stderr, /stacks:deploy[^]*→ the token lacks the scope/);
  const missing = await dw(cli.bin, ['stack', 'get', 'no-such-stack'], env);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /→ check the name/);
  const wrong = await dw(cli.bin, ['stacks'], { ...env, DOCKWRIGHT_TOKEN: 'dw_wrong' });
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /dw login/);
});

test('env set and unset write with If-Match; a value from the environment stays out of argv', async () => {
  const set = await dw(cli.bin, ['stack', 'env', 'set', good, 'MODE=blue', 'API_SECRET'], { ...env, API_SECRET: 's3cr3t-value' });
  assert.equal(set.code, 0, set.stderr);
  let values = (await s.api('GET', `/api/v1/stacks/${good}/env`)).body.values;
  assert.deepEqual(values, { MODE: 'blue', API_SECRET: 's3cr3t-value' });
  const unset = await dw(cli.bin, ['stack', 'env', 'unset', good, 'MODE', '--json'], env);
  assert.equal(unset.code, 0, unset.stderr);
  assert.deepEqual(JSON.parse(unset.stdout).unset, ['MODE']);
  values = (await s.api('GET', `/api/v1/stacks/${good}/env`)).body.values;
  assert.deepEqual(values, { API_SECRET: 's3cr3t-value' });
  const activity = await s.api('GET', `/api/v1/activity?limit=5`);
  assert.ok(!activity.text.includes('s3cr3t-value'));
  const notSet = await dw(cli.bin, ['stack', 'env', 'set', good, 'NOT_IN_ENV'], env);
  assert.equal(notSet.code, 2);
  assert.match(notSet.stderr, /NOT_IN_ENV has no value/);
  const reader = await s.token('operator', ['stacks:read']);
  const hidden = await dw(cli.bin, ['stack', 'env', good], { ...env, DOCKWRIGHT_TOKEN: reader });
  assert.match(hidden.stdout, /API_SECRET=\(hidden\)/);
});

test('compose prints the file and replaces it with --file (a new stack is created)', async () => {
  const printed = await dw(cli.bin, ['stack', 'compose', good], env);
  assert.equal(printed.code, 0);
  assert.match(printed.stdout, /dockwright-test\/busybox:1/);
  const dir = mkdtempSync(join(tmpdir(), 'dw-compose-'));
  const file = join(dir, 'compose.yaml');
  execFileSync('sh', ['-c', `printf '%s' "$0" > "${file}"`, busybox({ web: 'sleep 60' })]);
  const replaced = await dw(cli.bin, ['stack', 'compose', good, '--file', file, '--json'], env);
  assert.equal(replaced.code, 0, replaced.stderr);
  assert.equal(JSON.parse(replaced.stdout).revision, 4);
  const fresh = uniqueName('dwnew');
  const created = await dw(cli.bin, ['stack', 'compose', fresh, '--file', file, '--json'], env);
  assert.equal(created.code, 0, created.stderr);
  assert.equal(JSON.parse(created.stdout).revision, 1);
  assert.equal((await s.api('GET', `/api/v1/stacks/${fresh}`)).body.status, 'never-deployed');
  const bad = await dw(cli.bin, ['stack', 'compose', good, '-f', join(dir, 'nope.yaml')], env);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /cannot read .*nope\.yaml: ENOENT/);
});

test('logs prints the containers\' output; releases lists the deploys', async () => {
  const logs = await dw(cli.bin, ['stack', 'logs', slow], env);
  assert.equal(logs.code, 0, logs.stderr);
  const releases = await dw(cli.bin, ['stack', 'releases', good, '--json'], env);
  // the releases plugin is not enabled on this server: a clear refusal, not a crash
  assert.equal(releases.code, 2);
  assert.match(releases.stderr, /→ /);
});

test('login checks the token, saves it 0600 and later calls use it', async () => {
  const config = mkdtempSync(join(tmpdir(), 'dw-login-'));
  const bad = await dw(cli.bin, ['login', s.url], { XDG_CONFIG_HOME: config }, 'dw_not-a-token\n');
  assert.equal(bad.code, 2);
  const res = await dw(cli.bin, ['login', s.url], { XDG_CONFIG_HOME: config }, `${s.admin}\n`);
  assert.equal(res.code, 0, res.stderr);
  const file = join(config, 'dockwright', 'config.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).url, s.url);
  const listed = await dw(cli.bin, ['stacks'], { XDG_CONFIG_HOME: config });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(good));
});

test('completion scripts for bash and zsh are valid and list the verbs', async () => {
  const bash = await dw(cli.bin, ['completion', 'bash']);
  assert.equal(bash.code, 0);
  assert.match(bash.stdout, /complete -F _dw_complete dw/);
  execFileSync('bash', ['-n'], { input: bash.stdout });
  const words = execFileSync('bash', ['-c', `${bash.stdout}\nCOMP_WORDS=(dw stack de); COMP_CWORD=2; _dw_complete; echo "\${COMPREPLY[@]}"`], { encoding: 'utf8' });
  assert.equal(words.trim(), 'deploy');
  const zsh = await dw(cli.bin, ['completion', 'zsh']);
  assert.match(zsh.stdout, /^#compdef dw/);
  assert.equal((await dw(cli.bin, ['completion', 'fish'])).code, 2);
});
