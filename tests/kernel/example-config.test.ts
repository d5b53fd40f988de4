// config/example.json stays true: the service loads it, it holds every setting of config/default.json, and the configuration reference's table (docs/reference/configuration.md) comments each of its settings.
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

test('config/example.json loads, has every setting of the defaults, and each of its settings is in the configuration reference\'s table', () => {
  const config = loadConfig(root, { DOCKWRIGHT_CONFIG: 'config/example.json' });
  assert.equal(config.port, 8080);
  const example = leaves(read('config/example.json'));
  const kernelDefaults = leaves(read('config/default.json')).filter((p) => !p.startsWith('plugins.'));
  assert.deepEqual(kernelDefaults.filter((p) => !example.includes(p)), [], 'settings of config/default.json missing from the example');
  const page = readFileSync(join(root, 'docs/reference/configuration.md'), 'utf8');
  // the page's first part, its title to its first section (Live settings), is the table
  const table = page.slice(page.indexOf('# Configuration\n'), page.indexOf('\n## '));
  assert.ok(table.includes('| setting | environment | default |'), 'the table is where it was');
  // a row names a setting in full (`jobs.leaseMs`) or as a sibling of the one before it (`jobs.leaseMs`, `jobs.renewMs` / `.maxMs`)
  const named = (path: string) => {
    const last = path.split('.').at(-1)!;
    return table.includes(`\`${path}\``) || (table.includes(`\`.${last}\``) || table.includes(`\`${last}\``)) && table.includes(`\`${path.split('.').slice(0, -1).join('.')}.`);
  };
  const plugin = (p: string) => /^plugins\.[a-z-]+\.enabled$/.test(p);
  assert.deepEqual(example.filter((p) => !plugin(p) && !named(p)), [], 'settings of the example the configuration reference does not comment');
});
