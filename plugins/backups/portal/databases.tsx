// A backup's databases tab: each database target with its strategy, the database snapshots with their verified badge, and verify and restore (into the service, into a new stack, as a download) with the job's output and the download links it made.
import { useState } from 'preact/hooks';
import { api, can, Empty, JobOutput, Loading, ok, ProblemBox, Time, useAction, useLoad } from '../../../sdk/portal/kit.tsx';
import type { BackupView } from './form.tsx';

interface DatabaseEntry { stack: string; service: string; strategy?: string; database?: string }
interface Download { database: string | null; path: string; expiresAt: string }

const path = (name: string) => ({ params: { path: { name } } });

/** a target's strategy: the one it names, else the one the stack's plan suggests now (and why) */
function Strategy({ entry }: { entry: DatabaseEntry }) {
  const plan = useLoad(() => (entry.strategy ? Promise.resolve(null) : ok(api.GET('/api/v1/stacks/{name}/backup-plan', path(entry.stack)))), [entry.stack, entry.strategy]);
  if (entry.strategy) return <code>{entry.strategy}</code>;
  const mine = plan.data?.services.find((s) => s.service === entry.service);
  return mine ? <><code>{mine.strategy}</code> <span class="muted">(suggested: {mine.reason})</span></> : <span class="muted">suggested from the image</span>;
}

/** a one-time download: fetched with the session's CSRF header (a plain link would be refused), then saved by the browser */
function DownloadButton({ name, download }: { name: string; download: Download }) {
  const act = useAction();
  const [done, setDone] = useState(false);
  const save = async () => {
    const id = download.path.slice(download.path.lastIndexOf('/') + 1);
    const blob = await act.run(() => ok(api.GET('/api/v1/backups/{name}/downloads/{id}', { params: { path: { name, id } }, parseAs: 'blob' })) as Promise<Blob>);
    if (!blob) return;
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = `${name}-${download.database ?? 'dump'}${download.path.includes('pgdump') ? '.pgdump' : ''}`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    setDone(true);
  };
  return <>
    <button type="button" onClick={save} disabled={act.busy || done} data-path={download.path}>{done ? `Downloaded ${download.database ?? 'the dump'}` : `Download ${download.database ?? 'the dump'}`}</button>
    <ProblemBox problem={act.problem} />
  </>;
}

function Restore({ name, snapshot, stack, service }: { name: string; snapshot: string; stack: string; service: string }) {
  const [target, setTarget] = useState('service');
  const [into, setInto] = useState('');
  const [job, setJob] = useState<string>();
  const [downloads, setDownloads] = useState<Download[]>([]);
  const act = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    setJob(undefined);
    setDownloads([]);
    const body = { snapshot, stack, service, target: target === 'stack' ? `stack:${into}` : target };
    const started = await act.run(() => ok(api.POST('/api/v1/backups/{name}/restore', { ...path(name), body })));
    if (started) setJob(started.jobId);
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="db-restore-title">
      <h3 id="db-restore-title">Restore snapshot <code>{snapshot.slice(0, 8)}</code> of {service} ({stack})</h3>
      <label>Restore into<select value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
        {can('stacks:deploy') && <option value="service">the running service, in place (its dependants stopped meanwhile)</option>}
        {can('stacks:write') && <option value="stack">a new stack made from {stack}'s compose file</option>}
        <option value="download">a download of the dump</option>
      </select></label>
      {target === 'stack' && <label>Name of the new stack<input required pattern="[a-z0-9][a-z0-9\-]{0,62}" value={into} onInput={(e) => setInto(e.currentTarget.value)} /></label>}
      <div class="actions"><button type="submit" class="primary" disabled={act.busy}>Restore</button></div>
      <ProblemBox problem={act.problem} />
      {job && <JobOutput id={job} onDone={(j) => setDownloads(((j.result as { downloads?: Download[] } | null)?.downloads) ?? [])} />}
      {downloads.length > 0 && (
        <ul aria-label="Downloads">{downloads.map((d) => <li><DownloadButton name={name} download={d} /> <span class="muted">(once, until <Time at={d.expiresAt} />)</span></li>)}</ul>
      )}
    </form>
  );
}

export function Databases({ backup }: { backup: BackupView }) {
  const entries = ((backup.targets as { databases?: DatabaseEntry[] }).databases) ?? [];
  const snapshots = useLoad(() => ok(api.GET('/api/v1/backups/{name}/snapshots', { ...path(backup.name), params: { ...path(backup.name).params, query: { limit: 100 } } })), [backup.name]);
  const [job, setJob] = useState<string>();
  const [chosen, setChosen] = useState<{ id: string; stack: string; service: string }>();
  const act = useAction();
  if (!entries.length) return <Empty>This backup holds no database dumps: add targets.databases on its Definition tab.</Empty>;
  const verify = async () => {
    const started = await act.run(() => ok(api.POST('/api/v1/backups/{name}/verify', path(backup.name))));
    if (started) setJob(started.jobId);
  };
  const dumps = (snapshots.data ?? []).filter((s) => s.kind === 'database' && s.database !== null);
  return (
    <>
      <table data-testid="database-targets">
        <thead><tr><th scope="col">Stack</th><th scope="col">Service</th><th scope="col">Strategy</th><th scope="col">Database</th></tr></thead>
        <tbody>{entries.map((e) => <tr><td>{e.stack}</td><td>{e.service}</td><td><Strategy entry={e} /></td><td>{e.database ?? <span class="muted">every database</span>}</td></tr>)}</tbody>
      </table>
      {can('backups:run') && <div class="actions"><button type="button" class="primary" onClick={verify} disabled={act.busy || !backup.repository.initialized}>Verify</button>
        <span class="muted">restores the latest dumps into a throwaway server and counts their rows</span></div>}
      <ProblemBox problem={act.problem} />
      {job && <JobOutput id={job} onDone={() => snapshots.reload()} />}
      <Loading what={snapshots} />
      {snapshots.data && (dumps.length === 0 ? <Empty>No database dumps yet: run the backup to make some.</Empty> : (
        <table data-testid="database-snapshots">
          <thead><tr><th scope="col">Snapshot</th><th scope="col">Taken</th><th scope="col">Service</th><th scope="col">Database</th><th scope="col">Verified</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>{dumps.map((s) => (
            <tr aria-selected={s.id === chosen?.id}>
              <td><code>{s.shortId}</code></td><td><Time at={s.time} /></td><td>{s.service} <span class="muted">({s.stack}, {s.strategy})</span></td><td>{s.database}</td>
              <td>{s.verifiedAt ? <span class="status status-ok" data-testid="verified">verified <Time at={s.verifiedAt} /></span> : <span class="status status-warning" data-testid="not-verified">not verified</span>}</td>
              <td>{can('backups:run') && <button type="button" onClick={() => setChosen({ id: s.id, stack: s.stack!, service: s.service! })} aria-label={`Restore snapshot ${s.shortId}`}>Restore</button>}</td>
            </tr>
          ))}</tbody>
        </table>
      ))}
      {chosen && <Restore key={chosen.id} name={backup.name} snapshot={chosen.id} stack={chosen.stack} service={chosen.service} />}
    </>
  );
}
