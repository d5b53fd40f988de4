// The task endpoints of /api/v1: a stack's tasks (declared in its compose file or made here), manual runs and the runs with their output.
import type { TString } from '@sinclair/typebox';
import { defineRoute, JobAcceptedSchema, Nullable, pageOf, problem, reply, Type, type Actor, type AnyRoute, type Job, type Principal, type Static } from '../../sdk/index.ts';
import type { Need } from '../stacks/api.ts';
import { compileSchedule, nextSlot, ScheduleError } from './schedule.ts';
import type { RunRow, TaskDefinition, TaskRow, TaskStore } from './store.ts';
import { mask } from './output.ts';

export const TaskName = Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$', description: 'lowercase letters, digits, _ and -' });
const Command = Type.Union([
  Type.Array(Type.String({ maxLength: 4096, pattern: '^[^\\u0000]*$' }), { minItems: 1, maxItems: 100, description: 'argv, run as it is' }),
  Type.String({ minLength: 1, maxLength: 16384, pattern: '^[^\\u0000]*$', description: 'a command line, run by the container\'s sh -c' }),
]);
const Timeout = Type.String({ pattern: '^[1-9][0-9]{0,5}(s|m|h)$', description: '<n>s, <n>m or <n>h; at most 24h' });
const Mode = Type.Union([Type.Literal('exec'), Type.Literal('run')], { description: 'exec: in the service\'s running container; run: a one-off container of the service (its image as deployed, environment, networks and volumes; no ports, no hostname), removed afterwards' });
const Overlap = Type.Union([Type.Literal('forbid'), Type.Literal('queue'), Type.Literal('replace')], { description: 'a run while another runs: forbid (default) records it skipped, queue waits, replace stops the running one' });

export const DefinitionSchema = Type.Object({
  service: Type.String({ minLength: 1, maxLength: 63 }),
  command: Command,
  schedule: Type.String({ minLength: 1, maxLength: 200, description: 'cron of 5 fields or a nickname (@daily), in `timezone`' }),
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'an IANA time zone (default UTC)' })),
  mode: Type.Optional(Mode),
  overlap: Type.Optional(Overlap),
  timeout: Type.Optional(Timeout),
  enabled: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
const CreateBody = Type.Object({ name: TaskName, ...DefinitionSchema.properties }, { additionalProperties: false });
const UpdateBody = Type.Object({ ...DefinitionSchema.properties, revision: Type.Optional(Type.Integer({ minimum: 1 })) }, { additionalProperties: false });

const RunStatus = Type.Union(['queued', 'running', 'succeeded', 'failed', 'skipped', 'timed-out'].map((s) => Type.Literal(s)));
export const RunSchema = Type.Object({
  id: Type.String(), job: Nullable(Type.String()), trigger: Type.Union([Type.Literal('schedule'), Type.Literal('manual')]), status: RunStatus,
  reason: Type.Optional(Type.String()), exitCode: Type.Optional(Type.Integer()), startedAt: Nullable(Type.String()), endedAt: Nullable(Type.String()),
  createdAt: Type.String(),
});
const RunWithOutput = Type.Object({ ...RunSchema.properties, output: Type.String({ description: 'the first and the last half MiB of the output; secret values masked' }) });
export const TaskSchema = Type.Object({
  name: Type.String(), stack: Type.String(), service: Type.String(), command: Command, schedule: Type.String(), timezone: Type.String(),
  mode: Mode, overlap: Overlap, timeout: Type.String(), enabled: Type.Boolean(),
  declared: Type.Boolean({ description: 'from the stack\'s compose file (x-dockwright.tasks): changed only with it' }),
  revision: Type.Integer({ description: 'the task\'s version (its ETag): If-Match on PUT and DELETE' }),
  nextRunAt: Nullable(Type.String()), lastSuccessAt: Nullable(Type.String()), lastRunAt: Nullable(Type.String()),
  lastRun: Nullable(RunSchema),
  createdAt: Type.String(), updatedAt: Type.String(),
});

export interface RouteDeps {
  store: TaskStore;
  /** the stack for this caller: 404 when absent or hidden, 403 when their role is too low */
  access(stack: string, principal: Principal, need: Need): Promise<void>;
  /** the services of the stack's compose file */
  services(stack: string): Promise<string[]>;
  stackSecrets(stack: string): Promise<string[]>;
  startRun(task: TaskRow, trigger: 'manual', actor: Actor): Promise<Job>;
  /** the scheduler is told a task's slots changed */
  changed(): void;
}

