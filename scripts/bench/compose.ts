// Benchmark (not a test): deploying N independent services through the docker plugin's runtime and through docker-compose 1.29, same engine, same images; and a BuildKit build through the runtime against `DOCKER_BUILDKIT=1 docker build`.
// Run with `npx tsx scripts/bench/compose.ts [--runs 3] [--sizes 1,10,30] [--docker-cli docker]` after scripts/test-env.sh has prepared the engine and images (`--sizes ''`: the build only).
// --docker-cli names a docker CLI that builds with BuildKit by itself (a 20.10 CLI, or a newer one with buildx).
import { removeDataDir } from './common.ts';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createRuntime, runtimeDefaults } from '../../plugins/docker/runtime.ts';
import { endpointOf } from '../../plugins/docker/client.ts';
import { createOutbound } from '../../kernel/services/outbound.ts';

const run = promisify(execFile);
const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : fallback; };
const runs = Number(arg('runs', '3'));
const sizes = arg('sizes', '1,10,30').split(',').filter(Boolean).map(Number);
const image = 'dockwright-test/busybox:1';
const dockerCli = arg('docker-cli', 'docker');

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

/**
 * One build context (200 small files, a 4 MiB one, a cache mount, a heavier RUN), built by the runtime (as a deploy
 * builds) and by the docker CLI, three times in a row on each side: a first build of a fresh copy of the tree (a new
 * checkout: neither builder has seen the folder, and a nonce file of its own keeps either from reusing the other's
 * layers), the same folder again (cached), and again after the nonce changed (the CLI's session then sends only that
 * file; Dockwright sends the whole context). Each side builds once untimed first (the first build of a process and of
 * the engine pays for connections and warm-up), and the sides take turns going first. Answers the medians in ms.
 */
async function buildBench(dir: string): Promise<Record<'first' | 'cached' | 'changed', { dw: number; cli: number }>> {
  const tree = join(dir, 'build');
  mkdirSync(join(tree, 'files'), { recursive: true });
  for (let i = 0; i < 200; i++) writeFileSync(join(tree, 'files', `f${i}.txt`), `file ${i}\n`.repeat(50));
  writeFileSync(join(tree, 'blob.bin'), Buffer.alloc(4 * 1024 * 1024, 7));
  writeFileSync(join(tree, 'Dockerfile'), [
    `FROM ${image}`,
    'COPY nonce.txt /nonce.txt',
    'RUN --mount=type=cache,target=/cache cat /nonce.txt >> /cache/seen && wc -l < /cache/seen > /seen',
    'COPY files/ /app/files/',
    'COPY blob.bin /app/blob.bin',
    'RUN find /app -type f | wc -l > /count && md5sum /app/blob.bin > /sum',
  ].join('\n') + '\n');
  let copies = 0;
  const checkout = () => {
    const context = join(dir, `checkout${copies++}`);
    cpSync(tree, context, { recursive: true });
    writeFileSync(join(context, 'nonce.txt'), randomUUID());
    return context;
  };
  const tag = `benchbuild${process.pid}`;
  const dwBuild = (context: string) => {
    const loaded = runtime.load({ name: tag, compose: 'services:\n  app:\n    build: .\n', variables: {}, workdir: context });
    if (loaded.errors.length) throw new Error(JSON.stringify(loaded.errors));
    return runtime.build(loaded.services[0], quiet);
  };
  const cliBuild = (context: string) => run(dockerCli, ['build', '--progress=plain', '-t', `${tag}-cli`, context], { env: { ...process.env, DOCKER_HOST: endpoint, DOCKER_BUILDKIT: '1' }, maxBuffer: 16 * 1024 * 1024 });
  const times = { dw: { first: [] as number[], cached: [] as number[], changed: [] as number[] }, cli: { first: [] as number[], cached: [] as number[], changed: [] as number[] } };
  const side = (who: 'dw' | 'cli', build: (context: string) => Promise<unknown>) => async () => {
    const context = checkout();
    times[who].first.push(await timed(() => build(context)));
    times[who].cached.push(await timed(() => build(context)));
    writeFileSync(join(context, 'nonce.txt'), randomUUID());
    times[who].changed.push(await timed(() => build(context)));
  };
  const sides = [side('dw', dwBuild), side('cli', cliBuild)];
  try {
    await dwBuild(checkout());
    await cliBuild(checkout());
    for (let r = 0; r < runs; r++) for (const s of r % 2 ? [...sides].reverse() : sides) await s();
  } finally {
    for (const t of [`${tag}-app`, `${tag}-cli`]) await run('docker', ['rmi', '-f', t], { env: { ...process.env, DOCKER_HOST: endpoint } }).catch(() => undefined);
  }
  const shown = (xs: number[]) => xs.map((x) => x.toFixed(0)).join('/');
  for (const who of ['dw', 'cli'] as const) {
    console.log(`build, ${who === 'dw' ? 'dockwright' : 'docker build'}: first ${shown(times[who].first)}, cached ${shown(times[who].cached)}, changed ${shown(times[who].changed)} ms`);
  }
  const row = (what: 'first' | 'cached' | 'changed') => ({ dw: median(times.dw[what]), cli: median(times.cli[what]) });
  return { first: row('first'), cached: row('cached'), changed: row('changed') };
}

async function main(): Promise<void> {
  const engine = await runtime.engine();
  if (!engine.ok) throw new Error(engine.reason);
  const { stdout: dcVersion } = await run('docker-compose', ['version', '--short']);
  const dir = mkdtempSync(join(tmpdir(), 'dw-bench-compose-'));
  const rows: { n: number; dw: number; dc: number; dwAgain: number; dcAgain: number }[] = [];
  let build: Awaited<ReturnType<typeof buildBench>> | undefined;
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
    build = await buildBench(dir);
  } finally {
    await removeDataDir(dir);
  }
  const pad = (s: string, w: number) => s.padStart(w);
  console.log('\nfresh deploy of N independent services (median ms)');
  console.log(`${pad('N', 4)} ${pad('dockwright', 12)} ${pad('docker-compose', 15)} ${pad('ratio dc/dw', 12)}`);
  for (const r of rows) console.log(`${pad(String(r.n), 4)} ${pad(r.dw.toFixed(0), 12)} ${pad(r.dc.toFixed(0), 15)} ${pad((r.dc / r.dw).toFixed(2) + 'x', 12)}`);
  console.log('\nredeploy of the same file, nothing changed (median ms)');
  console.log(`${pad('N', 4)} ${pad('dockwright', 12)} ${pad('docker-compose', 15)} ${pad('ratio dc/dw', 12)}`);
  for (const r of rows) console.log(`${pad(String(r.n), 4)} ${pad(r.dwAgain.toFixed(0), 12)} ${pad(r.dcAgain.toFixed(0), 15)} ${pad((r.dcAgain / r.dwAgain).toFixed(2) + 'x', 12)}`);
  console.log(`\nBuildKit build of one context (median ms; target: dockwright <= 1.15x ${dockerCli} build)`);
  console.log(`${pad('', 8)} ${pad('dockwright', 12)} ${pad('docker build', 15)} ${pad('ratio dw/cli', 12)}`);
  for (const what of ['first', 'cached', 'changed'] as const) {
    const { dw, cli } = build![what];
    console.log(`${pad(what, 8)} ${pad(dw.toFixed(0), 12)} ${pad(cli.toFixed(0), 15)} ${pad((dw / cli).toFixed(2) + 'x', 12)}${what === 'changed' ? '  (no target: the CLI sends the changed file only)' : ''}`);
  }
}

await main();
