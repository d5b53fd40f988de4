// Generated clients get concrete types: openapi-typescript turns the served document into types a strict tsc check of GET /stacks and GET /stacks/{name} accepts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS from 'openapi-typescript';
import { describeApi } from '../../kernel/describe.ts';
import { onlyPlugins, root, startServer, type TestServer } from '../helpers/harness.ts';

let s: TestServer;
let doc: any;
before(async () => {
  s = await startServer({ plugins: { docker: { options: { socketPath: '/nonexistent/dockwright/docker.sock', reconcile: false } }, containers: {}, stacks: {}, git: {} } });
  doc = (await s.api('GET', '/api/v1/openapi.json')).body;
});
after(async () => { await s?.close(); });

/** generates the client types of a document beside the checked file and runs a strict tsc on it: the compiler's complaints, or '' */
async function typecheck(document: unknown): Promise<string> {
  // inside the worktree, so the checked file finds no other types than the generated ones and tsc is the project's own
  const dir = mkdtempSync(join(root, 'tests/types/.generated-'));
  try {
    writeFileSync(join(dir, 'openapi.ts'), await openapiTS(document as never));
    copyFileSync(join(root, 'tests/types/openapi-client.check.ts'), join(dir, 'check.ts'));
    const args = ['--ignoreConfig', '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--allowImportingTsExtensions', '--skipLibCheck', '--types', '', join(dir, 'check.ts')];
    return await promisify(execFile)(join(root, 'node_modules/.bin/tsc'), args, { cwd: dir, timeout: 120_000 })
      .then(() => '', (err: { stdout?: string; message: string }) => err.stdout || err.message);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** the success answers of a document that declare no schema, as "method path status" (1xx, such as a WebSocket's 101, and 204 carry no body) */
function withoutSchema(document: any): string[] {
  const missing: string[] = [];
  for (const [path, ops] of Object.entries<any>(document.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      for (const [status, answer] of Object.entries<any>(op.responses)) if (Number(status) >= 200 && Number(status) < 300 && Number(status) !== 204 && !answer.content) missing.push(`${method} ${path} ${status}`);
    }
  }
  return missing;
}

test('every operation of the document declares the schema of its success answer, with every plugin enabled (swarm too)', async () => {
  // swarm is off by default: every plugin is switched on by name
  const every = Object.fromEntries(Object.keys(onlyPlugins({})).map((name) => [name, { enabled: true }]));
  const full = await describeApi(root, { plugins: every }) as any;
  assert.ok(full.paths['/api/v1/sites/{name}/file'] && full.paths['/api/v1/certificates'] && full.paths['/api/v1/nodes'], 'sites, certificates and swarm are described');
  assert.deepEqual(withoutSchema(full), []);
  assert.deepEqual(withoutSchema(doc), []);
});

test('a site file is documented as raw bytes of any media type', async () => {
  const full = await describeApi(root, { plugins: onlyPlugins({ docker: {}, stacks: {}, git: {}, edge: {}, backups: {}, sites: {} }) }) as any;
  assert.deepEqual(full.paths['/api/v1/sites/{name}/file'].get.responses['200'].content, { '*/*': { schema: { type: 'string', format: 'binary', description: 'the bytes of the file' } } });
});

test('GET /stacks and GET /stacks/{name} are concrete types in the generated client', async () => {
  assert.equal(await typecheck(doc), '');
});

test('the check fails when an answer has no schema (it can tell)', async () => {
  const broken = structuredClone(doc);
  delete broken.paths['/api/v1/stacks/{name}'].get.responses['200'].content;
  assert.match(await typecheck(broken), /check\.ts/);
});
