// The tasks plugin's portal page: a stack's scheduled tasks with their next and last runs, Run now, and each task's runs with their output.
import { useState } from 'preact/hooks';
import { api, can, Empty, enc, JobOutput, Link, Loading, ok, PageTitle, ProblemBox, Status, Time, useAction, useLoad, type PortalPage } from '../../../sdk/portal/kit.tsx';

type Task = { name: string; service: string; command: string[] | string; schedule: string; timezone: string; mode: string; overlap: string; timeout: string; enabled: boolean; declared: boolean; nextRunAt: string | null; lastSuccessAt: string | null; lastRun: Run | null };
type Run = { id: string; job: string | null; trigger: string; status: string; reason?: string; exitCode?: number; startedAt: string | null; endedAt: string | null; createdAt: string };

const shown = (command: string[] | string) => (typeof command === 'string' ? command : command.map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(' '));

/** one run's output, loaded when it is opened */
function RunOutput({ stack, task, run }: { stack: string; task: string; run: string }) {
  const out = useLoad(() => ok(api.GET('/api/v1/stacks/{name}/tasks/{task}/runs/{run}', { params: { path: { name: stack, task, run } } })), [stack, task, run]);
  return (
    <>
      <Loading what={out} />
      {out.data && (out.data.output ? <pre class="output" data-testid="run-output">{out.data.output}</pre> : <p class="muted" data-testid="run-output">No output.</p>)}
    </>
  );
}

/** a task's runs, newest first, each with its reason and its output on demand */
function Runs({ stack, task, refresh }: { stack: string; task: string; refresh: number }) {
  const runs = useLoad(() => ok(api.GET('/api/v1/stacks/{name}/tasks/{task}/runs', { params: { path: { name: stack, task }, query: { limit: 20 } } })) as Promise<unknown> as Promise<Run[]>, [stack, task, refresh], 5000);
  const [open, setOpen] = useState<string>();
  return (
    <section aria-labelledby="runs-title">
      <h2 id="runs-title">Runs of {task}</h2>
      <Loading what={runs} />
      {runs.data && (runs.data.length === 0 ? <Empty>No run yet.</Empty> : (
        <table data-testid="task-runs">
          <thead><tr><th scope="col">Started</th><th scope="col">Trigger</th><th scope="col">Status</th><th scope="col">Exit code</th><th scope="col">Reason</th><th scope="col">Ended</th><th scope="col"><span class="sr-only">Output</span></th></tr></thead>
          <tbody>{runs.data.map((r) => (
            <>
              <tr><td><Time at={r.startedAt ?? r.createdAt} /></td><td>{r.trigger}</td><td><Status value={r.status} /></td><td>{r.exitCode ?? '—'}</td>
                <td>{r.reason ?? ''}</td><td><Time at={r.endedAt} /></td>
                <td><button type="button" aria-label={`Output of the run of ${r.startedAt ?? r.createdAt}`} aria-expanded={open === r.id} onClick={() => setOpen(open === r.id ? undefined : r.id)}>{open === r.id ? 'Hide output' : 'Output'}</button>
                  {r.job && <> <Link href={`/jobs/${enc(r.job)}`}>job</Link></>}</td></tr>
              {open === r.id && <tr><td colSpan={7}><RunOutput stack={stack} task={task} run={r.id} /></td></tr>}
            </>
          ))}</tbody>
        </table>
      ))}
    </section>
  );
}

function Tasks({ params }: { params: Record<string, string> }) {
  const name = params.name;
  const tasks = useLoad(() => ok(api.GET('/api/v1/stacks/{name}/tasks', { params: { path: { name } } })) as Promise<unknown> as Promise<Task[]>, [name], 5000);
  const [selected, setSelected] = useState<string>();
  const [job, setJob] = useState<string>();
  const [refresh, setRefresh] = useState(0);
  const act = useAction();
  const runNow = async (task: string) => {
    const out = await act.run(() => ok(api.POST('/api/v1/stacks/{name}/tasks/{task}/run', { params: { path: { name, task } } })));
    if (out) { setJob(out.id); setSelected(task); }
  };
  const current = selected ?? tasks.data?.[0]?.name;
  return (
    <>
      <PageTitle title={`Tasks of ${name}`}><Link href={`/stacks/${enc(name)}`}>Back to the stack</Link></PageTitle>
      <p class="muted">Commands on a schedule in the stack's services: declare them in the compose file under <code>x-dockwright.tasks</code>, or add them through the API.</p>
      <Loading what={tasks} />
      {tasks.data && (tasks.data.length === 0 ? <Empty>This stack has no scheduled task.</Empty> : (
        <table data-testid="tasks">
          <thead><tr><th scope="col">Task</th><th scope="col">Service</th><th scope="col">Command</th><th scope="col">Schedule</th><th scope="col">Next run</th><th scope="col">Last run</th><th scope="col">Last success</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>{tasks.data.map((t) => (
            <tr aria-current={t.name === current ? 'true' : undefined}>
              <th scope="row"><button type="button" class="link" onClick={() => setSelected(t.name)}>{t.name}</button>{t.declared && <span class="muted"> (compose)</span>}{!t.enabled && <span class="muted"> (disabled)</span>}</th>
              <td>{t.service} <span class="muted">{t.mode}</span></td>
              <td><code>{shown(t.command)}</code></td>
              <td><code>{t.schedule}</code> <span class="muted">{t.timezone}</span></td>
              <td><Time at={t.nextRunAt} /></td>
              <td>{t.lastRun ? <><Status value={t.lastRun.status} /> <Time at={t.lastRun.startedAt ?? t.lastRun.createdAt} /></> : <span class="muted">never</span>}</td>
              <td><Time at={t.lastSuccessAt} /></td>
              <td>{can('tasks:run') && <button type="button" aria-label={`Run ${t.name} now`} onClick={() => runNow(t.name)} disabled={act.busy}>Run now</button>}</td>
            </tr>
          ))}</tbody>
        </table>
      ))}
      <ProblemBox problem={act.problem} />
      {job && <JobOutput id={job} onDone={() => { tasks.reload(); setRefresh((n) => n + 1); }} />}
      {current && <Runs stack={name} task={current} refresh={refresh} />}
    </>
  );
}

// a tab of the stack's page: the portal prefers this page to the stacks plugin's /stacks/:name/:tab (it names more of the path)
export const pages: PortalPage[] = [{ path: '/stacks/:name/tasks', title: 'Tasks', scope: 'tasks:read', component: Tasks }];
