// The served OpenAPI document is the truth: Redocly lints it clean, it documents every answer the probe found undocumented, and methods a path lacks answer 405.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { root, startServer, type TestServer } from '../helpers/harness.ts';

let s: TestServer;
let doc: any;
before(async () => {
  s = await startServer({
    plugins: {
      // the document is the same with or without an engine; without one, a deploy fails at once
      docker: { options: { socketPath: '/nonexistent/dockwright/docker.sock', reconcile: false } },
      containers: {}, stacks: {}, git: {},
    },
  });
  doc = (await s.api('GET', '/api/v1/openapi.json')).body;
});
after(async () => { await s?.close(); });

test('@redocly/cli lint finds no error in the served document', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dw-openapi-'));
  try {
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc, null, 1));
    const { stdout } = await promisify(execFile)(join(root, 'node_modules/.bin/redocly'), ['lint', 'openapi.json', '--format=json'], {
      cwd: dir, timeout: 60_000, maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    }).catch((err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: err.stderr }));
    const report = JSON.parse(stdout);
    const errors = report.problems.filter((p: any) => p.severity === 'error').map((p: any) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);
    assert.deepEqual(errors, [], errors.join('\n'));
    assert.equal(report.totals.errors, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('operationIds are unique, the webhooks apart from the REST API', () => {
  const ids: string[] = Object.values(doc.paths).flatMap((ops: any) => Object.values(ops).map((o: any) => o.operationId));
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(doc.paths['/api/stacks/{name}/deploy'].post.operationId, 'stacks.webhook.postStacksNameDeploy');
  assert.equal(doc.paths['/api/v1/stacks/{name}/deploy'].post.operationId, 'stacks.postStacksNameDeploy');
});

test('the answers the probe found undocumented are documented', () => {
  const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).map(Number);
  assert.ok(statuses('/api/v1/stacks/{name}/env', 'put').includes(409), 'env write: 409 when it creates what exists');
  for (const code of [200, 202, 401, 429, 502]) assert.ok(statuses('/api/stacks/{name}/deploy', 'post').includes(code), `webhook deploy documents ${code}`);
  assert.ok(statuses('/api/stacks/{name}/github', 'post').includes(202));
  assert.ok(statuses('/api/v1/jobs/{id}/cancel', 'post').includes(200));
  assert.ok(statuses('/api/v1/stacks/{name}', 'delete').includes(202));
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const codes = Object.keys(op.responses).map(Number);
      assert.ok(codes.includes(429), `${method} ${path} documents 429`);
      assert.ok(codes.includes(400), `${method} ${path} documents 400`);
      assert.ok(op.responses['429'].headers['Retry-After'], `${method} ${path}: 429 has Retry-After`);
      // whatever writes can meet a full disk (a file, a row, a job)
      if (method !== 'get') assert.ok(codes.includes(507), `${method} ${path} documents 507`);
      if (op.parameters.some((p: any) => p.name === 'If-Match')) {
        assert.ok(['required', 'optional'].includes(op['x-revision']), `${method} ${path} says whether it needs a revision`);
        for (const code of [409, 412, 428]) assert.ok(codes.includes(code) || (code === 428 && op['x-revision'] === 'optional'), `${method} ${path} documents ${code}`);
      }
    }
  }
  for (const path of ['/api/v1/containers', '/api/v1/containers/{id}/start', '/api/v1/containers/{id}/logs']) {
    const op = doc.paths[path].get ?? doc.paths[path].post;
    assert.ok(op.responses['503'], `${path} documents 503 (engine down)`);
  }
});

