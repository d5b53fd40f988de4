// network_mode service:<name> on the real engine: the joining container is created after the joined one and shares its network namespace, also once that one is replaced; ports or networks on it are refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { TestServer } from '../../helpers/harness.ts';
import { act, cleanupProjects, containerOf, createStack, startStacksServer, uniqueName } from '../stacks/helpers.ts';

const run = promisify(execFile);
const name = uniqueName('netns');
let s: TestServer;
before(async () => { s = await startStacksServer(); });
after(async () => { await cleanupProjects(name); await s?.close(); });

const compose = (marker: string) => `services:
  sidecar:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    network_mode: "service:web"
  web:
    image: dockwright-test/busybox:1
    command: ["sh", "-c", "echo ${marker} > /tmp/m; sleep 3600"]
`;

/** the network namespace a container's first process is in */
async function netns(project: string, service: string): Promise<{ id: string; ns: string; mode: string }> {
  const c = await containerOf(project, service);
  assert.ok(c, `${service} exists`);
  const { stdout } = await run('docker', ['exec', c.Id, 'readlink', '/proc/1/ns/net']);
  const { stdout: mode } = await run('docker', ['inspect', '--format', '{{.HostConfig.NetworkMode}}', c.Id]);
  return { id: c.Id, ns: stdout.trim(), mode: mode.trim() };
}

test('a service joins the network namespace of another service of the stack, and again after that one is replaced', async () => {
  await createStack(s, name, compose('one'));
  const job = await act(s, 'deploy', name);
  assert.ok(job.output.indexOf(`${name}-web-1: creating`) < job.output.indexOf(`${name}-sidecar-1: creating`), `web is created first:\n${job.output}`);
  const web = await netns(name, 'web');
  const sidecar = await netns(name, 'sidecar');
  assert.equal(sidecar.ns, web.ns, 'one network namespace');
  assert.match(sidecar.mode, /^container:/);
  assert.ok(web.mode !== sidecar.mode);

  // web replaced: the sidecar would be left in a namespace that is gone, so it is replaced after it
  const current = (await s.api('GET', `/api/v1/stacks/${name}`)).body;
  const put = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: compose('two'), revision: current.revision } });
  assert.equal(put.status, 200, put.text);
  const second = await act(s, 'deploy', name);
  const web2 = await netns(name, 'web');
  const sidecar2 = await netns(name, 'sidecar');
  assert.notEqual(web2.id, web.id);
  assert.notEqual(sidecar2.id, sidecar.id, second.output);
  assert.equal(sidecar2.ns, web2.ns);
});

test('ports or networks on the joining service, an unknown service or itself are refused as compose refuses them', async () => {
  const check = async (lines: string) => {
    const res = await s.api('POST', `/api/v1/stacks/${uniqueName('netns')}/validate`, { body: { content: `services:\n  web:\n    image: dockwright-test/busybox:1\n  side:\n    image: dockwright-test/busybox:1\n${lines}` } });
    assert.equal(res.status, 200, res.text);
    return res.body.errors.map((e: { rule: string; path: string }) => [e.rule, e.path]);
  };
  assert.deepEqual(await check('    network_mode: service:web\n'), []);
  assert.deepEqual(await check('    network_mode: service:web\n    ports: ["8080:80"]\n'), [['compose-valid', 'services.side.ports']]);
  assert.deepEqual(await check('    network_mode: service:web\n    networks: [default]\n'), [['compose-valid', 'services.side.networks']]);
  assert.deepEqual(await check('    network_mode: service:nope\n'), [['compose-valid', 'services.side.network_mode']]);
  assert.deepEqual(await check('    network_mode: service:side\n'), [['compose-valid', 'services.side.network_mode']]);
});
