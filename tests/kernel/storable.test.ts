// Strings PostgreSQL cannot store (NUL, lone surrogates) in query, params, JSON bodies and headers: 400 at validation, never a 500, nothing written.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startServer, type TestServer } from '../helpers/harness.ts';

let s: TestServer;
const template = { description: 'a greeting', compose: 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["echo", "${TITLE}"]\n', inputs: { properties: { title: { type: 'string' } } } };

before(async () => {
  s = await startServer({
    plugins: {
      // no engine: validation and storage are what is tested here, and nothing may reach a container
      docker: { options: { socketPath: '/nonexistent/dockwright/docker.sock', reconcile: false } },
      stacks: { options: { templates: { greeting: template } } },
      git: {},
      probe: { path: 'tests/fixtures/probe-plugin/index.ts' },
    },
  });
  const created = await s.api('PUT', '/api/v1/stacks/nul/compose', { body: { content: 'services:\n  app:\n    image: dockwright-test/busybox:1\n' }, headers: { 'if-none-match': '*' } });
  assert.equal(created.status, 200, created.text);
  const fromTemplate = await s.api('PUT', '/api/v1/stacks/nul-t/compose', { body: { template: 'greeting', settings: { title: 'hi' } }, headers: { 'if-none-match': '*' } });
  assert.equal(fromTemplate.status, 200, fromTemplate.text);
});
after(async () => { await s?.close(); });

function assertRefused(res: { status: number; headers: Headers; body: any; text: string }, path: string) {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.headers.get('content-type'), 'application/problem+json');
  assert.equal(res.body.type, 'https://dockwright.dev/problems/invalid-request');
  assert.deepEqual(res.body.errors.map((e: any) => e.path), [path], res.text);
}

test('NUL in the query strings of the issue: 400 naming the parameter', async () => {
  for (const [path, where] of [
    ['/api/v1/jobs?type=a%00b', '/query/type'],
    ['/api/v1/jobs?resource=a%00b', '/query/resource'],
    ['/api/v1/activity?resource=%00', '/query/resource'],
    ['/api/v1/activity?action=stack%00*', '/query/action'],
    ['/api/v1/stacks?cursor=a%00', '/query/cursor'],
    ['/api/v1/me?unused=%00', '/query/unused'],
  ] as const) assertRefused(await s.api('GET', path), where);
});

test('NUL in a path parameter: 400', async () => {
  assertRefused(await s.api('POST', '/api/v1/probe/items/a%00b/revisions/1/restore'), '/params/name');
});

test('NUL or a lone surrogate in JSON bodies (compose content, message, env message, template settings): 400, nothing saved', async () => {
  const content = 'services:\n  app:\n    image: dockwright-test/busybox:1\n';
  const cases: [string, string, unknown, string][] = [
    ['PUT', '/api/v1/stacks/nul/compose', { content: `${content}# a\u0000b\n`, revision: 1 }, '/body/content'],
    ['PUT', '/api/v1/stacks/nul/compose', { content, message: 'a\u0000b', revision: 1 }, '/body/message'],
    ['PUT', '/api/v1/stacks/nul/compose', { content, message: 'half \ud800 a pair', revision: 1 }, '/body/message'],
    ['PUT', '/api/v1/stacks/nul/compose', { content, message: 'the other half \udc00', revision: 1 }, '/body/message'],
    ['PUT', '/api/v1/stacks/nul/env', { values: { A: 'x' }, message: 'a\u0000b', revision: 1 }, '/body/message'],
    ['PUT', '/api/v1/stacks/nul/env', { values: { A: 'x\u0000' }, revision: 1 }, '/body/values/A'],
    ['PUT', '/api/v1/stacks/nul-t/settings', { settings: { title: 'a\u0000b' }, revision: 1 }, '/body/settings/title'],
    ['PUT', '/api/v1/stacks/nul-t/settings', { settings: { 'ti\u0000tle': 'x' }, revision: 1 }, '/body/settings/ti\u0000tle'],
    ['PUT', '/api/v1/stacks/nul-new/compose', { template: 'greeting', settings: { title: '\u0000' }, revision: 0 }, '/body/settings/title'],
    ['POST', '/api/v1/stacks/nul/validate', { content: `${content}# \u0000\n` }, '/body/content'],
  ];
  for (const [method, path, body, where] of cases) assertRefused(await s.api(method, path, { body }), where);
  assert.equal((await s.api('GET', '/api/v1/stacks/nul')).body.revision, 1, 'nothing was written');
  assert.equal((await s.api('GET', '/api/v1/stacks/nul-t')).body.revision, 1);
  assert.equal((await s.api('GET', '/api/v1/stacks/nul-new')).status, 404);
  // a surrogate pair is a real character and is kept
  const emoji = await s.api('PUT', '/api/v1/stacks/nul/compose', { body: { content, message: 'ship it \ud83d\ude80', revision: 1 } });
  assert.equal(emoji.status, 200, emoji.text);
  const revision = await s.api('GET', '/api/v1/stacks/nul/revisions/2');
  assert.equal(revision.body.message, 'ship it 🚀');
});

test('a JSON body sent to a raw-body receiver is checked too', async () => {
  const res = await fetch(`${s.url}/api/stacks/nul/github`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'push' }, body: '{"ref":"refs/heads/a\\u0000"}' });
  assert.equal(res.status, 400);
  assert.deepEqual((await res.json()).errors.map((e: any) => e.path), ['/body/ref']);
});

test('NUL in a header: the parser refuses it with a 400 problem, and the service goes on', async () => {
  const url = new URL(s.url);
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.end(`GET /api/v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.admin}\r\nX-Request-Id: a\u0000b\r\n\r\n`));
    let text = '';
    socket.on('data', (d) => { text += d; });
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
  assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(answer, /Content-Type: application\/problem\+json/);
  assert.equal(JSON.parse(answer.split('\r\n\r\n')[1]).status, 400);
  assert.equal((await s.api('GET', '/api/v1/me')).status, 200);
});
