// Benchmark (not a test): authenticated GET /api/v1/me on the built service against a bare node:http hello-world, same run, same load.
// Run with `npm run bench:kernel` after `npm test` has prepared PostgreSQL (it reads .test-env).
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase } from '../../tests/helpers/harness.ts';
import { load, standalone, type Figure, removeDataDir } from './common.ts';
import { nodeArgs, noPlugins, startService } from './service.ts';

/** the baseline runs with the node flags of `npm start` too (a 1 MB young generation costs any server some GC): the two differ by their code alone */
async function bareHello(): Promise<{ url: string; close(): void }> {
  const child = spawn(process.execPath, [...nodeArgs(), '-e', `require('http').createServer((q,s)=>{s.setHeader('content-type','application/json');s.end('{"hello":"world"}')}).listen(0,'127.0.0.1',function(){console.log(this.address().port)})`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((r) => child.stdout!.once('data', (d) => r(String(d).trim())));
  return { url: `http://127.0.0.1:${port}/`, close: () => child.kill() };
}

export async function kernelBench(): Promise<Figure[]> {
  const db = await createDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-bench-'));
  chmodSync(dataDir, 0o755);
  const kernel = await startService({ dataDir, env: { DATABASE_URL: db.url }, config: { rateLimit: { perMinute: 100_000_000 }, plugins: noPlugins } });
  const hello = await bareHello();
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
      note: `median of ${pairs.length} pairs (${pairs.map((p) => p.ratio.toFixed(2)).join(', ')}): ${mid.me.rps} vs ${mid.bare.rps} req/s, 32 connections, p50 ${mid.me.p50} vs ${mid.bare.p50} ms`,
    }];
  } finally {
    hello.close();
    await kernel.stop();
    await db.drop();
    await removeDataDir(dataDir);
  }
}

await standalone(import.meta.url, kernelBench);
