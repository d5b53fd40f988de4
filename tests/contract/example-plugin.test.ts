// A plugin author's path end to end: dockwright and examples/notes packed with npm pack, installed by package name, loaded by config, tested with the test kit.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { root } from '../helpers/harness.ts';

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

/** installs a packed tarball into a node_modules folder by its package name, as npm does */
async function install(tarball: string, nodeModules: string, name: string): Promise<string> {
  const dir = join(nodeModules, name);
  mkdirSync(dir, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1']);
  return dir;
}

test('the notes example: packed, installed by package name, loaded by config, its test-kit tests pass', async () => {
  // dist/ is already built (the test command builds before testing); rebuilding it here would pull it from under parallel tests
  const dockwright = await pack(root, '--ignore-scripts');
  const app = join(scratch, 'app');
  // the author's own project (without a package.json of its own, dockwright/… would name the worktree's package itself)
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'notes-author', private: true, type: 'module' }));
  const installed = await install(dockwright, join(app, 'node_modules'), 'dockwright');
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  assert.deepEqual(Object.keys(manifest.exports).sort(), ['./package.json', './sdk', './sdk/testing']);
  assert.ok(readdirSync(join(installed, 'dist/sdk')).includes('index.d.ts'), 'the SDK ships its declarations');

  // the author's project: its own copy, dockwright as its (peer) dependency; npm pack builds it with tsc (prepack)
  const author = join(scratch, 'notes');
  for (const part of ['package.json', 'tsconfig.json', 'src', 'migrations']) cpSync(join(root, 'examples/notes', part), join(author, part), { recursive: true });
  mkdirSync(join(author, 'node_modules'));
  symlinkSync(installed, join(author, 'node_modules/dockwright'));
  const notes = await pack(author);
  await install(notes, join(app, 'node_modules'), 'dockwright-plugin-notes');

  cpSync(join(root, 'examples/notes/test/notes.test.ts'), join(app, 'notes.test.ts'));
  // a test run of its own, not a subtest of this one
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const result = await run(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', 'notes.test.ts'], { cwd: app, env: { ...env, NODE_ENV: 'test' }, timeout: 240_000 })
    .catch((err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: err.stderr ?? '' }));
  assert.match(result.stdout, /^# pass 3$/m, `${result.stdout}\n${result.stderr}`);
  assert.match(result.stdout, /^# fail 0$/m);
});

test("the README's plugin section is the example, as written", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Writing a plugin'));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.equal(block, readFileSync(join(root, 'examples/notes/src/index.ts'), 'utf8'));
});
