// The site endpoints of the interface (§4.1, §4.2) are in the OpenAPI document with their scopes, success schema and error statuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSitesServer } from './helpers.ts';

test('every site endpoint of the interface is documented: summary, 401/403, a success schema, problem+json errors', async () => {
  const s = await startSitesServer();
  try {
    const doc = (await s.api('GET', '/api/v1/openapi.json')).body;
    const promised = [
      'get /api/v1/sites', 'get /api/v1/sites/{name}', 'put /api/v1/sites/{name}', 'post /api/v1/sites/{name}/check', 'post /api/v1/sites/{name}/restore',
      'put /api/v1/sites/{name}/content', 'get /api/v1/sites/{name}/draft/files', 'put /api/v1/sites/{name}/draft/files', 'post /api/v1/sites/{name}/draft/publish',
      'delete /api/v1/sites/{name}/draft', 'get /api/v1/sites/{name}/files', 'get /api/v1/sites/{name}/file',
      'post /api/v1/sites/{name}/webhooks/check', 'delete /api/v1/sites/{name}/webhooks/check', 'post /api/sites/{name}/check', 'get /api/sites/{name}/status', 'get /api/sites/{name}/jobs/{id}',
      'get /api/v1/sites/{name}/versions', 'delete /api/v1/sites/{name}',
    ];
    const ops = doc.paths as Record<string, Record<string, any>>;
    const offered = new Set(Object.entries(ops).flatMap(([path, o]) => Object.keys(o).map((m) => `${m} ${path}`)));
    assert.deepEqual(promised.filter((p) => !offered.has(p)), []);
    for (const key of promised) {
      const [method, path] = key.split(' ');
      const op = ops[path][method];
      assert.ok(op.summary, `${key} has a summary`);
      assert.ok(op.responses['401'], `${key} documents 401`);
      if (path.startsWith('/api/v1/')) assert.ok(op.responses['403'], `${key} documents 403`);
      const success = Object.keys(op.responses).filter((c) => c.startsWith('2'));
      assert.ok(success.length, `${key} documents a success`);
    }
    assert.ok(ops['/api/v1/sites/{name}/content'].put.responses['413'], 'uploads document 413');
    assert.ok(ops['/api/sites/{name}/check'].post.responses['429'], 'the webhook documents 429');
  } finally {
    await s.close();
  }
});
