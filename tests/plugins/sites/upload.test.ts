// Sites over the real HTTP API and a real Caddy: create, upload (tar, tar.gz, zip) → served, versions, restore, files, refused archives writing nothing, scopes, ownership, delete; uploads exempt from the rate limit.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { call } from '../../helpers/harness.ts';
import { edgeAnswers, edgeRunning, entries, startSitesServer, tar, tgz, versionFiles, viaEdge, zip, type SitesServer } from './helpers.ts';

let s: SitesServer;
before(async () => {
  s = await startSitesServer({ sites: { keepVersions: 3, archiveMaxEntries: 50, archiveMaxBytes: 100_000 } });
  await edgeRunning(s);
});
after(() => s.close());

const upload = (name: string, body: Buffer, query = '', token = s.admin) => call(s.url, 'PUT', `/api/v1/sites/${name}/content${query}`, { token, raw: new Uint8Array(body), headers: { 'content-type': 'application/octet-stream' } });

/** every file below the plugin's folder (objects, versions, drafts), to prove a refusal wrote nothing */
function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true }).map((d) => join(d.parentPath, d.name)).sort();
}

test('upload → served through Caddy; versions, restore, files and file; keepVersions; delete', async () => {
  const created = await s.api('PUT', '/api/v1/sites/docs', { body: { hostnames: ['docs.sites.test'] } });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.version, 0);
  assert.equal(created.body.source, null);
  assert.match(created.body.previewToken, /^dwp_/);
  assert.equal(created.body.previewUrl, `http://draft--docs.preview.test:${s.httpPort}/`, 'the preview link keeps the edge\'s port');
  assert.ok(!created.body.previewUrl.includes(created.body.previewToken));
  assert.equal((await viaEdge(s.httpPort, 'docs.sites.test', '/')).status, 404, 'nothing published yet');

  const first = await upload('docs', tar(entries(versionFiles(1))));
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(first.body, { version: 1, fileCount: 4, bytes: first.body.bytes });
  assert.equal((await edgeAnswers(s.httpPort, 'docs.sites.test', '/', (a) => a.status === 200)).body, '<p>version 1</p>\n');
  assert.equal((await viaEdge(s.httpPort, 'docs.sites.test', '/assets/f2.txt')).body, 'version 1 file 2\n');

  const second = await upload('docs', tgz(entries({ ...versionFiles(2), 'sub/page.html': '<h1>sub</h1>' })));
  assert.equal(second.body.version, 2);
  assert.equal((await viaEdge(s.httpPort, 'docs.sites.test', '/')).body, '<p>version 2</p>\n', 'the next request after the answer sees the new version');
  const third = await upload('docs', zip(entries(versionFiles(3))), '', await s.token('operator', ['sites:publish']));
  assert.equal(third.body.version, 3);
  assert.equal((await viaEdge(s.httpPort, 'docs.sites.test', '/assets/f0.txt')).body, 'version 3 file 0\n');
  assert.equal((await viaEdge(s.httpPort, 'docs.sites.test', '/sub/page.html')).status, 404, 'a version holds exactly its own files');

  const site = await s.api('GET', '/api/v1/sites/docs');
  assert.equal(site.body.version, 3);
  assert.equal(site.body.lastDeploy.version, 3);
  assert.equal(site.body.previewToken, undefined, 'the preview token is shown once');

  // files of the published version, and one file with its content type
  const files = await s.api('GET', '/api/v1/sites/docs/files');
  assert.deepEqual(files.body.map((f: any) => f.path), ['assets/f0.txt', 'assets/f1.txt', 'assets/f2.txt', 'index.html']);
  assert.equal(files.body[3].contentType, 'text/html; charset=utf-8');
  assert.match(files.body[3].sha256, /^[0-9a-f]{64}$/);
  const file = await s.api('GET', '/api/v1/sites/docs/file?path=index.html');
  assert.equal(file.status, 200);
  assert.equal(file.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(file.text, '<p>version 3</p>\n');
  assert.equal((await s.api('GET', '/api/v1/sites/docs/file?path=nope.html')).status, 404);
  assert.equal((await s.api('GET', '/api/v1/sites/docs/file?path=../etc/passwd')).status, 400);

  // restore version 2: a new number with version 2's files
  const restored = await s.api('POST', '/api/v1/sites/docs/restore', { body: { version: 2 } });
  assert.equal(restored.status, 200, restored.text);
  assert.equal(restored.body.version, 4);
  assert.equal((await viaEdge(s.httpPort, 'docs.sites.test', '/sub/page.html')).body, '<h1>sub</h1>');
  const versions = await s.api('GET', '/api/v1/sites/docs/versions');
  assert.deepEqual(versions.body.map((v: any) => [v.number, v.from]), [[4, 'restore'], [3, 'upload'], [2, 'upload']], 'keepVersions 3 dropped version 1');
  assert.equal(versions.body[0].restoredFrom, 2);
  assert.equal(versions.body[0].fileCount, 5);
  assert.equal(versions.body[0].published, true);
  assert.equal(versions.body[1].by, versions.body[1].actor.name);
  assert.equal((await s.api('POST', '/api/v1/sites/docs/restore', { body: { version: 1 } })).status, 404, 'a pruned version cannot be restored');
  assert.equal((await s.api('POST', '/api/v1/sites/docs/restore', { body: { version: 'x' } })).status, 400);

  // the activity log has every write
  const activity = await s.api('GET', '/api/v1/activity?limit=50');
  const actions = activity.body.map((a: any) => a.action);
  for (const a of ['site.write', 'site.content.upload', 'site.restore']) assert.ok(actions.includes(a), `${a} in ${actions}`);

  // delete: routes, rows and files go
  const siteDir = join(s.dataDir, 'plugins', 'sites', 'sites', 'docs');
  assert.ok(existsSync(siteDir));
  assert.equal((await s.api('DELETE', '/api/v1/sites/docs')).status, 200);
  assert.equal((await s.api('GET', '/api/v1/sites/docs')).status, 404);
  assert.equal((await viaEdge(s.httpPort, 'docs.sites.test', '/')).status, 404);
  assert.ok(!existsSync(siteDir));
  assert.deepEqual(tree(join(s.dataDir, 'plugins', 'sites', 'objects')).filter((p) => !p.endsWith('objects') && !/objects\/[0-9a-f]{2}$/.test(p)), [], 'no object is left behind');
  assert.equal((await s.api('DELETE', '/api/v1/sites/docs')).status, 404);
});

