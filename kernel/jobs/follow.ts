// A job's output as a stream of text: what it has, then what it writes, until it is done (the follow of GET /jobs/{id}/output?follow=1).
import { Readable } from 'node:stream';
import type { Job } from '../../sdk/index.ts';

export interface FollowSource {
  get(id: string): Promise<Job | null>;
  /** resolves when the job is done, or after ms */
  wait(id: string, ms: number): Promise<Job | null>;
}

/** what `now` adds to `sent`: the new end, or (when the middle was cut to keep the output within its limit) the lines after the last one sent */
export function added(sent: string, now: string): string {
  if (now.startsWith(sent)) return now.slice(sent.length);
  const lastLine = sent.slice(sent.lastIndexOf('\n', sent.length - 2) + 1);
  const at = lastLine ? now.lastIndexOf(lastLine) : -1;
  return at >= 0 ? now.slice(at + lastLine.length) : `… output omitted …\n${now.slice(now.lastIndexOf('\n', now.length - 2) + 1)}`;
}

/** the output so far, then each new part as it is written (looked at every pollMs, at once when the job ends); ends with the job */
export function followOutput(jobs: FollowSource, id: string, pollMs = 250): Readable {
  async function* lines() {
    let sent = '';
    for (;;) {
      const job = await jobs.get(id);
      if (!job) return;
      const more = added(sent, job.output);
      sent = job.output;
      if (more) yield more;
      if (job.done) {
        yield `-- job ${job.status}${job.error ? `: ${job.error}` : ''}\n`;
        return;
      }
      await jobs.wait(id, pollMs);
    }
  }
  return Readable.from(lines());
}
