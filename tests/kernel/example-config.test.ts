// config/example.json stays true: the service loads it, it holds every setting of config/default.json, and README's configuration table comments each of its settings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../kernel/config.ts';
import { root } from '../helpers/harness.ts';

const read = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8')) as Record<string, unknown>;
/** the dotted paths of a config's settings: plain values and lists are leaves, plugin entries stop at their options' keys */
function leaves(o: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(o).flatMap(([k, v]) => {
    const path = `${prefix}${k}`;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && !(prefix.startsWith('plugins.') && prefix.split('.').length === 4)) return leaves(v as Record<string, unknown>, `${path}.`);
    return [path];
  });
}

test('config/example.json loads, has every setting of the defaults, and each of its settings is in README\'s configuration table', () => {
  const config = loadConfig(root, { DOCKWRIGHT_CONFIG: 'config/example.json' });
  assert.equal(config.port, 8080);
  const example = leaves(read('config/example.json'));
  const kernelDefaults = leaves(read('config/default.json')).filter((p) => !p.startsWith('plugins.'));
  assert.deepEqual(kernelDefaults.filter((p) => !example.includes(p)), [], 'settings of config/default.json missing from the example');
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('\n## Configuration'), readme.indexOf('\n### ', readme.indexOf('\n## Configuration')));
  // a row names a setting in full (`jobs.leaseMs`) or as a sibling of the one before it (`jobs.leaseMs`, `jobs.renewMs` / `.maxMs`)
  const named = (path: string) => {
    const last = path.split('.').at(-1)!;
    return table.includes(`\`${path}\``) || (table.includes(`\`.${last}\``) || table.includes(`\`${last}\``)) && table.includes(`\`${path.split('.').slice(0, -1).join('.')}.`);
  };
  const plugin = (p: string) => /^plugins\.[a-z-]+\.enabled$/.test(p);
  assert.deepEqual(example.filter((p) => !plugin(p) && !named(p)), [], 'settings of the example README does not comment');
});
