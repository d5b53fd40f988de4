// House rules checked on the source itself: plugins import only the SDK (and the api.ts and types of the plugins they require), imports point down (plugins → sdk ← kernel), every file says what it owns, no shell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { root } from '../helpers/harness.ts';

function files(dir: string, ext = '.ts'): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : files(full, ext);
    return name.endsWith(ext) ? [full] : [];
  });
}
const imports = (source: string) => [...source.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)].map((m) => ({ typeOnly: Boolean(m[2]), spec: m[3] }));

test('plugins import only the SDK, their own files, libraries, and types of the plugins they require', async () => {
  const problems: string[] = [];
  for (const plugin of readdirSync(join(root, 'plugins')).filter((p) => statSync(join(root, 'plugins', p)).isDirectory())) {
    const def = (await import(join(root, 'plugins', plugin, 'index.ts'))).default as { requires?: (string | { name: string })[] };
    const required = (def.requires ?? []).map((r) => (typeof r === 'string' ? r : r.name));
    for (const file of files(join(root, 'plugins', plugin))) {
      for (const { typeOnly, spec } of imports(readFileSync(file, 'utf8'))) {
        if (!spec.startsWith('.')) continue; // node: builtins and npm libraries
        const target = relative(join(root, 'plugins', plugin), join(file, '..', spec));
        if (!target.startsWith('..')) continue; // its own files
        const where = relative(root, join(file, '..', spec));
        if (where.startsWith('sdk/')) continue;
        const other = /^plugins\/([^/]+)\//.exec(where)?.[1];
        // a required plugin's api.ts (its typed reference and API types) may be imported as a value; its other files for types only
        if (other && required.includes(other) && (typeOnly || where === `plugins/${other}/api.ts`)) continue;
        problems.push(`${relative(root, file)} imports ${spec}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('the layers point one way: the SDK imports neither the kernel nor a plugin, the kernel no plugin', () => {
  const below: Record<string, string[]> = { sdk: ['kernel/', 'plugins/'], kernel: ['plugins/'] };
  const problems = Object.entries(below).flatMap(([layer, above]) => files(join(root, layer)).flatMap((file) =>
    imports(readFileSync(file, 'utf8'))
      .filter(({ spec }) => spec.startsWith('.') && above.some((a) => relative(root, join(file, '..', spec)).startsWith(a)))
      .map(({ spec }) => `${relative(root, file)} imports ${spec}`)));
  assert.deepEqual(problems, []);
});

test('every source file opens with a line saying what it owns', () => {
  const missing = ['kernel', 'sdk', 'plugins', 'tests', 'scripts'].flatMap((dir) => files(join(root, dir)))
    .filter((file) => !/^\/\/ \S.{10,}/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(root, file));
  assert.deepEqual(missing, []);
});

test('no shell: no exec/execSync/shell: true anywhere in kernel, sdk or plugins', () => {
  const offenders = ['kernel', 'sdk', 'plugins'].flatMap((dir) => files(join(root, dir)))
    .filter((file) => /\bexecSync\(|\bexec\(\s*['"`]|shell:\s*true|from 'node:child_process'.*\bexec\b/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(root, file));
  assert.deepEqual(offenders, []);
});

test('every route of the interface that the enabled plugins promise is in the OpenAPI document', async () => {
  const { startServer } = await import('../helpers/harness.ts');
  const { freePort } = await import('../plugins/docker/helpers.ts');
  const edge = { httpPort: await freePort(), httpsPort: await freePort() };
  const s = await startServer({
    plugins: {
      docker: {}, containers: {}, stacks: {}, git: {}, registries: {}, backups: {}, alerts: {}, edge: { options: edge }, sites: {},
      // the ACME directory is a loopback port nobody listens on: describing the routes contacts no CA
      certificates: { options: { directoryUrl: 'https://127.0.0.1:9/directory' } },
    },
  });
  try {
    const doc = (await s.api('GET', '/api/v1/openapi.json')).body;
    const promised = [
      'get /api/v1/openapi.json', 'get /api/v1/docs', 'get /api/v1/me', 'get /api/v1/overview',
      'get /api/v1/stacks', 'get /api/v1/stacks/{name}', 'get /api/v1/stacks/{name}/compose', 'put /api/v1/stacks/{name}/compose',
      'post /api/v1/stacks/{name}/validate', 'get /api/v1/stacks/{name}/env', 'put /api/v1/stacks/{name}/env', 'put /api/v1/stacks/{name}/settings',
      'post /api/v1/stacks/{name}/deploy', 'post /api/v1/stacks/{name}/stop', 'post /api/v1/stacks/{name}/pull', 'put /api/v1/stacks/{name}/autoupdate',
      'get /api/v1/stacks/{name}/revisions', 'get /api/v1/stacks/{name}/revisions/{id}', 'post /api/v1/stacks/{name}/revisions/{id}/restore',
      'get /api/v1/stacks/{name}/source', 'put /api/v1/stacks/{name}/source', 'post /api/v1/stacks/{name}/source/check',
      'post /api/v1/stacks/{name}/source/pin', 'post /api/v1/stacks/{name}/source/unpin', 'put /api/v1/stacks/{name}/source/upload',
      'get /api/v1/stacks/{name}/access', 'post /api/v1/stacks/{name}/access',
      'post /api/v1/stacks/{name}/webhooks/deploy', 'delete /api/v1/stacks/{name}/webhooks/deploy',
      'get /api/v1/containers', 'post /api/v1/containers/{id}/start', 'post /api/v1/containers/{id}/stop', 'post /api/v1/containers/{id}/restart',
      'get /api/v1/containers/{id}/logs', 'get /api/v1/jobs', 'get /api/v1/jobs/{id}', 'get /api/v1/jobs/{id}/wait',
      'get /api/v1/registries', 'post /api/v1/registries', 'delete /api/v1/registries/{host}',
      'post /api/stacks/{name}/deploy', 'get /api/stacks/{name}/jobs/{id}', 'post /api/stacks/{name}/github',
      'get /api/v1/backups', 'get /api/v1/backups/{name}/files', 'post /api/v1/backups/{name}/run',
      'get /api/v1/sites', 'get /api/v1/sites/{name}', 'put /api/v1/sites/{name}', 'post /api/v1/sites/{name}/check', 'post /api/v1/sites/{name}/restore',
      'put /api/v1/sites/{name}/content', 'get /api/v1/sites/{name}/draft/files', 'put /api/v1/sites/{name}/draft/files',
      'post /api/v1/sites/{name}/draft/publish', 'delete /api/v1/sites/{name}/draft', 'get /api/v1/sites/{name}/files', 'get /api/v1/sites/{name}/file',
      'post /api/sites/{name}/check', 'get /api/sites/{name}/status',
      'get /api/v1/alerts', 'get /api/v1/alerts/channels', 'post /api/v1/alerts/channels', 'delete /api/v1/alerts/channels/{id}', 'post /api/v1/alerts/test',
      'get /api/v1/certificates', 'post /api/v1/certificates/request', 'post /api/v1/certificates/upload', 'delete /api/v1/certificates/{name}',
    ];
    const offered = new Set(Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)));
    assert.deepEqual(promised.filter((p) => !offered.has(p)), []);
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        assert.ok(op.summary, `${method} ${path} has a summary`);
        // the document and its reference page (and that page's files) are public: no token, so no 401
        const publicDoc = path === '/api/v1/openapi.json' || path === '/api/v1/docs' || path === '/api/v1/docs/{file}';
        if (path.startsWith('/api/v1/') && !publicDoc) assert.ok(op.responses['401'], `${method} ${path} documents 401`);
      }
    }
  } finally {
    await s.close();
  }
});

test('the dw client (cli/) needs nothing of the server: Node builtins, js-yaml (bundled), its own files, the generated API types and pure SDK helpers', () => {
  const allowedSdk = ['sdk/portal/api.d.ts', 'sdk/secret-names.ts'];
  const manifest = JSON.parse(readFileSync(join(root, 'cli/package.json'), 'utf8'));
  assert.equal(manifest.dependencies, undefined, 'the package installs alone: its libraries are bundled');
  const problems = files(join(root, 'cli/src')).flatMap((file) => {
    const source = readFileSync(file, 'utf8');
    const header = source.replace(/^#!.*\n/, '');
    const bad = /^\/\/ \S.{10,}/.test(header) ? [] : [`${relative(root, file)} lacks its header line`];
    for (const { typeOnly, spec } of imports(source)) {
      if (spec.startsWith('node:') || spec === 'js-yaml') continue;
      const where = relative(root, join(file, '..', spec));
      if (where.startsWith('cli/src/') || allowedSdk.includes(where) && (typeOnly || where.endsWith('.ts'))) continue;
      bad.push(`${relative(root, file)} imports ${spec}`);
    }
    return bad;
  });
  assert.deepEqual(problems, []);
});
