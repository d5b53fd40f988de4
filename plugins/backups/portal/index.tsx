// The backups plugin's portal pages: the backups with their last run, a new backup, and a backup's runs (run now, history), snapshots (browse, restore) and definition (edit, delete).
import { useState } from 'preact/hooks';
import { api, bytes, can, duration, Empty, enc, JobOutput, Link, Loading, navigate, ok, PageTitle, ProblemBox, ShownOnce, Status, Tabs, Time, useAction, useLoad, type PortalPage } from '../../../sdk/portal/kit.tsx';
import { Snapshots } from './browse.tsx';
import { Databases } from './databases.tsx';
import { BackupForm, retentionWords, targetWords, type BackupView } from './form.tsx';
export { overviewCards, resourcePaths } from './overview.tsx';

const path = (name: string) => ({ params: { path: { name } } });

/** a run in words: "1,204 files, 3.1 MiB added of 40.2 MiB, in 12 s" */
function runWords(r: { files?: number | null; bytesAdded?: number | null; totalBytes?: number | null; durationMs?: number | null }): string {
  const parts = [r.files !== null && r.files !== undefined ? `${r.files.toLocaleString()} files` : '', r.bytesAdded !== null && r.bytesAdded !== undefined ? `${bytes(r.bytesAdded)} added of ${bytes(r.totalBytes)}` : ''];
  return [parts.filter(Boolean).join(', '), r.durationMs ? `in ${duration(r.durationMs)}` : ''].filter(Boolean).join(' ');
}

/** a generated repository password, when the answer carries it (shown once, like a token) */
const passwordOf = (answer: unknown) => (answer as { password?: unknown }).password;

function Backups() {
  const list = useLoad(() => ok(api.GET('/api/v1/backups', { params: { query: { limit: 500 } } })), [], 5000);
  return (
    <>
      <PageTitle title="Backups">{can('backups:write') && <Link href="/backups-new" class="button">New backup</Link>}</PageTitle>
      <Loading what={list} />
      {list.data && (list.data.length === 0 ? <Empty>No backups yet.</Empty> : (
        <table data-testid="backups">
          <thead><tr><th scope="col">Backup</th><th scope="col">Holds</th><th scope="col">Schedule</th><th scope="col">Last run</th><th scope="col">Next run</th><th scope="col">Snapshots</th></tr></thead>
          <tbody>{list.data.map((b) => (
            <tr><td><Link href={`/backups/${enc(b.name)}`}>{b.name}</Link></td><td>{targetWords(b.targets)}</td><td>{b.schedule ? <code>{b.schedule}</code> : <span class="muted">by hand</span>}</td>
              <td>{b.lastRun ? <><Status value={b.lastRun.status} /> <Time at={b.lastRun.finishedAt} /> <span class="muted">{b.lastRun.error ?? runWords(b.lastRun)}</span></> : <span class="muted">never</span>}</td>
              <td>{b.schedule ? <Time at={b.nextRun} /> : <span class="muted">—</span>}</td><td>{b.snapshots ?? <span class="muted">—</span>}</td></tr>
          ))}</tbody>
        </table>
      ))}
    </>
  );
}

function NewBackup() {
  const [made, setMade] = useState<{ name: string; password: string }>();
  if (made) {
    return (
      <>
        <PageTitle title={`Backup ${made.name} is defined`} />
        <ShownOnce label="Repository password" secret={made.password} extra={<p>Keep it to open the repository with plain restic elsewhere.</p>} />
        <Link href={`/backups/${enc(made.name)}`}>Go to backup {made.name}</Link>
      </>
    );
  }
  return (
    <>
      <PageTitle title="New backup" />
      <BackupForm onSaved={(b) => { const p = passwordOf(b); if (typeof p === 'string') setMade({ name: b.name, password: p }); else navigate(`/backups/${enc(b.name)}`); }} />
    </>
  );
}

/** the runs and restores of a backup, newest first, from the job list */
function History({ name, since }: { name: string; since: number }) {
  const jobs = useLoad(() => ok(api.GET('/api/v1/jobs', { params: { query: { resource: `backup:${name}`, limit: 30 } } })), [name, since], 10_000);
  if (!can('jobs:read')) return null;
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">Runs and restores</h2>
      <Loading what={jobs} />
      {jobs.data && (jobs.data.length === 0 ? <Empty>Not run yet.</Empty> : (
        <table data-testid="history">
          <thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Status</th><th scope="col">By</th><th scope="col">Outcome</th></tr></thead>
          <tbody>{jobs.data.map((j) => {
            const result = (j.result ?? {}) as { shortId?: string; files?: number; bytesAdded?: number; totalBytes?: number; durationMs?: number; target?: string; bytes?: number };
            return (
              <tr><td><Link href={`/jobs/${j.id}`}><Time at={j.createdAt} /></Link></td><td>{j.type === 'backups.restore' ? 'restore' : 'backup'}</td><td><Status value={j.status} /></td>
                <td>{j.actor.name ?? j.actor.kind}</td>
                <td>{j.error ? <span class="error-text">{j.error}</span>
                  : j.type === 'backups.restore' ? (result.target ? <>into {result.target}{result.files !== undefined && `, ${result.files.toLocaleString()} files`}</> : null)
                    : <>{result.shortId && <>snapshot <code>{result.shortId}</code>, </>}{runWords(result)}</>}</td></tr>
            );
          })}</tbody>
        </table>
      ))}
    </section>
  );
}