const units = { s: 1000, m: 60_000, h: 3_600_000 } as const;
export const timeoutMs = (t: string) => Number(t.slice(0, -1)) * units[t.slice(-1) as keyof typeof units];
const timeoutText = (ms: number) => (ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`);

export const runView = (r: RunRow) => ({
  id: r.id, job: r.job, trigger: r.trigger, status: r.status, ...(r.reason ? { reason: r.reason } : {}), ...(r.exitCode !== null ? { exitCode: r.exitCode } : {}),
  startedAt: r.startedAt, endedAt: r.endedAt, createdAt: r.createdAt,
});

export function taskView(t: TaskRow, lastRun: RunRow | null, secrets: readonly string[]) {
  return {
    name: t.name, stack: t.stack, service: t.service,
    command: typeof t.command === 'string' ? mask(t.command, secrets) : t.command.map((a) => mask(a, secrets)),
    schedule: t.schedule, timezone: t.timezone, mode: t.mode, overlap: t.overlap, timeout: timeoutText(t.timeoutMs), enabled: t.enabled,
    declared: t.declared, revision: t.version, nextRunAt: t.enabled ? t.nextRunAt : null, lastSuccessAt: t.lastSuccessAt, lastRunAt: t.lastRunAt,
    lastRun: lastRun && runView(lastRun), createdAt: t.createdAt, updatedAt: t.updatedAt,
  };
}

/** a definition checked as a whole (schedule, zone, timeout, service): a 400 or 422 problem, nothing written */
export function definitionOf(body: Static<typeof DefinitionSchema>, services: readonly string[] | null, at = '/body'): TaskDefinition {
  const timezone = body.timezone ?? 'UTC';
  try {
    compileSchedule(body.schedule, timezone);
  } catch (err) {
    if (!(err instanceof ScheduleError)) throw err;
    const path = /time zone/.test(err.message) ? `${at}/timezone` : `${at}/schedule`;
    throw problem(400, err.message, { errors: [{ path, message: err.message }] });
  }
  const timeout = timeoutMs(body.timeout ?? '1h');
  if (timeout > 86_400_000) throw problem(400, 'timeout is at most 24h', { errors: [{ path: `${at}/timeout`, message: 'at most 24h' }] });
  if (services && !services.includes(body.service)) {
    throw problem(422, `the stack has no service "${body.service}" (its services: ${services.join(', ') || 'none'})`, { code: 'unknown-service', errors: [{ path: `${at}/service`, message: 'no such service' }] });
  }
  return { service: body.service, command: body.command, schedule: body.schedule, timezone, mode: body.mode ?? 'exec', overlap: body.overlap ?? 'forbid', timeoutMs: timeout, enabled: body.enabled ?? true };
}

export function taskRoutes(deps: RouteDeps, stackName: TString): AnyRoute[] {
  const { store } = deps;
  const Params = Type.Object({ name: stackName });
  const TaskParams = Type.Object({ name: stackName, task: TaskName });
  const taskOf = async (stack: string, name: string, principal: Principal, need: Need) => {
    await deps.access(stack, principal, need);
    const task = await store.get(stack, name);
    if (!task) throw problem(404, `stack "${stack}" has no task "${name}"`);
    return task;
  };
  const viewOf = async (t: TaskRow) => taskView(t, (await store.runs(t.stack, t.name, 1))[0] ?? null, await deps.stackSecrets(t.stack));
  const notDeclared = (t: TaskRow) => {
    if (t.declared) throw problem(409, `task "${t.name}" is declared in the compose file of stack "${t.stack}" (x-dockwright.tasks): change it there`, { code: 'task-declared' });
  };
  const stale = (t: TaskRow) => problem(412, `task "${t.name}" changed meanwhile (its revision is ${t.version})`, { code: 'revision-stale', extra: { currentRevision: t.version } });

  return [
    defineRoute({
      method: 'GET', path: '/stacks/:name/tasks', scopes: ['tasks:read'], params: Params, response: Type.Array(TaskSchema),
      summary: 'A stack\'s tasks: declared in its compose file and made through the API, with their next and last runs',
      handler: async ({ params, principal }) => {
        await deps.access(params.name, principal, 'read');
        return Promise.all((await store.list(params.name)).map(viewOf));
      },
    }),
    defineRoute({
      method: 'POST', path: '/stacks/:name/tasks', scopes: ['tasks:write'], params: Params, body: CreateBody, response: TaskSchema, status: 201,
      errors: [404, 409, 422], resource: 'stack:{name}',
      summary: 'Add a scheduled task to a stack', description: 'Nothing is written unless the whole task is valid: its schedule, time zone, timeout and service.',
      handler: async ({ params, body, principal }) => {
        await deps.access(params.name, principal, 'write');
        const { name, ...rest } = body;
        const def = definitionOf(rest, await deps.services(params.name));
        if (!(await store.create(params.name, name, def, false, nextSlot(def.schedule, def.timezone, new Date())))) {
          throw problem(409, `stack "${params.name}" already has a task "${name}"`, { code: 'task-exists' });
        }
        deps.changed();
        return reply(201, await viewOf((await store.get(params.name, name))!), { Location: `/api/v1/stacks/${params.name}/tasks/${name}` });
      },
    }),
    defineRoute({
      method: 'GET', path: '/stacks/:name/tasks/:task', scopes: ['tasks:read'], params: TaskParams, response: TaskSchema, summary: 'One task with its next and last run',
      handler: async ({ params, principal }) => viewOf(await taskOf(params.name, params.task, principal, 'read')),
    }),
    defineRoute({
      method: 'PUT', path: '/stacks/:name/tasks/:task', scopes: ['tasks:write'], params: TaskParams, body: UpdateBody, response: TaskSchema,
      revision: 'optional', errors: [404, 409, 412, 422], resource: 'stack:{name}',
      summary: 'Change a task made through the API (a declared one changes with its compose file: 409)',
      handler: async ({ params, body, principal, revision }) => {
        const task = await taskOf(params.name, params.task, principal, 'write');
        notDeclared(task);
        if (revision !== undefined && revision !== task.version) throw stale(task);
        const { revision: _, ...rest } = body;
        const def = definitionOf(rest, await deps.services(params.name));
        const keepsSlot = def.schedule === task.schedule && def.timezone === task.timezone && def.enabled === task.enabled && task.enabled;
        const next = keepsSlot && task.nextRunAt ? new Date(task.nextRunAt) : nextSlot(def.schedule, def.timezone, new Date());
        if (!(await store.update(params.name, params.task, def, next, revision ?? task.version))) throw stale((await store.get(params.name, params.task)) ?? task);
        deps.changed();
        return viewOf((await store.get(params.name, params.task))!);
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/stacks/:name/tasks/:task', scopes: ['tasks:write'], params: TaskParams, status: 204,
      revision: 'optional', errors: [404, 409, 412], resource: 'stack:{name}',
      summary: 'Remove a task made through the API and its finished runs (a declared one goes with its compose file: 409)',
      handler: async ({ params, principal, revision }) => {
        const task = await taskOf(params.name, params.task, principal, 'write');
        notDeclared(task);
        if (revision !== undefined && revision !== task.version) throw stale(task);
        if (!(await store.remove(params.name, params.task, revision ?? task.version))) throw stale((await store.get(params.name, params.task)) ?? task);
        deps.changed();
      },
    }),
    defineRoute({
      method: 'POST', path: '/stacks/:name/tasks/:task/run', scopes: ['tasks:run'], params: TaskParams, status: 202, response: JobAcceptedSchema,
      errors: [404], resource: 'stack:{name}',
      summary: 'Run a task now (its overlap rule applies: a run while another runs may be recorded skipped); 202 with the job that carries it out',
      handler: async ({ params, principal }) => {
        const task = await taskOf(params.name, params.task, principal, 'deploy');
        const job = await deps.startRun(task, 'manual', principal.actor);
        return reply(202, { ...job, jobId: job.id }, { Location: `/api/v1/jobs/${job.id}` });
      },
    }),
    defineRoute({
      method: 'GET', path: '/stacks/:name/tasks/:task/runs', scopes: ['tasks:read'], params: TaskParams, page: true, response: RunSchema,
      cursor: Type.String({ format: 'uuid' }),
      summary: 'A task\'s runs, newest first: skipped ones with their reason',
      handler: async ({ params, principal, page }) => {
        await taskOf(params.name, params.task, principal, 'read');
        const { shown, next } = pageOf(await store.runs(params.name, params.task, page.limit + 1, page.cursor), page.limit, (r) => r.id);
        return { items: shown.map(runView), next };
      },
    }),
    defineRoute({
      method: 'GET', path: '/stacks/:name/tasks/:task/runs/:run', scopes: ['tasks:read'], params: Type.Object({ ...TaskParams.properties, run: Type.String({ format: 'uuid' }) }),
      response: RunWithOutput, summary: 'One run with its output (the first and last half MiB; secret values masked)',
      handler: async ({ params, principal }) => {
        await taskOf(params.name, params.task, principal, 'read');
        const run = await store.run(params.run);
        if (!run || run.stack !== params.name || run.task !== params.task) throw problem(404, `task "${params.task}" has no run "${params.run}"`);
        return { ...runView(run), output: mask(run.output, await deps.stackSecrets(params.name)) };
      },
    }),
  ];
}
