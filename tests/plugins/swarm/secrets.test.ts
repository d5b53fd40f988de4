// The compose file's own secrets and configs on the swarm runtime: swarm secrets and configs named by stack and content, files in the tasks with their target, owner and mode; a changed value rolls out and the old secret goes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { startSwarmServer } from './helpers.ts';
import { docker, uniqueName } from '../docker/helpers.ts';
import { act, createStack } from '../stacks/helpers.ts';

let s: TestServer;
const name = uniqueName('sws');
const first = `swarm-secret-${uniqueName()}`;
const second = `swarm-secret-${uniqueName()}`;

const compose = `x-dockwright: { runtime: swarm }
services:
  app:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    stop_grace_period: 1s
    deploy: { update_config: { delay: 0s, monitor: 1s } }
    secrets:
      - upstream
      - { source: upstream, target: again, uid: "1000", gid: "1001", mode: 0400 }
    configs:
      - { source: app_conf, target: /etc/app.conf }
secrets:
  upstream: { environment: UPSTREAM, labels: { team: core } }
configs:
  app_conf: { content: "listen=\${PORT:-8080}" }
`;

const serviceOf = async () => ((await docker.listServices({ filters: { label: [`dockwright.project=${name}`] } })) as any[])[0];
const secretsOf = async () => (await docker.listSecrets({ filters: { label: [`dockwright.project=${name}`] } })) as any[];

/** a shell command in the service's running task */
async function inTask(script: string): Promise<string> {
  const svc = await serviceOf();
  const tasks = ((await docker.listTasks({ filters: { service: [svc.ID], 'desired-state': ['running'] } })) as any[]).filter((t) => t.Status.State === 'running');
  const exec = await docker.getContainer(tasks[0].Status.ContainerStatus.ContainerID).exec({ Cmd: ['sh', '-c', script], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  const raw = await new Promise<Buffer>((resolve) => { const parts: Buffer[] = []; stream.on('data', (c: Buffer) => parts.push(c)); stream.on('end', () => resolve(Buffer.concat(parts))); });
  // the multiplexed stream: an 8-byte header before each frame
  let out = '';
  for (let i = 0; i + 8 <= raw.length;) { const size = raw.readUInt32BE(i + 4); out += raw.subarray(i + 8, i + 8 + size).toString(); i += 8 + size; }
  return out;
}

before(async () => {
  s = await startSwarmServer();
});
after(async () => {
  const svc = await serviceOf().catch(() => undefined);
  if (svc) await docker.getService(svc.ID).remove().catch(() => undefined);
  for (const n of await docker.listNetworks({ filters: { label: [`dockwright.project=${name}`] } }).catch(() => [])) await docker.getNetwork(n.Id).remove().catch(() => undefined);
  for (const sec of await secretsOf().catch(() => [])) await docker.getSecret(sec.ID).remove().catch(() => undefined);
  for (const conf of await docker.listConfigs({ filters: { label: [`dockwright.project=${name}`] } }).catch(() => [])) await docker.getConfig(conf.ID).remove().catch(() => undefined);
  await s.close();
});

test('a swarm service gets the compose file\'s secret and config as swarm objects, at their targets with owner and mode; a new value rolls out', async () => {
  await createStack(s, name, compose);
  const env = await s.api('PUT', `/api/v1/stacks/${name}/env`, { body: { values: { UPSTREAM: first }, revision: 1 } });
  assert.equal(env.status, 200, env.text);
  const job = await act(s, 'deploy', name);
  assert.match(job.output, /on the swarm runtime/);
  assert.ok(!job.output.includes(first));

  const svc = await serviceOf();
  assert.ok(!JSON.stringify(svc).includes(first), 'the value is not in the service spec');
  const files = svc.Spec.TaskTemplate.ContainerSpec.Secrets.map((x: any) => x.File);
  assert.deepEqual(files, [{ Name: 'upstream', UID: '0', GID: '0', Mode: 0o444 }, { Name: 'again', UID: '1000', GID: '1001', Mode: 0o400 }]);
  assert.deepEqual(svc.Spec.TaskTemplate.ContainerSpec.Configs.map((x: any) => x.File), [{ Name: '/etc/app.conf', UID: '0', GID: '0', Mode: 0o444 }]);
  const [secret] = await secretsOf();
  assert.match(secret.Spec.Name, new RegExp(`^${name}_compose_upstream_[0-9a-f]{12}$`));
  assert.equal(secret.Spec.Labels.team, 'core');
  assert.equal(secret.Spec.Labels['dockwright.installation'], s.app.services.installationId);

  assert.equal(await inTask('cat /run/secrets/upstream'), first);
  assert.equal(await inTask("stat -c '%a %u %g' /run/secrets/again"), '400 1000 1001\n');
  assert.equal(await inTask('cat /etc/app.conf'), 'listen=8080');

  const env2 = await s.api('PUT', `/api/v1/stacks/${name}/env`, { body: { values: { UPSTREAM: second }, revision: 2 } });
  assert.equal(env2.status, 200, env2.text);
  const changed = await act(s, 'deploy', name);
  assert.deepEqual(changed.result.updated, ['app']);
  assert.equal(await inTask('cat /run/secrets/upstream'), second);
  const left = await secretsOf();
  assert.equal(left.length, 1, 'the secret of the old value was removed');
  assert.notEqual(left[0].Spec.Name, secret.Spec.Name);
});
