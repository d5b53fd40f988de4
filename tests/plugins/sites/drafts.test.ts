// Drafts over the real API and Caddy: write (not served), preview host behind basic auth with the preview token, publish, discard, token rotation; publishing under load.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { call } from '../../helpers/harness.ts';
import { basic, edgeAnswers, edgeRunning, entries, getVia, startSitesServer, tar, versionFiles, viaEdge, type SitesServer } from './helpers.ts';

let s: SitesServer;
before(async () => {
  s = await startSitesServer();
  await edgeRunning(s);
});
after(() => s.close());

const upload = (name: string, body: Buffer) => call(s.url, 'PUT', `/api/v1/sites/${name}/content`, { token: s.admin, raw: new Uint8Array(body) });

test('draft: written, not served, previewed with the token only; publish; discard; token rotation', async () => {
  const created = await s.api('PUT', '/api/v1/sites/blog', { body: { hostnames: ['blog.sites.test'] } });
  const token = created.body.previewToken as string;
  await upload('blog', tar(entries(versionFiles(1))));
  await edgeAnswers(s.httpPort, 'blog.sites.test', '/', (a) => a.body.includes('version 1'));
  const preview = 'draft--blog.preview.test';

  // without a draft: the list is the published files, the preview has nothing
  assert.equal((await s.api('GET', '/api/v1/sites/blog/draft/files')).body.length, 4);
  assert.equal((await s.api('DELETE', '/api/v1/sites/blog/draft')).status, 404);
  assert.equal((await s.api('POST', '/api/v1/sites/blog/draft/publish')).status, 409);

  const write = await s.api('PUT', '/api/v1/sites/blog/draft/files', { body: {
    files: { 'index.html': { content: '<p>draft</p>' }, 'new/logo.svg': { content: Buffer.from('<svg/>').toString('base64'), encoding: 'base64' } },
    delete: ['assets/f0.txt'],
  } });
  assert.equal(write.status, 200, write.text);
  assert.equal(write.body.files, 4);
  assert.equal(write.body.basedOn, 1);
  assert.equal(write.body.previewUrl, `http://${preview}:${s.httpPort}/`, "the preview link keeps the edge's port");
  assert.deepEqual((await s.api('GET', '/api/v1/sites/blog/draft/files')).body.map((f: any) => [f.path, f.contentType]),
    [['assets/f1.txt', 'text/plain; charset=utf-8'], ['assets/f2.txt', 'text/plain; charset=utf-8'], ['index.html', 'text/html; charset=utf-8'], ['new/logo.svg', 'image/svg+xml']]);
  assert.equal((await viaEdge(s.httpPort, 'blog.sites.test', '/')).body, '<p>version 1</p>\n', 'the draft is not served');
  const site = await s.api('GET', '/api/v1/sites/blog');
  assert.equal(site.body.draft.files, 4);
  assert.ok(!JSON.stringify(site.body).includes(token), 'no answer holds the preview token');

  // the preview host: 401 without or with a wrong password, the draft with the token
  const none = await getVia(s.httpPort, preview, '/');
  assert.equal(none.status, 401);
  assert.match(String(none.headers['www-authenticate']), /Basic/);
  assert.equal((await getVia(s.httpPort, preview, '/', basic('preview', 'wrong'))).status, 401);
  assert.equal((await getVia(s.httpPort, preview, '/', basic('admin', token))).status, 401);
  const ok = await getVia(s.httpPort, preview, '/', basic('preview', token));
  assert.equal(ok.status, 200);
  assert.equal(ok.body, '<p>draft</p>');
  assert.equal((await getVia(s.httpPort, preview, '/new/logo.svg', basic('preview', token))).body, '<svg/>');
  assert.equal((await getVia(s.httpPort, preview, '/assets/f0.txt', basic('preview', token))).status, 404);

  // a second write builds on the draft, bad input changes nothing
  assert.equal((await s.api('PUT', '/api/v1/sites/blog/draft/files', { body: { files: { 'about.html': { content: 'about' } } } })).body.files, 5);
  for (const body of [{ files: { '../x': { content: 'x' } } }, { delete: ['/etc/passwd'] }, {}, { files: { 'a': { content: 'x', encoding: 'hex' } } }]) {
    assert.equal((await s.api('PUT', '/api/v1/sites/blog/draft/files', { body })).status, 400, JSON.stringify(body));
  }
  assert.equal((await s.api('PUT', '/api/v1/sites/blog/draft/files', { body: { delete: ['nope.html'] } })).status, 422);
  assert.equal((await s.api('PUT', '/api/v1/sites/blog/draft/files', { body: { files: { 'index.html/x': { content: 'x' } } } })).status, 422);
  assert.equal((await s.api('GET', '/api/v1/sites/blog/draft/files')).body.length, 5);

  // publish: served, draft gone
  const published = await s.api('POST', '/api/v1/sites/blog/draft/publish');
  assert.equal(published.status, 200, published.text);
  assert.equal(published.body.version, 2);
  assert.equal((await viaEdge(s.httpPort, 'blog.sites.test', '/')).body, '<p>draft</p>');
  assert.equal((await viaEdge(s.httpPort, 'blog.sites.test', '/about.html')).body, 'about');
  assert.equal((await s.api('GET', '/api/v1/sites/blog')).body.draft, null);
  assert.equal((await getVia(s.httpPort, preview, '/', basic('preview', token))).status, 404, 'no draft to preview');
  assert.equal((await s.api('GET', '/api/v1/sites/blog/versions')).body[0].from, 'draft');

  // discard
  await s.api('PUT', '/api/v1/sites/blog/draft/files', { body: { files: { 'index.html': { content: 'discard me' } } } });
  assert.equal((await getVia(s.httpPort, preview, '/', basic('preview', token))).body, 'discard me');
  assert.equal((await s.api('DELETE', '/api/v1/sites/blog/draft')).status, 200);
  assert.equal((await getVia(s.httpPort, preview, '/', basic('preview', token))).status, 404);
  assert.equal((await viaEdge(s.httpPort, 'blog.sites.test', '/')).body, '<p>draft</p>');

  // an archive into the draft
  const drafted = await call(s.url, 'PUT', '/api/v1/sites/blog/content?draft=1', { token: s.admin, raw: new Uint8Array(tar(entries(versionFiles(9)))) });
  assert.equal(drafted.status, 200, drafted.text);
  assert.equal(drafted.body.draft.files, 4);
  assert.equal((await getVia(s.httpPort, preview, '/', basic('preview', token))).body, '<p>version 9</p>\n');
  assert.equal((await viaEdge(s.httpPort, 'blog.sites.test', '/')).body, '<p>draft</p>');

  // rotation: the old token stops working at once
  const rotated = await s.api('POST', '/api/v1/sites/blog/draft/token');
  assert.equal(rotated.status, 200);
  assert.notEqual(rotated.body.previewToken, token);
  assert.equal((await getVia(s.httpPort, preview, '/', basic('preview', token))).status, 401);
  assert.equal((await getVia(s.httpPort, preview, '/', basic('preview', rotated.body.previewToken))).status, 200);
  const actions = (await s.api('GET', '/api/v1/activity?limit=100')).body.map((a: any) => a.action);
  for (const a of ['site.draft.write', 'site.draft.publish', 'site.draft.discard', 'site.preview.rotate']) assert.ok(actions.includes(a), a);
});

