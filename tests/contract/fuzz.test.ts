// The fuzz suite: every operation of the served OpenAPI document gets generated valid and broken inputs, with every kind of token; no 5xx, only documented answers, bodies that match their schemas, a responsive service.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { startServer, type TestServer } from '../helpers/harness.ts';
import { freePort } from '../plugins/docker/helpers.ts';
import { repoRoot, TestRepo } from '../plugins/git/helpers.ts';
import { broken, fitting, type Overrides, type Schema } from '../helpers/schema-arbitrary.ts';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => void;

const seed = Number(process.env.FUZZ_SEED ?? 20240601);
/** per operation: generated valid requests, then broken ones */
const validRuns = 10;
const brokenRuns = 12;
/** the whole walk stops sending at this point, whatever is left */
const budgetMs = 35_000;
const concurrency = 6;
/** jobs the walk may start (deploys, stops, pulls, removals): they fail at once, without an engine */
const jobBound = 400;

const compose = 'services:\n  app:\n    image: dockwright-test/busybox:1\n';
const overrides: Overrides = {
  // the service would connect to these: only loopback ports where nothing listens, never a name to look up
  url: fc.constantFrom('https://127.0.0.1:9/r.git', 'ssh://git@127.0.0.1:9/r.git', 'git@127.0.0.1:r.git', 'http://127.0.0.1:9/r.git', 'ftp://127.0.0.1/r', 'ext::sh -c x', '/srv/repo', 'not a url', ''),
  content: fc.oneof(fc.constant(compose), fc.constant(`${compose}    ports: ["18080:80"]\n`), fc.constant('services: {}\n'), fc.string({ maxLength: 40 })),
  timeout: fc.integer({ min: 0, max: 1 }),
  follow: fc.constantFrom('0', 'false'),
};

interface Operation { method: string; path: string; op: any }
interface Sent { op: Operation; kind: 'valid' | 'broken' | 'unstorable'; token: string; status: number; ms: number; body: unknown; type: string }

let s: TestServer;
let doc: any;
const tokens: Record<string, string | undefined> = {};
let deployHook = '';
let pushSecret = '';
let knownJob = '';
// a local repository: fuzz-a's git source (a push secret needs one)
const repos = repoRoot();

before(async () => {
  s = await startServer({
    config: { rateLimit: { perMinute: 1_000_000, failedAuthPerMinute: 1_000_000, webhookPerMinute: 1_000_000 } },
    plugins: {
      // an engine that is not there: every job fails at once, and nothing the walk sends reaches a container
      docker: { options: { socketPath: '/nonexistent/dockwright/docker.sock', reconcile: false, timeoutMs: 1000 } },
      containers: {},
      stacks: { options: { webhookWaitSeconds: 1, templates: { tpl: { compose, inputs: { properties: { title: { type: 'string' } } } } } } },
      templates: {},
      // a local folder allowed for repositories: fuzz-a gets a git source (never fetched), which a push secret needs
      git: { options: { allowedLocalRoots: [repos.root] } },
      registries: {},
      backups: {},
      alerts: {},
      edge: { options: { httpPort: await freePort(), httpsPort: await freePort() } },
      sites: {},
      // a loopback port nobody listens on: certificate requests fail at once, and no CA is ever contacted
      certificates: { options: { directoryUrl: 'https://127.0.0.1:9/directory', retryMinMs: 3_600_000 } },
    },
  });
  doc = (await s.api('GET', '/api/v1/openapi.json')).body;
  for (const name of ['fuzz-a', 'fuzz-b']) {
    const res = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: compose }, headers: { 'if-none-match': '*' } });
    assert.equal(res.status, 200, res.text);
  }
  const site = await s.api('PUT', '/api/v1/sites/fuzz-a', { body: { hostnames: ['fuzz-a.test'] } });
  assert.equal(site.status, 201, site.text);
  deployHook = (await s.api('POST', '/api/v1/stacks/fuzz-a/webhooks/deploy')).body.token;
  const repo = await TestRepo.create(repos.root, 'fuzz');
  await repo.commit({ 'compose.yaml': compose }, 'first');
  const source = await s.api('PUT', '/api/v1/stacks/fuzz-a/source', { body: { url: repo.bare, autodeploy: false } });
  assert.equal(source.status, 200, source.text);
  pushSecret = (await s.api('POST', '/api/v1/stacks/fuzz-a/webhooks/push')).body.secret;
  knownJob = (await s.api('POST', '/api/v1/stacks/fuzz-b/pull')).body.id;
  tokens.admin = s.admin;
  tokens.operator = await s.token('operator', ['stacks:read', 'stacks:write', 'jobs:read', 'containers:read']);
  tokens.viewer = await s.token('viewer', ['stacks:read', 'stacks:write', 'stacks:deploy', 'jobs:read', 'activity:read']);
  tokens.unscoped = await s.token('viewer', ['jobs:read']);
  tokens.wrong = 'dw_' + 'A'.repeat(43);
  tokens.none = undefined;
});
after(async () => { await s?.close(); repos.rm(); });

