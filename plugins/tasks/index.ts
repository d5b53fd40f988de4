// The tasks plugin: commands on a schedule in a stack's service (exec or a one-off container), with overlap rules, timeouts, every run recorded, and alerts when they fail or stop running.
import { randomUUID } from 'node:crypto';
import { defineJob, definePlugin, looksSecret, Type, type Actor, type AttentionItem, type Job } from '../../sdk/index.ts';
import { alertsPlugin } from '../alerts/api.ts';
import { dockerPlugin } from '../docker/api.ts';
import { stackHooks, stacksPlugin } from '../stacks/api.ts';
import { declaredIn, syncDeclared } from './declared.ts';
import { taskRoutes } from './routes.ts';
import { problems } from './problems.ts';
import { reapInterrupted, runTask, type RunDeps } from './run.ts';
import { tick } from './scheduler.ts';
import { TaskStore, type RunStatus, type TaskRow } from './store.ts';

const Options = Type.Object({
  tickMs: Type.Integer({ minimum: 1000, maximum: 60_000, default: 1000, description: 'how often due tasks are looked at (slots are whole minutes: a run starts within this after its slot)' }),
  catchUpWindowMs: Type.Integer({ minimum: 0, default: 3_600_000, description: 'slots missed while Dockwright was down: the latest one runs once when it is at most this old; 0: none runs' }),
  lagMs: Type.Integer({ minimum: 1000, default: 60_000, description: 'a scheduled run started later than this after its slot raises task-overdue: the scheduler lags' }),
  overdueCheckMs: Type.Integer({ minimum: 1000, default: 60_000, description: 'how often tasks are checked for no success in twice their interval' }),
  graceMs: Type.Integer({ minimum: 0, maximum: 300_000, default: 10_000, description: 'after a timeout or a stop: SIGTERM, then SIGKILL after this' }),
  keepRuns: Type.Integer({ minimum: 1, maximum: 100_000, default: 100, description: 'runs kept per task (the newest)' }),
  keepRunsDays: Type.Integer({ minimum: 1, maximum: 3650, default: 30, description: 'runs older than this are removed' }),
}, { additionalProperties: false });

export const alertKinds = { failed: 'task-failed', overdue: 'task-overdue' } as const;
const system: Actor = { kind: 'system', name: 'task schedule' };

