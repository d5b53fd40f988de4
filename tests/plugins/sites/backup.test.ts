// The sites plugin's backup target: every site's versions and draft backed up with restic, then restored back into the sites (published version and draft) and into a folder.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { call } from '../../helpers/harness.ts';
import { runJob } from '../backups/helpers.ts';
import { entries, startSitesServer, tgz, versionFiles, type SitesServer } from './helpers.ts';

let s: SitesServer;
before(async () => { s = await startSitesServer(); });
after(() => s?.close());

const upload = (name: string, files: Record<string, string>) =>
  call(s.url, 'PUT', `/api/v1/sites/${name}/content`, { token: s.admin, raw: new Uint8Array(tgz(entries(files))), headers: { 'content-type': 'application/octet-stream' } });
const published = async (name: string) => Object.fromEntries(await Promise.all((await s.api('GET', `/api/v1/sites/${name}/files`)).body
  .map(async (f: any) => [f.path, (await s.api('GET', `/api/v1/sites/${name}/file?path=${encodeURIComponent(f.path)}`)).text])));
const draftFiles = async (name: string) => (await s.api('GET', `/api/v1/sites/${name}/draft/files`)).body.map((f: any) => [f.path, f.sha256]);

test('sites: backed up with their versions and draft, changed, restored back into the sites and into a folder', async () => {
  assert.equal((await s.api('PUT', '/api/v1/sites/docs', { body: { hostnames: ['docs.bk.test'] } })).status, 201);
  assert.equal((await s.api('PUT', '/api/v1/sites/blog', { body: { hostnames: ['blog.bk.test'] } })).status, 201);
  assert.equal((await upload('docs', versionFiles(1))).status, 200);
  assert.equal((await upload('docs', { ...versionFiles(2), 'guide/start.html': '<h1>start</h1>' })).status, 200);
  assert.equal((await upload('blog', { 'index.html': 'blog 1' })).status, 200);
  const draft = await s.api('PUT', '/api/v1/sites/docs/draft/files', { body: { files: { 'index.html': { content: '<p>draft</p>' }, 'new.html': { content: 'new' } }, delete: ['assets/f0.txt'] } });
  assert.equal(draft.status, 200, draft.text);
  const docsBefore = await published('docs');
  const draftBefore = await draftFiles('docs');
  const blogBefore = await published('blog');

  const put = await s.api('PUT', '/api/v1/backups/sites', { body: { targets: { sites: true } } });
  assert.equal(put.status, 201, put.text);
  const run = await runJob(s, '/api/v1/backups/sites/run');
  assert.match(run.output, /site docs: 2 version\(s\), version 2 published, a draft/);
  assert.deepEqual((await s.api('GET', '/api/v1/backups/sites/files?path=/sites')).body.map((f: any) => f.name), ['blog', 'docs']);
  assert.deepEqual((await s.api('GET', '/api/v1/backups/sites/files?path=/sites/docs')).body.map((f: any) => f.name), ['draft', 'site.json', 'versions']);
  assert.deepEqual((await s.api('GET', '/api/v1/backups/sites/files?path=/sites/docs/versions')).body.map((f: any) => f.name), ['1', '2']);

  // the content changes: a new version of docs, its draft discarded, blog removed
  assert.equal((await upload('docs', { 'index.html': 'replaced' })).status, 200);
  assert.equal((await s.api('DELETE', '/api/v1/sites/docs/draft')).status, 200);
  assert.equal((await s.api('DELETE', '/api/v1/sites/blog')).status, 200);
  assert.deepEqual(await published('docs'), { 'index.html': 'replaced' });

  // refusals before anything is touched
  const gone = await s.api('POST', '/api/v1/backups/sites/restore', { body: { target: 'site' } });
  assert.equal(gone.status, 409, gone.text);
  assert.match(gone.body.detail, /no site blog .*define it again/);
  const part = await s.api('POST', '/api/v1/backups/sites/restore', { body: { target: 'site', paths: ['/sites/docs/versions'] } });
  assert.equal(part.status, 422, part.text);
  const runner = await s.token('operator', ['backups:read', 'backups:run']);
  assert.equal((await s.api('POST', '/api/v1/backups/sites/restore', { token: runner, body: { target: 'site', paths: ['/sites/docs'] } })).status, 403, 'needs sites:publish');

  // back into the site: the published version of the snapshot is the new version, the draft is back
  const restored = await runJob(s, '/api/v1/backups/sites/restore', { target: 'site', paths: ['/sites/docs'] });
  assert.match(restored.output, /site docs: version 2 of the snapshot published as version 4/);
  assert.deepEqual(await published('docs'), docsBefore);
  assert.deepEqual(await draftFiles('docs'), draftBefore);
  const site = (await s.api('GET', '/api/v1/sites/docs')).body;
  assert.equal(site.version, 4);
  const versions = (await s.api('GET', '/api/v1/sites/docs/versions')).body;
  assert.equal(versions[0].from, 'restore');

  // a draft is there now: not replaced without overwrite
  const again = await s.api('POST', '/api/v1/backups/sites/restore', { body: { target: 'site', paths: ['/sites/docs'] } });
  assert.equal(again.status, 409);
  assert.equal(again.body.type, 'https://dockwright.dev/problems/would-overwrite');

  // a removed site: defined again, then restored
  assert.equal((await s.api('PUT', '/api/v1/sites/blog', { body: { hostnames: ['blog.bk.test'] } })).status, 201);
  await runJob(s, '/api/v1/backups/sites/restore', { target: 'site', paths: ['/sites/blog'] });
  assert.deepEqual(await published('blog'), blogBefore);

  // into a folder: every version and the draft as files
  const folder = await runJob(s, '/api/v1/backups/sites/restore', { target: 'folder' });
  const base = join(folder.result.folder, 'sites', 'docs');
  assert.equal(readFileSync(join(base, 'versions', '1', 'index.html'), 'utf8'), '<p>version 1</p>\n');
  assert.equal(readFileSync(join(base, 'draft', 'index.html'), 'utf8'), '<p>draft</p>');
  const record = JSON.parse(readFileSync(join(base, 'site.json'), 'utf8'));
  assert.equal(record.version, 2);
  assert.deepEqual(record.versions.map((v: any) => v.number), [2, 1]);
});

