// Hostile archives that cost far more than they weigh (gzip bombs, pax bombs), a service in a child process to send them to, and what it is measured by: /healthz latency while it unpacks, and its memory.
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, createGzip, gzipSync } from 'node:zlib';
import { call, startChild, startServer, stopEdgeOf, type Child } from '../../helpers/harness.ts';
import { freePort } from '../docker/helpers.ts';
import { tar } from './archives.ts';

/** `head -c <bytes> /dev/zero | gzip -9`, without the shell: 32 MiB give 32 KB, 2 GiB give 2 MB */
export async function zeroBomb(bytes: number): Promise<Buffer> {
  const gzip = createGzip({ level: constants.Z_BEST_COMPRESSION });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise<void>((resolveDone, reject) => { gzip.on('end', resolveDone); gzip.on('error', reject); });
  const block = Buffer.alloc(1024 * 1024);
  for (let left = bytes; left > 0; left -= block.length) {
    if (!gzip.write(left >= block.length ? block : block.subarray(0, left))) await new Promise((r) => gzip.once('drain', r));
  }
  gzip.end();
  await done;
  return Buffer.concat(out);
}

/** a pax record `<length> <key>=<value>\n`, its length counting its own digits */
function paxRecord(key: string, value: string): Buffer {
  const rest = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(rest) + 1;
  while (String(length).length + Buffer.byteLength(rest) !== length) length++;
  return Buffer.from(`${length}${rest}`);
}

/**
 * A tar.gz whose entries claim nothing (the folder `d/`, `count` times) but each comes behind a pax header of `paxBytes`:
 * it unpacks to count × paxBytes while its entry sizes add up to 0. One gzip member repeated (gzip allows members in a row).
 */
export function paxBomb(count: number, paxBytes = 1024 * 1024): Buffer {
  const records = paxRecord('comment', 'a'.repeat(paxBytes - 40));
  const one = tar([{ name: 'd/', type: 'dir' }]).subarray(0, 1024);
  const header = Buffer.from(one.subarray(0, 512));
  const pax = Buffer.from(header);
  pax.write('PaxHeader'.padEnd(100, '\0'), 0, 100, 'latin1');
  pax.write(`${records.length.toString(8).padStart(11, '0')}\0`, 124, 12, 'latin1');
  pax.write('x', 156, 1, 'latin1');
  pax.write('        ', 148, 8, 'latin1');
  let sum = 0;
  for (const byte of pax) sum += byte;
  pax.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
  const member = gzipSync(Buffer.concat([pax, records, Buffer.alloc((512 - (records.length % 512)) % 512), header]), { level: 9 });
  return Buffer.concat([...Array.from({ length: count }, () => member), gzipSync(Buffer.alloc(1024))]);
}

export interface BombServer {
  url: string;
  admin: string;
  dataDir: string;
  /** the service's own process, for its memory */
  child: Child;
  close(): Promise<void>;
}

/**
 * The service in a process of its own (stacks, git, the edge and sites), so that what blocks its event loop shows in
 * the latency this process measures. The stack `bombed` and the site `bombed` exist.
 */
export async function startBombServer(git: Record<string, unknown> = {}): Promise<BombServer> {
  const plugins = {
    docker: { options: { stopTimeoutSeconds: 1, reconcile: false } },
    stacks: {},
    git: { options: { pollIntervalMs: 3_600_000, ...git } },
    edge: { options: { httpPort: await freePort(), httpsPort: await freePort(), pollIntervalMs: 100, resyncIntervalMs: 60_000 } },
    backups: {},
    sites: { options: { checkIntervalMs: 3_600_000 } },
  };
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-bombs-'));
  const setup = await startServer({ plugins, config: { dataDir, rateLimit: { perMinute: 100_000 } } });
  let child: Child | undefined;
  try {
    const compose = 'services:\n  app:\n    image: dockwright-test/busybox:1\n';
    const stack = await setup.api('PUT', '/api/v1/stacks/bombed/compose', { body: { content: compose }, headers: { 'if-none-match': '*' } });
    if (stack.status !== 200) throw new Error(`stack: ${stack.status} ${stack.text}`);
    const site = await setup.api('PUT', '/api/v1/sites/bombed', { body: { hostnames: ['bombed.sites.test'] } });
    if (site.status !== 201) throw new Error(`site: ${site.status} ${site.text}`);
    await setup.stop();
    await stopEdgeOf(dataDir);
    child = await startChild({ databaseUrl: setup.databaseUrl, dataDir, rateLimit: { perMinute: 100_000 }, plugins });
  } catch (err) {
    await setup.close();
    throw err;
  }
  const running = child;
  return {
    url: running.url, admin: setup.admin, dataDir, child: running,
    async close() {
      // SIGKILL: a service whose event loop is stuck in an archive would not hear a SIGTERM
      await running.kill('SIGKILL');
      await setup.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const uploadPaths = { stack: '/api/v1/stacks/bombed/source/upload', site: '/api/v1/sites/bombed/content' } as const;

export function upload(s: BombServer, path: string, archive: Buffer) {
  return call(s.url, 'PUT', path, { token: s.admin, raw: new Uint8Array(archive), headers: { 'content-type': 'application/octet-stream' } });
}

/** the resident memory of a process, in MiB */
export function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Math.round(Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) / 1024);
}

export interface Watch {
  /** the slowest /healthz answer (ms), how many were asked, the largest RSS seen (MiB) */
  stop(): Promise<{ maxHealthMs: number; polls: number; maxRssMiB: number; failures: number }>;
}

/** asks /healthz one request after another (a pause of `everyMs` between them) and samples the process's memory every 50 ms */
export function watch(url: string, pid: number, everyMs = 20): Watch {
  let running = true;
  let maxHealthMs = 0;
  let polls = 0;
  let failures = 0;
  let maxRssMiB = rssMiB(pid);
  const sampler = setInterval(() => {
    try { maxRssMiB = Math.max(maxRssMiB, rssMiB(pid)); } catch { /* ended */ }
  }, 50);
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(60_000) }).then(async (r) => { await r.arrayBuffer(); return r.ok; }, () => false);
      maxHealthMs = Math.max(maxHealthMs, performance.now() - t);
      polls++;
      if (!ok) failures++;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      clearInterval(sampler);
      return { maxHealthMs: Math.round(maxHealthMs), polls, maxRssMiB, failures };
    },
  };
}
