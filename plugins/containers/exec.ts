// A console into a container: one engine exec with a TTY behind one WebSocket (text both ways, JSON control frames for the command and resizing), bounded both ways, ended when idle, its processes killed when it closes.
import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type Dockerode from 'dockerode';
import type { WebSocketPeer } from '../../sdk/index.ts';

/** how long the session waits for a first frame `{ "cmd": [...] }` before it starts the default shell */
export const firstFrameMs = 300;
export const defaultCommand: readonly string[] = ['sh'];
/** how long input after a resize waits for the engine to apply it before it goes on anyway */
const resizeWaitMs = 2000;
/** the close code of a session that saw nothing either way for its idle timeout (as HTTP's 408) */
export const idleCloseCode = 4408;
/** the environment variable that marks a session's processes (and what they start) for the kill when it closes */
export const markerName = 'DOCKWRIGHT_CONSOLE';

export interface Size { cols: number; rows: number }

export interface SessionLimits {
  /** nothing typed and nothing printed for this long ends the session */
  idleMs: number;
  /** input waiting for the command (one that does not read stdin) above which the WebSocket is no longer read */
  maxBufferedInput: number;
}

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

/** who ended the session: its command, the client, the idle timeout, the caller's lost access (1008), a restart (1001) */
export type EndedBy = 'exit' | 'client' | 'idle' | 'revoked' | 'restart';

export interface SessionEnd {
  exitCode: number | null;
  endedBy: EndedBy;
  error?: string;
  /** the processes left when the client went: how many were signalled, or why they could not be */
  cleanup?: { signalled: number } | { error: string };
}

/** the session's processes (those carrying its marker) signalled through a second exec; busybox applets only */
const killScript = `sig=$1; mark="${markerName}=$2"; n=0
for d in /proc/[0-9]*; do
  p=\${d#/proc/}
  [ "$p" = "$$" ] && continue
  if tr '\\0' '\\n' < "$d/environ" 2>/dev/null | grep -qxF "$mark"; then kill "-$sig" "$p" 2>/dev/null && n=$((n+1)); fi
done
echo "$n"`;

async function signalSession(docker: Dockerode, containerId: string, marker: string, signal: 'TERM' | 'KILL'): Promise<number> {
  const exec = await docker.getContainer(containerId).exec({ Cmd: ['sh', '-c', killScript, 'sh', signal, marker], AttachStdout: true, AttachStderr: true, Tty: true });
  const stream = await exec.start({ hijack: true, Tty: true }) as unknown as Duplex;
  let out = '';
  stream.on('data', (chunk: Buffer) => { out += chunk.toString('utf8'); });
  await new Promise<void>((resolve) => { stream.once('end', resolve); stream.once('close', resolve); stream.once('error', () => resolve()); });
  const { ExitCode } = await exec.inspect();
  if (ExitCode !== 0) throw new Error(`the process list could not be read (exit ${ExitCode}): ${out.trim().slice(0, 200)}`);
  return Number.parseInt(out.trim(), 10) || 0;
}

