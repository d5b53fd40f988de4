// The images list and prune against the real engine: usedBy from containers and releases, a prune that keeps the last releases (rollback works after it), images of others untouched, scopes and access lists, the portal page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { act, cleanupProjects, createStack, docker, localVariant, startReleasesServer, uniqueName, waitJob } from '../releases/helpers.ts';
import type { TestServer } from '../../helpers/harness.ts';
import { addUser, launch, shot, signedIn } from '../portal/helpers.ts';

let s: TestServer;
let browser: Browser | undefined;
const stack = uniqueName('img');
const hidden = uniqueName('imh');
const repo = `dw-images-test/${stack}`;
const foreign = `dw-images-test/${stack}-foreign:1`;
const ids: Record<number, string> = {};

const compose = (tag: number) => `services:\n  app:\n    image: ${repo}:${tag}\n    stop_grace_period: 1s\n`;
const imageId = async (ref: string) => (await docker.getImage(ref).inspect()).Id;
const exists = (id: string) => docker.getImage(id).inspect().then(() => true, () => false);

before(async () => {
  s = await startReleasesServer({ plugins: { images: {}, portal: {} } });
  for (let v = 1; v <= 5; v++) {
    await localVariant(`${repo}:${v}`, `v${v}`);
    ids[v] = await imageId(`${repo}:${v}`);
  }
  await localVariant(foreign, 'foreign');
  await createStack(s, stack, compose(1));
  for (let v = 1; v <= 5; v++) {
    if (v > 1) assert.equal((await s.api('PUT', `/api/v1/stacks/${stack}/compose`, { body: { content: compose(v) }, headers: { 'if-match': `"${v - 1}"` } })).status, 200);
    await act(s, 'deploy', stack);
  }
  await localVariant(`${repo}-hidden:1`, 'hidden');
  await createStack(s, hidden, `services:\n  app:\n    image: ${repo}-hidden:1\n    stop_grace_period: 1s\n`);
  await act(s, 'deploy', hidden);
});
after(async () => {
  await browser?.close();
  await cleanupProjects(stack, hidden);
  for (const ref of [...[1, 2, 3, 4, 5].map((v) => `${repo}:${v}`), foreign, `${repo}-hidden:1`]) await docker.getImage(ref).remove({ force: true }).catch(() => undefined);
  await s?.close();
});

const listed = async (token = s.admin) => {
  const r = await s.api('GET', '/api/v1/images?limit=1000', { token });
  assert.equal(r.status, 200, r.text);
  return r.body as any[];
};

test('the list: this installation\'s images with tags, size, created and usedBy (stacks from containers, releases); another program\'s image is not listed', async () => {
  const images = await listed();
  const byId = new Map(images.map((i) => [i.id, i]));
  for (let v = 1; v <= 5; v++) assert.ok(byId.has(ids[v]), `image ${v} listed`);
  assert.ok(!images.some((i) => i.tags.includes(foreign)), 'an image nothing of ours used is not listed');
  const current = byId.get(ids[5]);
  assert.deepEqual(current.tags, [`${repo}:5`]);
  assert.deepEqual(current.usedBy.stacks, [stack]);
  assert.deepEqual(current.usedBy.releases, [{ stack, number: 5 }]);
  assert.deepEqual(current.usedBy.sites, []);
  assert.equal(current.containers, 1);
  assert.ok(current.size > 0);
  assert.ok(Date.parse(current.created) > 0);
  assert.equal(current.kept, true);
  assert.deepEqual(byId.get(ids[1]).usedBy, { stacks: [], releases: [{ stack, number: 1 }], sites: [] });
  assert.deepEqual([1, 2, 3, 4, 5].map((v) => byId.get(ids[v]).kept), [false, false, true, true, true], 'the last 3 releases and the running image are kept');
  const overview = (await s.api('GET', '/api/v1/overview')).body;
  const disk = overview.summary.images.images;
  assert.equal(disk.count, images.length);
  assert.equal(disk.bytes, images.reduce((n, i) => n + i.size, 0));
  assert.equal(disk.reclaimableBytes, byId.get(ids[1]).size + byId.get(ids[2]).size);
});

