// The generated lists of docs/reference match the code's declarations (scopes, problem codes, extension points, alert kinds), and every problem code the code raises is declared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { root } from '../helpers/harness.ts';
import { describeBuiltIns, referencePages, regenerateCommand } from '../../scripts/docs-reference.ts';
import { ProblemCatalogue } from '../../kernel/problems.ts';

/** codes raised by plugins that do not declare theirs yet, by plugin: declare them and take them off (the list only shrinks) */
const undeclared: Readonly<Record<string, readonly string[]>> = {};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' || name === 'portal' ? [] : sources(full);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/** every `code: '<code>'` of the kernel, the SDK and the plugins, with the files raising it */
function raisedCodes(): Map<string, string[]> {
  const raised = new Map<string, string[]>();
  for (const file of ['kernel', 'sdk', 'plugins'].flatMap((dir) => sources(join(root, dir)))) {
    if (/\/problems\.ts$/.test(file)) continue;
    for (const [, code] of readFileSync(file, 'utf8').matchAll(/\bcode: '([a-z][a-z0-9-]*)'/g)) {
      raised.set(code, [...(raised.get(code) ?? []), relative(root, file)]);
    }
  }
  return raised;
}

test('each generated list of docs/reference is what the code declares now', async () => {
  const stale: string[] = [];
  for (const [path, text] of await referencePages(root)) {
    const file = join(root, path);
    if (!existsSync(file) || readFileSync(file, 'utf8') !== text) stale.push(path);
  }
  assert.deepEqual(stale, [], `stale reference pages: ${stale.join(', ')}; run \`${regenerateCommand}\` and commit the result`);
});

test('every problem code the code raises is declared, by the kernel or a plugin', async () => {
  const { problems } = (await describeBuiltIns(root)).described;
  const waiting = new Set(Object.values(undeclared).flat());
  const missing = [...raisedCodes()].filter(([code]) => !problems.has(code) && !waiting.has(code)).map(([code, files]) => `${code} (${[...new Set(files)].join(', ')})`);
  assert.deepEqual(missing, [], 'declare these in the raising plugin\'s definition (`problems`), or in kernel/problems.ts for the kernel');
  const declaredNow = [...waiting].filter((code) => problems.has(code));
  assert.deepEqual(declaredNow, [], 'these are declared now: take them off the list of undeclared codes in this test');
  const raised = raisedCodes();
  assert.deepEqual([...waiting].filter((code) => !raised.has(code)), [], 'these are raised no more: take them off the list of undeclared codes');
});

test('the problem catalogue merges owners and statuses, and refuses a malformed code or a status that is no error', () => {
  const catalogue = new ProblemCatalogue();
  catalogue.define('one', { 'would-overwrite': { status: 409, title: 'first' } });
  catalogue.define('two', { 'would-overwrite': { status: [409, 422], title: 'second' } });
  assert.deepEqual(catalogue.list(), [{ code: 'would-overwrite', statuses: [409, 422], title: 'first', owners: ['one', 'two'] }]);
  assert.throws(() => catalogue.define('three', { 'Bad Code': { status: 400, title: 'x' } }), /problem code "Bad Code" must be lowercase/);
  assert.throws(() => catalogue.define('three', { fine: { status: 200, title: 'x' } }), /needs error statuses/);
  assert.throws(() => catalogue.define('three', { fine: { status: [], title: 'x' } }), /needs error statuses/);
});
