// Benchmark (not a test): dw's start to its first request, and `dw apply` of 50 unchanged stacks against a real server (targets < 150 ms and < 2 s).
// Run with `npm run bench:cli` after `npm test` has prepared PostgreSQL (it reads .test-env). No traffic leaves the machine.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli } from '../build-cli.ts';
import { root, startServer } from '../../tests/helpers/harness.ts';
import { loadTestEnv } from './common.ts';

loadTestEnv();
await buildCli(root);
const bin = join(root, 'cli', 'dist', 'dw.js');
const runs = Number(process.env.BENCH_SAMPLES ?? 15);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function dw(args: string[], env: Record<string, string>): Promise<{ code: number | null; ms: number; stderr: string; stdout: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, XDG_CONFIG_HOME: join(tmpdir(), 'dw-bench-none'), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, ms: performance.now() - started, stderr, stdout }));
  });
}

// 1. start → first request: a bare HTTP server notes when dw's request arrives
let arrived = 0;
const stub = createServer((req, res) => { arrived = performance.now(); res.setHeader('content-type', 'application/json'); res.end('[]'); });
await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
const stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
const firstRequest: number[] = [];
for (let i = 0; i < runs + 2; i++) {
  const started = performance.now();
  const res = await dw(['stacks', '--json'], { DOCKWRIGHT_URL: stubUrl, DOCKWRIGHT_TOKEN: 'dw_bench' });
  if (res.code !== 0) throw new Error(res.stderr);
  if (i >= 2) firstRequest.push(arrived - started);
}
// the floor on this machine: a node process that only sends the same request
const bare: number[] = [];
const bareScript = `require('node:http').get(${JSON.stringify(stubUrl)} + '/api/v1/stacks', (r) => r.resume())`;
for (let i = 0; i < runs + 2; i++) {
  const started = performance.now();
  await new Promise((resolve, reject) => spawn(process.execPath, ['-e', bareScript], { stdio: 'ignore' }).on('close', resolve).on('error', reject));
  if (i >= 2) bare.push(arrived - started);
}
stub.close();
console.log(`node -e (one http.get) start → first request, the floor here: median ${median(bare).toFixed(1)} ms`);
console.log(`dw start → first request (node ${process.version}, ${runs} runs after 2 warm-ups; target < 150 ms): median ${median(firstRequest).toFixed(1)} ms, min ${Math.min(...firstRequest).toFixed(1)} ms, max ${Math.max(...firstRequest).toFixed(1)} ms`);

// 2. dw apply of 50 stacks that match the files (the default budget of 120 requests a minute holds: one read per stack)
const s = await startServer({ plugins: { docker: { options: { socketPath: '/nonexistent/dockwright/docker.sock', reconcile: false } }, containers: {}, stacks: {} } });
const dir = mkdtempSync(join(tmpdir(), 'dw-bench-'));
try {
  const docs: string[] = [];
  for (let i = 0; i < 50; i++) {
    const name = `bench-${String(i).padStart(2, '0')}`;
    const compose = `services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "${3600 + i}"]\n`;
    const created = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: compose }, headers: { 'if-none-match': '*' } });
    if (created.status !== 200) throw new Error(created.text);
    const env = await s.api('PUT', `/api/v1/stacks/${name}/env`, { body: { values: { MODE: 'blue', DB_PASSWORD: `secret-${i}` } }, headers: { 'if-match': '"1"' } });
    if (env.status !== 200) throw new Error(env.text);
    docs.push(`kind: stack\nname: ${name}\nspec:\n  compose: |\n${compose.split('\n').filter(Boolean).map((l) => `    ${l}`).join('\n')}\n  variables:\n    MODE: blue\n    DB_PASSWORD:\n`);
  }
  writeFileSync(join(dir, 'stacks.yaml'), docs.join('---\n'));
  // a token of its own: the setup's 100 writes spent most of the admin token's budget for this minute
  const env = { DOCKWRIGHT_URL: s.url, DOCKWRIGHT_TOKEN: await s.token('admin', ['*']) };
  const applies: number[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await dw(['apply', '-f', dir], env);
    if (res.code !== 0 || !/No changes/.test(res.stdout)) throw new Error(`apply: ${res.code} ${res.stdout} ${res.stderr}`);
    applies.push(res.ms);
  }
  console.log(`dw apply of 50 unchanged stacks (whole process, 51 requests; target < 2 s): ${applies.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
  await s.close();
}
