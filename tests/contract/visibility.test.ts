// The access-list walk: a stack hidden from a viewer and an operator by its access list (with jobs, backups, activity, an edge hostname, a running container) is named by no answer the served OpenAPI document offers them; asking for it by name or id answers as for a thing that does not exist.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { startServer, type TestServer } from '../helpers/harness.ts';
import { cleanupProjects, containerOf, freePort, uniqueName } from '../plugins/docker/helpers.ts';
import { selfSigned } from '../plugins/edge/helpers.ts';
import { act, waitJob } from '../plugins/stacks/helpers.ts';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => void;

const hidden = uniqueName('zqhid');
const open = uniqueName('zqopen');
/** what stands in for the hidden stack when the same question is asked about a thing that does not exist */
const phantom = uniqueName('zqnon');
const domain = 'vis.test';
const compose = (name: string) => `services:
  app:
    image: dockwright-test/web:1
    volumes: ["data:/data"]
    labels:
      dockwright.http.host: "${name}.${domain}"
      dockwright.http.port: "8080"
volumes:
  data: {}
`;

const repos = mkdtempSync(join(tmpdir(), 'dw-vis-'));
let s: TestServer;
let doc: any;
const tokens: Record<string, string> = {};
/** the hidden stack's jobs and container: asked about by id, they must look like ones that never existed */
const hiddenIds: { job: string[]; container: string[] } = { job: [], container: [] };
const openIds: { job: string[]; container: string[] } = { job: [], container: [] };

async function ok(res: Promise<{ status: number; text: string; body: any }>, status = 200) {
  const r = await res;
  assert.equal(r.status, status, r.text);
  return r.body;
}

before(async () => {
  s = await startServer({
    config: { rateLimit: { perMinute: 1_000_000, failedAuthPerMinute: 1_000_000, webhookPerMinute: 1_000_000 } },
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } },
      containers: {},
      stacks: {},
      git: {},
      registries: {},
      backups: { options: { progressIntervalMs: 0, stopTimeoutSeconds: 1, repositoryRoots: [repos] } },
      alerts: {},
      edge: { options: { httpPort: await freePort(), httpsPort: await freePort() } },
      sites: {},
      certificates: { options: { directoryUrl: 'https://127.0.0.1:9/directory', retryMinMs: 3_600_000 } },
    },
  });
  doc = (await s.api('GET', '/api/v1/openapi.json')).body;

  for (const name of [hidden, open]) {
    await ok(s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: compose(name) }, headers: { 'if-none-match': '*' } }));
    const deploy = await act(s, 'deploy', name);
    (name === hidden ? hiddenIds : openIds).job.push(deploy.id);
    const c = (await containerOf(name, 'app'))!;
    (name === hidden ? hiddenIds : openIds).container.push(c.Id, c.Names[0].slice(1));
  }
  // an admin acts on the hidden stack's container: activity about it
  await ok(s.api('POST', `/api/v1/containers/${hidden}-app-1/restart?timeout=0`));
  await ok(s.api('POST', `/api/v1/stacks/${hidden}/access`, { body: { entries: [{ principal: 'user:somebody-else', role: 'manager' }] } }));

  // backups of each stack (a run whose output names the stack's volumes), and one of the hidden stack that fails (an alert, an attention item)
  for (const name of [hidden, open]) {
    await ok(s.api('PUT', `/api/v1/backups/${name}-bk`, { body: { targets: { stacks: [name] }, repository: { url: join(repos, name) } } }), 201);
    const run = await ok(s.api('POST', `/api/v1/backups/${name}-bk/run`), 202);
    const done = await waitJob(s, run.id);
    assert.equal(done.status, 'succeeded', done.output);
    (name === hidden ? hiddenIds : openIds).job.push(run.id);
  }
  writeFileSync(join(repos, 'blocked'), 'a file where a folder should be');
  await ok(s.api('PUT', `/api/v1/backups/${hidden}-broken`, { body: { targets: { stacks: [hidden] }, repository: { url: join(repos, 'blocked', 'repo') } } }), 201);
  const broken = await ok(s.api('POST', `/api/v1/backups/${hidden}-broken/run`), 202);
  assert.equal((await waitJob(s, broken.id)).status, 'failed');
  hiddenIds.job.push(broken.id);

  // a certificate serving the edge hostnames of both stacks (usedBy)
  await ok(s.api('POST', '/api/v1/certificates/upload', { body: { name: 'vis-wild', ...(await selfSigned(`*.${domain}`, repos)) } }), 201);
  await ok(s.api('PUT', '/api/v1/sites/vissite', { body: { hostnames: [`site.${domain}`] } }), 201);

  const read = ['stacks:read', 'containers:read', 'jobs:read', 'activity:read', 'backups:read', 'alerts:read', 'sites:read', 'certificates:read', 'registries:read'];
  tokens.viewer = await s.token('viewer', read, { name: 'walk-viewer' });
  tokens.operator = await s.token('operator', [...read, 'stacks:write', 'stacks:deploy', 'containers:write', 'containers:logs', 'jobs:cancel', 'backups:write', 'backups:run', 'alerts:write', 'sites:write', 'sites:publish'], { name: 'walk-operator' });
});
after(async () => {
  await s?.close();
  await cleanupProjects(hidden, open);
  rmSync(repos, { recursive: true, force: true });
});

