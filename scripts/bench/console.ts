// Benchmark (not a test): the console's memory under a peer that floods it (pings whose pongs it never reads; input for a command that never reads stdin), and how many sessions one user may open.
// Run with `npx tsx scripts/bench/console.ts` after `npx tsx scripts/build.ts` (BENCH_DIST=<dist> measures another build; CONSOLE_FLOOD_MB sets the volume, 100 by default).
import { chmodSync, mkdtempSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import Dockerode from 'dockerode';
import { createDatabase, onlyPlugins } from '../../tests/helpers/harness.ts';
import { removeDataDir, standalone, type Figure } from './common.ts';
import { startService, type Service } from './service.ts';

const floodMb = Number(process.env.CONSOLE_FLOOD_MB ?? 100);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const config = { rateLimit: { perMinute: 100_000_000 }, plugins: onlyPlugins({ docker: { options: { reconcile: false } }, containers: {} }) };

/** one client frame, masked with a zero key (allowed, and the payload stays as it is) */
function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const extra = length < 126 ? 0 : length < 65536 ? 2 : 8;
  const head = Buffer.alloc(2 + extra + 4);
  head[0] = 0x80 | opcode;
  head[1] = 0x80 | (extra === 0 ? length : extra === 2 ? 126 : 127);
  if (extra === 2) head.writeUInt16BE(length, 2);
  else if (extra === 8) head.writeBigUInt64BE(BigInt(length), 2);
  return Buffer.concat([head, payload]);
}

/** a raw WebSocket to the console: the upgrade's status, and the socket (paused: nothing the server sends is read) */
function openConsole(svc: Service, container: string): Promise<{ status: number; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(svc.url);
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(`GET /api/v1/containers/${container}/exec HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n`
        + `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nAuthorization: Bearer ${svc.token()}\r\n\r\n`);
    });
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? 0), socket });
    });
    socket.once('error', reject);
  });
}

function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024;
}

/** sends `frames` of one kind until `mb` are written or the server stops taking them for 3 s; the service's peak RSS meanwhile */
async function flood(svc: Service, socket: Socket, one: Buffer, mb: number): Promise<{ peak: number; takenMb: number; seconds: number }> {
  let peak = rssOf(svc.pid);
  const watch = setInterval(() => { peak = Math.max(peak, rssOf(svc.pid)); }, 50);
  const started = performance.now();
  const batch = Buffer.concat(Array.from({ length: Math.max(1, Math.floor((256 * 1024) / one.length)) }, () => one));
  let sent = 0;
  while (sent < mb * 1024 * 1024) {
    if (!socket.write(batch)) {
      const drained = await Promise.race([new Promise((r) => socket.once('drain', () => r(true))), sleep(3000).then(() => false)]);
      if (!drained) break;
    }
    sent += batch.length;
  }
  await sleep(2000);
  clearInterval(watch);
  peak = Math.max(peak, rssOf(svc.pid));
  const takenMb = (sent - socket.writableLength) / 1024 / 1024;
  return { peak, takenMb, seconds: (performance.now() - started) / 1000 };
}

async function consoleBench(): Promise<Figure[]> {
  const docker = new Dockerode({ socketPath: (process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock').replace(/^unix:\/\//, '') });
  const box = await docker.createContainer({ Image: 'dockwright-test/busybox:1', Cmd: ['sleep', '3600'], name: `dw-bench-console-${process.pid}` });
  await box.start();
  const db = await createDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'dw-bench-'));
  chmodSync(dataDir, 0o755);
  let svc: Service | undefined;
  const figures: Figure[] = [];
  try {
    svc = await startService({ dataDir, env: { DATABASE_URL: db.url }, config });
    const id = box.id;
    for (const [what, cmd, one] of [
      ['pings whose pongs are never read', ['sleep', '3600'], frame(0x9, Buffer.alloc(125, 'p'))],
      ['input to a command that never reads stdin', ['sh', '-c', 'stty raw -echo; sleep 3600'], frame(0x1, Buffer.alloc(64 * 1024, 'x'))],
    ] as const) {
      const { status, socket } = await openConsole(svc, id);
      if (status !== 101) throw new Error(`the console answered ${status}`);
      socket.write(frame(0x1, Buffer.from(JSON.stringify({ cmd }))));
      await sleep(1000);
      const before = rssOf(svc.pid);
      const { peak, takenMb, seconds } = await flood(svc, socket, one, floodMb);
      figures.push({ figure: `service RSS growth, ${floodMb} MB of ${what}`, value: Math.round(peak - before), unit: 'MB', target: { below: 64 },
        note: `${before.toFixed(0)} → ${peak.toFixed(0)} MB peak; the server took ${takenMb.toFixed(1)} MB in ${seconds.toFixed(1)} s` });
      socket.destroy();
      // the server notices a peer that went away while it was not read at its next heartbeat (5 s), then ends the session
      await sleep(12_000);
    }
    const sockets: Socket[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const { status, socket } = await openConsole(svc, id);
      statuses.push(status);
      sockets.push(socket);
    }
    figures.push({ figure: 'console sessions one user opened of 40 asked', value: statuses.filter((s) => s === 101).length, unit: 'sessions', target: { below: 10 },
      note: `the others answered ${[...new Set(statuses.filter((s) => s !== 101))].join(', ') || 'nothing else'}` });
    for (const s of sockets) s.destroy();
    await sleep(3000);
    return figures;
  } finally {
    await svc?.stop();
    await removeDataDir(dataDir);
    await db.drop();
    await box.remove({ force: true });
  }
}

await standalone(import.meta.url, consoleBench);
