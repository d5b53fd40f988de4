// Benchmark (not a test): authenticated GET /api/v1/me on the built service against a bare node:http hello-world, same run, same load.
// Run with `npm run bench:kernel` after `npm test` has prepared PostgreSQL (it reads .test-env).
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase } from '../../tests/helpers/harness.ts';
import { load, standalone, type Figure, removeDataDir } from './common.ts';
import { nodeArgs, noPlugins, startService } from './service.ts';

/** the baseline runs with the node flags of `npm start` too (a 1 MB young generation costs any server some GC): the two differ by their code alone */
async function bareHello(): Promise<{ url: string; pid: number; close(): void }> {
  const child = spawn(process.execPath, [...nodeArgs(), '-e', `require('http').createServer((q,s)=>{s.setHeader('content-type','application/json');s.end('{"hello":"world"}')}).listen(0,'127.0.0.1',function(){console.log(this.address().port)})`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((r) => child.stdout!.once('data', (d) => r(String(d).trim())));
  return { url: `http://127.0.0.1:${port}/`, pid: child.pid!, close: () => child.kill() };
}

/**
 * With two CPUs or more, the two servers share CPU 1 and the load generator (this process) has CPU 0 to itself. Left to
 * the scheduler, the generator and a server sometimes share a CPU: the bare server's rate alone swung from 23k to 41k
 * req/s between runs on an idle machine. Pinning takes the scheduler out of the figure, not the machine's own changes
 * of speed; when the generator is the slower side, both rates are its own and the ratio nears 1.
 */
function pinApart(...servers: number[]): { pinned: boolean; release(): void } {
  const taskset = (cpus: string, pid: number) => execFileSync('taskset', ['-apc', cpus, String(pid)], { stdio: 'ignore' });
  const unpinned = { pinned: false, release: () => undefined };
  if (availableParallelism() < 2) return unpinned;
  try {
    const all = execFileSync('taskset', ['-pc', String(process.pid)], { encoding: 'utf8' }).split(':').pop()!.trim();
    for (const pid of servers) taskset('1', pid);
    taskset('0', process.pid);
    // the other benches of `npm run bench` run in this process after this one: they get every CPU back
    return { pinned: true, release: () => taskset(all, process.pid) };
  } catch {
    return unpinned; // no taskset (util-linux): measured unpinned, as the note says
  }
}

export async function kernelBench(): Promise<Figure[]> {
  const db = await createDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-bench-'));
  chmodSync(dataDir, 0o755);
  const kernel = await startService({ dataDir, env: { DATABASE_URL: db.url }, config: { rateLimit: { perMinute: 100_000_000 }, plugins: noPlugins } });
  const hello = await bareHello();
  const cpus = pinApart(kernel.pid, hello.pid);
  try {
    const auth = { authorization: `Bearer ${kernel.token()}` };
    await load(hello.url, {}, 2); // warm-up
    await load(kernel.url + '/api/v1/me', auth, 2);
    // alternated in short pairs, each pair's ratio taken within a few seconds, so that a noisy neighbour on the machine
    // weighs on both sides of a pair alike; the median pair is the figure (a burst of load elsewhere moves one pair only)
    const pairs: { bare: Awaited<ReturnType<typeof load>>; me: Awaited<ReturnType<typeof load>>; ratio: number }[] = [];
    for (let i = 0; i < 7; i++) {
      const bare = await load(hello.url, {}, 2);
      const me = await load(kernel.url + '/api/v1/me', auth, 2);
      pairs.push({ bare, me, ratio: me.rps / bare.rps });
    }
    const mid = [...pairs].sort((a, b) => a.ratio - b.ratio)[3];
    return [{
      figure: 'authenticated GET /api/v1/me vs bare node:http', value: mid.ratio, unit: '×', target: { atLeast: 0.6 },
      note: `median of ${pairs.length} pairs (${pairs.map((p) => p.ratio.toFixed(2)).join(', ')}): ${mid.me.rps} vs ${mid.bare.rps} req/s, 32 connections, p50 ${mid.me.p50} vs ${mid.bare.p50} ms${cpus.pinned ? ', servers on CPU 1, load generator on CPU 0' : ', unpinned'}`,
    }];
  } finally {
    cpus.release();
    hello.close();
    await kernel.stop();
    await db.drop();
    await removeDataDir(dataDir);
  }
}

await standalone(import.meta.url, kernelBench);
