// Container logs as plain text: the engine's multiplexed stdout/stderr frames taken apart, optionally followed until the client leaves.
import { PassThrough, type Readable } from 'node:stream';
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

export async function logsStream(docker: Dockerode, id: string, tty: boolean, q: LogsQuery): Promise<Readable> {
  const source = await open(docker, id, q);
  const out = new PassThrough();
  if (tty) {
    // a TTY container's log is one raw stream, not frames
    source.pipe(out);
  } else {
    docker.modem.demuxStream(source, out, out);
    source.once('end', () => out.end());
  }
  source.once('error', (err) => out.destroy(err));
  out.once('close', () => source.destroy());
  return out;
}