interface Request { method: string; path: string; body?: unknown }

/** the values a parameter takes in the walk: the hidden stack's things, the open stack's, and the other resources made above */
function candidates(name: string, where: 'path' | 'query'): string[] {
  const names = [hidden, open, `${hidden}-bk`, `${open}-bk`, `${hidden}-broken`, 'vissite', 'vis-wild'];
  if (where === 'path') {
    if (name === 'name') return names;
    if (name === 'id') return [...hiddenIds.job, ...hiddenIds.container, ...openIds.job, ...openIds.container, '1', '2'];
    if (name === 'service') return ['app'];
    return [];
  }
  if (name === 'stack') return [hidden, open];
  if (name === 'resource') return [`stack:${hidden}`, `backup:${hidden}-bk`, `container:${hidden}-app-1`, `stack:${open}`];
  if (name === 'path') return ['/', '/stacks', `/stacks/${hidden}`, `/stacks/${hidden}/${hidden}_data`, 'index.html'];
  if (name === 'timeout') return ['0'];
  return [];
}

/**
 * the bodies that let the safe operations of other methods reach their handler. Not validate: a name that is free
 * validates as a new stack, as creating it would succeed, while a taken one (hidden or not) cannot be created; that a
 * name is taken is no secret, what the stack holds is.
 */
/**
 * Operations that make something for a free name, as creating a stack does (and so, like PUT, not walked): a deploy key is
 * made for a stack that does not exist yet. About a taken name the caller cannot see they answer as a write to nothing
 * (checked after the walk), and make nothing.
 */
const makesForFreeNames = new Set(['POST /api/v1/stacks/{name}/source/deploy-key']);

const bodies: Record<string, unknown[]> = {
  'POST /api/v1/backups/{name}/restore': [{ target: 'folder' }, { target: 'stack' }, { target: 'volume:vis-restored', paths: [`/stacks/${hidden}/${hidden}_data`] }],
};

function requests(ajv: Ajv): Request[] {
  const out: Request[] = [];
  for (const [path, byMethod] of Object.entries<any>(doc.paths)) {
    if (!path.startsWith('/api/v1/') || path === '/api/v1/openapi.json') continue;
    for (const [lower, op] of Object.entries<any>(byMethod)) {
      const method = lower.toUpperCase();
      const key = `${method} ${path}`;
      // the other methods: only those whose every path parameter may be the hidden thing (nothing made, nothing changed when it is hidden)
      if (method !== 'GET' && !(path.includes('{') && !/^PUT /.test(key))) continue;
      if (makesForFreeNames.has(key)) continue;
      const params = (op.parameters ?? []) as { name: string; in: string; required?: boolean; schema: any }[];
      const fits = (p: { schema: any }, v: string) => ajv.validate(p.schema, p.schema.type === 'integer' ? Number(v) : v);
      let paths = [path];
      for (const p of params.filter((x) => x.in === 'path')) {
        const values = candidates(p.name, 'path').filter((v) => fits(p, v));
        paths = paths.flatMap((at) => values.map((v) => at.replace(`{${p.name}}`, encodeURIComponent(v))));
      }
      if (method !== 'GET') paths = paths.filter((p) => p.includes(hidden) || [...hiddenIds.job, ...hiddenIds.container].some((id) => p.includes(id)));
      const queries = params.filter((x) => x.in === 'query');
      const required = Object.fromEntries(queries.filter((q) => q.required).map((q) => [q.name, candidates(q.name, 'query').find((v) => fits(q, v)) ?? 'x']));
      const variants: Record<string, string>[] = [required];
      for (const q of queries) for (const v of candidates(q.name, 'query').filter((x) => fits(q, x))) variants.push({ ...required, [q.name]: v });
      for (const at of paths) {
        for (const query of method === 'GET' ? variants : [required]) {
          const qs = new URLSearchParams(query).toString();
          for (const body of bodies[key] ?? [undefined]) out.push({ method, path: `${at}${qs ? `?${qs}` : ''}`, body });
        }
      }
    }
  }
  return out;
}

/** the same request about things that do not exist: the hidden name and ids replaced */
function phantomOf(r: Request): { request: Request; back(text: string): string } {
  const swaps: [string, string][] = [[hidden, phantom]];
  for (const id of hiddenIds.job) swaps.push([id, randomUUID()]);
  for (const id of hiddenIds.container) if (id !== `${hidden}-app-1`) swaps.push([id, id.replace(/[0-9a-f]/g, '0')]);
  const swap = (text: string, [from, to]: [string, string]) => text.split(from).join(to);
  const there = (text: string) => swaps.reduce(swap, text);
  return {
    request: { method: r.method, path: there(r.path), body: r.body === undefined ? undefined : JSON.parse(there(JSON.stringify(r.body))) },
    back: (text) => swaps.reduce((t, [from, to]) => swap(t, [to, from]), text),
  };
}

