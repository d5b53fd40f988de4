// Revisions: create with If-None-Match or revision 0, 428 without a base, 412 when stale, one winner among concurrent writers, history and restore.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/harness.ts';

let s: TestServer;
before(async () => { s = await startServer(); });
after(async () => { await s.close(); });

test('create with If-None-Match: * or revision 0; creating again is a 409', async () => {
  const a = await s.api('PUT', '/api/v1/probe/items/one', { body: { value: 'a' }, headers: { 'if-none-match': '*' } });
  assert.equal(a.status, 200);
  assert.equal(a.body.revision, 1);
  const b = await s.api('PUT', '/api/v1/probe/items/two', { body: { value: 'b', revision: 0 } });
  assert.equal(b.body.revision, 1);
  const again = await s.api('PUT', '/api/v1/probe/items/one', { body: { value: 'c' }, headers: { 'if-none-match': '*' } });
  assert.equal(again.status, 409);
  assert.equal(again.body.currentRevision, 1);
  assert.equal((await s.api('GET', '/api/v1/probe/items/one')).body.value, 'a');
});

test('a write without a base revision is a 428; a bad If-Match is a 400', async () => {
  await s.api('PUT', '/api/v1/probe/items/base', { body: { value: 'a', revision: 0 } });
  const missing = await s.api('PUT', '/api/v1/probe/items/base', { body: { value: 'b' } });
  assert.equal(missing.status, 428);
  assert.equal(missing.headers.get('content-type'), 'application/problem+json');
  assert.equal((await s.api('PUT', '/api/v1/probe/items/base', { body: { value: 'b' }, headers: { 'if-match': 'yesterday' } })).status, 400);
  assert.equal((await s.api('GET', '/api/v1/probe/items/base')).body.value, 'a');
});

test('If-Match or body revision; a stale one is a 412 with currentRevision and changes nothing', async () => {
  await s.api('PUT', '/api/v1/probe/items/stale', { body: { value: 'v1', revision: 0 } });
  const viaHeader = await s.api('PUT', '/api/v1/probe/items/stale', { body: { value: 'v2' }, headers: { 'if-match': '"1"' } });
  assert.equal(viaHeader.body.revision, 2);
  assert.equal(viaHeader.headers.get('etag'), '"2"');
  const viaBody = await s.api('PUT', '/api/v1/probe/items/stale', { body: { value: 'v3', revision: 2 } });
  assert.equal(viaBody.body.revision, 3);
  const stale = await s.api('PUT', '/api/v1/probe/items/stale', { body: { value: 'lost', revision: 2 } });
  assert.equal(stale.status, 412);
  assert.equal(stale.body.currentRevision, 3);
  const read = await s.api('GET', '/api/v1/probe/items/stale');
  assert.deepEqual([read.body.value, read.body.revision], ['v3', 3]);
  assert.equal((await s.api('PUT', '/api/v1/probe/items/absent', { body: { value: 'x', revision: 4 } })).status, 404);
});

test('two concurrent writers with the same revision: exactly one wins, every time', async () => {
  for (let round = 0; round < 10; round++) {
    const name = `race-${round}`;
    await s.api('PUT', `/api/v1/probe/items/${name}`, { body: { value: 'start', revision: 0 } });
    const [x, y] = await Promise.all([
      s.api('PUT', `/api/v1/probe/items/${name}`, { body: { value: 'x', revision: 1 } }),
      s.api('PUT', `/api/v1/probe/items/${name}`, { body: { value: 'y', revision: 1 } }),
    ]);
    assert.deepEqual([x.status, y.status].sort(), [200, 412], `round ${round}`);
    const winner = x.status === 200 ? 'x' : 'y';
    const read = await s.api('GET', `/api/v1/probe/items/${name}`);
    assert.deepEqual([read.body.value, read.body.revision], [winner, 2]);
  }
  const creators = await Promise.all(Array.from({ length: 5 }, (_, i) => s.api('PUT', '/api/v1/probe/items/born', { body: { value: `c${i}`, revision: 0 } })));
  assert.deepEqual(creators.map((c) => c.status).sort(), [200, 409, 409, 409, 409]);
});

test('every write is a snapshot; restoring revision k makes a new revision equal to k', async () => {
  for (const [i, value] of ['one', 'two', 'three', 'four'].entries()) {
    await s.api('PUT', '/api/v1/probe/items/hist', { body: { value, revision: i } });
  }
  const list = await s.api('GET', '/api/v1/probe/items/hist/revisions?limit=2');
  assert.deepEqual(list.body.map((r: any) => r.revision), [4, 3]);
  assert.equal(list.body[0].author.kind, 'user');
  const link = list.headers.get('link')!;
  assert.match(link, /rel="next"/);
  const next = await s.api('GET', link.slice(1, link.indexOf('>')));
  assert.deepEqual(next.body.map((r: any) => r.revision), [2, 1]);
  const restored = await s.api('POST', '/api/v1/probe/items/hist/revisions/2/restore');
  assert.deepEqual([restored.body.value, restored.body.revision], ['two', 5]);
  assert.equal((await s.api('POST', '/api/v1/probe/items/hist/revisions/99/restore')).status, 404);
});

test('delete needs the current revision and removes the history', async () => {
  await s.api('PUT', '/api/v1/probe/items/gone', { body: { value: 'a', revision: 0 } });
  assert.equal((await s.api('DELETE', '/api/v1/probe/items/gone', { headers: { 'if-match': '"7"' } })).status, 412);
  assert.equal((await s.api('DELETE', '/api/v1/probe/items/gone')).status, 428);
  assert.equal((await s.api('DELETE', '/api/v1/probe/items/gone', { headers: { 'if-match': '"1"' } })).status, 204);
  assert.equal((await s.api('GET', '/api/v1/probe/items/gone')).status, 404);
  assert.deepEqual((await s.api('GET', '/api/v1/probe/items/gone/revisions')).body, []);
});
