// Benchmark (not a test): deploying N independent services through the docker plugin's runtime and through docker-compose 1.29, same engine, same images.
// Run with `npx tsx scripts/bench/compose.ts [--runs 3] [--sizes 1,10,30]` after scripts/test-env.sh has prepared the engine and images.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createRuntime, runtimeDefaults } from '../../plugins/docker/runtime.ts';
import { endpointOf } from '../../plugins/docker/client.ts';
import { createOutbound } from '../../kernel/outbound.ts';

const run = promisify(execFile);
const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : fallback; };
const runs = Number(arg('runs', '3'));
const sizes = arg('sizes', '1,10,30').split(',').map(Number);
const image = 'dockwright-test/busybox:1';

// the runtime exactly as the plugin builds it; a zero grace time only speeds up the (untimed) teardown of `sleep` as PID 1
const endpoint = endpointOf({}, process.env);
// its image is present locally: nothing is pulled, and the policy of the tests refuses every registry but local ones
const outbound = createOutbound({ allow: ['127.0.0.0/8', '::1'], allowHostnames: false });
// its compose files have no secrets: the folder is named, never written
const runtime = createRuntime({ endpoint, installation: randomUUID(), outbound, ...runtimeDefaults, stopTimeoutSeconds: 0, secretsDir: () => join(tmpdir(), 'dw-bench-secrets') });
const quiet = { log: () => undefined };

function composeFile(n: number): string {
  let text = 'services:\n';
  for (let i = 1; i <= n; i++) text += `  s${i}:\n    image: ${image}\n    command: sleep 3600\n`;
  return text;
}

async function dockerCompose(project: string, file: string, ...cmd: string[]): Promise<void> {
  await run('docker-compose', ['-p', project, '-f', file, ...cmd], { env: { ...process.env, DOCKER_HOST: endpoint }, maxBuffer: 16 * 1024 * 1024 });
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

async function main(): Promise<void> {
  const engine = await runtime.engine();
  if (!engine.ok) throw new Error(engine.reason);
  const { stdout: dcVersion } = await run('docker-compose', ['version', '--short']);
  const dir = mkdtempSync(join(tmpdir(), 'dw-bench-compose-'));
  const rows: { n: number; dw: number; dc: number; dwAgain: number; dcAgain: number }[] = [];
  console.log(`engine ${engine.version} at ${endpoint}; docker-compose ${dcVersion.trim()}; ${runs} run(s) per size, median shown; runtime parallel=${runtimeDefaults.parallel}`);
  try {
    // warm-up: the first container of a process pays for connections and caches
    const warm = `benchwarm${process.pid}`;
    await runtime.deploy({ name: warm, compose: composeFile(1), variables: {} }, quiet);
    await runtime.remove(warm, quiet, { volumes: true });
    for (const n of sizes) {
      const file = join(dir, `compose-${n}.yml`);
      writeFileSync(file, composeFile(n));
      const dw: number[] = [], dc: number[] = [], dwAgain: number[] = [], dcAgain: number[] = [];
      for (let r = 0; r < runs; r++) {
        const dwName = `benchdw${n}r${r}p${process.pid}`;
        const dcName = `benchdc${n}r${r}p${process.pid}`;
        try {
          dw.push(await timed(() => runtime.deploy({ name: dwName, compose: composeFile(n), variables: {} }, quiet)));
          dwAgain.push(await timed(() => runtime.deploy({ name: dwName, compose: composeFile(n), variables: {} }, quiet)));
        } finally {
          await runtime.remove(dwName, quiet, { volumes: true });
        }
        try {
          dc.push(await timed(() => dockerCompose(dcName, file, 'up', '-d')));
          dcAgain.push(await timed(() => dockerCompose(dcName, file, 'up', '-d')));
        } finally {
          await dockerCompose(dcName, file, 'down', '-t', '0', '-v');
        }
      }
      rows.push({ n, dw: median(dw), dc: median(dc), dwAgain: median(dwAgain), dcAgain: median(dcAgain) });
      console.log(`N=${n}: dockwright ${dw.map((x) => x.toFixed(0)).join('/')} ms, docker-compose ${dc.map((x) => x.toFixed(0)).join('/')} ms`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const pad = (s: string, w: number) => s.padStart(w);
  console.log('\nfresh deploy of N independent services (median ms)');
  console.log(`${pad('N', 4)} ${pad('dockwright', 12)} ${pad('docker-compose', 15)} ${pad('ratio dc/dw', 12)}`);
  for (const r of rows) console.log(`${pad(String(r.n), 4)} ${pad(r.dw.toFixed(0), 12)} ${pad(r.dc.toFixed(0), 15)} ${pad((r.dc / r.dw).toFixed(2) + 'x', 12)}`);
  console.log('\nredeploy of the same file, nothing changed (median ms)');
  console.log(`${pad('N', 4)} ${pad('dockwright', 12)} ${pad('docker-compose', 15)} ${pad('ratio dc/dw', 12)}`);
  for (const r of rows) console.log(`${pad(String(r.n), 4)} ${pad(r.dwAgain.toFixed(0), 12)} ${pad(r.dcAgain.toFixed(0), 15)} ${pad((r.dcAgain / r.dwAgain).toFixed(2) + 'x', 12)}`);
}

await main();