async function send(r: Request, token: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${s.url}${r.path}`, {
    method: r.method, signal: AbortSignal.timeout(30_000),
    headers: { authorization: `Bearer ${token}`, ...(r.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: r.body === undefined ? undefined : JSON.stringify(r.body),
  });
  return { status: res.status, text: await res.text() };
}

/** the activity log without the walk's own requests: they echo the names it sent, which tells nobody anything */
function othersOnly(text: string): string {
  try {
    return JSON.stringify((JSON.parse(text) as { actor?: { name?: string } }[]).filter((a) => !a.actor?.name?.startsWith('walk-')));
  } catch {
    return text;
  }
}

/** an answer's words without what differs from one request to the next */
const comparable = (text: string) => text.replace(/"(requestId|instance)":"[^"]*"/g, '');

test('a stack hidden by its access list is named by no answer to a viewer or an operator, and asking for it answers as for nothing', async (t) => {
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);
  const all = requests(ajv);
  const secret = (text: string) => (text.includes(hidden) ? hidden : undefined);
  const asksHidden = (text: string) => [hidden, ...hiddenIds.job, ...hiddenIds.container].some((x) => text.includes(x));
  const findings: string[] = [];

  // the walk can see what it must not find: an admin is told about the hidden stack everywhere it is
  for (const must of ['/api/v1/stacks', '/api/v1/containers', '/api/v1/jobs', '/api/v1/activity', '/api/v1/backups', `/api/v1/backups/${hidden}-bk`, `/api/v1/backups/${hidden}-bk/snapshots`, '/api/v1/certificates', '/api/v1/edge', '/api/v1/alerts', '/api/v1/overview']) {
    assert.ok(secret((await send({ method: 'GET', path: must }, s.admin)).text), `the admin's ${must} names the hidden stack (the walk's setup)`);
  }

  let asked = 0;
  for (const who of ['viewer', 'operator']) {
    const seenOpen = new Set<string>();
    for (const r of all) {
      const where = `${who}: ${r.method} ${r.path}${r.body ? ` ${JSON.stringify(r.body)}` : ''}`;
      const answer = await send(r, tokens[who]);
      asked++;
      if (answer.text.includes(open)) seenOpen.add(r.path.replace(/\?.*/, ''));
      if (!asksHidden(r.path) && !asksHidden(JSON.stringify(r.body ?? ''))) {
        const named = secret(r.path.startsWith('/api/v1/activity') ? othersOnly(answer.text) : answer.text);
        const at = answer.text.indexOf(hidden);
        if (named) findings.push(`${where} → ${answer.status} names ${named}: …${answer.text.slice(Math.max(0, at - 250), at + 100)}…`);
        continue;
      }
      // asked about the hidden stack (or its job, container, backup): the answer is the one a thing that never existed gets
      const other = phantomOf(r);
      const answerOther = await send(other.request, tokens[who]);
      if (answer.status !== answerOther.status || comparable(answer.text) !== comparable(other.back(answerOther.text))) {
        findings.push(`${where} → ${answer.status} ${answer.text.slice(0, 200)}; about nothing: ${answerOther.status} ${answerOther.text.slice(0, 200)}`);
      }
    }
    // and the walk is not blind: the open stack is there for the same caller
    for (const must of ['/api/v1/stacks', '/api/v1/containers', '/api/v1/jobs', '/api/v1/backups', '/api/v1/certificates']) {
      assert.ok(seenOpen.has(must), `${who} is told about the open stack by ${must}: ${[...seenOpen].join(', ')}`);
    }
  }
  // a deploy key asked for the hidden stack: the answer of a write to a stack that does not exist, and no key made
  const keyForHidden = await send({ method: 'POST', path: `/api/v1/stacks/${hidden}/source/deploy-key` }, tokens.operator);
  const writeToNothing = await send({ method: 'POST', path: `/api/v1/stacks/${phantom}/source/check` }, tokens.operator);
  if (keyForHidden.status !== writeToNothing.status || comparable(keyForHidden.text) !== comparable(writeToNothing.text).split(phantom).join(hidden)) {
    findings.push(`operator: POST deploy-key of the hidden stack → ${keyForHidden.status} ${keyForHidden.text.slice(0, 200)}; a write to nothing: ${writeToNothing.status} ${writeToNothing.text.slice(0, 200)}`);
  }
  assert.equal((await send({ method: 'GET', path: `/api/v1/stacks/${hidden}/source/deploy-key` }, s.admin)).status, 404, 'no key was made for the hidden stack');
  t.diagnostic(`visibility walk: ${all.length} requests per token, ${asked} asked, ${findings.length} findings`);
  assert.deepEqual(findings, []);
});
