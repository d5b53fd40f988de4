// The jobs running here: each in a p-queue slot, its work with its output saved as it goes and its secrets hidden, then its finish handed on to be written.
import { diskFull, type Job, type JobDef, type Logger } from '../../sdk/index.ts';
import type { TSchema } from '@sinclair/typebox';
import PQueue from 'p-queue';
import { OutputBuffer, Redactor } from './output.ts';
import type { FinishRecord, JobRow, JobStore } from './store.ts';
import type { FinishWriter } from './finishes.ts';

/** what a job's run ends with: what its finish records */
export type Outcome = Pick<FinishRecord, 'status' | 'output' | 'result' | 'error'>;

export interface ExecutionOptions {
  store: JobStore;
  log: Logger;
  outputLimit: number;
  /** how often a running job's output is saved */
  flushMs: number;
  /** true when the job was stopped by a cancel (its end is then `canceled`, not `failed`) */
  canceled(id: string): boolean;
}

/** the strings of a JSON value with secrets hidden (redacting serialized JSON could cut into its syntax) */
function redactValue(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') return redactor.apply(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, redactor));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, redactor)]));
  return value;
}

/** the job's own work, its output saved as it goes: what its finish will record */
export async function runJob(def: JobDef<TSchema>, row: JobRow, signal: AbortSignal, opts: ExecutionOptions): Promise<Outcome> {
  const redactor = new Redactor();
  const output = new OutputBuffer(opts.outputLimit, redactor);
  const save = setInterval(() => {
    if (!output.dirty) return;
    output.dirty = false;
    opts.store.saveOutput(row.id, output.toString()).catch(() => undefined);
  }, opts.flushMs);
  let status: Job['status'] = 'succeeded';
  let result: unknown = null;
  let error: string | null = null;
  try {
    result = await def.run({
      id: row.id, input: row.input, resource: row.resource, actor: row.actor, signal,
      log: (line) => output.append(line),
      redact: (secret) => redactor.add(secret),
    });
  } catch (err) {
    status = opts.canceled(row.id) ? 'canceled' : 'failed';
    error = redactor.apply(diskFull(err)?.detail ?? (err instanceof Error ? err.message : String(err)));
    if (status === 'failed') opts.log.warn({ job: row.id, type: row.type, error }, 'job failed');
  } finally {
    clearInterval(save);
  }
  return { status, output: output.toString(), result: JSON.stringify(redactValue(result ?? null, redactor)), error };
}

export interface RunningJobsOptions {
  store: JobStore;
  log: Logger;
  finishes: FinishWriter;
  concurrency: number;
  outputLimit: number;
  flushMs: number;
  /** the definition of a job type this instance runs */
  def(type: string): JobDef<TSchema>;
  /** a slot is free: claim again soon */
  freed(): void;
}

/** the jobs running here, in slots as wide as jobs.concurrency, and those whose finish is not written yet */
export class RunningJobs {
  /** by id: what stops each */
  private readonly running = new Map<string, AbortController>();
  private readonly canceled = new Set<string>();
  /** jobs that ran here and whose finish is not written yet: their leases are renewed until it is */
  private readonly unwritten = new Set<string>();
  /** what runs or waits for its finish to be written */
  private readonly executions = new Set<Promise<void>>();
  /** the slots jobs run in: the design card's p-queue (a claim takes only as many jobs as are free) */
  private readonly slots: PQueue;

  constructor(private readonly opts: RunningJobsOptions) {
    this.slots = new PQueue({ concurrency: opts.concurrency });
  }

  get concurrency(): number {
    return this.slots.concurrency;
  }

  set concurrency(concurrency: number) {
    this.slots.concurrency = concurrency;
  }

  /** how many more jobs may run now */
  get free(): number {
    return this.slots.concurrency - this.running.size;
  }

  /** the jobs whose leases this instance holds: running, or waiting for their finish to be written */
  ids(): string[] {
    return [...this.running.keys(), ...this.unwritten];
  }

  has(id: string): boolean {
    return this.running.has(id);
  }

  /** stops a job running here (its lease was lost, or the service stops) */
  stop(id: string, reason: Error): void {
    this.running.get(id)?.abort(reason);
  }

  stopAll(reason: Error): void {
    for (const c of this.running.values()) c.abort(reason);
  }

  /** stops a job running here on request (its own or another instance's cancel); false when it does not run here */
  cancel(id: string): boolean {
    const controller = this.running.get(id);
    if (!controller) return false;
    this.canceled.add(id);
    controller.abort(new Error('canceled'));
    return true;
  }

  /** resolves once no job runs or waits for its finish */
  async idle(): Promise<void> {
    while (this.executions.size) await Promise.all([...this.executions]);
  }

  /** runs the jobs just claimed */
  start(rows: readonly JobRow[]): void {
    for (const row of rows) {
      const controller = new AbortController();
      this.running.set(row.id, controller);
      const execution = this.execute(row, controller)
        .catch((err) => this.opts.log.error({ err, job: row.id }, 'a job could not be finished; the next start marks it failed'))
        .finally(() => this.executions.delete(execution));
      this.executions.add(execution);
    }
  }

  /** runs the job in one of the slots (p-queue bounds how many run at once), then has its finish written */
  private async execute(row: JobRow, controller: AbortController): Promise<void> {
    const { store, log, outputLimit, flushMs } = this.opts;
    const run = () => runJob(this.opts.def(row.type), row, controller.signal, { store, log, outputLimit, flushMs, canceled: (id) => this.canceled.has(id) })
      .finally(() => this.canceled.delete(row.id));
    const outcome = await this.slots.add(run, { throwOnTimeout: true });
    // the slot is free now; the job counts as done once its finish is committed, with the next batch
    this.unwritten.add(row.id);
    this.running.delete(row.id);
    this.opts.freed();
    const detail = JSON.stringify({ jobId: row.id, ...(outcome.error ? { error: outcome.error } : {}) });
    await this.opts.finishes.write({ id: row.id, ...outcome, detail }).finally(() => this.unwritten.delete(row.id));
  }
}
