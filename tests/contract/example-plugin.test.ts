// A plugin's path end to end: examples/notes packed with npm pack, installed into a copy of an install with `plugins add` (npm), enabled, served, tested with the test kit.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { call, createDatabase, root } from '../helpers/harness.ts';
import { forgetContract, prepareContract } from '../../sdk/testing/contract.ts';

const run = promisify(execFile);
// under the worktree: what npm would fetch from the registry for dockwright's own dependencies is found in its node_modules,
// so this test never contacts the registry
const scratch = mkdtempSync(join(root, '.scratch-'));
chmodSync(scratch, 0o755);
after(() => rmSync(scratch, { recursive: true, force: true }));
const npmEnv = { ...process.env, PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH}`, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

/** npm pack in dir; answers the tarball's path */
async function pack(dir: string, ...flags: string[]): Promise<string> {
  const { stdout } = await run('npm', ['pack', '--pack-destination', scratch, ...flags], { cwd: dir, env: npmEnv, timeout: 180_000 });
  return join(scratch, stdout.trim().split('\n').at(-1)!);
}

/** what an admin's Dockwright folder holds after a clone and `npm install`: the packed files, the lockfile and node_modules (a real copy: npm writes to it) */
async function copyOfInstall(dir: string): Promise<string> {
  mkdirSync(dir);
  for (const part of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.sdk.json', 'kernel', 'sdk', 'plugins', 'dist']) cpSync(join(root, part), join(dir, part), { recursive: true });
  mkdirSync(join(dir, 'config'));
  for (const file of ['default.json', 'test.json']) cpSync(join(root, 'config', file), join(dir, 'config', file));
  await run('cp', ['-a', '--', realpathSync(join(root, 'node_modules')), join(dir, 'node_modules')]);
  return dir;
}

/** npm never reaches a registry here: offline, and pointed at a loopback port nothing listens on */
const offline = { ...npmEnv, npm_config_offline: 'true', npm_config_registry: 'http://127.0.0.1:9/' };
const cli = (install: string, ...args: string[]) => cliWith({}, install, ...args);
/** the CLI with more environment: the installation it acts on (DATABASE_URL, DATA_DIR) */
const cliWith = (env: Record<string, string>, install: string, ...args: string[]) => run('npm', ['run', '--silent', 'cli', '--', ...args], { cwd: install, env: { ...offline, NODE_ENV: 'test', ...env }, timeout: 180_000 });
const failure = (p: Promise<unknown>) => p.then(() => assert.fail('expected the command to fail'), (err: { stderr: string }) => err.stderr);

/** `npm run cli -- serve` of the install on a database of its own; answers its URL and first admin token */
async function serve(install: string, databaseUrl: string, dataDir: string): Promise<{ url: string; token: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['dist/kernel/main.js', 'serve'], {
    cwd: install, stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, NODE_ENV: 'test', DATABASE_URL: databaseUrl, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
      const serving = /\{[^\n]*"dockwright is serving"[^\n]*\}/.exec(out);
      if (serving) resolve(JSON.parse(serving[0]).url);
    });
    child.stderr.on('data', (chunk: Buffer) => { out += chunk; });
    child.once('exit', (code) => reject(new Error(`the service ended (${code}) before serving:\n${out}`)));
  });
  const stop = () => new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); });
  return { url, token: readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim(), stop };
}

test('the notes example: packed, installed into a copy of an install with the documented command, enabled, served; its test-kit tests pass there', async () => {
  // the author's side: dockwright as a dev dependency (unpacked: npm would fetch its dependencies), notes packed with npm pack (tsc in prepack)
  // dist/ is already built (the test command builds before testing); rebuilding it here would pull it from under parallel tests
  const dockwright = await pack(root, '--ignore-scripts');
  const sdk = join(scratch, 'dockwright');
  mkdirSync(sdk);
  await run('tar', ['-xzf', dockwright, '-C', sdk, '--strip-components=1']);
  const manifest = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8'));
  assert.deepEqual(Object.keys(manifest.exports).sort(), ['./package.json', './sdk', './sdk/testing']);
  assert.ok(readdirSync(join(sdk, 'dist/sdk')).includes('index.d.ts'), 'the SDK ships its declarations');
  const author = join(scratch, 'notes');
  for (const part of ['package.json', 'tsconfig.json', 'src', 'migrations']) cpSync(join(root, 'examples/notes', part), join(author, part), { recursive: true });
  mkdirSync(join(author, 'node_modules'));
  symlinkSync(sdk, join(author, 'node_modules/dockwright'));
  const notes = await pack(author);

  // the admin's side: an install that runs only notes (the built-in plugins switched off in its own config file)
  const install = await copyOfInstall(join(scratch, 'install'));
  const defaults = JSON.parse(readFileSync(join(root, 'config/default.json'), 'utf8')).plugins as Record<string, unknown>;
  writeFileSync(join(install, 'config/local.json'), JSON.stringify({ plugins: Object.fromEntries(Object.keys(defaults).map((name) => [name, { enabled: false }])) }));
  const added = await cli(install, 'plugins', 'add', notes);
  assert.match(added.stdout, /installed dockwright-plugin-notes 1\.0\.0: the plugin "notes" 1\.0\.0 \(SDK \^1\)/);
  assert.match(added.stdout, /enable it with: npm run cli -- plugins enable notes/);
  assert.ok(existsSync(join(install, 'node_modules/dockwright-plugin-notes/dist/index.js')));
  assert.ok(!existsSync(join(install, 'node_modules/dockwright')), 'no second dockwright: the kernel provides its SDK');
  assert.match(JSON.parse(readFileSync(join(install, 'package.json'), 'utf8')).dependencies['dockwright-plugin-notes'], /notes-1\.0\.0\.tgz$/);
  assert.match((await cli(install, 'plugins', 'enable', 'notes')).stdout, /plugin "notes" enabled in config\/local\.json: restart Dockwright to apply it/);
  // a change that breaks a requires chain is refused, naming it, and nothing is written
  const before = readFileSync(join(install, 'config/local.json'), 'utf8');
  assert.match(await failure(cli(install, 'plugins', 'enable', 'stacks')), /enabling "stacks" was refused, nothing was written: plugin stacks requires "docker", which is disabled in config/);
  assert.equal(readFileSync(join(install, 'config/local.json'), 'utf8'), before);

  const database = await createDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-install-'));
  const service = await serve(install, database.url, dataDir).catch(async (err) => { await database.drop(); throw err; });
  try {
    await prepareContract(service.url);
    const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => call(service.url, method, path, { token: service.token, body, headers });
    const missing = await api('GET', '/api/v1/notes/nothing');
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.equal((await api('PUT', '/api/v1/notes/todo', { text: 'buy milk' }, { 'if-none-match': '*' })).body.revision, 1);
    assert.equal((await api('GET', '/api/v1/notes/todo')).body.text, 'buy milk');
    const openapi = await api('GET', '/api/v1/openapi.json');
    assert.ok(Object.keys(openapi.body.paths).some((p) => p.endsWith('/notes/{name}')), 'its routes are in the OpenAPI document');
    const plugins = await api('GET', '/api/v1/plugins');
    assert.equal(plugins.status, 200);
    const entry = plugins.body.find((p: { name: string }) => p.name === 'notes');
    assert.deepEqual({ ...entry, source: { ...entry.source, path: realpathSync(entry.source.path) } }, {
      name: 'notes', version: '1.0.0', description: null, enabled: true, reason: null, requires: [], services: ['db', 'revisions'],
      source: { kind: 'package', package: 'dockwright-plugin-notes', version: '1.0.0', path: realpathSync(join(install, 'node_modules/dockwright-plugin-notes')) },
      scopes: ['notes:read', 'notes:write'], routes: 3, jobTypes: ['notes.count'], extensionPoints: { offered: [], used: [] },
      migrations: { files: 1, applied: 1, latest: '1800000000000_notes' },
    });
    assert.deepEqual(plugins.body.find((p: { name: string }) => p.name === 'docker'), {
      name: 'docker', version: null, description: null, source: { kind: 'built-in' }, enabled: false, reason: 'disabled in config', requires: [], services: [], scopes: [], routes: 0,
      jobTypes: [], extensionPoints: { offered: [], used: [] }, migrations: null,
    });
    assert.equal((await call(service.url, 'GET', '/api/v1/plugins')).status, 401);

    // a package made for another Dockwright is refused at boot (here the CLI's, on the same installation), naming both versions
    const installed = join(install, 'node_modules/dockwright-plugin-notes/package.json');
    const manifest = readFileSync(installed, 'utf8');
    writeFileSync(installed, JSON.stringify({ ...JSON.parse(manifest), peerDependencies: { dockwright: '>=9.0.0' } }));
    assert.match(await failure(cliWith({ DATABASE_URL: database.url, DATA_DIR: dataDir }, install, 'plugins')), /package dockwright-plugin-notes 1\.0\.0 supports dockwright >=9\.0\.0 \(its peerDependencies\), but this is dockwright 0\.1\.0/);
    writeFileSync(installed, manifest);
  } finally {
    forgetContract(service.url);
    await service.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  // the author's test-kit tests, run in the install (dockwright/sdk/testing is the install's own package)
  cpSync(join(root, 'examples/notes/test/notes.test.ts'), join(install, 'notes.test.ts'));
  // a test run of its own, not a subtest of this one
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const result = await run(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', 'notes.test.ts'], { cwd: install, env: { ...env, NODE_ENV: 'test' }, timeout: 240_000 })
    .catch((err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: err.stderr ?? '' }));
  assert.match(result.stdout, /^# pass 3$/m, `${result.stdout}\n${result.stderr}`);
  assert.match(result.stdout, /^# fail 0$/m);

});

test('the plugin guide (docs/plugins/writing-a-plugin.md) shows the example, as written', () => {
  const section = readFileSync(join(root, 'docs/plugins/writing-a-plugin.md'), 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.equal(block, readFileSync(join(root, 'examples/notes/src/index.ts'), 'utf8'));
});