function Runs({ backup, reload }: { backup: BackupView; reload(): void }) {
  const [job, setJob] = useState<string>();
  const [finished, setFinished] = useState(0);
  const act = useAction();
  const run = async () => {
    const started = await act.run(() => ok(api.POST('/api/v1/backups/{name}/run', path(backup.name))));
    if (started) setJob(started.jobId);
  };
  const r = backup.lastRun;
  return (
    <>
      <dl class="summary">
        <div><dt>Holds</dt><dd>{targetWords(backup.targets)}</dd></div>
        <div><dt>Schedule</dt><dd>{backup.schedule ? <><code>{backup.schedule}</code>, next <Time at={backup.nextRun} /></> : 'only when run by hand'}</dd></div>
        <div><dt>Retention</dt><dd>{retentionWords(backup.retention)}</dd></div>
        <div><dt>Consistency</dt><dd>{backup.consistency === 'stop' ? 'containers stopped during the snapshot' : 'live (containers keep running)'}</dd></div>
        <div><dt>Repository</dt><dd>{backup.repository.default ? 'the default folder' : <code>{backup.repository.url}</code>}{!backup.repository.initialized && <span class="muted"> (made at the first run)</span>}</dd></div>
        <div><dt>Last run</dt><dd>{r ? <><Status value={r.status} /> <Time at={r.finishedAt} />{r.scheduled && ' (scheduled)'} <div>{r.error ? <span class="error-text">{r.error}</span> : runWords(r)}</div></> : 'never'}</dd></div>
        {backup.missed && <div><dt>Missed</dt><dd class="error-text">the run of <Time at={backup.missed.slot} /> did not happen</dd></div>}
      </dl>
      {can('backups:run') && <div class="actions"><button type="button" class="primary" onClick={run} disabled={act.busy}>Run now</button></div>}
      <ProblemBox problem={act.problem} />
      {job && <JobOutput id={job} onDone={() => { reload(); setFinished((n) => n + 1); }} />}
      <History name={backup.name} since={finished} />
    </>
  );
}

function Definition({ backup, reload }: { backup: BackupView; reload(): void }) {
  const [said, setSaid] = useState('');
  const [password, setPassword] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const act = useAction();
  const remove = async () => {
    if (await act.run(() => ok(api.DELETE('/api/v1/backups/{name}', path(backup.name))))) navigate('/backups');
  };
  if (!can('backups:write')) return <Empty>Your role cannot change backups.</Empty>;
  return (
    <>
      {said && <p role="status">{said}</p>}
      {password && <ShownOnce label="Repository password" secret={password} />}
      <BackupForm key={backup.updatedAt} name={backup.name} backup={backup} onSaved={(b) => { const p = passwordOf(b); setPassword(typeof p === 'string' ? p : undefined); setSaid('Saved.'); reload(); }} />
      <div class="actions">
        {confirming ? (
          <div role="alert" class="card">
            <p>Delete backup <strong>{backup.name}</strong>? Its repository and snapshots are kept.</p>
            <button type="button" class="danger" onClick={remove} disabled={act.busy}>Yes, delete {backup.name}</button>
            <button type="button" onClick={() => setConfirming(false)}>Cancel</button>
          </div>
        ) : <button type="button" class="danger" onClick={() => setConfirming(true)}>Delete backup…</button>}
      </div>
      <ProblemBox problem={act.problem} />
    </>
  );
}

const tabs = [{ id: '', label: 'Runs' }, { id: 'snapshots', label: 'Snapshots and restore' }, { id: 'databases', label: 'Databases' }, { id: 'definition', label: 'Definition' }];

function Backup({ params }: { params: Record<string, string> }) {
  const name = params.name;
  const tab = params.tab ?? '';
  const backup = useLoad(() => ok(api.GET('/api/v1/backups/{name}', path(name))), [name], 5000);
  return (
    <>
      <PageTitle title={`Backup ${name}`}>{backup.data?.lastRun && <Status value={backup.data.lastRun.status} />}</PageTitle>
      <Tabs tabs={tabs} current={tab} base={`/backups/${enc(name)}`} />
      <Loading what={backup} />
      {backup.data && tab === '' && <Runs backup={backup.data} reload={backup.reload} />}
      {backup.data && tab === 'snapshots' && <Snapshots name={name} />}
      {backup.data && tab === 'databases' && <Databases backup={backup.data} />}
      {backup.data && tab === 'definition' && <Definition backup={backup.data} reload={backup.reload} />}
    </>
  );
}

export const pages: PortalPage[] = [
  { path: '/backups', title: 'Backups', nav: 50, scope: 'backups:read', component: Backups },
  { path: '/backups-new', title: 'New backup', scope: 'backups:write', component: NewBackup },
  { path: '/backups/:name', title: 'Backup', scope: 'backups:read', component: Backup },
  { path: '/backups/:name/:tab', title: 'Backup', scope: 'backups:read', component: Backup },
];
