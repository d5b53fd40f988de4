// Test helpers for what the shared engine must never suffer: a second dockerd of a test's own (restartable), and a counting proxy in front of an engine socket.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Dockerode from 'dockerode';
import { docker as shared, until } from './helpers.ts';

export interface SecondEngine {
  socketPath: string;
  docker: Dockerode;
  /** the running dockerd's pid (its network namespace is /proc/<pid>/ns/net); undefined while it is down */
  pid(): number | undefined;
  /** stops the daemon (its containers stop with it); up() starts it again on the same data */
  down(): Promise<void>;
  up(): Promise<void>;
  /** stops it for good and removes its data */
  stop(): Promise<void>;
}

/**
 * A dockerd of its own: own data and exec roots (so its own containerd), pid file and socket, vfs, and its own network
 * namespace. The namespace matters: a dockerd started with --bridge=none deletes the host's docker0 (the shared engine's
 * default bridge), and any other dockerd would add its bridges and iptables rules beside the shared engine's. Its
 * containers therefore use `network_mode: none`. The test images are copied from the shared engine.
 */
export async function startSecondEngine(images: string[] = ['dockwright-test/busybox:1']): Promise<SecondEngine> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-engine-'));
  const socketPath = `/run/dw-engine-${randomBytes(4).toString('hex')}.sock`;
  writeFileSync(join(dir, 'daemon.json'), '{}');
  const args = [
    '--config-file', join(dir, 'daemon.json'), '--data-root', join(dir, 'data'), '--exec-root', join(dir, 'exec'),
    '--pidfile', join(dir, 'docker.pid'), '-H', `unix://${socketPath}`, '--storage-driver=vfs', '--bridge=none', '--iptables=false',
    // containers stop quickly on shutdown
    '--shutdown-timeout', '2',
  ];
  const docker = new Dockerode({ socketPath });
  let child: ChildProcess | undefined;

  const launch = async () => {
    const log = openSync(join(dir, 'dockerd.log'), 'a');
    // unshare execs dockerd: the child's pid is dockerd's
    child = spawn('unshare', ['--net', '--', 'dockerd', ...args], { stdio: ['ignore', log, log] });
    closeSync(log);
    const exited = new Promise<never>((_, reject) => child!.once('exit', (code) => reject(new Error(`the second dockerd exited with ${code}; see ${join(dir, 'dockerd.log')}`))));
    exited.catch(() => undefined);
    await Promise.race([until(() => docker.version().then(() => true, () => false), 60_000, 'the second dockerd to answer', 100), exited]);
  };
  const halt = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    c.kill('SIGTERM');
    const hard = setTimeout(() => c.kill('SIGKILL'), 30_000);
    await gone;
    clearTimeout(hard);
  };

  await launch();
  try {
    for (const image of images) {
      const stream = await shared.getImage(image).get();
      await docker.loadImage(stream).then((out) => new Promise<void>((resolve, reject) => docker.modem.followProgress(out, (err) => (err ? reject(err) : resolve()))));
    }
  } catch (err) {
    await halt();
    throw err;
  }
  return {
    socketPath,
    docker,
    pid: () => (child && child.exitCode === null && child.signalCode === null ? child.pid : undefined),
    down: halt,
    up: launch,
    async stop() {
      await halt();
      rmSync(socketPath, { force: true });
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

export interface EngineProxy {
  socketPath: string;
  /** "GET /containers/json?…" for every request that passed, oldest first */
  requests: string[];
  /** pass: events flow; refuse: events connections are closed (and open ones cut); mute: they stay open but carry nothing */
  events(mode: 'pass' | 'refuse' | 'mute'): void;
  /**
   * Holds back the answers to the container list calls made from now on: the engine computes them at once, they arrive
   * late. `send` lets through the answers (held, or still to come) of the held calls whose request line matches; `stop`
   * lets every answer through and holds no more.
   */
  holdLists(): { send(request: RegExp): void; stop(): void };
  close(): Promise<void>;
}

interface Held { request: string; writes: (() => void)[]; through: boolean }

/** a unix socket in front of an engine's socket that records each request line and can cut or mute the events stream */
export async function engineProxy(target: string): Promise<EngineProxy> {
  const socketPath = join(tmpdir(), `dw-proxy-${randomBytes(4).toString('hex')}.sock`);
  const requests: string[] = [];
  let mode: 'pass' | 'refuse' | 'mute' = 'pass';
  /** while lists are held: each held call's answer, as the writes of its chunks so far, until it is let through */
  let holding: Held[] | null = null;
  const eventSockets = new Set<Socket>();
  const all = new Set<Socket>();
  const server = createServer((client) => {
    all.add(client);
    const upstream = connect(target);
    let isEvents = false;
    /** this connection's list call being held (one call at a time on a connection) */
    let current: Held | undefined;
    const end = () => { client.destroy(); upstream.destroy(); eventSockets.delete(client); all.delete(client); };
    client.on('data', (chunk) => {
      for (const m of chunk.toString('latin1').matchAll(/^(GET|POST|PUT|DELETE|HEAD) (\S+) HTTP\/1\.[01]\r$/gm)) {
        requests.push(`${m[1]} ${m[2]}`);
        const isList = /^\/(v[\d.]+\/)?containers\/json\b/.test(m[2]);
        current = undefined;
        if (isList && holding) holding.push(current = { request: `${m[1]} ${m[2]}`, writes: [], through: false });
        if (/^\/(v[\d.]+\/)?events\b/.test(m[2])) isEvents = true;
      }
      if (isEvents && mode === 'refuse') return end();
      if (isEvents) eventSockets.add(client);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (isEvents && mode === 'mute') return;
      if (current && !current.through) current.writes.push(() => client.write(chunk));
      else client.write(chunk);
    });
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    socketPath,
    requests,
    events(next) {
      mode = next;
      if (next === 'refuse') for (const s of eventSockets) s.destroy();
    },
    holdLists() {
      const mine: Held[] = holding = [];
      const through = (call: Held) => {
        call.through = true;
        for (const write of call.writes.splice(0)) write();
      };
      return {
        send: (request) => mine.filter((call) => request.test(call.request)).forEach(through),
        stop() {
          if (holding === mine) holding = null;
          mine.forEach(through);
        },
      };
    },
    async close() {
      for (const s of all) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(socketPath, { force: true });
    },
  };
}
