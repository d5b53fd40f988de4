// The backups plugin's portal pages: backup definitions with their last run, run now with live output, and a backup's snapshots.
import { useState } from 'preact/hooks';
import { api, can, Empty, enc, JobOutput, Link, Loading, ok, PageTitle, ProblemBox, Status, Time, useAction, useLoad, type PortalPage } from '../../../sdk/portal/kit.tsx';

interface BackupView { name: string; schedule: string | null; lastRun?: { jobId?: string; status?: string; finishedAt?: string | null } | null; nextRun?: string | null; snapshots?: number; [key: string]: unknown }

function Backups() {
  const list = useLoad(async () => (await ok(api.GET('/api/v1/backups', { params: { query: { limit: 500 } } }))) as unknown as BackupView[], [], 5000);
  return (
    <>
      <PageTitle title="Backups" />
      <Loading what={list} />
      {list.data && (list.data.length === 0 ? <Empty>No backups are defined (PUT /api/v1/backups/&lt;name&gt; defines one).</Empty> : (
        <table>
          <thead><tr><th scope="col">Backup</th><th scope="col">Schedule</th><th scope="col">Last run</th><th scope="col">Next run</th></tr></thead>
          <tbody>{list.data.map((b) => (
            <tr><td><Link href={`/backups/${enc(b.name)}`}>{b.name}</Link></td><td><code>{b.schedule ?? 'manual'}</code></td>
              <td>{b.lastRun ? <><Status value={b.lastRun.status ?? null} /> <Time at={b.lastRun.finishedAt ?? null} /></> : <span class="muted">never</span>}</td><td><Time at={b.nextRun ?? null} /></td></tr>
          ))}</tbody>
        </table>
      ))}
    </>
  );
}

function Backup({ params }: { params: Record<string, string> }) {
  const name = params.name;
  const backup = useLoad(async () => (await ok(api.GET('/api/v1/backups/{name}', { params: { path: { name } } }))) as unknown as BackupView, [name]);
  const snapshots = useLoad(async () => (await ok(api.GET('/api/v1/backups/{name}/snapshots', { params: { path: { name }, query: { limit: 50 } } }))) as unknown as Record<string, unknown>[], [name]);
  const [job, setJob] = useState<string>();
  const act = useAction();
  const run = async () => {
    const started = await act.run(() => ok(api.POST('/api/v1/backups/{name}/run', { params: { path: { name } } })));
    if (started) setJob((started as unknown as { id: string; jobId?: string }).jobId ?? (started as unknown as { id: string }).id);
  };
  return (
    <>
      <PageTitle title={`Backup ${name}`}>{can('backups:run') && <button type="button" class="primary" onClick={run} disabled={act.busy}>Run now</button>}</PageTitle>
      <ProblemBox problem={act.problem} />
      {job && <JobOutput id={job} onDone={() => { backup.reload(); snapshots.reload(); }} />}
      <Loading what={backup} />
      {backup.data && <dl class="summary">{Object.entries(backup.data).map(([k, v]) => <div><dt>{k}</dt><dd><code>{typeof v === 'object' ? JSON.stringify(v) : String(v)}</code></dd></div>)}</dl>}
      <h2>Snapshots</h2>
      <Loading what={snapshots} />
      {snapshots.data && (snapshots.data.length === 0 ? <Empty>No snapshots yet.</Empty> : (
        <ul>{snapshots.data.map((s) => <li><code>{String(s.id ?? s.shortId ?? '')}</code> <Time at={(s.time as string) ?? null} /></li>)}</ul>
      ))}
    </>
  );
}

export const pages: PortalPage[] = [
  { path: '/backups', title: 'Backups', nav: 50, scope: 'backups:read', component: Backups },
  { path: '/backups/:name', title: 'Backup', scope: 'backups:read', component: Backup },
];
