// The SDK's plugin types narrow a context to the services the plugin declares: a strict tsc of tests/types/plugin-services.check.ts passes, and fails once narrowing is gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { root } from '../helpers/harness.ts';

const checked = join(root, 'tests/types/plugin-services.check.ts');

/** a strict tsc of one file: the compiler's complaints, or '' */
async function typecheck(file: string): Promise<string> {
  const args = ['--ignoreConfig', '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--allowImportingTsExtensions', '--skipLibCheck', '--types', 'node', file];
  return promisify(execFile)(join(root, 'node_modules/.bin/tsc'), args, { cwd: root, timeout: 120_000 })
    .then(() => '', (err: { stdout?: string; message: string }) => err.stdout || err.message);
}

test('a context holds in its type exactly the declared services, all when none are declared, with typed deps and options', async () => {
  assert.equal(await typecheck(checked), '');
});

test('the check fails when a plugin that declared services is typed with every one (it can tell)', async () => {
  // beside the checked file, so its imports resolve the same
  const broken = join(root, `tests/types/.broken-${process.pid}.check.ts`);
  const source = readFileSync(checked, 'utf8');
  assert.ok(source.includes("services: ['db', 'events'],"));
  writeFileSync(broken, source.replace("services: ['db', 'events'],", ''));
  try {
    assert.match(await typecheck(broken), /Unused '@ts-expect-error' directive/);
  } finally {
    rmSync(broken, { force: true });
  }
});
