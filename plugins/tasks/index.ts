// The tasks plugin: commands on a schedule in a stack's service (exec or a one-off container), with overlap rules, timeouts, every run recorded, and alerts when they fail or stop running.
import { randomUUID } from 'node:crypto';
import { defineJob, definePlugin, looksSecret, Type, type Actor, type AttentionItem, type Principal } from '../../sdk/index.ts';
import { alertsPlugin } from '../alerts/api.ts';
import { dockerPlugin } from '../docker/api.ts';
import { stackHooks, stacksPlugin } from '../stacks/api.ts';
import { declaredIn, syncDeclared } from './declared.ts';
import { taskRoutes } from './routes.ts';
import { reapInterrupted, runTask, type RunDeps } from './run.ts';
import { overdue, tick } from './scheduler.ts';
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

    const startRun = async (task: TaskRow, trigger: 'manual' | 'schedule', actor: Actor, slot: Date | null = null) => {
      const id = randomUUID();
      await store.addRun({ id, stack: task.stack, task: task.name, trigger, status: 'queued', slot });
      const job = await runJob.enqueue({ runId: id }, {
        actor, resource: resource(task.stack), ...(task.overlap === 'queue' ? { serialKey: `task:${task.stack}/${task.name}` } : {}),
      });
      await store.setJob(id, job.id);
      return job;
    };

    for (const route of taskRoutes({
      store, services, stackSecrets, access: (stack, principal, need) => stacks.access(stack, principal, need),
      startRun: (task, trigger, actor) => startRun(task, trigger, actor), changed: () => undefined,
    }, stacks.nameSchema)) ctx.routes.add(route);

    ctx.schedule.every('tick', o.tickMs, async () => {
      await tick({
        store, now: () => new Date(), catchUpMs: o.catchUpWindowMs, lagMs: o.lagMs, log: ctx.log,
        start: (task, slot) => startRun(task, 'schedule', system, slot),
        lagging: (task, late) => alerts.raise(alertKinds.overdue, {
          resource: resource(task.stack), subject: task.name, message: `task ${task.name} of stack ${task.stack} started ${Math.round(late / 1000)} s after its slot: the scheduler lags`, details: { lateMs: late },
        }).then(() => undefined),
      });
    });
    ctx.schedule.every('overdue', o.overdueCheckMs, async () => {
      const reaped = await reapInterrupted(runDeps);
      if (reaped) ctx.log.warn({ reaped }, 'runs whose job ended without them were recorded failed (interrupted)');
      for (const { task, since, intervalMs } of await overdue(store, new Date())) {
        await alerts.raise(alertKinds.overdue, {
          resource: resource(task.stack), subject: task.name,
          message: `task ${task.name} of stack ${task.stack} has not succeeded since ${since.toISOString()} (twice its interval of ${Math.round(intervalMs / 60_000)} min)`,
        });
      }
    });

    ctx.extensions.add(stackHooks, {
      saved: async (tx, stack, loaded) => {
        await syncDeclared(store, tx, stack, declaredIn(loaded.raw, loaded.services.map((s) => s.name)), new Date());
      },
      removed: (tx, stack) => store.removeStack(stack, tx),
    });

    const seenBy = async (viewer: Principal) => {
      const rows = await store.enabledTasks();
      const may = await ctx.visibility.filter(viewer, rows.map((r) => resource(r.stack)), 'read');
      return rows.filter((r) => may(resource(r.stack)));
    };
    ctx.overview.add({
      scope: 'tasks:read',
      async attention(viewer) {
        const shown = new Set((await seenBy(viewer)).map((t) => `${t.stack}/${t.name}`));
        return (await overdue(store, new Date())).filter(({ task }) => shown.has(`${task.stack}/${task.name}`)).map(({ task, since }): AttentionItem => ({
          severity: 'warning', kind: alertKinds.overdue, resource: resource(task.stack), since: since.toISOString(),
          message: `task ${task.name} of stack ${task.stack} has not succeeded for twice its interval`,
        }));
      },
    });
    return {};
  },
});
