// Previews of a stack without a source (its stored compose file) through the API: container_name suffixed, a taken hostname refused, idle previews removed, a removal interrupted by a restart finished at the next start.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { eventually } from '../../helpers/harness.ts';
import { containerOf } from '../docker/helpers.ts';
import { edgeAnswers, edgeRunning, viaEdge } from '../edge/helpers.ts';
import { cleanupProjects, createStack, uniqueName, waitJob } from '../git/helpers.ts';
import { leftovers, startPreviewServer, type PreviewServer } from './helpers.ts';

let s: PreviewServer;
/** the first server, whose database and data dir a restart reuses: its close() removes them */
let first: PreviewServer | undefined;
const name = uniqueName('pvl');
const other = uniqueName('pvo');
const previewHost = (key: string) => `${key}.${name}.preview.test`;
const compose = (host: string, extra = '') => `services:
  web:
    image: dockwright-test/web:1
    container_name: ${name}-fixed
    environment: { MESSAGE: "\${MESSAGE:-stored}" }
    labels:
      dockwright.http.host: "${host}"
      dockwright.http.port: "8080"
${extra}`;

before(async () => {
  s = await startPreviewServer([], { previews: { idleCheckIntervalMs: 1000 } });
  await edgeRunning(s);
  await createStack(s, name, compose(`${name}.app.test`));
  const put = await s.api('PUT', `/api/v1/stacks/${name}/previews`, { body: { enabled: true, hostname: '{key}.{stack}.preview.test' } });
  assert.equal(put.status, 200, put.text);
});
after(async () => {
  await s?.close();
  await first?.close();
  await cleanupProjects(name, other, ...['api-1', 'api-2', 'api-3', 'api-4'].map((k) => `${name}-${k}`));
});

/** what a failure shows: the preview as listed, and every job of its stack with its output */
async function previewState(key: string): Promise<string> {
  const previews = (await s.api('GET', `/api/v1/stacks/${name}/previews`)).body.previews?.filter((p: any) => p.key === key);
  const jobs = await s.api('GET', `/api/v1/jobs?resource=stack:${name}&limit=10`);
  if (jobs.status !== 200) return JSON.stringify({ previews, jobs: jobs.text });
  const details = await Promise.all((jobs.body as any[]).map(async (j: any) => (await s.api('GET', `/api/v1/jobs/${j.id}`)).body));
  return JSON.stringify({ previews, jobs: details.map((j: any) => ({ type: j.type, status: j.status, error: j.error, output: j.output })) });
}

const create = async (key: string, body: Record<string, unknown> = {}) => {
  const res = await s.api('PUT', `/api/v1/stacks/${name}/previews/${key}`, { body });
  assert.equal(res.status, 202, res.text);
  return waitJob(s, res.body.jobId);
};

test('a stack without a source previews its stored compose file; container_name gets the key; a hostname another stack holds is refused', async () => {
  const job = await create('api-1', { variables: { MESSAGE: 'api' } });
  assert.equal(job.status, 'succeeded', `${job.error}\n${job.output}`);
  await edgeAnswers(s.httpPort, previewHost('api-1'), '/cgi-bin/env', (a) => a.status === 200 && a.body.includes('message=api'));
  const c = await containerOf(`${name}-api-1`, 'web');
  assert.equal(c?.Names[0], `/${name}-fixed-api-1`);

  await createStack(s, other, `services:
  web:
    image: dockwright-test/web:1
    labels:
      dockwright.http.host: "${previewHost('api-2')}"
      dockwright.http.port: "8080"
`);
  // refused when asked for: nothing is created, no job runs
  const refused = await s.api('PUT', `/api/v1/stacks/${name}/previews/api-2`, { body: {} });
  assert.equal(refused.status, 409, refused.text);
  assert.match(refused.body.type, /preview-hostname-taken$/);
  assert.match(refused.body.detail, new RegExp(`${previewHost('api-2').replaceAll('.', '\\.')} is taken by another owner`));
  assert.deepEqual((await leftovers(`${name}-api-2`)).containers, [], 'nothing was deployed');
  assert.ok(!(await s.api('GET', `/api/v1/stacks/${name}/previews`)).body.previews.some((p: any) => p.key === 'api-2'), 'no preview api-2 is listed');
});

