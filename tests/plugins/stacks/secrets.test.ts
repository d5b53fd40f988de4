// Secrets and configs of a stack from an uploaded source tree, on the real engine: files at their targets with their mode and owner, read-only, never in the environment, labels, answers, job output or log; a changed value recreates, an unchanged one does not; removal removes the files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../../../sdk/index.ts';
import { type TestServer } from '../../helpers/harness.ts';
import { tgz } from '../git/archives.ts';
import { act, busybox, cleanupProjects, createStack, docker, startGitServer, uniqueName, waitJob } from '../git/helpers.ts';

const run = promisify(execFile);
const name = uniqueName('sec');
const fileSecret = `file-secret-${randomBytes(6).toString('hex')}`;
const first = `env-secret-${randomBytes(6).toString('hex')}`;
const second = `env-secret-${randomBytes(6).toString('hex')}`;
const secretValues = [fileSecret, first, second];

/** every log line, as text, whatever its level */
const logged: string[] = [];
function capturingLogger(bindings: object = {}): Logger {
  const write = (obj: object | string, msg?: string) => { logged.push(JSON.stringify({ bindings, obj, msg, err: (obj as { err?: Error }).err?.message })); };
  return { info: write, warn: write, error: write, debug: write, child: (more) => capturingLogger({ ...bindings, ...more }) };
}

const compose = `services:
  app:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    secrets:
      - db_password
      - { source: upstream, target: token, uid: "1000", gid: "1001", mode: 0400 }
    configs:
      - { source: app_conf, target: /etc/app.conf }
secrets:
  db_password: { file: ./secrets/db_password.txt }
  upstream: { environment: UPSTREAM }
configs:
  app_conf: { content: "listen=\${PORT:-8080}" }
`;

let s: TestServer;
before(async () => {
  s = await startGitServer([], {}, {}, { log: capturingLogger() });
});
after(async () => {
  await cleanupProjects(name);
  await s?.close();
});

async function app(): Promise<{ id: string; info: any }> {
  const [c] = await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${name}`, 'dockwright.service=app'] } });
  assert.ok(c, 'the app container exists');
  return { id: c.Id, info: await docker.getContainer(c.Id).inspect() };
}

/** a shell command in the container: its output, and its exit code */
async function inside(id: string, script: string): Promise<{ out: string; code: number }> {
  try {
    const { stdout } = await run('docker', ['exec', id, 'sh', '-c', script]);
    return { out: stdout, code: 0 };
  } catch (err) {
    return { out: (err as { stdout?: string }).stdout ?? '', code: (err as { code?: number }).code ?? -1 };
  }
}

const filesDir = () => join(s.dataDir, 'plugins/docker/secrets', name);

function assertNoSecret(text: string, where: string): void {
  for (const v of secretValues) assert.ok(!text.includes(v), `${where} holds a secret value`);
}

test('a file secret, an environment secret and a content config are read-only files at their targets, and appear nowhere else', async () => {
  await createStack(s, name, busybox());
  const archive = tgz([
    { name: 'compose.yaml', content: compose },
    { name: 'secrets/', type: 'dir' },
    { name: 'secrets/db_password.txt', content: fileSecret },
  ]);
  const up = await s.api('PUT', `/api/v1/stacks/${name}/source/upload`, { raw: new Uint8Array(archive), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(up.status, 200, up.text);
  // the variable is not set yet: the deploy fails naming it, before anything runs or is written
  const unset = await act(s, 'deploy', name, 'failed');
  assert.match(unset.error ?? '', /the secret "upstream" takes the variable UPSTREAM, which is not set/);
  assert.deepEqual(await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${name}`] } }), []);
  assert.ok(!existsSync(filesDir()));

  const revision = (await s.api('GET', `/api/v1/stacks/${name}`)).body.revision;
  const env = await s.api('PUT', `/api/v1/stacks/${name}/env`, { body: { values: { UPSTREAM: first }, revision } });
  assert.equal(env.status, 200, env.text);
  const job = await act(s, 'deploy', name);
  assert.match(job.output, /2 secrets and 1 config mounted read-only/);

  const { id, info } = await app();
  const stat = async (path: string) => (await inside(id, `stat -c '%a %u %g' ${path}`)).out.trim();
  assert.equal((await inside(id, 'cat /run/secrets/db_password')).out, fileSecret);
  assert.equal(await stat('/run/secrets/db_password'), '444 0 0');
  assert.equal((await inside(id, 'cat /run/secrets/token')).out, first);
  assert.equal(await stat('/run/secrets/token'), '400 1000 1001');
  assert.equal((await inside(id, 'cat /etc/app.conf')).out, 'listen=8080');
  assert.equal(await stat('/etc/app.conf'), '444 0 0');
  assert.notEqual((await inside(id, 'echo changed > /run/secrets/db_password')).code, 0, 'a secret cannot be written, not even by root');
  assert.equal((await inside(id, 'cat /run/secrets/db_password')).out, fileSecret);

  assertNoSecret(JSON.stringify(info.Config.Env), 'the environment');
  assertNoSecret(JSON.stringify(info.Config.Labels), 'the labels');
  assertNoSecret(JSON.stringify(info), 'docker inspect');
  for (const m of info.Mounts.filter((x: any) => x.Type === 'bind')) assert.equal(m.RW, false, `${m.Destination} is mounted read-only`);

  assertNoSecret(job.output, 'the job output');
  assertNoSecret(JSON.stringify(job), 'the job');
  for (const path of [`/api/v1/stacks/${name}`, `/api/v1/jobs/${job.id}`, `/api/v1/jobs?resource=stack:${name}`, `/api/v1/activity?resource=stack:${name}`]) {
    assertNoSecret((await s.api('GET', path)).text, `GET ${path}`);
  }
  const validated = await s.api('POST', `/api/v1/stacks/${name}/validate`, { body: { content: compose } });
  assert.equal(validated.status, 200, validated.text);
  assert.equal(validated.body.valid, true, validated.text);
  assertNoSecret(validated.text, 'the validate answer');

  // the host's copies: a folder only Dockwright's user may enter
  assert.equal(statSync(filesDir()).mode & 0o777, 0o700);
  assert.equal(readdirSync(filesDir()).length, 3);
});

