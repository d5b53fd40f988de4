// Compose files that multiply (port ranges, nesting, aliases, variables, replicas, services…) are refused quickly through the API: 422, rule compose-limits, nothing saved.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpuTimed } from '../../helpers/cpu-time.ts';
import { call, type TestServer } from '../../helpers/harness.ts';
import { busybox, cleanupProjects, createStack, startStacksServer, uniqueName } from './helpers.ts';

let s: TestServer;
let viewer: string;
const names: string[] = [];
const fresh = (prefix: string) => { const n = uniqueName(prefix); names.push(n); return n; };

before(async () => {
  s = await startStacksServer();
  viewer = await s.token('viewer', ['stacks:read']);
});
after(async () => { await cleanupProjects(...names); await s.close(); });

const app = (lines: string) => `services:\n  app:\n    image: dockwright-test/busybox:1\n${lines}`;

/** POST validate as a viewer (stacks:read is all an attacker needs), timed by the CPU it costs this process (server and client) */
const validate = (content: string, name = 'limits-probe', token = viewer) =>
  cpuTimed(() => call(s.url, 'POST', `/api/v1/stacks/${name}/validate`, { token, body: { content } }));

function assertQuick(res: { cpuMs: number; wallMs: number }) {
  // generous (SPEC "Timing in tests"): before the limits these took seconds of CPU, or the whole heap
  assert.ok(res.cpuMs < 1000, `took ${res.cpuMs.toFixed(0)} ms of CPU (${res.wallMs.toFixed(0)} ms)`);
}

function assertRefused(res: { status: number; body: any; text: string; cpuMs: number; wallMs: number }, limitPath: string, message: RegExp) {
  assert.equal(res.status, 422, res.text.slice(0, 500));
  assert.equal(res.body.type, 'https://dockwright.dev/problems/compose-refused');
  assert.equal(res.body.errors.length, 1, res.text.slice(0, 500));
  assert.deepEqual([res.body.errors[0].rule, res.body.errors[0].path], ['compose-limits', limitPath]);
  assert.match(res.body.errors[0].message, message);
  assertQuick(res);
}

test("2,000 port ranges '1-65535' from a viewer: a quick 422, and the heap does not grow", async () => {
  const content = app(`    ports: [${Array(2000).fill("'1-65535'").join(',')}]\n`);
  assert.ok(content.length < 21_000, 'a request of about 20 KB');
  const heapBefore = process.memoryUsage().heapUsed;
  const res = await validate(content);
  assertRefused(res, 'services.app.ports[0]', /port bindings .*more than 10,000/);
  assert.ok(process.memoryUsage().heapUsed - heapBefore < 64 * 1024 ** 2, 'no port objects were made');
  // the largest range that fits is accepted, and each of its ports is judged
  const fits = await validate(app("    ports: ['20000-29999:20000-29999']\n"));
  assert.equal(fits.status, 200, fits.text.slice(0, 300));
  assert.deepEqual(fits.body.errors, []);
});

test('60 port ranges cannot be saved (a saved one would slow every later write and deploy of the stack)', async () => {
  const name = fresh('lim');
  const refused = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: app(`    ports:\n${"      - '1-65535'\n".repeat(60)}`), revision: 0 } });
  assert.equal(refused.status, 422);
  assert.equal(refused.body.errors[0].rule, 'compose-limits');
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}`)).status, 404, 'nothing was saved');
  await createStack(s, name, busybox());
  const update = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: app(`    ports:\n${"      - '1-65535'\n".repeat(60)}`), revision: 1 } });
  assert.equal(update.status, 422);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}/compose`)).body.revision, 1, 'still revision 1');
});

test('nested interpolation "${A:-${A:-…x}…}": 40,000 levels (what fits the content limit) answer a quick 422; 32 levels are fine, 33 are not', async () => {
  const nested = (depth: number) => app(`    environment:\n      X: "${'${A:-'.repeat(depth)}x${'}'.repeat(depth)}"\n`);
  assertRefused(await validate(nested(40_000)), 'services.app.environment.X', /nested 40000 levels deep: at most 32/);
  const ok = await validate(nested(32));
  assert.equal(ok.status, 200, ok.text.slice(0, 300));
  assert.deepEqual(ok.body.errors, []);
  assertRefused(await validate(nested(33)), 'services.app.environment.X', /nested 33 levels/);
  // 80,000 levels (480 KB) are past the content limit: the body schema refuses them before anything is parsed
  const tooLong = await validate(nested(80_000));
  assert.equal(tooLong.status, 400);
  assertQuick(tooLong);
  // and the server still answers
  assert.equal((await validate(busybox())).body.valid, true);
});

test('YAML nested 100,000 levels deep, flow or block: refused while parsing', async () => {
  assertRefused(await validate(app(`    labels: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`)), '', /more levels of nesting than the 64 allowed at line 4/);
  assertRefused(await validate(app(`    x-deep:\n      ${'- '.repeat(100_000)}x\n`)), '', /levels of nesting/);
});

