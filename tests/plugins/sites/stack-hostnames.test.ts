// Hostnames of stacks against sites (real PostgreSQL, Docker and Caddy): a saved stack holds its hostnames running or not, across instances; owners hidden from the caller stay unnamed; a deploy the edge would not route fails; preview hostnames stay the sites'.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { call } from '../../helpers/harness.ts';
import { projectContainers } from '../docker/helpers.ts';
import { act, cleanupProjects, createStack, uniqueName, waitJob, webCompose } from '../edge/helpers.ts';
import { edgeAnswers, edgeRunning, entries, startSitesServer, tar, type SitesServer } from './helpers.ts';

let s: SitesServer;
const projects: string[] = [];
before(async () => {
  s = await startSitesServer();
  await edgeRunning(s);
});
after(async () => {
  await s?.close();
  await cleanupProjects(...projects);
});

const fresh = (prefix: string) => { const n = uniqueName(prefix); projects.push(n); return n; };
const stackAnswers = (host: string, message: string) => edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.status === 200 && a.body.includes(`message=${message}`), 60_000);

test('a stack holds the hostnames of its saved compose file, never deployed, running or stopped: a site cannot take them, and a redeploy serves the stack', async () => {
  const prod = fresh('prod');
  // a hostname that does not spell the stack's name, so that an answer naming the stack shows
  const host = `${uniqueName('web')}.own.test`;
  await createStack(s, prod, webCompose(host, 'stack'));
  // hidden from the operator by its access list
  assert.equal((await s.api('POST', `/api/v1/stacks/${prod}/access`, { body: { entries: [{ principal: 'user:nobody-else', role: 'manager' }] } })).status, 200);
  const operator = await s.token('operator', ['sites:read', 'sites:write', 'sites:publish', 'stacks:read', 'stacks:write', 'stacks:deploy']);
  const grab = async (when: string) => {
    const r = await call(s.url, 'PUT', '/api/v1/sites/grab', { token: operator, body: { hostnames: [host] } });
    assert.equal(r.status, 409, `${when}: ${r.text}`);
    assert.equal(r.body.detail, `the hostname ${host} is taken by another owner`, `${when}: the hidden stack is not named`);
    assert.doesNotMatch(r.text, new RegExp(prod));
    assert.equal((await s.api('GET', '/api/v1/sites/grab')).status, 404, `${when}: nothing was created`);
  };

  await grab('never deployed');
  const admin = await s.api('PUT', '/api/v1/sites/grab', { body: { hostnames: [host] } });
  assert.equal(admin.status, 409);
  assert.equal(admin.body.detail, `the hostname ${host} belongs to stack:${prod}`, 'one who sees the stack is told its name');

  await act(s, 'deploy', prod);
  await stackAnswers(host, 'stack');
  await grab('running');
  await act(s, 'stop', prod);
  await edgeAnswers(s.httpPort, host, '/', (a) => a.status === 404);
  await grab('stopped');

  // the operator's own stack cannot name it either, and is not told whose it is
  const mine = fresh('mine');
  const put = await call(s.url, 'PUT', `/api/v1/stacks/${mine}/compose`, { token: operator, headers: { 'if-none-match': '*' }, body: { content: webCompose(host) } });
  assert.equal(put.status, 422, put.text);
  assert.deepEqual(put.body.errors.map((e: any) => [e.rule, e.message]), [['edge-hostname-taken', `the hostname ${host} is taken by another owner`]]);
  const validate = await call(s.url, 'POST', `/api/v1/stacks/${mine}/validate`, { token: operator, body: { content: webCompose(host) } });
  assert.doesNotMatch(validate.text, new RegExp(prod));
  assert.equal(validate.body.errors[0].rule, 'edge-hostname-taken');

  // another instance on the same database (a restart, a second server) knows it from PostgreSQL alone
  const otherDir = mkdtempSync(join(tmpdir(), 'dw-test-'));
  const other = await startSitesServer({ reuse: { databaseUrl: s.databaseUrl, dataDir: otherDir } });
  try {
    const r = await call(other.url, 'PUT', '/api/v1/sites/grab', { token: operator, body: { hostnames: [host.toUpperCase()] } });
    assert.equal(r.status, 409, r.text);
    assert.doesNotMatch(r.text, new RegExp(prod));
  } finally {
    await other.stop();
    rmSync(otherDir, { recursive: true, force: true });
  }

  const again = await act(s, 'deploy', prod);
  assert.equal(again.status, 'succeeded');
  await stackAnswers(host, 'stack');
  const edge = (await s.api('GET', '/api/v1/edge')).body;
  assert.deepEqual(edge.refusedRoutes.filter((r: any) => r.owner === `stack:${prod}`), []);
});

