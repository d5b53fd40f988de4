// The template sources page: each source with its own last error and the entries it could not read; admins add, refresh and remove them.
import { useState } from 'preact/hooks';
import { api, can, Loading, ok, PageTitle, ProblemBox, Time, useAction, useLoad } from '../../../sdk/portal/kit.tsx';

export function SourcesPage() {
  const list = useLoad(() => ok(api.GET('/api/v1/templates/sources', {})), []);
  const [name, setName] = useState('');
  const [where, setWhere] = useState('');
  const [ref, setRef] = useState('main');
  const [kind, setKind] = useState<'url' | 'git'>('url');
  const [format, setFormat] = useState<'dockwright' | 'dokploy' | 'portainer'>('dockwright');
  const [sha256, setSha] = useState('');
  const act = useAction();
  const add = async (e: Event) => {
    e.preventDefault();
    const body = { name, format, ...(kind === 'url' ? { url: where } : { git: { url: where, ref } }), ...(sha256 ? { sha256 } : {}) };
    if (await act.run(() => ok(api.POST('/api/v1/templates/sources', { body })))) { setName(''); setWhere(''); setSha(''); list.reload(); }
  };
  const refresh = async (n: string) => { if (await act.run(() => ok(api.POST('/api/v1/templates/sources/{name}/refresh', { params: { path: { name: n } } })))) list.reload(); };
  const remove = async (n: string) => { if (await act.run(() => ok(api.DELETE('/api/v1/templates/sources/{name}', { params: { path: { name: n } } })).then(() => true))) list.reload(); };
  return (
    <>
      <PageTitle title="Template sources" />
      <Loading what={list} />
      {list.data && (
        <table data-testid="sources">
          <thead><tr><th scope="col">Source</th><th scope="col">From</th><th scope="col">Templates</th><th scope="col">Last read</th><th scope="col">Problems</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>{list.data.map((s) => (
            <tr>
              <td><strong>{s.name}</strong><div class="muted">{s.kind}, {s.format}</div></td>
              <td>{s.url ? <code>{s.url}</code> : s.git ? <><code>{s.git.url}</code> at <code>{s.git.ref}</code>{s.commit && <div class="muted">commit {s.commit.slice(0, 12)}</div>}</> : <span class="muted">this installation</span>}
                {s.sha256 && <div class="muted">pinned sha256 {s.sha256.slice(0, 12)}…</div>}</td>
              <td>{s.templates}</td>
              <td><Time at={s.checkedAt ?? s.fetchedAt} /></td>
              <td>
                {s.error && <div class="error-text" data-testid={`source-error-${s.name}`}>{s.error}</div>}
                {s.invalid.length > 0 && <details><summary>{s.invalid.length} entries not read</summary><ul>{s.invalid.map((i) => <li><code>{i.template ?? '?'}</code> {i.path}: {i.message}</li>)}</ul></details>}
                {!s.error && !s.invalid.length && <span class="muted">none</span>}
              </td>
              <td>{can('templates:write') && (s.kind === 'url' || s.kind === 'git') && <>
                <button type="button" aria-label={`Refresh ${s.name}`} onClick={() => refresh(s.name)}>Refresh</button>
                <button type="button" aria-label={`Remove ${s.name}`} onClick={() => remove(s.name)}>Remove</button>
              </>}</td>
            </tr>
          ))}</tbody>
        </table>
      )}
      {can('templates:write') && (
        <form class="card" onSubmit={add}>
          <h2>Add a source</h2>
          <label>Name<input required value={name} pattern="[a-z0-9][a-z0-9\-]{0,39}" onInput={(e) => setName(e.currentTarget.value)} /></label>
          <label>Kind<select value={kind} onChange={(e) => setKind(e.currentTarget.value as 'url' | 'git')}><option value="url">HTTPS URL</option><option value="git">git repository</option></select></label>
          <label>{kind === 'url' ? 'Index URL' : 'Repository URL'}<input required value={where} placeholder={kind === 'url' ? 'https://example.com/templates/' : 'https://git.example.com/templates.git'} onInput={(e) => setWhere(e.currentTarget.value)} /></label>
          {kind === 'git' && <label>Branch<input required value={ref} onInput={(e) => setRef(e.currentTarget.value)} /></label>}
          <label>Format<select value={format} onChange={(e) => setFormat(e.currentTarget.value as typeof format)}><option value="dockwright">Dockwright</option><option value="dokploy">Dokploy</option><option value="portainer">Portainer</option></select></label>
          <label>sha256 of the index (optional)<input value={sha256} pattern="[0-9a-f]{64}" onInput={(e) => setSha(e.currentTarget.value)} /></label>
          <button type="submit" class="primary" disabled={act.busy}>Add source</button>
        </form>
      )}
      <ProblemBox problem={act.problem} />
    </>
  );
}
