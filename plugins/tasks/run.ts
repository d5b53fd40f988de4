// One run of a task as its job carries it out: the overlap rule, the service's container, execution, the record of how it ended, alerts and retention.
import { looksSecret, type JobRun } from '../../sdk/index.ts';
import type { DockerRuntime } from '../docker/api.ts';
import { execute, runLabel } from './execute.ts';
import { mask } from './output.ts';
import type { RunRow, RunStatus, TaskRow, TaskStore } from './store.ts';

export interface RunDeps {
  store: TaskStore;
  runtime: DockerRuntime;
  graceMs: number;
  /** how often a running run looks whether a replacing run asked it to stop */
  stopPollMs: number;
  retention: { keep: number; maxAgeMs: number };
  /** the stack's variables whose names look secret: masked in what is shown */
  stackSecrets(stack: string): Promise<string[]>;
  ended(task: TaskRow, run: RunRow, status: RunStatus, detail: { exitCode: number | null; reason: string | null }): Promise<void>;
  /** whether the job has ended (null: no such job) */
  jobDone(id: string): Promise<boolean | null>;
}

/**
 * Runs left `running` or `queued` by a job that ended without ending them (the instance running it stopped, its job
 * was taken over and failed) are recorded failed: otherwise a run that never ends would keep every later run skipped.
 */
export async function reapInterrupted(deps: RunDeps, stack?: string, task?: string): Promise<number> {
  let reaped = 0;
  for (const run of await deps.store.unfinished(stack, task)) {
    if ((await deps.jobDone(run.job!)) === false) continue;
    const reason = 'interrupted: its job ended before the run did (the instance running it stopped)';
    await deps.store.finish(run, { status: 'failed', exitCode: null, reason, output: '' });
    // a one-off container the gone instance left running
    const left = await deps.runtime.docker.listContainers({ all: true, filters: { label: [`${runLabel}=${run.id}`] } }).catch(() => []);
    for (const c of left) await deps.runtime.docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
    const row = await deps.store.get(run.stack, run.task);
    if (row) await deps.ended(row, run, 'failed', { exitCode: null, reason });
    reaped++;
  }
  return reaped;
}

