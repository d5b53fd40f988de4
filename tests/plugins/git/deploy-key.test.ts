// Deploy keys made for a stack over the real API and a real sshd on loopback: a stack in one step from a repository that only accepts the key made for it, refusals that write nothing, replacement, expiry, access lists, removal, and the private key in no answer, log, job output or file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Logger } from '../../../sdk/index.ts';
import { call, eventually, startServer, type TestServer } from '../../helpers/harness.ts';
import { busybox, cleanupProjects, createStack, envCompose, repoRoot, TestRepo, uniqueName, waitJob } from './helpers.ts';
import { startSshGitServer, type SshGitServer } from './ssh-server.ts';

const run = promisify(execFile);
let s: TestServer;
let sshd: SshGitServer;
let db: pg.Client;
let repo: TestRepo;
const repos = repoRoot();
const names: string[] = [];
const fresh = (prefix: string) => { const n = uniqueName(prefix); names.push(n); return n; };

/** every log line, as text, whatever its level */
const logged: string[] = [];
function capturingLogger(bindings: object = {}): Logger {
  const write = (obj: object | string, msg?: string) => { logged.push(JSON.stringify({ bindings, obj, msg })); };
  return { info: write, warn: write, error: write, debug: write, child: (more) => capturingLogger({ ...bindings, ...more }) };
}

before(async () => {
  sshd = await startSshGitServer();
  repo = await TestRepo.create(repos.root, 'keyed');
  await repo.commit({ 'compose.yaml': envCompose(), 'app.env': 'MESSAGE=over-ssh\n' }, 'first');
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    log: capturingLogger(),
    plugins: {
      docker: { options: { stopTimeoutSeconds: 1, healthTimeoutMs: 60_000, reconcile: false } },
      containers: {}, stacks: {},
      git: { options: { pollIntervalMs: 3_600_000 } },
    },
  });
  db = new pg.Client({ connectionString: s.databaseUrl });
  await db.connect();
});
after(async () => {
  await cleanupProjects(...names);
  await db?.end();
  await s?.close();
  await sshd?.close();
  repos.rm();
});

const makeKey = (name: string, token?: string) => s.api('POST', `/api/v1/stacks/${name}/source/deploy-key`, token ? { token } : {});
const readKey = (name: string, token?: string) => s.api('GET', `/api/v1/stacks/${name}/source/deploy-key`, token ? { token } : {});
const createFrom = (name: string, body: Record<string, unknown>, query = '') =>
  s.api('PUT', `/api/v1/stacks/${name}/source${query}`, { body, headers: { 'if-none-match': '*' } });
const stackDir = (name: string) => join(s.dataDir, 'plugins/git/stacks', name);

/** the private key the server keeps for the stack, opened as the server opens it: what must show up nowhere */
async function privateLines(name: string): Promise<string[]> {
  const { rows } = await db.query('SELECT private_sealed FROM stack_deploy_keys WHERE stack = $1', [name]);
  const key = s.app.services.secrets.open(rows[0].private_sealed);
  assert.match(key, /^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
  return key.split('\n').filter((l: string) => l.length >= 16 && !l.startsWith('-----'));
}
const assertNoKey = (text: string, lines: string[], where: string) => {
  for (const line of lines) assert.ok(!text.includes(line), `${where} holds a line of the private key`);
};
/** every file under a folder, as text */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)).filter((f) => statSync(f).isFile() && statSync(f).size < 4_000_000);
}