test('paging follows the cursor; a bad cursor or limit is a 400', async () => {
  const all = await listed();
  const first = await s.api('GET', '/api/v1/images?limit=2');
  assert.equal(first.body.length, 2);
  assert.deepEqual(first.body.map((i: any) => i.id), all.slice(0, 2).map((i) => i.id));
  const link = first.headers.get('link') ?? '';
  const cursor = /cursor=([^&>]+)/.exec(link)?.[1];
  assert.ok(cursor, link);
  const second = await s.api('GET', `/api/v1/images?limit=2&cursor=${cursor}`);
  assert.deepEqual(second.body.map((i: any) => i.id), all.slice(2, 4).map((i) => i.id));
  assert.equal((await s.api('GET', '/api/v1/images?cursor=nope')).status, 400);
  assert.equal((await s.api('GET', '/api/v1/images?limit=0')).status, 400);
});

test('scopes and access lists: a viewer sees only the images of stacks it may see and cannot prune; no token is 401', async () => {
  const viewer = await s.token('viewer', ['images:read'], { name: `viewer-${stack}` });
  assert.equal((await s.api('POST', `/api/v1/stacks/${hidden}/access`, { body: { entries: [{ principal: 'user:nobody-else', role: 'viewer' }] } })).status, 200);
  const seen = await listed(viewer);
  assert.ok(seen.some((i) => i.id === ids[5]));
  assert.ok(!seen.some((i) => i.tags.includes(`${repo}-hidden:1`)), 'the hidden stack\'s image is left out');
  assert.ok(!JSON.stringify(seen).includes(hidden));
  assert.equal((await s.api('POST', '/api/v1/images/prune', { token: viewer })).status, 403);
  const noScope = await s.token('admin', ['stacks:read']);
  assert.equal((await s.api('GET', '/api/v1/images', { token: noScope })).status, 403);
  assert.equal((await s.api('GET', '/api/v1/images', { token: '' })).status, 401);
  assert.equal((await s.api('POST', `/api/v1/stacks/${hidden}/access`, { body: { entries: [] } })).status, 200);
});

test('the portal page lists the images with their disk use and users', async () => {
  await addUser(s, `alice-${stack}`, 'admin');
  browser = await launch();
  const page = await signedIn(browser, s, `alice-${stack}`);
  await page.goto('/images');
  await page.getByTestId('images').waitFor();
  const disk = await page.getByTestId('images-disk').textContent();
  assert.match(disk ?? '', /images take .* on the engine; .* can be reclaimed/);
  const row = page.getByRole('row').filter({ hasText: `${repo}:5` });
  assert.match(await row.textContent() ?? '', new RegExp(`stack ${stack}`));
  assert.ok(await page.getByRole('button', { name: 'Prune unused images' }).isEnabled());
  await shot(page, 'images');
});

test('prune: a 202 job removes the images of old releases only; the last releases, the running image and another program\'s image stay, and rollback works', async () => {
  const r = await s.api('POST', '/api/v1/images/prune');
  assert.equal(r.status, 202, r.text);
  assert.equal(r.headers.get('location'), `/api/v1/jobs/${r.body.jobId}`);
  const job = await waitJob(s, r.body.jobId);
  assert.equal(job.status, 'succeeded', job.error ?? job.output);
  assert.equal(job.result.removed, 2, job.output);
  assert.match(job.output, /removed .*:1\)/);
  assert.deepEqual(await Promise.all([1, 2, 3, 4, 5].map((v) => exists(ids[v]))), [false, false, true, true, true]);
  assert.ok(await exists(await imageId(foreign)), 'another program\'s image is untouched');
  const images = await listed();
  assert.ok(!images.some((i) => i.id === ids[1] || i.id === ids[2]));
  // a second prune finds nothing to remove
  const again = await waitJob(s, (await s.api('POST', '/api/v1/images/prune')).body.jobId);
  assert.equal(again.result.removed, 0);
  // rollback to the oldest kept release needs no pull
  const rb = await s.api('POST', `/api/v1/stacks/${stack}/rollback`, { body: { release: 3 } });
  assert.equal(rb.status, 202, rb.text);
  assert.equal((await waitJob(s, rb.body.id ?? rb.body.jobId)).status, 'succeeded');
  const running = await docker.listContainers({ filters: { label: [`dockwright.project=${stack}`] } });
  assert.deepEqual(running.map((c) => c.ImageID), [ids[3]]);
});
