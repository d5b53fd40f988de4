// The jobs pages: the list (what ran, for whom, how long it took, the service's own background jobs behind a filter) and one job with its live output.
import { useState } from 'preact/hooks';
import { api, can, duration, Empty, JobOutput, Link, Loading, ok, PageTitle, ProblemBox, Status, Time, useAction, useLoad, type paths } from '../../../sdk/portal/kit.tsx';
import { resourceHref } from './resources.ts';

type Job = paths['/api/v1/jobs/{id}']['get']['responses'][200]['content']['application/json'];

/** who started a job or an action, as people say it: a user (and how), a webhook and its caller, a git push, a CI job's federated token, the service itself */
export function actorText(actor: Job['actor']): string {
  if ((actor.kind as string) === 'federation') return `CI ${actor.name ?? 'job'} (federation)`;
  switch (actor.kind) {
    case 'user': return `${actor.name ?? 'a user'}${actor.channel === 'portal' ? ' (portal)' : actor.channel === 'mcp' ? ' (MCP)' : ' (API)'}`;
    case 'webhook': return `webhook${actor.address ? ` from ${actor.address}` : ''}`;
    case 'github': return `git push${actor.address ? ` from ${actor.address}` : ''}`;
    default: return actor.name ? `Dockwright (${actor.name})` : 'Dockwright';
  }
}

/** how long a job ran, or has been running */
export function took(j: Job): string {
  if (!j.startedAt) return j.done ? '—' : 'waiting';
  const end = j.finishedAt ? Date.parse(j.finishedAt) : Date.now();
  return `${duration(end - Date.parse(j.startedAt))}${j.finishedAt ? '' : ' so far'}`;
}

/** a job's resource, linked to the page that shows it when a plugin has one */
function ResourceLink({ resource }: { resource: string | null }) {
  if (!resource) return <span class="muted">—</span>;
  const href = resourceHref(resource);
  return href ? <Link href={href}>{resource}</Link> : <>{resource}</>;
}

function Jobs() {
  const [status, setStatus] = useState('');
  const [internal, setInternal] = useState(false);
  const jobs = useLoad(() => ok(api.GET('/api/v1/jobs', { params: { query: { limit: 50, ...(internal ? {} : { internal: false }), ...(status ? { status: status as 'running' } : {}) } } })), [status, internal], 2000);
  return (
    <>
      <PageTitle title="Jobs" />
      <div class="filters">
        <label class="inline">Status <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
          {['', 'queued', 'running', 'succeeded', 'failed', 'canceled'].map((s) => <option value={s}>{s || 'any'}</option>)}
        </select></label>
        <label class="check"><input type="checkbox" checked={internal} onChange={(e) => setInternal(e.currentTarget.checked)} /> Also show Dockwright's own background jobs (alert deliveries)</label>
      </div>
      <Loading what={jobs} />
      {jobs.data && (jobs.data.length === 0 ? <Empty>No jobs.</Empty> : (
        <table data-testid="jobs">
          <thead><tr><th scope="col">Job</th><th scope="col">What</th><th scope="col">On</th><th scope="col">Status</th><th scope="col">Started by</th><th scope="col">Created</th><th scope="col">Took</th></tr></thead>
          <tbody>{jobs.data.map((j) => (
            <tr><td><Link href={`/jobs/${j.id}`}><code>{j.id.slice(0, 8)}</code></Link></td><td>{j.type.replace('.', ' ')}</td><td><ResourceLink resource={j.resource} /></td>
              <td><Status value={j.status} /></td><td>{actorText(j.actor)}</td><td><Time at={j.createdAt} /></td><td>{took(j)}</td></tr>
          ))}</tbody>
        </table>
      ))}
    </>
  );
}

function JobPage({ params }: { params: Record<string, string> }) {
  const cancel = useAction();
  // a finished job has nothing to cancel: the button waits for the job's state and leaves when it is done
  const [open, setOpen] = useState(false);
  return (
    <>
      <PageTitle title={`Job ${params.id.slice(0, 8)}`} />
      {can('jobs:cancel') && open && <button type="button" onClick={() => cancel.run(() => ok(api.POST('/api/v1/jobs/{id}/cancel', { params: { path: { id: params.id } } })))}>Cancel job</button>}
      <ProblemBox problem={cancel.problem} />
      <JobOutput id={params.id} onUpdate={(j) => setOpen(!j.done)} />
    </>
  );
}

export const jobPages = [
  { path: '/jobs', title: 'Jobs', nav: 91, group: 'activity', scope: 'jobs:read', component: Jobs },
  { path: '/jobs/:id', title: 'Job', scope: 'jobs:read', component: JobPage },
];