test('a stack in one step from a repository that accepts only the key made for it; without the key added nothing is written; the private key is in no answer, log, job output or file', async () => {
  const name = fresh('dkone');
  const made = await makeKey(name);
  assert.equal(made.status, 201, made.text);
  assert.match(made.body.publicKey, new RegExp(`^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5[A-Za-z0-9+/]+=* dockwright-${name}$`));
  assert.equal(made.body.stack, name);
  assert.ok(Date.parse(made.body.expiresAt) > Date.now() + 3_600_000, 'an unused key waits a day');
  const pubDir = mkdtempSync(join(tmpdir(), 'dw-deploy-key-'));
  writeFileSync(join(pubDir, 'id.pub'), `${made.body.publicKey}\n`);
  const { stdout } = await run('ssh-keygen', ['-l', '-f', join(pubDir, 'id.pub')]);
  rmSync(pubDir, { recursive: true });
  assert.equal(stdout.split(' ')[1], made.body.fingerprint, 'the fingerprint ssh-keygen prints');
  const again = await readKey(name);
  assert.equal(again.status, 200);
  assert.deepEqual(again.body, made.body);
  const secret = await privateLines(name);
  assertNoKey(made.text + again.text, secret, 'the answers');

  // the repository accepts nobody yet: the create is refused and leaves nothing
  const url = sshd.url(repo.bare);
  for (const credentials of [{ kind: 'deploy-key' }, undefined]) {
    const refused = await createFrom(name, { url, branch: 'main', ...(credentials ? { credentials } : {}) });
    assert.equal(refused.status, 502, refused.text);
    assert.equal(refused.headers.get('content-type'), 'application/problem+json');
    assert.match(refused.body.detail, /Permission denied \(publickey\)/);
    assertNoKey(refused.text, secret, 'the refusal');
    assert.equal((await s.api('GET', `/api/v1/stacks/${name}`)).status, 404, 'no stack');
    assert.equal((await s.api('GET', `/api/v1/stacks/${name}/source`)).status, 404, 'no source');
    assert.ok(!existsSync(stackDir(name)), 'no working tree');
  }
  assert.equal((await readKey(name)).status, 200, 'the key waits for the next try');

  // the user adds the public key to the repository: one call makes and deploys the stack
  sshd.authorize([made.body.publicKey]);
  const created = await createFrom(name, { url, branch: 'main', credentials: { kind: 'deploy-key' } }, '?deploy=1');
  assert.equal(created.status, 202, created.text);
  assert.deepEqual(created.body.credentials, { kind: 'deploy-key' });
  assert.equal(created.body.url, url);
  const job = await waitJob(s, created.body.jobId);
  assert.equal(job.status, 'succeeded', `${job.error}\n${job.output}`);
  assert.match(job.output, new RegExp(`source: fetched main of ${url.replaceAll('.', '\\.')}`));
  assert.match(sshd.log(), /Accepted publickey for root from 127\.0\.0\.1 .*ED25519/);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}/compose`)).body.content, envCompose(), 'the stack holds the compose file of the repository');
  const used = await readKey(name);
  assert.equal(used.body.expiresAt, null, 'a key a source uses no longer expires');
  assert.equal(used.body.fingerprint, made.body.fingerprint);

  const activity = await s.api('GET', `/api/v1/activity?resource=stack:${name}`);
  assert.ok(activity.body.some((a: any) => a.action === 'stack.source.deploy-key'), activity.text);
  assertNoKey(activity.text, secret, 'the activity log');
  assertNoKey(JSON.stringify(await s.api('GET', `/api/v1/jobs/${job.id}`)), secret, 'the job');
  assertNoKey(logged.join('\n'), secret, 'the server log');
  assertNoKey(JSON.stringify((await s.api('GET', `/api/v1/stacks/${name}`)).body), secret, 'the stack');
  for (const file of filesUnder(s.dataDir)) assertNoKey(readFileSync(file, 'latin1'), secret, file);
  const { rows } = await db.query('SELECT credentials_sealed FROM stack_sources WHERE stack = $1', [name]);
  assertNoKey(rows[0].credentials_sealed, secret, 'the sealed credentials');
});

test('an existing stack takes its deploy key; the next POST replaces it for the source too; 422 without a key, 400 for https; expired keys are gone', async () => {
  const name = fresh('dkexist');
  await createStack(s, name, busybox());
  const url = sshd.url(repo.bare);
  const none = await s.api('PUT', `/api/v1/stacks/${name}/source`, { body: { url, credentials: { kind: 'deploy-key' } } });
  assert.equal(none.status, 422, none.text);
  assert.equal(none.body.type, 'https://dockwright.dev/problems/no-deploy-key');
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}/source`)).status, 404, 'nothing was written');
  assert.equal((await readKey(name)).status, 404);

  const first = (await makeKey(name)).body;
  const https = await s.api('PUT', `/api/v1/stacks/${name}/source`, { body: { url: 'https://127.0.0.1:1/o/r.git', credentials: { kind: 'deploy-key' } } });
  assert.equal(https.status, 400, https.text);
  assert.equal(https.body.errors[0].path, '/body/credentials');
  const unknownKind = await s.api('PUT', `/api/v1/stacks/${name}/source`, { body: { url, credentials: { kind: 'other' } } });
  assert.equal(unknownKind.status, 400, unknownKind.text);

  sshd.authorize([first.publicKey]);
  const set = await s.api('PUT', `/api/v1/stacks/${name}/source`, { body: { url } });
  assert.equal(set.status, 200);
  assert.equal(set.body.check.ok, false, 'without credentials the repository refuses');
  const keyed = await s.api('PUT', `/api/v1/stacks/${name}/source`, { body: { url, credentials: { kind: 'deploy-key' } } });
  assert.equal(keyed.status, 200, keyed.text);
  assert.equal(keyed.body.check.ok, true, keyed.body.check.error);
  assert.deepEqual(keyed.body.credentials, { kind: 'deploy-key' });

  // a new key replaces the old one for the source: the repository must be given the new one
  const second = await makeKey(name);
  assert.equal(second.status, 201);
  assert.notEqual(second.body.fingerprint, first.fingerprint);
  assert.equal(second.body.expiresAt, null, 'the source uses it already');
  const stale = await s.api('POST', `/api/v1/stacks/${name}/source/check`);
  assert.equal(stale.status, 502, 'the repository knows only the old key');
  sshd.authorize([second.body.publicKey]);
  const fresh2 = await s.api('POST', `/api/v1/stacks/${name}/source/check`);
  assert.equal(fresh2.status, 200, fresh2.text);
  assert.equal(fresh2.body.error, null);
  // a write without credentials keeps them for the same repository
  assert.deepEqual((await s.api('PUT', `/api/v1/stacks/${name}/source`, { body: { url, branch: 'main' } })).body.credentials, { kind: 'deploy-key' });

  // a key no source took expires: a day by default, here aged by the database's clock
  const later = fresh('dklater');
  await makeKey(later);
  await db.query(`UPDATE stack_deploy_keys SET created_at = now() - interval '25 hours' WHERE stack = $1`, [later]);
  assert.equal((await readKey(later)).status, 404, 'expired');
  const late = await createFrom(later, { url, credentials: { kind: 'deploy-key' } });
  assert.equal(late.status, 422, late.text);
  assert.equal((await s.api('GET', `/api/v1/stacks/${later}`)).status, 404, 'nothing was created');
  assert.ok(!existsSync(stackDir(later)));
  const forgotten = fresh('dkforgot');
  await makeKey(forgotten);
  await db.query(`UPDATE stack_deploy_keys SET created_at = now() - interval '25 hours' WHERE stack = ANY($1)`, [[forgotten, name]]);
  const renewed = await makeKey(later);
  assert.equal(renewed.status, 201, 'a new POST makes a new key');
  assert.ok(renewed.body.expiresAt);
  assert.equal((await db.query('SELECT 1 FROM stack_deploy_keys WHERE stack = $1', [forgotten])).rowCount, 0, 'expired keys are swept');
  assert.equal((await db.query('SELECT 1 FROM stack_deploy_keys WHERE stack = $1', [name])).rowCount, 1, 'a used key stays however old');
});