test('a preview idle for its stack\'s idleDays is removed on schedule', async () => {
  const db = new pg.Client({ connectionString: s.databaseUrl });
  await db.connect();
  try {
    await db.query("UPDATE previews SET updated_at = now() - interval '8 days' WHERE stack = $1 AND key = 'api-1'", [name]);
  } finally {
    await db.end();
  }
  await eventually(async () => (await s.api('GET', `/api/v1/stacks/${name}/previews`)).body.previews.length === 0, 60_000, 'the idle preview removed', 250);
  assert.deepEqual(await leftovers(`${name}-api-1`), { containers: [], networks: [], volumes: [] });
  await edgeAnswers(s.httpPort, previewHost('api-1'), '/', (a) => a.status === 404);
  const activity = (await s.api('GET', `/api/v1/activity?resource=stack:${name}`)).body;
  assert.ok(activity.some((a: any) => a.action === 'stack.preview.remove' && a.actor.kind === 'system' && /idle/.test(a.detail?.reason ?? '')), JSON.stringify(activity));
});

test('a removal interrupted by a restart is finished at the next start: nothing of the preview survives', async () => {
  assert.equal((await create('api-3')).status, 'succeeded');
  await edgeAnswers(s.httpPort, previewHost('api-3'), '/', (a) => a.status === 200);
  const removal = await s.api('DELETE', `/api/v1/stacks/${name}/previews/api-3`);
  assert.equal(removal.status, 202, removal.text);
  first = s;
  await s.stop();
  s = await startPreviewServer([], { reuse: { databaseUrl: first.databaseUrl, dataDir: first.dataDir } });
  await edgeRunning(s);
  await eventually(async () => (await s.api('GET', `/api/v1/stacks/${name}/previews`)).body.previews.length === 0, 120_000, 'the removal finished', 250)
    .catch(async (err) => { throw new Error(`${err.message}; the preview and its jobs now: ${await previewState('api-3')}`); });
  const left = await leftovers(`${name}-api-3`);
  assert.deepEqual(left, { containers: [], networks: [], volumes: [] }, left.containers.length + left.networks.length + left.volumes.length ? await previewState('api-3') : undefined);
  assert.equal((await viaEdge(s.httpPort, previewHost('api-3'), '/')).status, 404);
});

test('a removal whose job is taken over as interrupted only after the start (its stopped instance\'s lease ran on) is queued again', async () => {
  assert.equal((await create('api-4')).status, 'succeeded');
  const reuse = { databaseUrl: s.databaseUrl, dataDir: s.dataDir };
  await s.stop();
  // what a process stopped in the middle of the removal leaves: its job running under an instance that is gone, with a
  // lease still good past the next start, so the start-up check sees it running and the takeover comes later
  const db = new pg.Client({ connectionString: reuse.databaseUrl });
  await db.connect();
  try {
    const [job] = (await db.query(
      `INSERT INTO jobs (id, type, resource, serial_key, status, input, actor, started_at, instance, lease_until)
       VALUES (gen_random_uuid(), 'previews.remove', $1, $2, 'running', $3, '{"kind":"system","name":"test"}', now(), gen_random_uuid(), now() + interval '6 seconds')
       RETURNING id`, [`stack:${name}`, `preview:${name}/api-4`, { stack: name, key: 'api-4' }])).rows;
    await db.query(`UPDATE previews SET status = 'removing', last_job = $3 WHERE stack = $1 AND key = $2`, [name, 'api-4', job.id]);
  } finally {
    await db.end();
  }
  s = await startPreviewServer([], { reuse, config: { jobs: { leaseMs: 3000, renewMs: 200 } } });
  await edgeRunning(s);
  await eventually(async () => (await s.api('GET', `/api/v1/stacks/${name}/previews`)).body.previews.length === 0, 60_000, 'the removal queued again and finished', 250)
    .catch(async (err) => { throw new Error(`${err.message}; the preview and its jobs now: ${await previewState('api-4')}`); });
  assert.deepEqual(await leftovers(`${name}-api-4`), { containers: [], networks: [], volumes: [] });
});
