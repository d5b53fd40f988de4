// A service's post_start and pre_stop hooks: commands run in its container through the engine's exec API, their output in the job's log.
import type Dockerode from 'dockerode';
import { PassThrough } from 'node:stream';
import type { DeployIo, ServiceHook } from './types.ts';
import { reasonOf } from './client.ts';
import { label } from './labels.ts';

/** lines of one hook's output shown in the job log; the rest is counted */
const shownLines = 200;

/** runs one command to its end in a running container: exit code and output (stdout and stderr interleaved) */
async function exec(docker: Dockerode, id: string, hook: ServiceHook, timeoutMs: number, signal?: AbortSignal): Promise<{ exitCode: number | null; output: string }> {
  const env = Object.entries(hook.environment).map(([k, v]) => `${k}=${v}`);
  const run = await docker.getContainer(id).exec({
    Cmd: hook.command, AttachStdout: true, AttachStderr: true, Privileged: hook.privileged,
    ...(hook.user ? { User: hook.user } : {}), ...(hook.workingDir ? { WorkingDir: hook.workingDir } : {}), ...(env.length ? { Env: env } : {}),
  });
  const stream = await run.start({ hijack: true, stdin: false });
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  docker.modem.demuxStream(stream, out, out);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { stream.destroy(); reject(new Error(`did not finish within ${Math.round(timeoutMs / 1000)} s`)); }, timeoutMs);
    const abort = () => { stream.destroy(); reject(signal!.reason as Error); };
    signal?.addEventListener('abort', abort, { once: true });
    const done = () => { clearTimeout(timer); signal?.removeEventListener('abort', abort); resolve(); };
    stream.on('end', done);
    stream.on('close', done);
    stream.on('error', (err) => { clearTimeout(timer); reject(err); });
  });
  const info = await run.inspect();
  return { exitCode: info.ExitCode ?? null, output: Buffer.concat(chunks).toString('utf8') };
}

/**
 * Runs hooks one after the other, each line of their output into the job log. A failing hook throws when `strict`
 * (post_start: the container does not count as started); pre_stop failures are logged and the stop goes on, as in compose.
 */
export async function runHooks(docker: Dockerode, id: string, container: string, kind: 'post_start' | 'pre_stop', hooks: readonly ServiceHook[],
  io: DeployIo, opts: { timeoutMs: number; strict: boolean }): Promise<void> {
  for (const [i, hook] of hooks.entries()) {
    const what = `${container}: ${kind}[${i}]`;
    io.log(`${what}: running ${hook.command[0]}`);
    let result: { exitCode: number | null; output: string };
    try {
      result = await exec(docker, id, hook, opts.timeoutMs, io.signal);
    } catch (err) {
      const message = `${what} could not run: ${reasonOf(err)}`;
      if (opts.strict) throw new Error(message);
      io.log(`${message}; stopping anyway`);
      continue;
    }
    const lines = result.output.split('\n').map((l) => l.replace(/\r$/, '')).filter((l, n, all) => l !== '' || n < all.length - 1);
    for (const line of lines.slice(0, shownLines)) io.log(`${what}| ${line}`);
    if (lines.length > shownLines) io.log(`${what}: … ${lines.length - shownLines} more lines`);
    if (result.exitCode !== 0) {
      const message = `${what} failed with exit code ${result.exitCode}`;
      if (opts.strict) throw new Error(message);
      io.log(`${message}; stopping anyway`);
    }
  }
}

/** the pre_stop hooks a container carries (its service's, when it was created) */
export function preStopHooks(labels: Readonly<Record<string, string>> | undefined): ServiceHook[] {
  const text = labels?.[label.preStop];
  if (!text) return [];
  try {
    const hooks = JSON.parse(text) as unknown;
    return Array.isArray(hooks) ? hooks as ServiceHook[] : [];
  } catch {
    return [];
  }
}

/** pre_stop before a running container is stopped (a stopped one has nothing to run them in) */
export async function beforeStop(docker: Dockerode, c: { Id: string; State?: string; Labels?: Record<string, string> }, container: string, io: DeployIo, timeoutMs: number): Promise<void> {
  const hooks = preStopHooks(c.Labels);
  if (hooks.length && c.State === 'running') await runHooks(docker, c.Id, container, 'pre_stop', hooks, io, { timeoutMs, strict: false });
}