/** `#/components/schemas/X` inlined, so each schema compiles on its own */
function inline(schema: unknown): Schema {
  return JSON.parse(JSON.stringify(schema), (_, v) => (v && typeof v === 'object' && typeof v.$ref === 'string' ? doc.components.schemas[v.$ref.split('/').pop()] : v));
}

function operations(): Operation[] {
  const ops: Operation[] = [];
  for (const [path, byMethod] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(byMethod)) if (path !== '/api/v1/openapi.json') ops.push({ method: method.toUpperCase(), path, op });
  }
  return ops;
}

/** the existing resources a parameter may name, besides generated names */
function known(name: string, schema: Schema): unknown[] {
  if (name === 'name') return ['fuzz-a', 'fuzz-b'];
  if (name === 'id' && schema.format === 'uuid') return [knownJob];
  if (name === 'id' && schema.type === 'integer') return [1, 2];
  return [];
}

interface Input { params: Record<string, unknown>; query: Record<string, unknown>; body?: unknown; headers: Record<string, string> }

function inputs(o: Operation): fc.Arbitrary<Input> {
  const params = (o.op.parameters ?? []) as { name: string; in: string; required: boolean; schema: Schema }[];
  const part = (where: string) => {
    const list = params.filter((p) => p.in === where);
    return fc.record(Object.fromEntries(list.map((p) => {
      const values = known(p.name, p.schema);
      const own = fitting(p.schema, overrides, p.name);
      return [p.name, values.length ? fc.oneof({ arbitrary: fc.constantFrom(...values), weight: 3 }, { arbitrary: own, weight: 1 }) : own];
    })), { requiredKeys: list.filter((p) => p.required).map((p) => p.name) });
  };
  const revisioned = params.some((p) => p.name === 'If-Match');
  const headers = revisioned
    ? fc.constantFrom<Record<string, string>>({ 'if-match': '"1"' }, { 'if-match': '"2"' }, { 'if-match': 'W/"1"' }, { 'if-none-match': '*' }, {})
    : fc.constant({});
  const json = o.op.requestBody?.content?.['application/json']?.schema;
  const body = json ? fitting(inline(json), overrides) : fc.constant(undefined);
  return fc.record({ params: part('path'), query: part('query'), body, headers });
}

function brokenInputs(o: Operation): (valid: Input) => fc.Arbitrary<Input> {
  const hasBody = Boolean(o.op.requestBody);
  return (valid) => fc.oneof(
    // a URL stays within what the HTTP parser takes (16 KiB of request head)
    broken(valid.params, { keepShape: true, longest: 4000 }).map((params) => ({ ...valid, params: params as Record<string, unknown> })),
    broken(valid.query, { keepShape: true, longest: 4000 }).map((query) => ({ ...valid, query: query as Record<string, unknown> })),
    fc.constantFrom('"x"', '"1234567890"', '*', 'W/', '"-1"').map((v) => ({ ...valid, headers: { 'if-match': v } })),
    ...(hasBody ? [
      broken(valid.body ?? {}).map((body) => ({ ...valid, body })),
      fc.constantFrom('not json', '{"a":', '', '\u0000', '"\\u0000"', '{"a":"\\ud800"}').map((raw) => ({ ...valid, body: { raw } })),
    ] : []),
  );
}