test('every refused archive writes nothing: zip-slip, absolute, link out, too many files, too big, not an archive', async () => {
  assert.equal((await s.api('PUT', '/api/v1/sites/strict', { body: { hostnames: ['strict.sites.test'] } })).status, 201);
  assert.equal((await upload('strict', tar(entries(versionFiles(1))))).status, 200);
  const before = tree(join(s.dataDir, 'plugins', 'sites'));
  const refused: [string, Buffer, number][] = [
    ['zip-slip (tar)', tar([{ name: 'index.html', content: 'x' }, { name: '../evil.html', content: 'x' }]), 422],
    ['zip-slip (zip)', zip([{ name: 'a/../../evil.html', content: 'x' }]), 422],
    ['absolute', tgz([{ name: '/etc/evil', content: 'x' }]), 422],
    ['link out', tar([{ name: 'index.html', content: 'x' }, { name: 'out', type: 'symlink', target: '../../../../etc' }]), 422],
    ['link out (zip)', zip([{ name: 'out', type: 'symlink', target: '/etc/passwd' }]), 422],
    ['a device', tar([{ name: 'dev', type: 'chardev' }]), 422],
    ['too many files', tar(Array.from({ length: 51 }, (_, i) => ({ name: `f${i}.txt`, content: 'x' }))), 413],
    ['too big', tar([{ name: 'big.bin', content: 'x'.repeat(100_001) }]), 413],
    ['not an archive', Buffer.from('hello, not an archive at all'), 415],
  ];
  for (const [what, body, status] of refused) {
    const res = await upload('strict', body);
    assert.equal(res.status, status, `${what}: ${res.text}`);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.deepEqual(tree(join(s.dataDir, 'plugins', 'sites')), before, `${what} wrote nothing`);
    assert.equal((await upload('strict', body, '?draft=1')).status, status, `${what} into the draft`);
    assert.deepEqual(tree(join(s.dataDir, 'plugins', 'sites')), before, `${what} wrote nothing into the draft`);
  }
  const site = await s.api('GET', '/api/v1/sites/strict');
  assert.equal(site.body.version, 1);
  assert.equal(site.body.draft, null);
  assert.equal((await viaEdge(s.httpPort, 'strict.sites.test', '/')).body, '<p>version 1</p>\n');
  assert.equal((await upload('strict', Buffer.alloc(0))).status, 400);
  assert.equal((await upload('missing', tar(entries(versionFiles(1))))).status, 404);
});