test('a snapshot whose site folder holds links out of it (a version, site.json) is refused naming them: no host file is published', async () => {
  assert.equal((await s.api('PUT', '/api/v1/sites/evil', { body: { hostnames: ['evil.bk.test'] } })).status, 201);
  const put = await s.api('PUT', '/api/v1/backups/crafted', { body: { targets: { sites: true } } });
  assert.equal(put.status, 201, put.text);
  await runJob(s, '/api/v1/backups/crafted/run');
  // a snapshot in the same repository made by someone who can write to it, with the tags Dockwright reads
  const craft = mkdtempSync(join(tmpdir(), 'dw-crafted-'));
  const restic = (args: string[]) => promisify(execFile)('restic', ['-r', join(s.dataDir, 'plugins', 'backups', 'repositories', 'crafted'), ...args], {
    env: { PATH: process.env.PATH, RESTIC_PASSWORD: put.body.password, RESTIC_CACHE_DIR: join(craft, 'cache') },
  });
  try {
    const site = join(craft, 'evil');
    mkdirSync(join(site, 'versions'), { recursive: true });
    writeFileSync(join(site, 'site.json'), JSON.stringify({ name: 'evil', hostnames: [], version: 1, versions: [], draft: null }));
    symlinkSync('/etc', join(site, 'versions', '1'));
    await restic(['backup', '--tag', 'dw-backup:crafted', '--tag', `dw-source:/sites/evil=${site}`, '--', site]);
    const version = await runJob(s, '/api/v1/backups/crafted/restore', { target: 'site', paths: ['/sites/evil'] }, 'failed');
    assert.match(version.error ?? '', /the snapshot's versions\/1 is a symbolic link to \/etc, out of the site's folder/);

    rmSync(join(site, 'versions', '1'));
    rmSync(join(site, 'site.json'));
    symlinkSync('/etc/shadow', join(site, 'site.json'));
    await restic(['backup', '--tag', 'dw-backup:crafted', '--tag', `dw-source:/sites/evil=${site}`, '--', site]);
    const record = await runJob(s, '/api/v1/backups/crafted/restore', { target: 'site', paths: ['/sites/evil'] }, 'failed');
    assert.match(record.error ?? '', /the snapshot's site.json is a symbolic link; refusing to restore from it/);
    assert.doesNotMatch(`${record.error}${record.output}`, /root:/);

    assert.equal((await s.api('GET', '/api/v1/sites/evil')).body.version, 0, 'nothing published');
    assert.equal((await s.api('GET', '/api/v1/sites/evil/file?path=shadow')).status, 404);
  } finally {
    rmSync(craft, { recursive: true, force: true });
  }
});
