// The plugin surface holds one form of each thing: `requires` lists references (a name or a definition is refused as the plugin loads), and no deprecated member is used by Dockwright itself nor lacks its replacement.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { root } from '../helpers/harness.ts';
import { importPlugin } from '../../kernel/registry.ts';
import { requiresProblem } from '../../sdk/index.ts';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : sources(full);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/** every member documented as @deprecated in kernel/, plugins/ and sdk/, with its doc comment and file */
function deprecatedMembers(): { name: string; doc: string; file: string }[] {
  return ['kernel', 'plugins', 'sdk'].flatMap((dir) => sources(join(root, dir))).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return [...text.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*@deprecated(?:(?!\*\/)[\s\S])*)\*\/\s*(?:readonly\s+)?([A-Za-z_$][\w$]*)\??\s*[(:]/g)]
      .map((m) => ({ name: m[2], doc: m[1], file: relative(root, file) }));
  });
}

test('no deprecated member is used by the kernel, the SDK or a built-in plugin, and each names what replaces it', () => {
  const members = deprecatedMembers();
  assert.ok(members.some((m) => m.name === 'setRegistryAuth'), 'the deprecated members are found');
  const uses = members.flatMap(({ name }) => ['kernel', 'plugins', 'sdk'].flatMap((dir) => sources(join(root, dir)))
    .filter((file) => new RegExp(`\\.${name}\\(`).test(readFileSync(file, 'utf8')))
    .map((file) => `${name} in ${relative(root, file)}`));
  assert.deepEqual(uses, [], 'use what replaces them');
  const unexplained = members.filter((m) => !/@deprecated\s+\S[\s\S]*\binstead\b/.test(m.doc)).map((m) => `${m.name} (${m.file})`);
  assert.deepEqual(unexplained, [], 'a @deprecated note says what to use instead');
});

test('requires takes references only: a name, a definition or anything else is named as the plugin loads', async () => {
  assert.equal(requiresProblem(undefined), null);
  assert.equal(requiresProblem([{ name: 'stacks' }]), null);
  assert.match(requiresProblem(['stacks'])!, /requires names "stacks": list its reference instead, pluginRef\('stacks'\)/);
  assert.match(requiresProblem([{ name: 'stacks', setup: () => undefined }])!, /the definition of "stacks"/);
  assert.match(requiresProblem('stacks')!, /must be a list/);
  assert.match(requiresProblem([42])!, /not a plugin reference/);

  const dir = mkdtempSync(join(tmpdir(), 'dw-requires-'));
  try {
    const write = (file: string, requires: string) => {
      writeFileSync(join(dir, file), `export default { name: 'reader', version: '1.0.0', requires: ${requires}, setup() {} };\n`);
      return { path: join(dir, file) };
    };
    await assert.rejects(importPlugin('reader', write('by-name.mjs', "['stacks']"), root), /plugin "reader": requires names "stacks"/);
    const loaded = await importPlugin('reader', write('by-ref.mjs', "[{ name: 'stacks' }]"), root);
    assert.deepEqual(loaded.def.requires, [{ name: 'stacks' }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
