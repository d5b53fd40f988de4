// A backup's snapshots: browse a snapshot's folders, pick what to restore, and restore it into its target with the job's output shown.
import { useState } from 'preact/hooks';
import { api, bytes, can, Empty, JobOutput, Loading, ok, ProblemBox, Time, useAction, useLoad } from '../../../sdk/portal/kit.tsx';

const targets = [
  { value: 'stack', label: "back into the stacks' own volumes (their containers are stopped meanwhile)", scope: 'stacks:deploy' },
  { value: 'site', label: 'back into the sites (a new published version, and the draft)', scope: 'sites:publish' },
  { value: 'folder', label: 'a new folder under DATA_DIR/restores' },
  { value: 'volume', label: 'a new Docker volume' },
];

function Restore({ name, snapshot, paths }: { name: string; snapshot: string; paths: string[] }) {
  const [target, setTarget] = useState('folder');
  const [volume, setVolume] = useState('');
  const [overwrite, setOverwrite] = useState(false);
  const [job, setJob] = useState<string>();
  const act = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    setJob(undefined);
    const body = { snapshot, target: target === 'volume' ? `volume:${volume}` : target, overwrite, ...(paths.length ? { paths } : {}) };
    const started = await act.run(() => ok(api.POST('/api/v1/backups/{name}/restore', { params: { path: { name } }, body })));
    if (started) setJob(started.jobId);
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="restore-title">
      <h3 id="restore-title">Restore {paths.length ? `${paths.length} chosen item${paths.length > 1 ? 's' : ''}` : 'the whole snapshot'} of snapshot <code>{snapshot.slice(0, 8)}</code></h3>
      {paths.length > 0 && <ul>{paths.map((p) => <li><code>{p}</code></li>)}</ul>}
      <label>Restore into<select value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
        {targets.filter((t) => !t.scope || can(t.scope)).map((t) => <option value={t.value}>{t.label}</option>)}
      </select></label>
      {target === 'volume' && <label>Name of the new volume<input required pattern="[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}" value={volume} onInput={(e) => setVolume(e.currentTarget.value)} /></label>}
      <label class="check"><input type="checkbox" checked={overwrite} onChange={(e) => setOverwrite(e.currentTarget.checked)} /> replace data that is there (without it, a restore never overwrites)</label>
      <div class="actions"><button type="submit" class="primary" disabled={act.busy}>Restore</button></div>
      <ProblemBox problem={act.problem} />
      {job && <JobOutput id={job} />}
    </form>
  );
}

/** one folder of a snapshot: its entries, folders to open, items to choose for a restore */
function Folder({ name, snapshot }: { name: string; snapshot: string }) {
  const [folder, setFolder] = useState('/');
  const [chosen, setChosen] = useState<string[]>([]);
  const files = useLoad(() => ok(api.GET('/api/v1/backups/{name}/files', { params: { path: { name }, query: { snapshot, path: folder, limit: 1000 } } })), [name, snapshot, folder]);
  const parts = folder.split('/').filter(Boolean);
  const toggle = (p: string, on: boolean) => setChosen(on ? [...chosen, p] : chosen.filter((x) => x !== p));
  return (
    <>
      <nav aria-label="Folder" class="actions">
        <button type="button" class="link" onClick={() => setFolder('/')}>snapshot root</button>
        {parts.map((p, i) => <>/ <button type="button" class="link" onClick={() => setFolder(`/${parts.slice(0, i + 1).join('/')}`)}>{p}</button></>)}
      </nav>
      <Loading what={files} />
      {files.data && (files.data.length === 0 ? <Empty>This folder is empty.</Empty> : (
        <table data-testid="snapshot-files">
          <thead><tr><th scope="col"><span class="sr-only">Choose</span></th><th scope="col">Name</th><th scope="col">Size</th><th scope="col">Changed</th></tr></thead>
          <tbody>{files.data.map((f) => (
            <tr>
              <td>{can('backups:run') && <input type="checkbox" aria-label={`Choose ${f.path} for a restore`} checked={chosen.includes(f.path)} onChange={(e) => toggle(f.path, e.currentTarget.checked)} />}</td>
              <td>{f.type === 'dir' ? <button type="button" class="link" onClick={() => setFolder(f.path)} aria-label={`Open folder ${f.path}`}>{f.name}/</button> : <code>{f.name}</code>}</td>
              <td>{f.type === 'dir' ? <span class="muted">folder</span> : bytes(f.size)}</td><td><Time at={f.mtime} /></td>
            </tr>
          ))}</tbody>
        </table>
      ))}
      {can('backups:run') && <Restore name={name} snapshot={snapshot} paths={chosen} />}
    </>
  );
}

export function Snapshots({ name }: { name: string }) {
  const snapshots = useLoad(() => ok(api.GET('/api/v1/backups/{name}/snapshots', { params: { path: { name }, query: { limit: 100 } } })), [name]);
  const [open, setOpen] = useState<string>();
  return (
    <>
      <Loading what={snapshots} />
      {snapshots.data && (snapshots.data.length === 0 ? <Empty>No snapshots yet: run the backup to make one.</Empty> : (
        <table data-testid="snapshots">
          <thead><tr><th scope="col">Snapshot</th><th scope="col">Taken</th><th scope="col">Host</th><th scope="col">Holds</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>{snapshots.data.map((s) => (
            <tr aria-selected={s.id === open}>
              <td><code>{s.shortId}</code></td><td><Time at={s.time} /></td><td>{s.hostname}</td><td>{s.sources.map((p) => <div><code>{p}</code></div>)}</td>
              <td><button type="button" onClick={() => setOpen(s.id)} aria-label={`Browse snapshot ${s.shortId}`}>Browse</button></td>
            </tr>
          ))}</tbody>
        </table>
      ))}
      {open && (
        <section aria-labelledby="browse-title">
          <h2 id="browse-title">Snapshot <code>{open.slice(0, 8)}</code></h2>
          <Folder key={open} name={name} snapshot={open} />
        </section>
      )}
    </>
  );
}