/** keep-alive readers of a site: every response must be 200 and hold one version number only, and each reader's versions only advance */
const readerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
let running = true;
parentPort.on('message', () => { running = false; });
const failures = [], mixed = [];
let requests = 0;
function get(agent, path) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port: workerData.port, path, headers: { host: workerData.host }, agent, timeout: 5000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (e) => resolve({ status: 0, body: e.message }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ status: 0, body: e.message }));
    req.end();
  });
}
async function reader(i) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let last = -1;
  for (let k = i; running; k++) {
    const path = workerData.paths[k % workerData.paths.length];
    const got = await get(agent, path);
    requests++;
    if (got.status !== 200) { failures.push(path + ': ' + got.status + ' ' + got.body.slice(0, 80)); continue; }
    const first = /v(?:ersion )?(\\d+)/.exec(got.body);
    const n = first ? Number(first[1]) : NaN;
    const other = got.body.replace(new RegExp('v(ersion )?' + n + '(?!\\\\d)', 'g'), '');
    if (!first || /v(ersion )?\\d/.test(other)) { mixed.push(path + ': more than one version in one answer'); continue; }
    if (n < last) mixed.push(path + ': went back from ' + last + ' to ' + n);
    last = n;
  }
  agent.destroy();
}
Promise.all(Array.from({ length: workerData.readers }, (_, i) => reader(i))).then(() => parentPort.postMessage({ requests, failures, mixed }));
`;

test('50 publishes while a load generator reads: no failed request, no response mixing two versions, versions only advance', async () => {
  await s.api('PUT', '/api/v1/sites/load', { body: { hostnames: ['load.sites.test'] } });
  // every file of version n names n many times: a response holding two numbers mixes versions
  const filesOf = (n: number) => {
    const f = versionFiles(n, 20);
    f['big.txt'] = `v${n};`.repeat(40_000);
    return f;
  };
  assert.equal((await upload('load', tar(entries(filesOf(0))))).status, 200);
  await edgeAnswers(s.httpPort, 'load.sites.test', '/', (a) => a.status === 200);
  // the readers run in a worker thread: in this thread they would compete with the server for the event loop
  const worker = new Worker(readerSource, { eval: true, workerData: { port: s.httpPort, host: 'load.sites.test', paths: ['/', '/big.txt', '/assets/f3.txt', '/assets/f17.txt'], readers: 6 } });
  const report = new Promise<{ requests: number; failures: string[]; mixed: string[] }>((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
  const answers: number[] = [];
  try {
    for (let n = 1; n <= 50; n++) answers.push((await upload('load', tar(entries(filesOf(n))))).status);
  } finally {
    worker.postMessage('stop');
  }
  const { requests, failures, mixed } = await report;
  await worker.terminate();
  assert.deepEqual(answers, Array(50).fill(200));
  assert.deepEqual(failures, []);
  assert.deepEqual(mixed, []);
  assert.ok(requests > 100, `the load generator made ${requests} requests`);
  assert.equal((await viaEdge(s.httpPort, 'load.sites.test', '/assets/f3.txt')).body, 'version 50 file 3\n');
  assert.equal((await s.api('GET', '/api/v1/sites/load/versions?limit=1000')).body.length, 20, 'keepVersions (default 20)');
});

test('two draft writers at once: both writes land, nothing is lost', async () => {
  await s.api('PUT', '/api/v1/sites/pair', { body: { hostnames: ['pair.sites.test'] } });
  const writes = await Promise.all(Array.from({ length: 6 }, (_, i) => s.api('PUT', '/api/v1/sites/pair/draft/files', { body: { files: { [`page${i}.html`]: { content: `page ${i}` } } } })));
  assert.deepEqual(writes.map((w) => w.status), Array(6).fill(200));
  const files = (await s.api('GET', '/api/v1/sites/pair/draft/files')).body.map((f: any) => f.path);
  assert.deepEqual(files, ['page0.html', 'page1.html', 'page2.html', 'page3.html', 'page4.html', 'page5.html']);
  const [a, b] = await Promise.all([s.api('POST', '/api/v1/sites/pair/draft/publish'), s.api('POST', '/api/v1/sites/pair/draft/publish')]);
  assert.deepEqual([a.status, b.status].sort(), [200, 409], 'one publish takes the draft, the other finds none');
  assert.equal((await viaEdge(s.httpPort, 'pair.sites.test', '/page5.html')).body, 'page 5');
});

test("an editor's guard: a draft write with base goes through only over what the writer read (412 naming the change, nothing written); ?draft=1 reads a draft file", async () => {
  await s.api('PUT', '/api/v1/sites/guard', { body: { hostnames: ['guard.sites.test'] } });
  assert.equal((await upload('guard', tar(entries({ 'index.html': 'one' })))).status, 200);
  const shaOf = async (path: string) => (await s.api('GET', '/api/v1/sites/guard/draft/files')).body.find((f: any) => f.path === path)?.sha256 as string;
  const read = await shaOf('index.html');
  // without a draft, ?draft=1 answers the published file
  assert.equal((await s.api('GET', '/api/v1/sites/guard/file?path=index.html&draft=1')).text, 'one');

  // two editors read the same text and save at once: one wins, the other gets 412 naming the file and its sha256 now
  const [a, b] = await Promise.all(['mine', 'theirs'].map((content) => s.api('PUT', '/api/v1/sites/guard/draft/files', { body: { files: { 'index.html': { content } }, base: { 'index.html': read } } })));
  assert.deepEqual([a.status, b.status].sort(), [200, 412], `${a.text} ${b.text}`);
  const [won, lost] = a.status === 200 ? [a, b] : [b, a];
  assert.equal(lost.body.type.endsWith('/draft-changed'), true, lost.text);
  const winner = (await s.api('GET', '/api/v1/sites/guard/file?path=index.html&draft=1')).text;
  assert.ok(['mine', 'theirs'].includes(winner));
  assert.deepEqual(lost.body.changed, [{ path: 'index.html', sha256: await shaOf('index.html') }]);
  assert.equal(won.body.files, 1);
  assert.equal((await s.api('GET', '/api/v1/sites/guard/file?path=index.html')).text, 'one', 'the published file is untouched');

  // a new file: base null while absent; 412 once someone else has made it; the current sha256 writes
  assert.equal((await s.api('PUT', '/api/v1/sites/guard/draft/files', { body: { files: { 'new.html': { content: 'n1' } }, base: { 'new.html': null } } })).status, 200);
  const stale = await s.api('PUT', '/api/v1/sites/guard/draft/files', { body: { files: { 'new.html': { content: 'n2' } }, delete: ['index.html'], base: { 'new.html': null } } });
  assert.equal(stale.status, 412);
  assert.equal((await s.api('GET', '/api/v1/sites/guard/draft/files')).body.length, 2, 'nothing of the refused write happened (index.html still there)');
  assert.equal((await s.api('PUT', '/api/v1/sites/guard/draft/files', { body: { delete: ['new.html'], base: { 'new.html': await shaOf('new.html') } } })).status, 200);
  assert.equal((await s.api('GET', '/api/v1/sites/guard/file?path=new.html&draft=1')).status, 404);
  assert.equal((await s.api('PUT', '/api/v1/sites/guard/draft/files', { body: { delete: ['index.html'], base: { 'index.html': 'not-a-sha' } } })).status, 400);
  assert.equal((await s.api('PUT', '/api/v1/sites/guard/draft/files', { body: { delete: ['index.html'], base: { '../index.html': null } } })).status, 400);
});