test('the constraints the server enforces are in the schemas', () => {
  const param = (path: string, method: string, name: string) => doc.paths[path][method].parameters.find((p: any) => p.name === name);
  assert.equal(param('/api/v1/jobs', 'get', 'cursor').schema.pattern, '^[0-9]{1,15}$');
  assert.equal(param('/api/v1/activity', 'get', 'cursor').schema.pattern, '^[0-9]{1,15}$');
  assert.equal(param('/api/v1/stacks', 'get', 'cursor').schema.pattern, '^[a-z0-9][a-z0-9-]{0,62}$');
  assert.equal(param('/api/v1/stacks/{name}/revisions', 'get', 'cursor').schema.pattern, '^[1-9][0-9]{0,8}$');
  const ifMatch = param('/api/v1/stacks/{name}/compose', 'put', 'If-Match');
  assert.equal(ifMatch.in, 'header');
  const pattern = new RegExp(ifMatch.schema.pattern);
  for (const ok of ['"3"', 'W/"3"', '3']) assert.match(ok, pattern);
  for (const bad of ['"x"', '*', '"1234567890"']) assert.doesNotMatch(bad, pattern);
  assert.ok(param('/api/v1/stacks/{name}/compose', 'put', 'If-None-Match'));
  assert.deepEqual(doc.paths['/api/v1/stacks/{name}/compose'].put.requestBody.content['application/json'].schema.anyOf,
    [{ required: ['content'] }, { required: ['template'] }]);
  const since = new RegExp(param('/api/v1/containers/{id}/logs', 'get', 'since').schema.pattern);
  for (const ok of ['1700000000', '1700000000.5', '2024-05-01', '2024-05-01T10:00:00Z', '2024-05-01T10:00:00.123+02:00']) assert.match(ok, since);
  for (const bad of ['yesterday', '-1', '24-05-01']) assert.doesNotMatch(bad, since);
});

test('the enforced constraints answer as documented', async () => {
  assert.equal((await s.api('GET', '/api/v1/jobs?cursor=abc')).status, 400);
  assert.equal((await s.api('GET', '/api/v1/stacks?cursor=Not_A_Name')).status, 400);
  const noContent = await s.api('PUT', '/api/v1/stacks/oa-empty/compose', { body: { message: 'nothing' }, headers: { 'if-none-match': '*' } });
  assert.equal(noContent.status, 400);
  assert.equal(noContent.body.errors[0].path, '/body/content');
  assert.equal((await s.api('GET', '/api/v1/containers/x/logs?since=yesterday')).status, 400);
  assert.equal((await s.api('PUT', '/api/v1/stacks/oa-empty/env', { body: { values: {} }, headers: { 'if-match': '"x"' } })).status, 400);
});

test('TRACE and other methods a known path does not offer: 405 with Allow; unknown paths stay 404', async () => {
  // fetch refuses to send TRACE
  const trace = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = httpRequest(`${s.url}/api/v1/stacks/web`, { method: 'TRACE' }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(trace.status, 405);
  assert.equal(trace.headers.allow, 'GET, DELETE');
  assert.equal(trace.headers['content-type'], 'application/problem+json');
  assert.equal(JSON.parse(trace.body).status, 405);
  const patch = await s.api('PATCH', '/api/v1/stacks/web/compose');
  assert.equal(patch.status, 405);
  assert.equal(patch.headers.get('allow'), 'GET, PUT');
  const options = await fetch(`${s.url}/api/stacks/web/deploy`, { method: 'OPTIONS' });
  assert.equal(options.status, 405);
  assert.equal(options.headers.get('allow'), 'POST');
  assert.equal((await fetch(`${s.url}/api/v1/openapi.json`, { method: 'DELETE' })).headers.get('allow'), 'GET');
  assert.equal((await s.api('GET', '/api/v1/nothing/here')).status, 404);
});

test('deploy without an engine: 202 with the job, which fails with the reason (as README and the document say)', async () => {
  assert.match(doc.paths['/api/v1/stacks/{name}/deploy'].post.description, /even when the Docker engine does not answer/);
  assert.equal((await s.api('PUT', '/api/v1/stacks/oa-down/compose', { body: { content: 'services:\n  a:\n    image: dockwright-test/busybox:1\n' }, headers: { 'if-none-match': '*' } })).status, 200);
  const started = await s.api('POST', '/api/v1/stacks/oa-down/deploy');
  assert.equal(started.status, 202);
  const job = await s.api('GET', `/api/v1/jobs/${started.body.id}/wait?timeout=30`);
  assert.equal(job.body.status, 'failed');
  assert.match(job.body.error, /the Docker engine at unix:\/\/\/nonexistent\/dockwright\/docker\.sock does not answer/);
});
