// The portal's Previews tab of a stack: each preview's link, commit and status with redeploy and remove, and the preview settings.
import { useState } from 'preact/hooks';
import { api, can, Empty, enc, JobOutput, Link, Loading, ok, PageTitle, ProblemBox, Status, Time, useAction, useLoad, type PortalPage } from '../../../sdk/portal/kit.tsx';

type View = {
  enabled: boolean; hostname: string | null; maxActive: number; idleDays: number; fromForks: boolean;
  previews: { key: string; pullRequest: number | null; ref: string | null; deployedCommit: string | null; urls: string[]; status: string; deployedAt: string | null; lastJob: { id: string; status: string; error: string | null } | null }[];
};
const at = (name: string, key?: string) => ({ params: { path: key === undefined ? { name } : { name, key } } });

function Settings({ name, view, reload }: { name: string; view: View; reload(): void }) {
  const [enabled, setEnabled] = useState(view.enabled);
  const [hostname, setHostname] = useState(view.hostname ?? '');
  const [maxActive, setMaxActive] = useState(view.maxActive);
  const [idleDays, setIdleDays] = useState(view.idleDays);
  const [fromForks, setFromForks] = useState(view.fromForks);
  const save = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const body = { enabled, hostname: hostname || null, maxActive, idleDays, fromForks };
    if (await save.run(() => ok(api.PUT('/api/v1/stacks/{name}/previews', { ...at(name), body } as never)))) reload();
  };
  return (
    <form class="card" onSubmit={submit}>
      <h2>Preview settings</h2>
      <label class="inline"><input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} /> Previews enabled</label>
      <label>Hostname template<input value={hostname} placeholder="{key}.{stack}.preview.example.com" onInput={(e) => setHostname(e.currentTarget.value)} /></label>
      <label>Most previews at once<input type="number" min={1} max={100} value={maxActive} onInput={(e) => setMaxActive(Number(e.currentTarget.value))} /></label>
      <label>Remove after days without an update<input type="number" min={1} max={365} value={idleDays} onInput={(e) => setIdleDays(Number(e.currentTarget.value))} /></label>
      <label class="inline"><input type="checkbox" checked={fromForks} onChange={(e) => setFromForks(e.currentTarget.checked)} /> Pull requests from forks too</label>
      <button type="submit" class="primary" disabled={save.busy}>Save settings</button>
      <ProblemBox problem={save.problem} />
    </form>
  );
}

function Previews({ params }: { params: Record<string, string> }) {
  const name = params.name;
  const view = useLoad(async () => (await ok(api.GET('/api/v1/stacks/{name}/previews', at(name)))) as unknown as View, [name], 3000);
  const act = useAction();
  const [job, setJob] = useState<string>();
  const deploys = can('stacks:deploy');
  const run = async (call: Promise<{ data?: unknown; error?: unknown; response: Response }>) => {
    const out = await act.run(() => ok(call)) as { id: string } | undefined;
    if (out) { setJob(out.id); view.reload(); }
  };
  return (
    <>
      <PageTitle title={`Previews of ${name}`}><Link href={`/stacks/${enc(name)}`}>Back to the stack</Link></PageTitle>
      <Loading what={view} />
      {view.data && (view.data.previews.length === 0 ? <Empty>No previews. Pull requests, and PUT /api/v1/stacks/{name}/previews/&lt;key&gt;, make them.</Empty> : (
        <table data-testid="previews">
          <thead><tr><th>Preview</th><th>Link</th><th>Commit</th><th>Status</th><th>Deployed</th><th /></tr></thead>
          <tbody>{view.data.previews.map((p) => (
            <tr>
              <td>{p.key}{p.pullRequest !== null && <span class="muted"> #{p.pullRequest}</span>}</td>
              <td>{p.urls.map((u) => <a href={u} target="_blank" rel="noopener noreferrer">{u}</a>)}</td>
              <td><code>{p.deployedCommit?.slice(0, 12) ?? p.ref ?? ''}</code></td>
              <td><Status value={p.status} />{p.lastJob?.error && <span class="muted"> {p.lastJob.error}</span>}</td>
              <td><Time at={p.deployedAt} /></td>
              <td>{deploys && (
                <span class="actions">
                  <button type="button" aria-label={`Redeploy ${p.key}`} onClick={() => run(api.PUT('/api/v1/stacks/{name}/previews/{key}', { ...at(name, p.key), body: {} } as never))}>Redeploy</button>
                  <button type="button" class="danger" aria-label={`Remove ${p.key}`} onClick={() => { if (confirm(`Remove the preview ${p.key} with its volumes?`)) void run(api.DELETE('/api/v1/stacks/{name}/previews/{key}', at(name, p.key) as never)); }}>Remove</button>
                </span>
              )}</td>
            </tr>
          ))}</tbody>
        </table>
      ))}
      <ProblemBox problem={act.problem} />
      {job && <JobOutput id={job} onDone={() => view.reload()} />}
      {view.data && can('stacks:write') && <Settings name={name} view={view.data} reload={view.reload} />}
    </>
  );
}

// before the stack page's /stacks/:name/:tab (pages join in plugin name order): the stack's Previews tab
export const pages: PortalPage[] = [{ path: '/stacks/:name/previews', title: 'Previews', scope: 'stacks:read', component: Previews }];
