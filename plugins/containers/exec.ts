// A console into a container: one engine exec with a TTY behind one WebSocket (text both ways, JSON control frames for the command and resizing).
import type { Duplex } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type Dockerode from 'dockerode';
import type { WebSocketPeer } from '../../sdk/index.ts';

/** how long the session waits for a first frame `{ "cmd": [...] }` before it starts the default shell */
export const firstFrameMs = 300;
export const defaultCommand: readonly string[] = ['sh'];
/** how long input after a resize waits for the engine to apply it before it goes on anyway */
const resizeWaitMs = 2000;

export interface Size { cols: number; rows: number }

/** a control frame: `{ "cmd": [...] }` (first frame only) or `{ "resize": { "cols", "rows" } }`; anything else is input */
export function controlOf(text: string): { cmd: string[] } | { resize: Size } | undefined {
  if (!text.startsWith('{')) return undefined;
  let value: unknown;
  try { value = JSON.parse(text); } catch { return undefined; }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const { cmd, resize } = value as { cmd?: unknown; resize?: { cols?: unknown; rows?: unknown } };
  if (Array.isArray(cmd) && cmd.length > 0 && cmd.length <= 100 && cmd.every((c) => typeof c === 'string' && c.length <= 4096 && !c.includes('\0'))) return { cmd };
  const dim = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 1000;
  if (resize && typeof resize === 'object' && dim(resize.cols) && dim(resize.rows)) return { resize: { cols: resize.cols as number, rows: resize.rows as number } };
  return undefined;
}

export interface SessionEnd { exitCode: number | null; error?: string }

/**
 * Runs the session on an open WebSocket: waits briefly for a `{ cmd }` frame (a first frame of input starts the default
 * shell at once), runs the command with a TTY, carries text both ways and resizes on `{ resize }`. `started` is told the
 * command once it runs; resolves when either side ends, the WebSocket then closed (1000 with "exit N", or 1011).
 */
export async function runSession(docker: Dockerode, containerId: string, ws: WebSocketPeer, started: (cmd: readonly string[]) => void): Promise<SessionEnd> {
  let exec: Dockerode.Exec | undefined;
  // frames act in the order they came: input after a resize waits until the engine has applied it (a program asked for
  // the terminal's size right after it must see the new one), for at most resizeWaitMs
  let applied: Promise<unknown> = Promise.resolve();
  const inOrder = (step: () => unknown) => { applied = applied.then(step).catch(() => undefined); };
  const resize = (s: Size) => inOrder(() => {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise((r) => { timer = setTimeout(r, resizeWaitMs); });
    return Promise.race([exec?.resize({ h: s.rows, w: s.cols }), waited]).finally(() => clearTimeout(timer));
  });
  // one listener from the start: frames that come in one read are emitted together, before any await could add another
  const early: string[] = [];
  let size: Size | undefined;
  let wsClosed = false;
  let input: ((text: string) => void) | undefined;
  let chosen: ((cmd: readonly string[]) => void) | undefined;
  ws.once('close', () => { wsClosed = true; chosen?.(defaultCommand); });
  ws.on('message', (text: string) => {
    const control = controlOf(text);
    if (chosen) {
      const choose = chosen;
      chosen = undefined;
      if (control && 'cmd' in control) return choose(control.cmd);
      choose(defaultCommand);
    }
    if (control && 'resize' in control) {
      size = control.resize;
      if (input) resize(size);
    } else if (input) input(text);
    else early.push(text);
  });
  const cmd = await new Promise<readonly string[]>((resolve) => {
    const timer = setTimeout(() => { chosen = undefined; resolve(defaultCommand); }, firstFrameMs);
    chosen = (c) => { clearTimeout(timer); resolve(c); };
  });
  if (wsClosed) return { exitCode: null };

  let stream: Duplex;
  try {
    exec = await docker.getContainer(containerId).exec({
      Cmd: [...cmd], AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: true, Env: ['TERM=xterm-256color'],
    });
    stream = await exec.start({ hijack: true, stdin: true, Tty: true }) as unknown as Duplex;
  } catch (err) {
    const error = (err as Error).message ?? String(err);
    ws.send(`${error}\r\n`);
    ws.close(1011, 'the command could not be started');
    return { exitCode: null, error };
  }
  started(cmd);

  input = (text) => inOrder(() => stream.write(text));
  if (size) resize(size);
  for (const text of early) input(text);

  // the TTY's bytes as text frames: a character split across two reads waits for its other half
  const decoder = new StringDecoder('utf8');
  stream.on('data', (chunk: Buffer) => {
    const text = decoder.write(chunk);
    if (text && !ws.send(text)) {
      stream.pause();
      ws.once('drain', () => stream.resume());
    }
  });

  await new Promise<void>((resolve) => {
    let done = false;
    const end = () => { if (!done) { done = true; resolve(); } };
    stream.once('end', end);
    stream.once('close', end);
    stream.once('error', end);
    ws.once('close', end);
    if (wsClosed) end();
  });
  stream.destroy();
  const rest = decoder.end();
  if (rest) ws.send(rest);
  let exitCode: number | null = null;
  try {
    // the engine sets the exit code a moment after the stream ends
    for (let i = 0; i < 10; i++) {
      const state = await exec!.inspect();
      if (!state.Running) { exitCode = state.ExitCode ?? null; break; }
      if (wsClosed) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  } catch { /* the container is gone: no exit code */ }
  ws.close(1000, exitCode === null ? 'ended' : `exit ${exitCode}`);
  return { exitCode };
}
