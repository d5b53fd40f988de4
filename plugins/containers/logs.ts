// Container logs as plain text: the engine's multiplexed stdout/stderr frames taken apart, optionally followed until the client leaves.
import { PassThrough, Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Dockerode from 'dockerode';
import { problem } from '../../sdk/index.ts';

export interface LogsQuery {
  follow: boolean;
  stdout: boolean;
  stderr: boolean;
  /** unix seconds */
  since?: number;
  tail: string;
  timestamps: boolean;
}

/** "1700000000", "1700000000.5" or an ISO date → unix seconds. */
export function parseSince(text: string): number {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const ms = Date.parse(text);
  if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}/.test(text)) throw problem(400, `since must be unix seconds or an ISO 8601 date, not "${text}"`, { errors: [{ path: '/query/since', message: 'is not unix seconds or an ISO date' }] });
  return ms / 1000;
}

/** the logs call through the client's dial, as a stream whether or not it follows (dockerode would buffer and JSON-parse otherwise). */
function open(docker: Dockerode, id: string, q: LogsQuery): Promise<Readable> {
  return new Promise((resolve, reject) => {
    docker.modem.dial({
      path: `/containers/${encodeURIComponent(id)}/logs?`,
      method: 'GET',
      isStream: true,
      statusCodes: { 200: true, 404: 'no such container', 500: 'server error', 501: 'the log driver cannot be read' },
      options: { follow: q.follow, stdout: q.stdout, stderr: q.stderr, timestamps: q.timestamps, tail: q.tail, ...(q.since !== undefined ? { since: q.since } : {}) },
    }, (err, stream) => (err ? reject(err) : resolve(stream as Readable)));
  });
}

/**
 * The engine's frames (8-byte header: stream, 3 zero bytes, big-endian length) as plain text. A Transform, so a slow
 * client slows the engine down instead of the log piling up in memory.
 */
class FrameDemux extends Transform {
  private pending: Buffer = Buffer.alloc(0);

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    while (this.pending.length >= 8) {
      const size = this.pending.readUInt32BE(4);
      if (this.pending.length < 8 + size) break;
      this.push(this.pending.subarray(8, 8 + size));
      this.pending = this.pending.subarray(8 + size);
    }
    done();
  }
}

export async function logsStream(docker: Dockerode, id: string, tty: boolean, q: LogsQuery): Promise<Readable> {
  const source = await open(docker, id, q);
  // a TTY container's log is one raw stream, not frames
  const out = tty ? new PassThrough() : new FrameDemux();
  pipeline(source, out).catch(() => undefined); // the reader sees the error on `out`; closing `out` ends the engine call
  return out;
}
