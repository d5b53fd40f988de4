// The portal's typed client stays true to the API: the offline description the build uses is the served document, and the committed types are generated from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeApi } from '../../../kernel/describe.ts';
import { typeOf } from '../../../scripts/portal/api-types.ts';
import { portalApiTypes } from '../../../scripts/portal/build.ts';
import { onlyPlugins, root, startServer } from '../../helpers/harness.ts';

test('the build describes exactly the document the service serves, with the same plugins', async () => {
  const plugins = { docker: {}, containers: {}, stacks: {}, git: {}, registries: {}, backups: {}, alerts: {}, portal: {} };
  const server = await startServer({ plugins });
  try {
    const served = (await server.api('GET', '/api/v1/openapi.json')).body;
    const offline = await describeApi(root, { plugins: onlyPlugins(plugins) });
    assert.deepEqual(offline, served);
    assert.ok(served.paths['/api/v1/session'].post && served.paths['/api/v1/tokens'].post);
  } finally {
    await server.close();
  }
});

test('sdk/portal/api.d.ts is the generation of the current API (npm run build rewrites it)', async () => {
  const committed = readFileSync(join(root, 'sdk/portal/api.d.ts'), 'utf8');
  assert.equal(committed, await portalApiTypes(root));
});

test('schemas become the TypeScript types a change would break', () => {
  assert.equal(typeOf({ type: 'object', required: ['a'], properties: { a: { type: 'integer' }, b: { anyOf: [{ type: 'string' }, { type: 'null' }] } } }), '{\n  a: number;\n  b?: string | null;\n}');
  assert.equal(typeOf({ type: 'array', items: { anyOf: [{ const: 'x' }, { const: 'y' }] } }), '("x" | "y")[]');
  assert.equal(typeOf({ type: 'object', patternProperties: { '^(.*)$': { type: 'string' } } }), '{\n  [key: string]: string;\n}');
  assert.equal(typeOf({}), 'unknown');
});