test('an unchanged redeploy leaves the container alone; a changed variable recreates it with the new value, and the old file goes', async () => {
  const before = await app();
  const same = await act(s, 'deploy', name);
  assert.deepEqual(same.result.services, [{ service: 'app', action: 'unchanged' }]);
  assert.equal((await app()).id, before.id);

  const current = (await s.api('GET', `/api/v1/stacks/${name}`)).body.revision;
  const env = await s.api('PUT', `/api/v1/stacks/${name}/env`, { body: { values: { UPSTREAM: second }, revision: current } });
  assert.equal(env.status, 200, env.text);
  const changed = await act(s, 'deploy', name);
  assert.deepEqual(changed.result.services, [{ service: 'app', action: 'recreated' }]);
  const after = await app();
  assert.notEqual(after.id, before.id);
  assert.equal((await inside(after.id, 'cat /run/secrets/token')).out, second);
  assert.equal((await inside(after.id, 'cat /run/secrets/db_password')).out, fileSecret);
  assertNoSecret(changed.output, 'the job output');
  assert.equal(readdirSync(filesDir()).length, 3, 'the file of the old value was removed');
});

test('validate: an external secret is refused by no-external-resources; a secret file outside the tree by compose-valid', async () => {
  const check = async (top: string) => (await s.api('POST', `/api/v1/stacks/${name}/validate`, {
    body: { content: `services:\n  app:\n    image: dockwright-test/busybox:1\n    secrets: [x]\n${top}` },
  })).body;
  const external = await check('secrets:\n  x: { external: true, name: other_stack_password }\n');
  assert.deepEqual(external.errors, [{ rule: 'no-external-resources', path: 'secrets.x', message: 'secret x is external (other_stack_password)' }]);
  const escaping = await check('secrets:\n  x: { file: ../../../etc/shadow }\n');
  assert.deepEqual(escaping.errors, [{ rule: 'compose-valid', path: 'secrets.x.file', message: 'secret file "../../../etc/shadow" points outside the source tree' }]);
});

test('removing the stack removes its files; the log never held a secret', async () => {
  const current = (await s.api('GET', `/api/v1/stacks/${name}`)).body.revision;
  const removed = await s.api('DELETE', `/api/v1/stacks/${name}`, { headers: { 'if-match': `"${current}"` } });
  assert.equal(removed.status, 200, removed.text);
  if (removed.body.jobId) await waitJob(s, removed.body.jobId);
  assert.ok(!existsSync(filesDir()), 'the stack\'s secret files are gone');
  assert.ok(logged.length > 0, 'the logger was used');
  for (const line of logged) assertNoSecret(line, `the log line ${line.slice(0, 200)}`);
});
