// The plugin test kit from source: two kernels at once on their own embedded databases, typed calls of route values, scoped tokens.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { defineRoute, Type } from '../../sdk/index.ts';
import { startTestKernel, type TestKernel } from '../../kernel/test-kit.ts';
import { probePath } from '../helpers/harness.ts';

const kits: TestKernel[] = [];
after(async () => { await Promise.all(kits.map((k) => k.close())); });

const Item = Type.Object({ name: Type.String(), value: Type.String(), revision: Type.Integer() });
// the probe plugin's own routes, as a test (or a client) declares them to call them typed
const readItem = defineRoute({
  method: 'GET', path: '/probe/items/:name', scopes: ['probe:read'], summary: 'read', params: Type.Object({ name: Type.String() }), response: Item,
  handler: async () => { throw new Error('only called over HTTP'); },
});
const writeItem = defineRoute({
  method: 'PUT', path: '/probe/items/:name', scopes: ['probe:write'], summary: 'write', revision: 'required',
  params: Type.Object({ name: Type.String() }), body: Type.Object({ value: Type.String() }), response: Item,
  handler: async () => { throw new Error('only called over HTTP'); },
});

test('two kernels start at once, each on its own throw-away embedded database, and answer typed calls', async () => {
  const started = Date.now();
  const [a, b] = await Promise.all([0, 1].map(() => startTestKernel({ plugins: { probe: { path: probePath } } })));
  kits.push(a, b);
  const seconds = (Date.now() - started) / 1000;
  assert.ok(seconds < 60, `both kernels took ${seconds} s`);

  const written = await a.call(writeItem, { params: { name: 'one' }, body: { value: 'in a' }, headers: { 'if-none-match': '*' } });
  assert.equal(written.status, 200);
  const value: string = written.body.value;
  assert.equal(value, 'in a');
  assert.equal((await a.call(readItem, { params: { name: 'one' } })).body.revision, 1);
  assert.equal((await b.call(readItem, { params: { name: 'one' } })).status, 404, 'the other kernel has a database of its own');

  const reader = await a.token(['probe:read']);
  assert.equal((await a.call(readItem, { params: { name: 'one' }, token: reader })).status, 200);
  assert.equal((await a.call(writeItem, { params: { name: 'two' }, body: { value: 'x' }, token: reader, headers: { 'if-none-match': '*' } })).status, 403);
});

test('a kernel that cannot boot leaves nothing behind and says why', async () => {
  await assert.rejects(startTestKernel({ plugins: { nowhere: { path: 'tests/fixtures/does-not-exist/index.ts' } } }), /plugin "nowhere" could not be loaded/);
});
