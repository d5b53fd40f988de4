// The production build's vendored dockerode (scripts/build.ts): it talks to the real engine, leaves ssh2 and grpc unloaded until used, and reaches their modules when used.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { root } from '../helpers/harness.ts';

// a child process of its own: this test process has loaded dockerode's full copy through the sources
function inChild(script: string): string {
  return execFileSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH, DOCKER_HOST: process.env.DOCKER_HOST ?? '' } });
}

const vendored = JSON.stringify(join(root, 'dist/vendor/dockerode.cjs'));
const deferred = '/(ssh2|@grpc|protobufjs)[\\\\/]/';

test('the built service imports the vendored dockerode, not the package', () => {
  const client = execFileSync('grep', ['-c', 'vendor/dockerode.cjs', join(root, 'dist/plugins/docker/client.js')], { encoding: 'utf8' });
  assert.equal(client.trim(), '1');
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
