// The harness's response contract can tell: a body, status or media type the served document does not describe fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { checkContract } from '../../sdk/testing/contract.ts';
import { startServer, type TestServer } from '../helpers/harness.ts';

let s: TestServer;
before(async () => { s = await startServer(); });
after(async () => { await s?.close(); });

const item = '/api/v1/probe/items/a';
const answer = (status: number, body: unknown, contentType = 'application/json') => ({ status, contentType, body, text: JSON.stringify(body) });

test('an answer that matches its operation passes; a real answer of the server passes', async () => {
  await checkContract(s.url, 'GET', item, answer(200, { name: 'a', value: 'v', revision: 1 }));
  await checkContract(s.url, 'GET', item, answer(404, { type: 'https://dockwright.dev/problems/not-found', title: 'Not Found', status: 404, detail: 'no' }, 'application/problem+json'));
  assert.equal((await s.api('GET', item)).status, 404);
});

test('a body that breaks the schema, an undocumented status and another media type fail, naming the operation', async () => {
  await assert.rejects(checkContract(s.url, 'GET', item, answer(200, { name: 'a', value: 3 })), /GET \/api\/v1\/probe\/items\/\{name\} answered 200 with a body that breaks its schema: .*\/value must be string/s);
  await assert.rejects(checkContract(s.url, 'GET', item, answer(418, {})), /answered 418, a status the OpenAPI document does not list/);
  await assert.rejects(checkContract(s.url, 'GET', item, answer(200, 'x', 'text/html')), /answered 200 as text\/html, documented as application\/json/);
  await assert.rejects(checkContract(s.url, 'GET', item, answer(404, { detail: 'no' }, 'application/problem+json')), /breaks its schema: .*must have required property 'type'/s);
});