/**
 * One request per string an operation takes, made unstorable (NUL, or a lone surrogate), on an otherwise plain request
 * (the seeded stacks and job, no other query parameter, revision 1), so that it reaches as far into the service as it can.
 */
function unstorableVariants(o: Operation, sample: Input): Input[] {
  const bad = (i: number) => (i % 3 === 2 ? 'half \ud800' : 'a\u0000b');
  const params = (o.op.parameters ?? []) as { name: string; in: string; schema: Schema }[];
  const plainParams = Object.fromEntries(params.filter((p) => p.in === 'path').map((p) => [p.name, known(p.name, p.schema)[0] ?? sample.params[p.name]]));
  const bodySchema = o.op.requestBody?.content?.['application/json']?.schema;
  const body = bodySchema && sample.body && typeof sample.body === 'object'
    ? { ...Object.fromEntries(Object.entries(sample.body).filter(([k]) => (bodySchema.required ?? []).includes(k) || k === 'message')), ...('content' in (bodySchema.properties ?? {}) ? { content: compose } : {}) }
    : sample.body;
  const plain: Input = { params: plainParams, query: {}, body, headers: params.some((p) => p.name === 'If-Match') ? { 'if-match': '"1"' } : {} };
  const strings = (value: unknown, at: (string | number)[] = []): (string | number)[][] => {
    if (typeof value === 'string') return [at];
    if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, [...at, Array.isArray(value) ? Number(k) : k]));
    return [];
  };
  const replaced = (value: unknown, at: (string | number)[], by: string): unknown => {
    if (!at.length) return by;
    const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
    copy[at[0]] = replaced(copy[at[0]], at.slice(1), by);
    return copy;
  };
  const variants: Input[] = [];
  for (const p of params.filter((p) => p.in === 'path' || p.in === 'query')) {
    const part = p.in === 'path' ? 'params' : 'query';
    variants.push({ ...plain, [part]: { ...plain[part], [p.name]: bad(variants.length) } });
  }
  for (const at of strings(body).slice(0, 10)) variants.push({ ...plain, body: replaced(body, at, bad(variants.length)) });
  return variants;
}

/** percent-encoding that also carries lone surrogates (as the UTF-8 bytes a careless client would send) */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...text].map((c) => (/[\ud800-\udfff]/.test(c) ? '%ED%A0%80' : encodeURIComponent(c))).join('');
  }
}