test('hostname ownership: a taken hostname is a 409 naming its owner; scopes; bad input', async () => {
  assert.equal((await s.api('PUT', '/api/v1/sites/first', { body: { hostnames: ['shared.sites.test'] } })).status, 201);
  const taken = await s.api('PUT', '/api/v1/sites/second', { body: { hostnames: ['other.sites.test', 'SHARED.sites.test'] } });
  assert.equal(taken.status, 409, taken.text);
  assert.match(taken.body.detail, /shared\.sites\.test belongs to site:first/);
  assert.equal((await s.api('GET', '/api/v1/sites/second')).status, 404, 'a refused site is not created');
  assert.equal((await s.api('PUT', '/api/v1/sites/first', { body: { hostnames: ['shared.sites.test', 'www.shared.sites.test'] } })).status, 200, 'a site keeps its own hostnames');
  const edge = await s.api('GET', '/api/v1/edge');
  assert.deepEqual(edge.body.hostnames.filter((h: any) => h.owner === 'site:first').map((h: any) => h.hostname).sort(), ['draft--first.preview.test', 'shared.sites.test', 'www.shared.sites.test']);
  assert.ok(!JSON.stringify(edge.body).includes('"hash"'), 'the preview password hash stays inside the edge');

  for (const body of [{ hostnames: ['*.x.test'] }, { hostnames: ['a b'] }, { hostnames: ['localhost'] }, { hostnames: ['localhost.'] }, { hostnames: ['LocalHost'] },
    { hostnames: ['foo.localhost'] }, { hostnames: ['ok.sites.test', 'a.b.LOCALHOST.'] },
    // preview hostnames are the previews' alone: another site's, or one of a site still to come
    { hostnames: ['draft--first.preview.test'] }, { hostnames: ['DRAFT--later.Preview.Test.'] }, { hostnames: ['draft--bad.preview.test'] }, { hostnames: 'x' }, {}, { hostnames: [], source: { url: 'http://plain.example/repo.git' } },
    { hostnames: [], source: { url: 'https://example.test/r.git', path: '../up' } }, { hostnames: [], extra: 1 }]) {
    const res = await s.api('PUT', '/api/v1/sites/bad', { body });
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
  }
  assert.equal((await s.api('PUT', '/api/v1/sites/Bad_Name', { body: { hostnames: [] } })).status, 400);

  const reader = await s.token('viewer', ['sites:read']);
  const writer = await s.token('operator', ['sites:write']);
  assert.equal((await call(s.url, 'GET', '/api/v1/sites', { token: reader })).status, 200);
  assert.equal((await call(s.url, 'PUT', '/api/v1/sites/nope', { token: reader, body: { hostnames: [] } })).status, 403);
  assert.equal((await call(s.url, 'PUT', '/api/v1/sites/first/content', { token: writer, raw: new Uint8Array(tar(entries(versionFiles(1)))) })).status, 403, 'uploads need sites:publish');
  assert.equal((await call(s.url, 'POST', '/api/v1/sites/first/restore', { token: writer, body: { version: 1 } })).status, 403);
  assert.equal((await call(s.url, 'POST', '/api/v1/sites/first/draft/publish', { token: writer })).status, 403);
  assert.equal((await call(s.url, 'GET', '/api/v1/sites')).status, 401);
});

test('two writers at once: concurrent uploads each get their own version, the last one is served whole', async () => {
  assert.equal((await s.api('PUT', '/api/v1/sites/race', { body: { hostnames: ['race.sites.test'] } })).status, 201);
  const answers = await Promise.all([1, 2, 3, 4].map((n) => upload('race', tar(entries(versionFiles(n))))));
  assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200]);
  assert.deepEqual(answers.map((a) => a.body.version).sort(), [1, 2, 3, 4]);
  const site = await s.api('GET', '/api/v1/sites/race');
  assert.equal(site.body.version, 4);
  const served = (await viaEdge(s.httpPort, 'race.sites.test', '/')).body;
  const n = /version (\d)/.exec(served)![1];
  assert.equal((await viaEdge(s.httpPort, 'race.sites.test', '/assets/f1.txt')).body, `version ${n} file 1\n`);
});

test('uploads are exempt from the rate limit: beyond the budget they still publish while a GET gets 429', async () => {
  const tight = await startSitesServer({ config: { rateLimit: { perMinute: 3 } } });
  try {
    const token = await tight.token('operator', ['sites:read', 'sites:write', 'sites:publish']);
    const created = await call(tight.url, 'PUT', '/api/v1/sites/budget', { token, body: { hostnames: ['budget.sites.test'] } });
    assert.equal(created.status, 201, created.text);
    const reads = await Promise.all(Array.from({ length: 4 }, () => call(tight.url, 'GET', '/api/v1/sites/budget', { token })));
    assert.ok(reads.some((r) => r.status === 429), 'the budget of 3 is spent');
    for (let version = 1; version <= 4; version++) {
      const put = await call(tight.url, 'PUT', '/api/v1/sites/budget/content', { token, raw: new Uint8Array(tar(entries(versionFiles(version)))), headers: { 'content-type': 'application/octet-stream' } });
      assert.equal(put.status, 200, put.text);
      assert.equal(put.body.version, version);
      assert.equal(put.headers.get('ratelimit'), null, 'an upload neither counts nor announces a budget');
    }
    const after = await call(tight.url, 'GET', '/api/v1/sites/budget', { token });
    assert.equal(after.status, 429, 'normal requests stay limited');
    assert.ok(Number(after.headers.get('retry-after')) > 0);
  } finally {
    await tight.close();
  }
});