test('scopes, access lists and removal: writers only; a hidden stack answers as a missing one; removing the stack removes its key; bad names are 400', async () => {
  const name = fresh('dkacc');
  await createStack(s, name, busybox());
  await makeKey(name);
  const viewer = await s.token('viewer', ['stacks:read']);
  assert.equal((await makeKey(name, viewer)).status, 403);
  assert.equal((await readKey(name, viewer)).status, 403);
  assert.equal((await call(s.url, 'POST', `/api/v1/stacks/${name}/source/deploy-key`)).status, 401);

  const owner = await s.token('operator', ['stacks:read', 'stacks:write'], { name: `owner-${name}` });
  const stranger = await s.token('operator', ['stacks:read', 'stacks:write'], { name: `stranger-${name}` });
  const listed = await s.api('POST', `/api/v1/stacks/${name}/access`, { body: { entries: [{ principal: `user:owner-${name}`, role: 'manager' }] } });
  assert.equal(listed.status, 200, listed.text);
  assert.equal((await readKey(name, owner)).status, 200);
  const hidden = await readKey(name, stranger);
  const missing = await readKey('dk-nosuchstack', stranger);
  assert.equal(hidden.status, 404);
  assert.deepEqual({ ...hidden.body, detail: hidden.body.detail.replaceAll(name, 'X'), instance: undefined }, { ...missing.body, detail: missing.body.detail.replaceAll('dk-nosuchstack', 'X'), instance: undefined });
  const before = (await readKey(name)).body.fingerprint;
  const hiddenMake = await makeKey(name, stranger);
  assert.equal(hiddenMake.status, 404, 'no key is made for a stack the caller cannot see');
  assert.doesNotMatch(hiddenMake.text, /exists/);
  assert.equal((await readKey(name)).body.fingerprint, before, 'the key is unchanged');
  assert.equal((await makeKey('dk-nosuchstack', stranger)).status, 201, 'a name without a stack gets a key');
  names.push('dk-nosuchstack');

  assert.equal((await makeKey('Bad_Name!')).status, 400);

  const revision = (await s.api('GET', `/api/v1/stacks/${name}`)).body.revision;
  const removed = await s.api('DELETE', `/api/v1/stacks/${name}`, { headers: { 'if-match': `"${revision}"` } });
  assert.ok([200, 202].includes(removed.status), removed.text);
  await eventually(async () => (await readKey(name)).status === 404, 30_000, 'the key to go with the stack');
  assert.equal((await db.query('SELECT 1 FROM stack_deploy_keys WHERE stack = $1', [name])).rowCount, 0);

  const openapi = (await s.api('GET', '/api/v1/openapi.json')).body;
  assert.ok(openapi.paths['/api/v1/stacks/{name}/source/deploy-key'].post.responses['201']);
  assert.ok(openapi.paths['/api/v1/stacks/{name}/source/deploy-key'].get);
});