function serialize(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** the bearer this request carries: personal tokens on the REST API, the webhook token (or a wrong one) on webhooks */
function tokenFor(o: Operation, who: string): string | undefined {
  if (o.op.security?.[0]?.webhookToken) return who === 'admin' ? deployHook : who === 'none' ? undefined : `dwh_${'B'.repeat(43)}`;
  return tokens[who];
}

async function send(o: Operation, input: Input, who: string, kind: Sent['kind']): Promise<Sent> {
  const path = o.path.replace(/\{([^}]+)\}/g, (_, k) => encode(serialize(input.params[k] ?? 'x')));
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(input.query)) if (v !== undefined) query.set(k, serialize(v).replace(/[\ud800-\udfff]/g, (c) => (/[\ud800-\udbff]/.test(c) ? '\ud800' : '\udc00')));
  const headers: Record<string, string> = { ...input.headers };
  const token = tokenFor(o, who);
  if (token) headers.authorization = `Bearer ${token}`;
  let body: string | Blob | undefined;
  const raw = (input.body as { raw?: string } | undefined)?.raw;
  if (o.op.requestBody?.content?.['application/octet-stream']) {
    body = new Blob([raw ?? "not an archive"]);
  } else if (raw !== undefined) {
    body = raw;
    headers['content-type'] = 'application/json';
  } else if (input.body !== undefined) {
    body = JSON.stringify(input.body);
    headers['content-type'] = 'application/json';
  }
  if (o.path.endsWith('/github') && o.method === 'POST') {
    body ??= JSON.stringify({ ref: 'refs/heads/main', after: 'a'.repeat(40) });
    headers['content-type'] = 'application/json';
    headers['x-github-event'] = kind === 'valid' ? 'push' : 'ping';
    if (who === 'admin') headers['x-hub-signature-256'] = `sha256=${createHmac('sha256', pushSecret).update(body as string).digest('hex')}`;
  }
  const started = performance.now();
  const res = await fetch(`${s.url}${path}${query.size ? `?${query}` : ''}`, { method: o.method, headers, body, signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  const type = (res.headers.get('content-type') ?? '').split(';')[0];
  let parsed: unknown = text;
  if (type.includes('json') && text) parsed = JSON.parse(text);
  return { op: o, kind, token: who, status: res.status, ms: performance.now() - started, body: parsed, type };
}

test('fuzz: every operation, valid and broken inputs, every kind of token', async (t) => {
  const ajv = new Ajv({ allErrors: false, strict: false });
  addFormats(ajv);
  // by text: operations share answer schemas (a stack, a job), and compiling each copy again kept the loop busy for seconds
  const validators = new Map<string, ReturnType<Ajv['compile']>>();
  const validatorOf = (schema: unknown) => {
    const key = JSON.stringify(schema);
    if (!validators.has(key)) validators.set(key, ajv.compile(inline(schema)));
    return validators.get(key)!;
  };

  const whos = ['admin', 'admin', 'operator', 'viewer', 'unscoped', 'wrong', 'none'];
  const plan: (() => Promise<void>)[] = [];
  operations().forEach((o, i) => {
    const valid = fc.sample(inputs(o), { numRuns: validRuns, seed: seed + i });
    valid.forEach((input, j) => plan.push(() => check(o, input, whos[j % whos.length], 'valid')));
    fc.sample(fc.constantFrom(...valid).chain(brokenInputs(o)), { numRuns: brokenRuns, seed: seed + 1000 + i })
      .forEach((input, j) => plan.push(() => check(o, input, j % 4 === 3 ? whos[(j >> 2) % whos.length] : 'admin', 'broken')));
  });
  // interleaved, so one operation's requests do not all arrive at once
  const order = fc.sample(fc.shuffledSubarray(plan.map((_, i) => i), { minLength: plan.length, maxLength: plan.length }), { numRuns: 1, seed })[0];

  // test-side work (generating, compiling validators) is done before the clock starts: the walk measures the service
  for (const o of operations()) {
    for (const response of Object.values<any>(o.op.responses)) for (const media of Object.values<any>(response.content ?? {})) if (media.schema) validatorOf(media.schema);
    // the server (in this process) closes idle keep-alive connections meanwhile: let the client see it before it sends again
    await new Promise((resolve) => setImmediate(resolve));
  }

  const jobsBefore = (await s.api('GET', '/api/v1/jobs?limit=1000')).body.length;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const findings = new Map<string, string>();
  const find = (key: string, detail: string) => { if (!findings.has(key)) findings.set(key, detail); };
  const statuses = new Map<number, number>();
  let count = 0;
  let slowestProbe = 0;

  // a reader that must keep getting quick answers while the walk goes on
  let walking = true;
  const prober = (async () => {
    while (walking) {
      const started = performance.now();
      const me = await fetch(`${s.url}/api/v1/me`, { headers: { authorization: `Bearer ${s.admin}` } });
      await me.text();
      slowestProbe = Math.max(slowestProbe, performance.now() - started);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();

  async function check(o: Operation, input: Input, who: string, kind: Sent['kind']): Promise<void> {
    const where = `${o.method} ${o.path}`;
    let sent: Sent;
    if (process.env.FUZZ_TRACE) appendFileSync(process.env.FUZZ_TRACE, `> ${where} ${kind} ${who} ${JSON.stringify(input).slice(0, 200)}\n`);
    try {
      sent = await send(o, input, who, kind);
    } catch (err) {
      find(`${where} no answer`, `${where} (${kind}, ${who}): no answer: ${(err as Error).message}`);
      return;
    }
    count++;
    if (process.env.FUZZ_TRACE) appendFileSync(process.env.FUZZ_TRACE, `< ${where} ${sent.status} ${sent.ms.toFixed(0)} ms\n`);
    statuses.set(sent.status, (statuses.get(sent.status) ?? 0) + 1);
    const sample = `${JSON.stringify(input).slice(0, 300)} → ${JSON.stringify(sent.body).slice(0, 300)}`;
    // 503 is the documented answer while the engine is away (the walk runs without one); every other 5xx is a defect
    // so is the webhook deploy's 502 naming the failed deploy (it waits for the job, which fails without an engine)
    const problemOf = sent.body as { type?: string; detail?: string } | undefined;
    const engineAway = (sent.status === 503 && problemOf?.type?.endsWith('/docker-unavailable'))
      || (sent.status === 502 && problemOf?.type?.endsWith('/deploy-failed') && /Docker engine .* does not answer/.test(problemOf.detail ?? ''))
      // and a git remote the walk named (a loopback port where nothing listens) refusing the fetch
      || (sent.status === 502 && problemOf?.type?.endsWith('/git-failed') && /127\.0\.0\.1/.test(problemOf.detail ?? ''));
    if (sent.status >= 500 && !engineAway) find(`${where} ${sent.status}`, `${where} (${kind}, ${who}) answered ${sent.status}: ${sample}`);
    const documented = o.op.responses[String(sent.status)];
    // an empty path parameter leaves the collection's URL (`/backups/`), whose own methods answer (a 405, or the list):
    // that answer is the collection's, checked where the walk calls the collection (a 5xx is still a finding, above)
    if (Object.values(input.params).some((v) => v === '')) return;
    if (!documented) {
      find(`${where} undocumented ${sent.status}`, `${where} (${kind}, ${who}) answered ${sent.status}, which the document does not list: ${sample}`);
      return;
    }
    const content = documented.content as Record<string, { schema?: unknown }> | undefined;
    if (!content || !sent.type) return;
    // `*/*` documents any media type (the API reference's script and style sheet)
    const media = content[sent.type] ?? content['*/*'];
    if (!media) {
      find(`${where} ${sent.status} type`, `${where} answered ${sent.status} as ${sent.type}; documented: ${Object.keys(content).join(', ')}`);
      return;
    }
    if (media.schema && sent.type.includes('json')) {
      const validate = validatorOf(media.schema);
      if (!validate(sent.body)) find(`${where} ${sent.status} schema`, `${where} (${kind}, ${who}) ${sent.status} does not match its schema: ${ajv.errorsText(validate.errors)}: ${sample}`);
    }
  }

  // first, one by one on the seeded state: every string an operation takes, made unstorable
  const unstorable = operations().flatMap((o, i) => unstorableVariants(o, fc.sample(inputs(o), { numRuns: 1, seed: seed + 2000 + i })[0]).map((input) => ({ o, input })));
  for (const { o, input } of unstorable) await check(o, input, 'admin', 'unstorable');

  const deadline = Date.now() + budgetMs;
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < order.length && Date.now() < deadline) await plan[order[next++]]();
  }));
  walking = false;
  await prober;
  loop.disable();

  const jobsAfter = (await s.api('GET', '/api/v1/jobs?limit=1000')).body.length;
  const alive = await s.api('GET', '/api/v1/me');
  const maxDelayMs = loop.max / 1e6;
  t.diagnostic(`fuzz: ${count} requests over ${operations().length} operations (seed ${seed}; ${unstorable.length} with unstorable strings, ${next}/${plan.length} generated); statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  t.diagnostic(`fuzz: ${jobsAfter - jobsBefore} jobs started; event-loop delay max ${maxDelayMs.toFixed(0)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms; slowest probe ${slowestProbe.toFixed(0)} ms`);
  t.diagnostic(`fuzz: ${findings.size} findings${findings.size ? ':\n' + [...findings.values()].join('\n') : ''}`);

  assert.equal(alive.status, 200, 'the service still answers');
  assert.ok(count >= Math.min(plan.length, 500), `only ${count} requests were sent`);
  assert.ok(jobsAfter - jobsBefore <= jobBound, `${jobsAfter - jobsBefore} jobs started`);
  assert.ok(maxDelayMs < 1000, `the event loop was blocked for ${maxDelayMs} ms`);
  assert.ok(slowestProbe < 5000, `a reader waited ${slowestProbe} ms`);
  assert.deepEqual([...findings.values()], []);
});
