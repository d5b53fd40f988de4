// Commands run in a service's container through the engine's exec API for database dumps and restores: stdout streamed with backpressure, stdin fed from a stream, secrets only in the exec's environment.
import type Dockerode from 'dockerode';
import { Transform, type Readable, type TransformCallback, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** one command in a container: argv (no secrets), environment (credentials go here, never in argv) */
export interface ExecSpec { container: string; cmd: string[]; env: Record<string, string>; user?: string }

/** the tail of a command's stderr kept for its error message */
const stderrKept = 4096;

/**
 * The engine multiplexes an exec's stdout and stderr in frames ([stream, 0, 0, 0, size (4 bytes)], then size bytes):
 * this passes stdout on (so a pipeline's backpressure reaches the engine's socket) and hands stderr to `onStderr`.
 */
export class Demux extends Transform {
  private pending = Buffer.alloc(0);
  private stream = 0;
  private left = 0;
  constructor(private readonly onStderr: (chunk: Buffer) => void) { super(); }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let data = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    while (data.length) {
      if (this.left === 0) {
        if (data.length < 8) { this.pending = Buffer.from(data); break; }
        this.stream = data[0];
        this.left = data.readUInt32BE(4);
        data = data.subarray(8);
        continue;
      }
      const part = data.subarray(0, this.left);
      this.left -= part.length;
      data = data.subarray(part.length);
      if (this.stream === 2) this.onStderr(part);
      else if (this.stream === 1) this.push(part);
    }
    done();
  }
}

export class ExecFailed extends Error {
  constructor(message: string, readonly exitCode: number | null) { super(message); }
}

async function started(docker: Dockerode, spec: ExecSpec, stdin: boolean) {
  const exec = await docker.getContainer(spec.container).exec({
    Cmd: spec.cmd, AttachStdout: true, AttachStderr: true, AttachStdin: stdin, Tty: false,
    Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`), ...(spec.user ? { User: spec.user } : {}),
  });
  const socket = await exec.start({ hijack: true, stdin }) as unknown as NodeJS.ReadWriteStream & { destroy(): void };
  return { exec, socket };
}

async function exitOf(exec: Dockerode.Exec, what: string, stderr: () => string): Promise<void> {
  const info = await exec.inspect();
  if (info.ExitCode !== 0) {
    const tail = stderr().trim().split('\n').slice(-3).join(' ');
    throw new ExecFailed(`${what} failed (exit ${info.ExitCode ?? '?'})${tail ? `: ${tail}` : ''}`, info.ExitCode ?? null);
  }
}

/**
 * Runs the command and pipes its stdout into `into` (not ended: the caller ends it only when this resolves, so a
 * failed dump never becomes a complete-looking file). Rejects with the exit code and the tail of stderr.
 */
export async function execInto(docker: Dockerode, spec: ExecSpec, into: Writable, what: string, signal?: AbortSignal): Promise<void> {
  let err = '';
  const { exec, socket } = await started(docker, spec, false);
  const demux = new Demux((c) => { err = (err + c.toString('utf8')).slice(-stderrKept); });
  const abort = () => socket.destroy();
  signal?.addEventListener('abort', abort, { once: true });
  try {
    await pipeline(socket as unknown as Readable, demux, into, { end: false });
  } finally {
    signal?.removeEventListener('abort', abort);
    // the engine ended its side; ours stays open (half-open) until closed here
    socket.destroy();
  }
  signal?.throwIfAborted();
  await exitOf(exec, what, () => err);
}

/** runs the command to its end and answers its stdout (small outputs: listings) */
export async function execText(docker: Dockerode, spec: ExecSpec, what: string, signal?: AbortSignal): Promise<string> {
  const chunks: Buffer[] = [];
  const sink = new Transform({ transform(c: Buffer, _e, done) { chunks.push(c); done(); } });
  sink.resume();
  await execInto(docker, spec, sink, what, signal);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Runs the command with `from` as its stdin (ended when `from` ends) and waits for it to exit; stdout and stderr are
 * kept (tails) for the error message and the log.
 */
export async function execFrom(docker: Dockerode, spec: ExecSpec, from: Readable, what: string, signal?: AbortSignal): Promise<string> {
  let out = '';
  const { exec, socket } = await started(docker, spec, true);
  const keep = (c: Buffer) => { out = (out + c.toString('utf8')).slice(-stderrKept); };
  const demux = new Demux(keep);
  demux.on('data', keep);
  const abort = () => socket.destroy();
  signal?.addEventListener('abort', abort, { once: true });
  try {
    const output = new Promise<void>((resolve, reject) => {
      (socket as unknown as Readable).pipe(demux);
      demux.on('end', resolve);
      socket.on('close', resolve);
      socket.on('error', reject);
    });
    // the input ends with a half-close of the socket: the engine closes the command's stdin. A command may exit before
    // it read everything (the engine then closes the socket): the rest of the input is drained, and its exit code says
    // whether that was a failure
    const fed = new Promise<void>((resolve, reject) => {
      from.once('error', reject);
      from.once('end', () => { socket.end(); resolve(); });
      socket.once('close', () => { from.unpipe(socket as unknown as Writable); from.resume(); resolve(); });
    });
    from.pipe(socket as unknown as Writable, { end: false });
    await fed;
    await output;
  } finally {
    signal?.removeEventListener('abort', abort);
    socket.destroy();
  }
  signal?.throwIfAborted();
  await exitOf(exec, what, () => out);
  return out;
}