export type RunInput = { runId: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** the service's container to run in (exec: a running one) or to copy (run: a running one, else the newest) */
async function containerOf(deps: RunDeps, task: TaskRow): Promise<string | null> {
  const all = (await deps.runtime.containers({ project: task.stack })).filter((c) => c.Labels?.['dockwright.service'] === task.service);
  const running = all.find((c) => c.State === 'running');
  if (running) return running.Id;
  if (task.mode === 'run') return [...all].sort((a, b) => b.Created - a.Created)[0]?.Id ?? null;
  return null;
}

/** waits until no other run of the task runs and takes the running slot; a replace run asks the running one to stop */
async function takeSlot(deps: RunDeps, task: TaskRow, run: RunRow, signal: AbortSignal): Promise<boolean> {
  if (await deps.store.start(run.id)) return true;
  if (await reapInterrupted(deps, task.stack, task.name) && await deps.store.start(run.id)) return true;
  if (task.overlap === 'forbid') return false;
  const limit = Date.now() + task.timeoutMs + deps.graceMs + 60_000;
  while (!signal.aborted && Date.now() < limit) {
    if (task.overlap === 'replace') {
      const other = await deps.store.running(task.stack, task.name);
      if (other && !other.stopRequested) await deps.store.requestStop(other.id);
    }
    await sleep(200);
    if (await deps.store.start(run.id)) return true;
  }
  return false;
}

/** resolves with a reason once the run is asked to stop: a replacing run, or the job canceled or the service shutting down */
function stopWatch(deps: RunDeps, runId: string, signal: AbortSignal): { stop: Promise<string>; end(): void } {
  let timer: NodeJS.Timeout | undefined;
  let ended = false;
  const stop = new Promise<string>((resolve) => {
    signal.addEventListener('abort', () => resolve('stopped: the job was canceled or the service is shutting down'), { once: true });
    const look = async () => {
      if (ended) return;
      if (await deps.store.stopRequested(runId).catch(() => false)) return resolve('stopped: replaced by a newer run');
      timer = setTimeout(look, deps.stopPollMs);
    };
    timer = setTimeout(look, deps.stopPollMs);
  });
  return { stop, end: () => { ended = true; clearTimeout(timer); } };
}

export async function runTask(deps: RunDeps, job: JobRun<RunInput>): Promise<unknown> {
  const run = await deps.store.run(job.input.runId);
  if (!run) throw new Error('the run is gone (its task was removed)');
  const task = await deps.store.get(run.stack, run.task);
  const skip = async (reason: string) => {
    await deps.store.skip(run.id, reason);
    job.log(`skipped: ${reason}`);
    if (task) await deps.ended(task, run, 'skipped', { exitCode: null, reason });
    return { run: run.id, status: 'skipped', reason };
  };
  if (!task) return skip('the task was removed');
  const containerId = await containerOf(deps, task);
  if (!containerId) return skip(task.mode === 'exec' ? `service ${task.service} is not running` : `service ${task.service} has no container: deploy the stack first`);
  if (!(await takeSlot(deps, task, run, job.signal))) {
    const other = await deps.store.running(task.stack, task.name);
    return skip(`overlap: run ${other?.id ?? '(another)'} of this task is still running`);
  }

  const inspect = await deps.runtime.docker.getContainer(containerId).inspect();
  const secrets = [...await deps.stackSecrets(task.stack)];
  for (const entry of inspect.Config.Env ?? []) {
    const at = entry.indexOf('=');
    if (at > 0 && looksSecret(entry.slice(0, at)) && entry.length > at + 1) secrets.push(entry.slice(at + 1));
  }
  for (const s of secrets) job.redact(s);
  const shown = typeof task.command === 'string' ? task.command : task.command.join(' ');
  job.log(`${task.mode === 'exec' ? 'exec in' : 'run a one-off container of'} service ${task.service}: ${mask(shown, secrets)}`);

  const watch = stopWatch(deps, run.id, job.signal);
  let pending = '';
  const onOutput = (chunk: Buffer) => {
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) job.log(line);
  };
  let status: RunStatus;
  let exitCode: number | null = null;
  let reason: string | null = null;
  let output = '';
  try {
    const outcome = await execute({
      docker: deps.runtime.docker, container: inspect, mode: task.mode, command: task.command, runId: run.id, installationId: deps.runtime.installationId,
      timeoutMs: task.timeoutMs, graceMs: deps.graceMs, onOutput, stop: watch.stop,
    });
    exitCode = outcome.exitCode;
    output = outcome.output;
    if (outcome.timedOut) { status = 'timed-out'; reason = `timed out after ${task.timeoutMs / 1000} s`; }
    else if (outcome.stopped) { status = 'failed'; reason = outcome.stopped; }
    else { status = exitCode === 0 ? 'succeeded' : 'failed'; reason = exitCode === 0 ? null : `exit code ${exitCode ?? 'unknown'}`; }
    if (outcome.note) reason = `${reason ?? status}; ${outcome.note}`;
  } catch (err) {
    status = 'failed';
    reason = `the run could not be carried out: ${deps.runtime.errorOf(err).reason}`;
  } finally {
    watch.end();
  }
  if (pending) job.log(pending);
  const row = { ...run, status };
  reason = reason && mask(reason, secrets);
  await deps.store.finish(row, { status, exitCode, reason, output: mask(output, secrets) });
  job.log(`${status}${reason ? `: ${reason}` : ''}`);
  await deps.ended(task, row, status, { exitCode, reason });
  await deps.store.prune(task.stack, task.name, deps.retention.keep, deps.retention.maxAgeMs);
  if (status !== 'succeeded') throw new Error(`run ${status}${reason ? `: ${reason}` : ''}`);
  return { run: run.id, status, exitCode };
}
