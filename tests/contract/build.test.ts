// The production build (scripts/build.ts): the server code imports its vendored packages only; dockerode talks to the real engine and leaves ssh2 and grpc unloaded until used; pg talks to PostgreSQL without loading Node's fetch; TypeBox is one bundle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../helpers/harness.ts';

/** the built server code (entries and shared chunks, not the vendored copies or the portal's browser files), as one text */
const builtCode = (): string => readdirSync(join(root, 'dist'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.js') && !/^(vendor|portal)\//.test(f)).map((f) => readFileSync(join(root, 'dist', f), 'utf8')).join('\n');
/** the built code imports this package only through its vendored copy */
function importsOnly(code: string, pkg: string, vendored: string): void {
  assert.ok(code.includes(`from "${vendored}"`), `nothing imports ${vendored}`);
  assert.ok(!code.includes(`from "${pkg}"`) && !code.includes(`import("${pkg}")`), `something imports ${pkg} itself`);
}

// a child process of its own: this test process has loaded dockerode's full copy through the sources
function inChild(script: string): string {
  return execFileSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH, DOCKER_HOST: process.env.DOCKER_HOST ?? '', DATABASE_URL: process.env.DATABASE_URL_TEST ?? '' } });
}

const vendored = JSON.stringify(join(root, 'dist/vendor/dockerode.cjs'));
const deferred = '/(ssh2|@grpc|protobufjs)[\\\\/]/';

test('the built service imports the vendored dockerode, pg and TypeBox, never the packages', () => {
  const code = builtCode();
  importsOnly(code, 'dockerode', '#vendor/dockerode.cjs');
  importsOnly(code, 'pg', '#vendor/pg.cjs');
  importsOnly(code, '@sinclair/typebox', '#vendor/typebox/index.js');
  importsOnly(code, '@sinclair/typebox/value', '#vendor/typebox/value.js');
});

test('the vendored dockerode answers the real engine without loading ssh2, grpc or protobufjs', () => {
  const out = inChild(`
    const Docker = require(${vendored});
    const socketPath = (process.env.DOCKER_HOST || 'unix:///var/run/docker.sock').replace(/^unix:\\/\\//, '');
    new Docker({ socketPath }).listContainers({ all: true, limit: 1 }).then((list) => {
      const loaded = Object.keys(require.cache).filter((f) => ${deferred}.test(f));
      console.log(JSON.stringify({ isArray: Array.isArray(list), loaded }));
    }, (err) => { console.log(JSON.stringify({ error: err.message })); });`);
  const answer = JSON.parse(out);
  assert.equal(answer.error, undefined);
  assert.equal(answer.isArray, true);
  assert.deepEqual(answer.loaded, []);
});

test('the deferred modules load on first use: an ssh:// engine reaches ssh2, a BuildKit session reaches grpc', () => {
  const out = inChild(`
    const Docker = require(${vendored});
    const docker = new Docker({ protocol: 'ssh', host: '127.0.0.1', port: 1, username: 'nobody', timeout: 2000 });
    docker.version().then(() => report(), () => report());
    function report() {
      const afterSsh = Object.keys(require.cache).filter((f) => /ssh2[\\\\/]/.test(f)).length;
      const local = new Docker({ socketPath: '/nonexistent/dockwright.sock' });
      local.buildImage({ context: process.cwd(), src: ['package.json'] }, { version: '2' }).then(() => done(), () => done());
      function done() {
        const grpc = Object.keys(require.cache).filter((f) => /@grpc[\\\\/]/.test(f)).length;
        console.log(JSON.stringify({ afterSsh, grpc }));
        process.exit(0);
      }
    }`);
  const { afterSsh, grpc } = JSON.parse(out);
  assert.ok(afterSsh > 0, 'ssh2 was not loaded for an ssh:// engine');
  assert.ok(grpc > 0, 'grpc was not loaded for a BuildKit session');
});

/** a query through this copy of pg, and whether Node's fetch implementation (undici, ~8 MB) was loaded by then */
const queryLoadsFetch = (pg: string) => JSON.parse(inChild(`
  const pg = require(${pg});
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  client.connect().then(() => client.query('SELECT 41 + 1 AS n')).then(async (res) => {
    await client.end();
    console.log(JSON.stringify({ n: res.rows[0].n, fetch: process.moduleLoadList.includes('NativeModule internal/deps/undici/undici') }));
  }, (err) => console.log(JSON.stringify({ error: err.message })));`)) as { n?: number; fetch?: boolean; error?: string };

test('the vendored pg queries the real PostgreSQL without loading Node\'s fetch; the package itself loads it where Node has no navigator', () => {
  const vendored = queryLoadsFetch(JSON.stringify(join(root, 'dist/vendor/pg.cjs')));
  assert.deepEqual(vendored, { n: 42, fetch: false });
  // the control: on Node 20 (no navigator) the package's Cloudflare probe constructs a fetch Response
  if (typeof (globalThis as { navigator?: unknown }).navigator === 'undefined') assert.deepEqual(queryLoadsFetch("'pg'"), { n: 42, fetch: true });
});

test('TypeBox\'s one bundle (not its some 250 modules) makes schemas', () => {
  const out = inChild(`import(${JSON.stringify(join(root, 'dist/vendor/typebox/index.js'))}).then((t) => console.log(JSON.stringify({ kind: t.Type.String()[t.Kind] })))`);
  assert.deepEqual(JSON.parse(out), { kind: 'String' });
});