/** the exec's exit code once the engine has it (a moment after its stream ends), waiting at most `ms` */
async function exitCodeOf(exec: Dockerode.Exec, ms: number): Promise<number | null> {
  const until = Date.now() + ms;
  for (;;) {
    const state = await exec.inspect();
    if (!state.Running) return state.ExitCode ?? null;
    if (Date.now() >= until) return null;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** the client left with the command still running: TERM to every process of the session, KILL to those left a second later */
async function endProcesses(docker: Dockerode, containerId: string, exec: Dockerode.Exec, marker: string): Promise<{ exitCode: number | null; cleanup: SessionEnd['cleanup'] }> {
  try {
    let signalled = await signalSession(docker, containerId, marker, 'TERM');
    let exitCode = await exitCodeOf(exec, 1000);
    // an interactive shell ignores TERM; what else is left gets KILL
    const left = await signalSession(docker, containerId, marker, 'KILL');
    signalled = Math.max(signalled, left);
    exitCode ??= await exitCodeOf(exec, 3000);
    return { exitCode, cleanup: { signalled } };
  } catch (err) {
    return { exitCode: await exitCodeOf(exec, 0).catch(() => null), cleanup: { error: (err as Error).message ?? String(err) } };
  }
}

const endedByCode = (code: number): EndedBy => (code === 1008 ? 'revoked' : code === 1001 ? 'restart' : code === idleCloseCode ? 'idle' : 'client');

/**
 * Runs the session on an open WebSocket: waits briefly for a `{ cmd }` frame (a first frame of input starts the default
 * shell at once), runs the command with a TTY, carries text both ways and resizes on `{ resize }`. Input waits for the
 * command (the WebSocket paused past `maxBufferedInput`), output for the client (the TTY paused). `started` is told the
 * command once it runs; resolves when either side ends: the WebSocket then closed (1000 with "exit N", or 1011), or
 * the command's processes ended when the client went first.
 */
export async function runSession(docker: Dockerode, containerId: string, ws: WebSocketPeer, limits: SessionLimits, started: (cmd: readonly string[]) => void): Promise<SessionEnd> {
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
  // input not yet taken by the command: past the limit the WebSocket is not read until it is
  let waitingInput = 0;
  const held = (bytes: number) => {
    waitingInput += bytes;
    if (waitingInput > limits.maxBufferedInput) ws.pause();
  };
  const taken = (bytes: number) => {
    waitingInput -= bytes;
    if (waitingInput <= limits.maxBufferedInput) ws.resume();
  };
  // nothing either way for idleMs ends the session
  let idleTimer: NodeJS.Timeout | undefined;
  const active = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => ws.close(idleCloseCode, `idle for ${Math.round(limits.idleMs / 1000)} s`), limits.idleMs);
    idleTimer.unref();
  };
  active();
  // one listener from the start: frames that come in one read are emitted together, before any await could add another
  const early: string[] = [];
  let size: Size | undefined;
  let closedWith: number | undefined;
  let input: ((text: string) => void) | undefined;
  let chosen: ((cmd: readonly string[]) => void) | undefined;
  ws.once('close', (code) => { closedWith = code; clearTimeout(idleTimer); chosen?.(defaultCommand); });
  ws.on('message', (text: string) => {
    active();
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
    else { early.push(text); held(Buffer.byteLength(text)); }
  });
  const cmd = await new Promise<readonly string[]>((resolve) => {
    const timer = setTimeout(() => { chosen = undefined; resolve(defaultCommand); }, firstFrameMs);
    chosen = (c) => { clearTimeout(timer); resolve(c); };
  });
  if (closedWith !== undefined) return { exitCode: null, endedBy: endedByCode(closedWith) };

  const marker = randomBytes(12).toString('hex');
  let stream: Duplex;
  try {
    exec = await docker.getContainer(containerId).exec({
      Cmd: [...cmd], AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: true, Env: ['TERM=xterm-256color', `${markerName}=${marker}`],
    });
    stream = await exec.start({ hijack: true, stdin: true, Tty: true }) as unknown as Duplex;
  } catch (err) {
    const error = (err as Error).message ?? String(err);
    ws.send(`${error}\r\n`);
    ws.close(1011, 'the command could not be started');
    return { exitCode: null, endedBy: 'exit', error };
  }
  started(cmd);

  // a write the engine's stream does not take at once waits for its drain before the next one goes
  const write = (text: string) => new Promise<void>((resolve) => {
    if (stream.destroyed || stream.write(text)) return resolve();
    const done = () => { stream.off('drain', done); stream.off('close', done); resolve(); };
    stream.on('drain', done);
    stream.on('close', done);
  });
  input = (text) => {
    const bytes = Buffer.byteLength(text);
    held(bytes);
    inOrder(() => write(text).finally(() => taken(bytes)));
  };
  if (size) resize(size);
  for (const text of early) inOrder(() => write(text).finally(() => taken(Buffer.byteLength(text))));

  // the TTY's bytes as text frames: a character split across two reads waits for its other half
  const decoder = new StringDecoder('utf8');
  let outputHeld = false;
  stream.on('data', (chunk: Buffer) => {
    active();
    const text = decoder.write(chunk);
    if (text && !ws.send(text) && !outputHeld) {
      outputHeld = true;
      stream.pause();
      ws.once('drain', () => { outputHeld = false; stream.resume(); });
    }
  });

  const ended = await new Promise<'exit' | 'client'>((resolve) => {
    stream.once('end', () => resolve('exit'));
    stream.once('close', () => resolve('exit'));
    stream.once('error', () => resolve('exit'));
    ws.once('close', () => resolve('client'));
    if (closedWith !== undefined) resolve('client');
  });
  clearTimeout(idleTimer);
  stream.destroy();
  if (ended === 'client' || closedWith !== undefined) {
    // the client went first: the command and what it started would run on in the container
    const { exitCode, cleanup } = await endProcesses(docker, containerId, exec, marker);
    return { exitCode, endedBy: endedByCode(closedWith ?? 1000), cleanup };
  }
  const rest = decoder.end();
  if (rest) ws.send(rest);
  let exitCode: number | null = null;
  // the engine sets the exit code a moment after the stream ends
  try { exitCode = await exitCodeOf(exec, 500); } catch { /* the container is gone: no exit code */ }
  ws.close(1000, exitCode === null ? 'ended' : `exit ${exitCode}`);
  return { exitCode, endedBy: 'exit' };
}
