// A job followed to its end: its output streamed as it is written (or long-polled), its outcome turned into dw's exit code.
import type { Client, Job } from './client.ts';
import { CliError, exitCodes } from './errors.ts';
import type { Output } from './output.ts';

export interface WaitOptions {
  /** seconds before dw gives up with exit code 3 (the job goes on) */
  timeout: number;
  /** stream the job's output while it runs */
  stream: boolean;
}

/** the job's output, followed until the job ends or the signal aborts */
async function streamOutput(client: Client, id: string, out: Output, signal: AbortSignal): Promise<void> {
  try {
    const res = await client.send('get', '/api/v1/jobs/{id}/output'.replace('{id}', encodeURIComponent(id)), { query: { follow: 1 }, signal, headers: { accept: 'text/plain, application/problem+json' } });
    const decoder = new TextDecoder();
    for await (const chunk of res.body) out.progress(decoder.decode(chunk, { stream: true }));
  } catch (err) {
    if (!signal.aborted) throw err;
  }
}

/** long-polls GET /jobs/{id}/wait (at most 120 s a call) until the job is done or the deadline passes */
async function poll(client: Client, id: string, deadline: number): Promise<Job> {
  for (;;) {
    const left = Math.ceil((deadline - Date.now()) / 1000);
    const wait = Math.max(0, Math.min(120, left));
    const { body } = await client.json('get', '/api/v1/jobs/{id}/wait', { params: { id }, query: { timeout: wait } });
    if (body.done || Date.now() >= deadline || wait === 0) return body;
  }
}

/** waits for a job; a failed or canceled job throws exit 1 with its error, a job still running at the deadline exit 3 */
export async function waitForJob(client: Client, id: string, opts: WaitOptions, out: Output): Promise<Job> {
  const deadline = Date.now() + opts.timeout * 1000;
  let job: Job;
  if (opts.stream) {
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), Math.max(0, deadline - Date.now()));
    try { await streamOutput(client, id, out, stop.signal); } finally { clearTimeout(timer); }
    job = (await client.json('get', '/api/v1/jobs/{id}', { params: { id } })).body;
  } else {
    job = await poll(client, id, deadline);
  }
  return judge(job, opts.timeout);
}

/** the outcome of a job as dw's exit code */
export function judge(job: Job, timeout: number): Job {
  if (!job.done) {
    throw new CliError(`job ${job.id} (${job.type}) is still ${job.status} after ${timeout} s`, exitCodes.timedOut,
      `it goes on without dw: wait again with \`dw jobs wait ${job.id}\`, or give more time with --timeout`, job);
  }
  if (job.status === 'succeeded') return job;
  throw new CliError(`job ${job.id} (${job.type}) ${job.status}: ${job.error ?? 'no error message'}`, exitCodes.failed,
    `read its whole output with \`dw jobs get ${job.id}\``, job);
}
