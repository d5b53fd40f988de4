// Names the file system refuses and a full disk: over-long names in archives and drafts answer 422 before anything is written; a full disk (a 2 MB tmpfs, or the database's) answers 507 and leaves things as they were.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, createDatabase, eventually } from '../../helpers/harness.ts';
import { busybox, repoRoot, TestRepo, waitJob } from '../git/helpers.ts';
import { edgeRunning, entries, startSitesServer, tar, tgz, zip, type SitesServer } from './helpers.ts';

const servers: SitesServer[] = [];
const cleanups: (() => void | Promise<void>)[] = [];
after(async () => {
  for (const s of servers) await s.close();
  for (const fn of cleanups.reverse()) await fn();
});

const upload = (s: SitesServer, name: string, body: Buffer, query = '') =>
  call(s.url, 'PUT', `/api/v1/sites/${name}/content${query}`, { token: s.admin, raw: new Uint8Array(body), headers: { 'content-type': 'application/octet-stream' } });
const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** every file below dir with its size: what a refused or failed write must leave exactly as it was */
function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => !d.isDirectory())
    .map((d) => { const full = join(d.parentPath, d.name); return `${full.slice(dir.length)} ${statSync(full).size}`; }).sort();
}

test('a name over 255 bytes or a path over 1024 in an archive (tar, tar.gz, zip) or a draft write: 422 naming it, nothing written', async () => {
  const s = await startSitesServer();
  servers.push(s);
  await edgeRunning(s);
  const storage = join(s.dataDir, 'plugins', 'sites');
  assert.equal((await s.api('PUT', '/api/v1/sites/names', { body: { hostnames: ['names.storage.test'] } })).status, 201);
  assert.equal((await upload(s, 'names', tar(entries({ 'index.html': 'one' })))).status, 200);
  const before = files(storage);

  const long = `${'a'.repeat(300)}.html`;
  // 200 characters, 400 bytes: the limit counts bytes, as the file system does
  const wide = 'é'.repeat(200);
  // 5 names of 240 bytes: 1211 bytes with the file name, in 611 characters (the draft's schema allows 1024)
  const deep = Array.from({ length: 5 }, () => 'é'.repeat(120)).join('/');
  for (const [name, expect] of [[`docs/${long}`, /has 305 bytes; a name \(each part of a path\) may have at most 255/], [wide, /has 400 bytes/], [`${deep}/x.html`, /the path has 1211 bytes; a path may have at most 1024/]] as const) {
    for (const [format, pack] of [['tar', tar], ['tar.gz', tgz], ['zip', zip]] as const) {
      for (const query of ['', '?draft=1']) {
        const res = await upload(s, 'names', pack(entries({ 'index.html': 'two', [name]: 'x' })), query);
        assert.equal(res.status, 422, `${format}${query} ${name.slice(0, 20)}: ${res.text}`);
        assert.equal(res.body.type, 'https://dockwright.dev/problems/archive-refused');
        assert.match(res.body.detail, expect);
        assert.ok(res.body.detail.includes(`entry "${name.slice(0, 100)}`), `the entry is named: ${res.body.detail}`);
      }
    }
  }
  // a link whose target has a name too long to exist is refused too
  const link = await upload(s, 'names', tar([{ name: 'index.html', content: 'two' }, { name: 'l', type: 'symlink', target: long }]));
  assert.equal(link.status, 422, link.text);
  assert.match(link.body.detail, /symbolic link "l" points to .*: the name .* has 305 bytes/);

  const draft = await s.api('PUT', '/api/v1/sites/names/draft/files', { body: { files: { 'ok.html': { content: 'two' }, [`docs/${long}`]: { content: 'x' }, [wide]: { content: 'y' } } } });
  assert.equal(draft.status, 422, draft.text);
  assert.equal(draft.body.type, 'https://dockwright.dev/problems/name-too-long');
  assert.deepEqual(draft.body.errors.map((e: any) => e.path), [`/body/files/docs/${long}`, `/body/files/${wide}`]);
  assert.match(draft.body.errors[0].message, /has 305 bytes; a name \(each part of a path\) may have at most 255/);
  assert.ok(draft.body.detail.includes(`/body/files/docs/${long}`), 'the detail names the path');
  const deepDraft = await s.api('PUT', '/api/v1/sites/names/draft/files', { body: { files: { [`${deep}/x.html`]: { content: 'x' } } } });
  assert.equal(deepDraft.status, 422, deepDraft.text);
  assert.match(deepDraft.body.errors[0].message, /the path has 1211 bytes; a path may have at most 1024/);

  const site = (await s.api('GET', '/api/v1/sites/names')).body;
  assert.equal(site.version, 1);
  assert.equal(site.draft, null);
  assert.deepEqual(files(storage), before, 'no content stored, no tree built, no staging left');
  assert.ok(!existsSync(join(storage, 'objects', sha256('two').slice(0, 2), sha256('two'))));
});