test('a hostname the saved file no longer names stays while a route serves it, and goes with the next deploy; removing the stack frees the rest', async () => {
  const moving = fresh('moving');
  const [first, second] = [`${moving}.first.test`, `${moving}.second.test`];
  await createStack(s, moving, webCompose(first, 'one'));
  await act(s, 'deploy', moving);
  await stackAnswers(first, 'one');
  const put = await s.api('PUT', `/api/v1/stacks/${moving}/compose`, { body: { content: webCompose(second, 'two') }, headers: { 'if-match': '"1"' } });
  assert.equal(put.status, 200, put.text);

  const take = (site: string, host: string) => s.api('PUT', `/api/v1/sites/${site}`, { body: { hostnames: [host] } });
  assert.equal((await take('first-taker', first)).status, 409, 'the running containers still serve it');
  assert.equal((await take('second-taker', second)).status, 409, 'the saved file names it');
  await stackAnswers(first, 'one');

  await act(s, 'deploy', moving);
  await stackAnswers(second, 'two');
  assert.equal((await take('first-taker', first)).status, 201, 'the deploy let it go');
  assert.equal((await take('second-taker', second)).status, 409);

  const removed = await s.api('DELETE', `/api/v1/stacks/${moving}`, { headers: { 'if-match': '"2"' } });
  assert.equal(removed.status, 200, removed.text);
  assert.equal((await take('second-taker', second)).status, 201, 'a removed stack holds nothing');
  const hostnames = (await s.api('GET', '/api/v1/edge')).body.hostnames;
  assert.deepEqual(hostnames.filter((h: any) => h.owner === `stack:${moving}`), []);
});

test('a deploy whose hostname another owner holds fails with the reason before touching containers; the owner keeps serving', async () => {
  const late = fresh('late');
  const host = `${late}.late.test`;
  await createStack(s, late, webCompose(host, 'late'));
  // a stack saved before hostnames were held when saved: its hostname was free for a site to take
  const db = new pg.Client({ connectionString: s.databaseUrl });
  await db.connect();
  try {
    await db.query('DELETE FROM edge_hostnames WHERE owner = $1', [`stack:${late}`]);
  } finally {
    await db.end();
  }
  assert.equal((await s.api('PUT', '/api/v1/sites/early', { body: { hostnames: [host] } })).status, 201);
  const upload = await s.api('PUT', '/api/v1/sites/early/content', { raw: new Uint8Array(tar(entries({ 'index.html': 'the site' }))), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(upload.status, 200, upload.text);
  await edgeAnswers(s.httpPort, host, '/', (a) => a.body === 'the site');

  const started = await s.api('POST', `/api/v1/stacks/${late}/deploy`);
  const job = await waitJob(s, started.body.id);
  assert.equal(job.status, 'failed', job.output);
  assert.equal(job.error, `the edge would not route this stack: the hostname ${host} is taken by another owner (GET /api/v1/edge shows the owners to admins); nothing was deployed`);
  assert.equal((await s.api('GET', `/api/v1/stacks/${late}`)).body.status, 'failed');
  assert.deepEqual(await projectContainers(late), [], 'no container was made');
  await edgeAnswers(s.httpPort, host, '/', (a) => a.body === 'the site');
});

test('a stack cannot name a site\'s preview hostname, whether that site exists yet or not; the site then gets its preview', async () => {
  const stack = fresh('pv');
  const site = uniqueName('pv');
  const preview = `draft--${site}.preview.test`;
  for (const label of [preview, preview.toUpperCase() + '.']) {
    const validate = await s.api('POST', `/api/v1/stacks/${stack}/validate`, { body: { content: webCompose(label) } });
    assert.deepEqual(validate.body.errors.map((e: any) => [e.rule, e.message]), [['edge-hostname-taken', `the hostname ${preview} is reserved for the draft preview of site:${site}`]]);
  }
  const put = await s.api('PUT', `/api/v1/stacks/${stack}/compose`, { body: { content: webCompose(preview) }, headers: { 'if-none-match': '*' } });
  assert.equal(put.status, 422, put.text);
  assert.equal(put.body.errors[0].rule, 'edge-hostname-taken');
  assert.equal((await s.api('GET', `/api/v1/stacks/${stack}`)).status, 404, 'nothing was saved');

  const created = await s.api('PUT', `/api/v1/sites/${site}`, { body: { hostnames: [`${site}.sites.test`] } });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.previewUrl, `http://${preview}:${s.httpPort}/`);
  const hostnames = (await s.api('GET', '/api/v1/edge')).body.hostnames;
  assert.equal(hostnames.find((h: any) => h.hostname === preview)?.owner, `site:${site}`);
  const again = await s.api('POST', `/api/v1/stacks/${stack}/validate`, { body: { content: webCompose(preview) } });
  assert.equal(again.body.errors[0].message, `the hostname ${preview} belongs to site:${site}`);
  // a name beside the namespace stays free
  assert.deepEqual((await s.api('POST', `/api/v1/stacks/${stack}/validate`, { body: { content: webCompose(`x.${preview}`) } })).body.errors, []);
});
