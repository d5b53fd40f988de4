// A swarm service's logs as plain text, gathered by the manager from every node that runs its tasks.
import { Readable } from 'node:stream';
import type Dockerode from 'dockerode';

/** the engine's multiplexed frames (8-byte header: stream, 0, 0, 0, size) taken apart; a TTY service sends raw text */
export function demux(buffer: Buffer, tty: boolean): string {
  if (tty) return buffer.toString('utf8');
  const parts: Buffer[] = [];
  let at = 0;
  while (at + 8 <= buffer.length) {
    const size = buffer.readUInt32BE(at + 4);
    parts.push(buffer.subarray(at + 8, at + 8 + size));
    at += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}

export async function serviceLogs(docker: Dockerode, serviceId: string, tty: boolean, q: { tail: string; timestamps: boolean }): Promise<Readable> {
  const answer = await docker.getService(serviceId).logs({ stdout: true, stderr: true, follow: false, tail: q.tail === 'all' ? undefined : Number(q.tail), timestamps: q.timestamps, details: false } as never) as unknown;
  const buffer = Buffer.isBuffer(answer) ? answer : Buffer.from(String(answer ?? ''));
  return Readable.from([demux(buffer, tty)]);
}