test('a full disk (2 MB tmpfs under the sites): uploads and draft writes answer 507 and change nothing; a sync job fails saying the disk is full', async () => {
  const repos = repoRoot();
  cleanups.push(() => repos.rm());
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-test-full-'));
  const storage = join(dataDir, 'plugins', 'sites');
  mkdirSync(storage, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', storage]);
  cleanups.push(() => {
    execFileSync('umount', [storage]);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const db = await createDatabase();
  cleanups.push(() => db.drop());
  const s = await startSitesServer({ git: { allowedLocalRoots: [repos.root] }, reuse: { databaseUrl: db.url, dataDir } });
  servers.push(s);
  await edgeRunning(s);

  assert.equal((await s.api('PUT', '/api/v1/sites/full', { body: { hostnames: ['full.storage.test'] } })).status, 201);
  assert.equal((await upload(s, 'full', tar(entries({ 'index.html': 'one' })))).status, 200);
  assert.equal((await s.api('PUT', '/api/v1/sites/full/draft/files', { body: { files: { 'draft.html': { content: 'draft' } } } })).status, 200);
  const before = files(storage);

  // 3 MB that no compression shrinks, on 2 MB
  const big = randomBytes(3 * 1024 * 1024);
  for (const [archive, query] of [[tar([{ name: 'index.html', content: 'two' }, { name: 'big.bin', content: big.toString('latin1') }]), ''], [tgz(entries({ 'big.bin': big.toString('base64') })), '?draft=1']] as const) {
    const res = await upload(s, 'full', archive, query);
    assert.equal(res.status, 507, `upload${query}: ${res.text}`);
    assert.equal(res.body.type, 'https://dockwright.dev/problems/disk-full');
    assert.equal(res.body.title, 'The disk is full');
    assert.match(res.body.detail, /^the disk is full: no space is left on the device holding \/\S+ \(ENOSPC\)$/);
    assert.ok(res.body.detail.includes(storage), `the folder is named: ${res.body.detail}`);
    assert.deepEqual(files(storage), before, `upload${query}: nothing half-written is left`);
  }
  const site = (await s.api('GET', '/api/v1/sites/full')).body;
  assert.equal(site.version, 1, 'no version published');
  assert.equal(site.draft.files, 2, 'the draft is unchanged');
  assert.deepEqual((await s.api('GET', '/api/v1/sites/full/versions')).body.map((v: any) => v.number), [1]);

  // draft writes of 600 KB each until the disk is full: the one that does not fit answers 507, the draft keeps the others
  let written = 0;
  let full: any = null;
  for (let i = 0; i < 6 && !full; i++) {
    const res = await s.api('PUT', '/api/v1/sites/full/draft/files', { body: { files: { [`part${i}.bin`]: { content: randomBytes(600_000).toString('base64'), encoding: 'base64' } } } });
    if (res.status === 200) { written++; continue; }
    full = res;
  }
  assert.ok(full, 'the disk filled up');
  assert.equal(full.status, 507, full.text);
  assert.equal(full.body.type, 'https://dockwright.dev/problems/disk-full');
  assert.equal((await s.api('GET', '/api/v1/sites/full')).body.draft.files, 2 + written);
  const left = files(storage);
  assert.deepEqual(left.filter((f) => /\.[0-9a-f]{12} \d+$|\.building-/.test(f)), [], 'no temporary object or half-built tree left');

  // a sync whose content does not fit: the job fails saying so, and the site's lastError too
  const repo = await TestRepo.create(repos.root, 'big');
  await repo.commit({ 'index.html': 'from git', 'big.txt': big.toString('base64') }, 'big');
  const created = await s.api('PUT', '/api/v1/sites/synced', { body: { hostnames: ['synced.storage.test'], source: { url: repo.bare } } });
  assert.equal(created.status, 201, created.text);
  const job = await waitJob(s, created.body.jobId);
  assert.equal(job.status, 'failed');
  assert.match(job.error!, /^the disk is full: no space is left on the device/);
  const synced = await eventually(async () => { const b = (await s.api('GET', '/api/v1/sites/synced')).body; return b.lastError ? b : null; });
  assert.match(synced.lastError, /^the disk is full/);
  assert.equal(synced.version, 0);
  assert.deepEqual(files(storage).filter((f) => /\.[0-9a-f]{12} \d+$|\.building-/.test(f)), []);
});

test('a database whose disk is full (PostgreSQL\'s disk_full): a compose write answers 507 and creates nothing', async () => {
  const s = servers[0];
  // the database refuses the write as a full disk does (SQLSTATE 53100); only this test's database, only the stacks table
  await s.app.db.query(`CREATE FUNCTION dw_test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$`);
  await s.app.db.query('CREATE TRIGGER dw_test_disk_full BEFORE INSERT OR UPDATE ON stacks FOR EACH ROW EXECUTE FUNCTION dw_test_disk_full()');
  const write = () => s.api('PUT', '/api/v1/stacks/fulldb/compose', { body: { content: busybox() }, headers: { 'if-none-match': '*' } });
  try {
    const res = await write();
    assert.equal(res.status, 507, res.text);
    assert.equal(res.body.type, 'https://dockwright.dev/problems/disk-full');
    assert.match(res.body.detail, /^the disk is full: the database server has no space left to write/);
    assert.equal((await s.api('GET', '/api/v1/stacks/fulldb')).status, 404);
  } finally {
    await s.app.db.query('DROP TRIGGER dw_test_disk_full ON stacks');
    await s.app.db.query('DROP FUNCTION dw_test_disk_full()');
  }
  assert.equal((await write()).status, 200, 'written once there is room');
});