export default definePlugin({
  name: 'tasks',
  problems,
  version: '1.0.0',
  services: ['db', 'events'],
  description: 'Scheduled tasks in a stack\'s services: cron in a time zone, exec or one-off containers, overlap rules, timeouts, run history and alerts',
  requires: [dockerPlugin, stacksPlugin, alertsPlugin],
  options: Options,
  setup(ctx) {
    const o = ctx.options;
    const { docker: runtime, stacks, alerts } = ctx.deps;
    ctx.scopes.define({
      'tasks:read': { description: 'read a stack\'s scheduled tasks and their runs with output', role: 'viewer' },
      'tasks:write': { description: 'add, change and remove scheduled tasks', role: 'operator' },
      'tasks:run': { description: 'run a scheduled task now', role: 'operator' },
    });
    ctx.migrations.from(new URL('./migrations', import.meta.url));
    alerts.addKind({ kind: alertKinds.failed, severity: 'warning', description: 'a scheduled task\'s run failed or timed out (resolved by its next successful run)' });
    alerts.addKind({ kind: alertKinds.overdue, severity: 'warning', description: 'a scheduled task has not succeeded for twice its interval, or the scheduler started it late (resolved by its next successful run)' });
    const store = new TaskStore(ctx.db);

    const stackSecrets = async (stack: string) => {
      const content = await stacks.content(stack);
      return Object.entries(content?.variables ?? {}).filter(([k, v]) => looksSecret(k) && v.length >= 3).map(([, v]) => v);
    };
    const services = async (stack: string) => {
      const content = await stacks.content(stack);
      if (!content) return [];
      return runtime.load({ name: stack, compose: content.compose, variables: content.variables }).services.map((s) => s.name);
    };
    const resource = (stack: string) => `stack:${stack}`;

    const ended = async (task: TaskRow, _run: unknown, status: RunStatus, detail: { exitCode: number | null; reason: string | null }) => {
      const at = { resource: resource(task.stack), subject: task.name };
      ctx.events.emit(`task.${status}`, { stack: task.stack, task: task.name, exitCode: detail.exitCode, reason: detail.reason });
      if (status === 'succeeded') {
        await alerts.resolve(alertKinds.failed, at);
        await alerts.resolve(alertKinds.overdue, at);
      } else if (status === 'failed' || status === 'timed-out') {
        await alerts.raise(alertKinds.failed, { ...at, message: `task ${task.name} of stack ${task.stack} ${status === 'timed-out' ? 'timed out' : 'failed'}${detail.reason ? `: ${detail.reason}` : ''}`, details: { exitCode: detail.exitCode } });
      }
    };
    const runDeps: RunDeps = { store, runtime, graceMs: o.graceMs, stopPollMs: 500, retention: { keep: o.keepRuns, maxAgeMs: o.keepRunsDays * 86_400_000 }, stackSecrets, ended,
      jobDone: async (id) => { const job = await ctx.jobs.get(id); return job ? job.done : null; },
    };
    const runJob = ctx.jobs.define(defineJob({ type: 'tasks.run', input: Type.Object({ runId: Type.String() }), run: (job) => runTask(runDeps, job) }));

    /** records the runs queued (one statement), then queues their jobs a few at a time */
    const startRuns = async (runs: readonly { task: TaskRow; slot: Date | null }[], trigger: 'manual' | 'schedule', actor: Actor) => {
      const rows = runs.map(({ task, slot }) => ({ id: randomUUID(), stack: task.stack, task: task.name, trigger, slot, overlap: task.overlap }));
      await store.addQueued(rows);
      const settled: PromiseSettledResult<Job>[] = [];
      for (let i = 0; i < rows.length; i += 16) {
        settled.push(...await Promise.allSettled(rows.slice(i, i + 16).map((r) => runJob.enqueue({ runId: r.id }, {
          actor, resource: resource(r.stack), ...(r.overlap === 'queue' ? { serialKey: `task:${r.stack}/${r.task}` } : {}),
        }))));
      }
      await store.setJobs(rows.flatMap((r, i) => (settled[i].status === 'fulfilled' ? [{ id: r.id, job: (settled[i] as PromiseFulfilledResult<Job>).value.id }] : [])));
      const failed = settled.find((x): x is PromiseRejectedResult => x.status === 'rejected');
      if (failed) {
        // a run whose job was never queued would show queued for ever: it is recorded skipped, with why
        const reason = `its job could not be queued: ${(failed.reason as Error)?.message ?? String(failed.reason)}`.slice(0, 500);
        for (const [i, r] of rows.entries()) if (settled[i].status === 'rejected') await store.skip(r.id, reason);
        throw failed.reason;
      }
      const jobs = settled.map((x) => (x as PromiseFulfilledResult<Job>).value);
      return jobs;
    };

    for (const route of taskRoutes({
      store, services, stackSecrets, access: (stack, principal, need) => stacks.access(stack, principal, need),
      startRun: async (task, trigger, actor) => (await startRuns([{ task, slot: null }], trigger, actor))[0], changed: () => undefined,
    }, stacks.nameSchema)) ctx.routes.add(route);

    // a tick still at work when the next is due: the next one is skipped here (the claims keep instances apart)
    let ticking = false;
    ctx.schedule.every('tick', o.tickMs, async () => {
      if (ticking) return;
      ticking = true;
      try {
        await tick({
          store, now: () => new Date(), catchUpMs: o.catchUpWindowMs, lagMs: o.lagMs, log: ctx.log,
          start: async (runs) => { await startRuns(runs, 'schedule', system); },
          lagging: (task, late) => alerts.raise(alertKinds.overdue, {
            resource: resource(task.stack), subject: task.name, message: `task ${task.name} of stack ${task.stack} started ${Math.round(late / 1000)} s after its slot: the scheduler lags`, details: { lateMs: late },
          }).then(() => undefined),
        });
      } finally {
        ticking = false;
      }
    });
    ctx.schedule.every('overdue', o.overdueCheckMs, async () => {
      const reaped = await reapInterrupted(runDeps);
      if (reaped) ctx.log.warn({ reaped }, 'runs whose job ended without them were recorded failed (interrupted)');
      for (const task of await store.overdue(new Date())) {
        await alerts.raise(alertKinds.overdue, {
          resource: resource(task.stack), subject: task.name,
          message: `task ${task.name} of stack ${task.stack} has not succeeded since ${task.since} (twice its interval of ${Math.round(task.intervalMs / 60_000)} min)`,
        });
      }
    });

    ctx.extensions.add(stackHooks, {
      saved: async (tx, stack, loaded) => {
        await syncDeclared(store, tx, stack, declaredIn(loaded.raw, loaded.services.map((s) => s.name)), new Date());
      },
      removed: (tx, stack) => store.removeStack(stack, tx),
    });

    ctx.overview.add({
      scope: 'tasks:read',
      async attention(viewer) {
        const late = await store.overdue(new Date());
        const may = await ctx.visibility.filter(viewer, late.map((t) => resource(t.stack)), 'read');
        return late.filter((t) => may(resource(t.stack))).map((t): AttentionItem => ({
          severity: 'warning', kind: alertKinds.overdue, resource: resource(t.stack), since: t.since,
          message: `task ${t.name} of stack ${t.stack} has not succeeded for twice its interval`,
        }));
      },
    });
    return {};
  },
});
