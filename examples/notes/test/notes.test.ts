// The notes plugin, installed by package name, against a real kernel on a throw-away database: read, revisioned write, job.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel } from 'dockwright/sdk/testing';

let kit: TestKernel;
before(async () => { kit = await startTestKernel({ plugins: { notes: { package: 'dockwright-plugin-notes', options: { maxLength: 100 } } } }); });
after(async () => { await kit?.close(); });

test('create, read, update with the revision, refuse a stale one', async () => {
  const created = await kit.request<{ revision: number }>('PUT', '/api/v1/notes/todo', { body: { text: 'buy milk' }, headers: { 'if-none-match': '*' } });
  assert.equal(created.status, 200);
  assert.equal(created.body.revision, 1);
  const read = await kit.request<{ text: string }>('GET', '/api/v1/notes/todo');
  assert.equal(read.body.text, 'buy milk');
  const updated = await kit.request<{ revision: number }>('PUT', '/api/v1/notes/todo', { body: { text: 'buy oat milk' }, headers: { 'if-match': '"1"' } });
  assert.equal(updated.body.revision, 2);
  const stale = await kit.request<{ currentRevision: number }>('PUT', '/api/v1/notes/todo', { body: { text: 'x' }, headers: { 'if-match': '"1"' } });
  assert.equal(stale.status, 412);
  assert.equal(stale.body.currentRevision, 2);
  assert.equal((await kit.request('PUT', '/api/v1/notes/todo', { body: { text: 'no revision' } })).status, 428);
  assert.equal((await kit.request('PUT', '/api/v1/notes/long', { body: { text: 'x'.repeat(101) }, headers: { 'if-none-match': '*' } })).status, 400);
});

test('a missing note is a 404 problem; a viewer may read but not write', async () => {
  const missing = await kit.request<{ status: number }>('GET', '/api/v1/notes/nothing');
  assert.equal(missing.status, 404);
  const viewer = await kit.token(['notes:read']);
  assert.equal((await kit.request('GET', '/api/v1/notes/nothing', { token: viewer })).status, 404);
  assert.equal((await kit.request('PUT', '/api/v1/notes/x', { token: viewer, body: { text: 'x' }, headers: { 'if-none-match': '*' } })).status, 403);
});

test('the word count runs as a job', async () => {
  await kit.request('PUT', '/api/v1/notes/words', { body: { text: 'one two three' }, headers: { 'if-none-match': '*' } });
  const started = await kit.request<{ jobId: string }>('POST', '/api/v1/notes/words/count');
  assert.equal(started.status, 202);
  const job = await kit.request<{ status: string; result: { words: number } }>('GET', `/api/v1/jobs/${started.body.jobId}/wait`, { query: { timeout: 30 } });
  assert.equal(job.body.status, 'succeeded');
  assert.deepEqual(job.body.result, { words: 3 });
});