test('aliases: a billion laughs, and one alias expanded into every service, stop at the value limit', async () => {
  let laughs = 'x-0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n';
  for (let i = 1; i < 10; i++) laughs += `x-${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]\n`;
  const bomb = await validate(`${laughs}${app('')}`);
  assertRefused(bomb, bomb.body.errors?.[0]?.path ?? '', /YAML values once aliases and merges are expanded: more than 50,000/);
  assert.match(bomb.body.errors[0].path, /^x-\d/);
  const manyAliases = Array.from({ length: 1001 }, (_, i) => `x-${i}: *a\n`).join('');
  assertRefused(await validate(`x-a: &a 1\n${manyAliases}${app('')}`), '', /more aliases than the 1,000 allowed/);
  const merges = `x-big: &big {${Array.from({ length: 200 }, (_, i) => `k${i}: ${i}`).join(', ')}}\n${Array.from({ length: 60 }, (_, i) => `x-m${i}: { <<: *big }\n`).join('')}`;
  assertRefused(await validate(`${merges}${app('')}`), '', /more keys merged with << than the 10,000 allowed/);
  // an alias that contains itself is an error of its own, not a hang
  const cycle = await validate(app('    x-self: &self [*self]\n'));
  assert.equal(cycle.status, 200);
  assert.ok(cycle.body.errors.some((e: any) => e.rule === 'compose-valid' && /refers to a node that contains it/.test(e.message)), cycle.text);
});

test('a short variable that stands for 64 KiB, repeated, stops at the text limit', async () => {
  const name = fresh('lim');
  await createStack(s, name, busybox());
  const env = await s.api('PUT', `/api/v1/stacks/${name}/env`, { body: { values: { BIG: 'x'.repeat(65_536) }, revision: 1 } });
  assert.equal(env.status, 200, env.text);
  const refs = app(`    environment:\n      X: "${'$BIG'.repeat(100)}"\n`);
  assertRefused(await validate(refs, name, s.admin), 'services.app.environment.X', /characters once variables are interpolated: more than 2,097,152/);
  const fine = await validate(app(`    environment:\n      X: "\${BIG}"\n`), name, s.admin);
  assert.deepEqual(fine.body.errors, []);
});

test('services, networks, volumes, replicas, labels and environment have their limits; the largest accepted counts pass', async () => {
  const services = (n: number) => `services:\n${Array.from({ length: n }, (_, i) => `  s${i}:\n    image: dockwright-test/busybox:1\n`).join('')}`;
  assertRefused(await validate(services(5000)), 'services', /5,000 services: at most 1,000/);
  const thousand = await validate(services(1000));
  assert.equal(thousand.status, 200, thousand.text.slice(0, 300));
  assert.equal(thousand.body.services.length, 1000);
  assertQuick(thousand);

  assertRefused(await validate(app('    deploy: { replicas: 100000000 }\n')), 'services.app.deploy.replicas', /containers .*more than 2,000/);
  const networks = `networks:\n${Array.from({ length: 101 }, (_, i) => `  n${i}:\n`).join('')}`;
  assertRefused(await validate(app('') + networks), 'networks', /101 networks: at most 100/);
  const volumes = `volumes:\n${Array.from({ length: 1001 }, (_, i) => `  v${i}:\n`).join('')}`;
  assertRefused(await validate(app('') + volumes), 'volumes', /1,001 volumes: at most 1,000/);
  const labels = (n: number) => app(`    labels:\n${Array.from({ length: n }, (_, i) => `      l${i}: x\n`).join('')}`);
  assertRefused(await validate(labels(1001)), 'services.app.labels', /1,001 labels: at most 1,000/);
  assert.equal((await validate(labels(1000))).body.valid, true);
  const env = app(`    environment:\n${Array.from({ length: 1001 }, (_, i) => `      E${i}: x\n`).join('')}`);
  assertRefused(await validate(env), 'services.app.environment', /1,001 environment variables/);
  const mounts = app(`    tmpfs:\n${Array.from({ length: 5001 }, (_, i) => `      - /t${i}\n`).join('')}`);
  assertRefused(await validate(mounts), 'services.app.tmpfs', /mounts: more than 5,000/);
});

test('a value crafted to make a pattern backtrack (mem_limit: "1", 40,000 blanks, "!") is a quick ordinary error', async () => {
  const res = await validate(app(`    mem_limit: "1${' '.repeat(40_000)}!"\n`));
  assert.equal(res.status, 200);
  assert.equal(res.body.errors[0].rule, 'compose-valid');
  assert.equal(res.body.errors[0].path, 'services.app.mem_limit');
  assertQuick(res);
});

test('a file broken ten thousand times lists its first errors, not megabytes', async () => {
  const res = await validate(app(`    environment:\n${Array.from({ length: 900 }, (_, i) => `      E${i}: "$"\n`).join('')}`));
  assert.equal(res.status, 200);
  assert.equal(res.body.errors.length, 100);
  assert.equal(res.body.errors.at(-1).message, '… and 801 more errors');
});
