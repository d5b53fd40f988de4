// The sites plugin's portal pages: the site list, a new site, and a site's overview, versions, published files, draft editor and check webhook.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, can, Empty, enc, JobOutput, Link, Loading, navigate, ok, PageTitle, ProblemBox, ShownOnce, Status, Tabs, Time, useAction, useLoad, type paths, type PortalPage } from '../../../sdk/portal/kit.tsx';
import { OwnerHostnames } from '../../../sdk/portal/edge.tsx';
export { overviewCards, resourcePaths } from './overview.tsx';

type SiteView = paths['/api/v1/sites/{name}']['get']['responses'][200]['content']['application/json'];
type SiteBody = paths['/api/v1/sites/{name}']['put']['requestBody']['content']['application/json'];
type FileItem = paths['/api/v1/sites/{name}/files']['get']['responses'][200]['content']['application/json'][number];

const path = (name: string) => ({ params: { path: { name } } });
const short = (commit: string | null | undefined) => (commit ? commit.slice(0, 10) : '');
const bytes = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`);
/** what the browser can show and edit as text; other files are listed only */
const textual = (f: { contentType: string }) => /^text\/|json|xml|svg|javascript|manifest/.test(f.contentType);

/** one file's text: of the draft (which without a draft is the published version) or of the published version */
async function fileText(name: string, file: string, draft: boolean): Promise<string> {
  return ok(api.GET('/api/v1/sites/{name}/file', { params: { path: { name }, query: { path: file, ...(draft ? { draft: '1' as const } : {}) } }, parseAs: 'text' })) as Promise<unknown> as Promise<string>;
}

function SiteList() {
  const sites = useLoad(() => ok(api.GET('/api/v1/sites', { params: { query: { limit: 500 } } })), [], 5000);
  return (
    <>
      <PageTitle title="Sites">{can('sites:write') && <Link href="/sites-new" class="button">New site</Link>}</PageTitle>
      <Loading what={sites} />
      {sites.data && (sites.data.length === 0 ? <Empty>No sites yet.</Empty> : (
        <table data-testid="sites">
          <thead><tr><th scope="col">Site</th><th scope="col">Hostnames</th><th scope="col">Version</th><th scope="col">Last deploy</th><th scope="col">Last error</th><th scope="col">Draft</th></tr></thead>
          <tbody>{sites.data.map((s) => (
            <tr>
              <td><Link href={`/sites/${enc(s.name)}`}>{s.name}</Link></td>
              <td>{s.hostnames.join(', ') || <span class="muted">none</span>}</td>
              <td>{s.version || <span class="muted">none</span>}</td>
              <td>{s.lastDeploy ? <>version {s.lastDeploy.version} <Time at={s.lastDeploy.at} /></> : <span class="muted">never</span>}</td>
              <td>{s.lastError ? <span class="error-text">{s.lastError}</span> : <span class="muted">none</span>}</td>
              <td>{s.draft ? <>{s.draft.files} files, changed <Time at={s.draft.changedAt} /></> : <span class="muted">none</span>}</td>
            </tr>
          ))}</tbody>
        </table>
      ))}
    </>
  );
}

/** hostnames and an optional git source with its build; creates the site or replaces its definition */
function SiteForm({ name: fixed, site, onSaved }: { name?: string; site?: SiteView; onSaved(name: string, answer: SiteView & { previewToken?: string; jobId?: string }): void }) {
  const [name, setName] = useState(fixed ?? '');
  const [hostnames, setHostnames] = useState(site?.hostnames.join('\n') ?? '');
  const [fromGit, setFromGit] = useState(Boolean(site?.source));
  const [url, setUrl] = useState(site?.source?.url ?? '');
  const [branch, setBranch] = useState(site?.source?.branch ?? 'main');
  const [folder, setFolder] = useState(site?.source?.path ?? '');
  const [image, setImage] = useState(site?.source?.build?.image ?? '');
  const [command, setCommand] = useState(site?.source?.build?.command.join('\n') ?? '');
  const [output, setOutput] = useState(site?.source?.build?.output ?? '');
  const save = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const lines = (text: string) => text.split('\n').map((l) => l.trim()).filter(Boolean);
    const body: SiteBody = {
      hostnames: lines(hostnames),
      source: fromGit ? {
        url, branch: branch || 'main', ...(folder ? { path: folder } : {}),
        ...(image ? { build: { image, command: command.split('\n').filter((l) => l !== ''), ...(output ? { output } : {}) } } : {}),
      } : null,
    };
    const answer = await save.run(() => ok(api.PUT('/api/v1/sites/{name}', { ...path(name), body })));
    if (answer) onSaved(name, answer);
  };
  return (
    <form class="card" onSubmit={submit}>
      {!fixed && <label>Name (lowercase letters, digits and -)<input name="site-name" required pattern="[a-z0-9]([a-z0-9\-]{0,54}[a-z0-9])?" value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>}
      <label>Hostnames (one per line)<textarea rows={3} value={hostnames} onInput={(e) => setHostnames(e.currentTarget.value)} placeholder="docs.example.com" /></label>
      <label class="check"><input type="checkbox" checked={fromGit} onChange={(e) => setFromGit(e.currentTarget.checked)} /> Fetch the site from a git repository (otherwise it is upload-only)</label>
      {fromGit && (
        <fieldset>
          <legend>Git source</legend>
          <label>Repository URL<input required value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://git.example.com/me/www.git" /></label>
          <label>Branch<input value={branch} onInput={(e) => setBranch(e.currentTarget.value)} /></label>
          <label>Folder of the repository that is the site (optional)<input value={folder} onInput={(e) => setFolder(e.currentTarget.value)} /></label>
          <label>Build image (optional: without one, the folder is served as it is)<input value={image} onInput={(e) => setImage(e.currentTarget.value)} placeholder="node:20" /></label>
          {image && <label>Build command (one argument per line)<textarea rows={3} required value={command} onInput={(e) => setCommand(e.currentTarget.value)} placeholder={'sh\n-c\nnpm ci && npm run build'} /></label>}
          {image && <label>Build output folder (optional)<input value={output} onInput={(e) => setOutput(e.currentTarget.value)} placeholder="dist" /></label>}
        </fieldset>
      )}
      <div class="actions"><button type="submit" class="primary" disabled={save.busy}>{fixed ? 'Save site' : 'Create site'}</button></div>
      <ProblemBox problem={save.problem} />
    </form>
  );
}

function NewSite() {
  const [made, setMade] = useState<{ name: string; previewToken?: string; jobId?: string }>();
  return (
    <>
      <PageTitle title="New site" />
      {made ? (
        <>
          {made.previewToken && <ShownOnce label="Preview token" secret={made.previewToken} extra={<p>The password of user <code>preview</code> on the draft's preview host.</p>} />}
          {made.jobId && <JobOutput id={made.jobId} />}
          <p><Link href={`/sites/${enc(made.name)}`}>Open site {made.name}</Link></p>
        </>
      ) : <SiteForm onSaved={(name, answer) => (answer.previewToken ? setMade({ name, previewToken: answer.previewToken, jobId: answer.jobId }) : navigate(`/sites/${enc(name)}`))} />}
    </>
  );
}

/** an archive (tar, tar.gz, zip) published at once, or put into the draft */
function Upload({ name, draft, onDone }: { name: string; draft: boolean; onDone(message: string): void }) {
  const act = useAction();
  const send = async (file: File) => {
    const out = await act.run(() => ok(api.PUT('/api/v1/sites/{name}/content', {
      params: { path: { name }, query: draft ? { draft: '1' } : {} }, body: file as never, bodySerializer: (b: unknown) => b as Blob, headers: { 'Content-Type': 'application/octet-stream' },
    })));
    if (out) onDone('draft' in out ? `The archive is the draft now (${out.draft.files} files).` : `Published as version ${out.version} (${out.fileCount} files).`);
  };
  return (
    <div>
      <label>{draft ? 'Upload an archive into the draft (tar, tar.gz or zip)' : 'Publish an archive (tar, tar.gz or zip)'}
        <input type="file" accept=".tar,.gz,.tgz,.zip" disabled={act.busy} onChange={(e) => { const f = e.currentTarget.files?.[0]; if (f) send(f); e.currentTarget.value = ''; }} />
      </label>
      <ProblemBox problem={act.problem} />
    </div>
  );
}

function Overview({ site, reload }: { site: SiteView; reload(): void }) {
  const [job, setJob] = useState<string>();
  const [said, setSaid] = useState('');
  const [confirming, setConfirming] = useState(false);
  const act = useAction();
  const check = async () => {
    const started = await act.run(() => ok(api.POST('/api/v1/sites/{name}/check', path(site.name))));
    if (started) setJob(started.jobId);
  };
  const remove = async () => { if (await act.run(() => ok(api.DELETE('/api/v1/sites/{name}', path(site.name))))) navigate('/sites'); };
  const source = site.source;
  return (
    <>
      <dl class="summary">
        <div><dt>Hostnames</dt><dd><OwnerHostnames owner={`site:${site.name}`} only={site.hostnames} /></dd></div>
        <div><dt>Source</dt><dd>{source ? <><code>{source.url}</code> branch <code>{source.branch}</code>{source.path && <> folder <code>{source.path}</code></>}{source.build && <> built in <code>{source.build.image}</code></>}{source.credentials && <span class="muted"> (with credentials)</span>}</> : <span class="muted">none: upload-only</span>}</dd></div>
        <div><dt>Published version</dt><dd>{site.version || <span class="muted">none yet</span>}{site.syncedCommit && <> from commit <code>{short(site.syncedCommit)}</code></>}</dd></div>
        <div><dt>Last deploy</dt><dd>{site.lastDeploy ? <>version {site.lastDeploy.version} <Time at={site.lastDeploy.at} /></> : <span class="muted">never</span>}</dd></div>
        <div><dt>Last error</dt><dd>{site.lastError ? <span class="error-text" data-testid="last-error">{site.lastError}</span> : <span class="muted">none</span>}</dd></div>
      </dl>
      {can('sites:publish') && (
        <div class="card">
          {source && <div class="actions"><button type="button" onClick={check} disabled={act.busy}>Check now</button></div>}
          <Upload name={site.name} draft={false} onDone={(m) => { setSaid(m); reload(); }} />
          {said && <p role="status">{said}</p>}
        </div>
      )}
      {job && <JobOutput id={job} onDone={reload} />}
      {can('sites:write') && (
        <>
          <h2>Definition</h2>
          <SiteForm key={JSON.stringify([site.hostnames, site.source])} name={site.name} site={site} onSaved={(_, answer) => { if (answer.jobId) setJob(answer.jobId); reload(); }} />
          <div class="actions">
            {confirming ? (
              <div role="alert" class="card">
                <p>Delete site <strong>{site.name}</strong>, its routes, every version and the draft? This cannot be undone.</p>
                <button type="button" class="danger" onClick={remove} disabled={act.busy}>Yes, delete {site.name}</button>
                <button type="button" onClick={() => setConfirming(false)}>Cancel</button>
              </div>
            ) : <button type="button" class="danger" onClick={() => setConfirming(true)}>Delete site…</button>}
          </div>
        </>
      )}
      <ProblemBox problem={act.problem} />
    </>
  );
}

function Versions({ name, onRestored }: { name: string; onRestored(): void }) {
  const versions = useLoad(() => ok(api.GET('/api/v1/sites/{name}/versions', { params: { path: { name }, query: { limit: 100 } } })), [name]);
  const [said, setSaid] = useState('');
  const act = useAction();
  const restore = async (version: number) => {
    const out = await act.run(() => ok(api.POST('/api/v1/sites/{name}/restore', { ...path(name), body: { version } })));
    if (out) { setSaid(`Version ${version} is published again as version ${out.version}.`); versions.reload(); onRestored(); }
  };
  return (
    <>
      {said && <p role="status">{said}</p>}
      <ProblemBox problem={act.problem} />
      <Loading what={versions} />
      {versions.data && (versions.data.length === 0 ? <Empty>Nothing published yet.</Empty> : (
        <table data-testid="versions">
          <thead><tr><th scope="col">Version</th><th scope="col">When</th><th scope="col">By</th><th scope="col">From</th><th scope="col">Files</th><th scope="col">Size</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>{versions.data.map((v) => (
            <tr>
              <td>{v.number}{v.published && <> <Status value="published" /></>}</td><td><Time at={v.at} /></td><td>{v.by}</td>
              <td>{v.from}{v.commit && <> <code>{short(v.commit)}</code></>}{v.restoredFrom !== null && <> of version {v.restoredFrom}</>}</td>
              <td>{v.fileCount}</td><td>{bytes(v.bytes)}</td>
              <td>{can('sites:publish') && !v.published && <button type="button" onClick={() => restore(v.number)} disabled={act.busy} aria-label={`Restore version ${v.number}`}>Restore</button>}</td>
            </tr>
          ))}</tbody>
        </table>
      ))}
    </>
  );
}

function FileTable({ files, actions }: { files: FileItem[]; actions(f: FileItem): ComponentChildren }) {
  return (
    <table data-testid="files">
      <thead><tr><th scope="col">File</th><th scope="col">Size and type</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>{files.map((f) => <tr><td><code>{f.path}</code></td><td>{bytes(f.size)} <span class="muted">{f.contentType.split(';')[0]}</span></td><td><div class="actions">{actions(f)}</div></td></tr>)}</tbody>
    </table>
  );
}

function Files({ name }: { name: string }) {
  const files = useLoad(() => ok(api.GET('/api/v1/sites/{name}/files', { params: { path: { name }, query: { limit: 1000 } } })), [name]);
  const [open, setOpen] = useState<string>();
  const text = useLoad(() => (open ? fileText(name, open, false) : Promise.resolve(undefined)), [name, open]);
  return (
    <>
      <Loading what={files} />
      {files.data && (files.data.length === 0 ? <Empty>Nothing published yet.</Empty> : (
        <FileTable files={files.data} actions={(f) => textual(f) && <button type="button" onClick={() => setOpen(f.path)} aria-label={`View ${f.path}`}>View</button>} />
      ))}
      {open && (
        <section class="card" aria-labelledby="file-title">
          <h2 id="file-title">{open}</h2>
          <Loading what={text} />
          {text.data !== undefined && <pre class="output" data-testid="file-text" tabIndex={0}>{text.data}</pre>}
          <button type="button" onClick={() => setOpen(undefined)}>Close</button>
        </section>
      )}
    </>
  );
}

/** the lines only one side has: a small view of what someone else changed */
function Changes({ mine, theirs }: { mine: string; theirs: string }) {
  const a = new Set(mine.split('\n'));
  const b = new Set(theirs.split('\n'));
  const rows = [...mine.split('\n').filter((l) => !b.has(l)).map((l) => ['-', l]), ...theirs.split('\n').filter((l) => !a.has(l)).map((l) => ['+', l])];
  return <pre class="diff" aria-label="their changes" data-testid="diff">{rows.map(([k, l]) => <div class={k === '+' ? 'add' : 'del'}>{k} {l}</div>)}</pre>;
}

interface Editing { path: string; sha256: string | null; original: string; text: string; isNew: boolean }

/** one draft file in a textarea, saved over the version it was read from; a 412 shows their text and lets the user take it or keep this one */
function DraftEditor({ name, editing, onClose, onSaved, onConflict }: { name: string; editing: Editing; onClose(): void; onSaved(): void; onConflict(): void }) {
  const [state, setState] = useState(editing);
  const [conflict, setConflict] = useState<{ sha256: string | null; text: string }>();
  const save = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const out = await save.run(() => ok(api.PUT('/api/v1/sites/{name}/draft/files', { ...path(name), body: { files: { [state.path]: { content: state.text } }, base: { [state.path]: state.sha256 } } })));
    if (out) { onSaved(); return; }
    const list = await ok(api.GET('/api/v1/sites/{name}/draft/files', { params: { path: { name }, query: { limit: 1000 } } })).catch(() => undefined);
    const now = list?.find((f) => f.path === state.path);
    if (!list || (now?.sha256 ?? null) === state.sha256) return;
    onConflict();
    setConflict({ sha256: now?.sha256 ?? null, text: now ? await fileText(name, state.path, true).catch(() => '') : '' });
  };
  const reloadTheirs = () => { setState({ ...state, sha256: conflict!.sha256, original: conflict!.text, text: conflict!.text }); setConflict(undefined); save.clear(); };
  const keepMine = () => { setState({ ...state, sha256: conflict!.sha256, original: conflict!.text }); setConflict(undefined); save.clear(); };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="editing-title">
      <h2 id="editing-title">{state.isNew ? 'New file' : `Editing ${state.path}`}</h2>
      {conflict && (
        <section class="conflict" role="alert" aria-labelledby="conflict-title" data-testid="conflict">
          <h3 id="conflict-title">{conflict.sha256 ? `Someone changed ${state.path} while you were editing` : `Someone deleted ${state.path} while you were editing`}</h3>
          <Changes mine={state.original} theirs={conflict.text} />
          <div class="actions">
            <button type="button" onClick={reloadTheirs}>Reload theirs (discard my text)</button>
            <button type="button" onClick={keepMine}>Keep my text (save over theirs)</button>
          </div>
        </section>
      )}
      {state.isNew && <label>Path of the new file<input required value={state.path} onInput={(e) => setState({ ...state, path: e.currentTarget.value })} placeholder="about/index.html" /></label>}
      <label>Content of {state.path || 'the new file'}<textarea rows={16} spellcheck={false} data-testid="draft-text" value={state.text} onInput={(e) => setState({ ...state, text: e.currentTarget.value })} /></label>
      <div class="actions">
        <button type="submit" class="primary" disabled={save.busy || !state.path}>Save to draft</button>
        <button type="button" onClick={onClose}>Close</button>
      </div>
      {save.problem?.status !== 412 && <ProblemBox problem={save.problem} />}
    </form>
  );
}

function Draft({ site, reload }: { site: SiteView; reload(): void }) {
  const name = site.name;
  const files = useLoad(() => ok(api.GET('/api/v1/sites/{name}/draft/files', { params: { path: { name }, query: { limit: 1000 } } })), [name, site.draft?.changedAt]);
  const [editing, setEditing] = useState<Editing>();
  const [token, setToken] = useState<string>();
  const [said, setSaid] = useState('');
  const [confirming, setConfirming] = useState(false);
  const act = useAction();
  const writable = can('sites:write');
  const changed = (message: string) => { setSaid(message); reload(); files.reload(); };
  const edit = async (f: FileItem) => {
    const text = await act.run(() => fileText(name, f.path, true));
    if (text !== undefined) setEditing({ path: f.path, sha256: f.sha256, original: text, text, isNew: false });
  };
  const remove = async (f: FileItem) => {
    if (await act.run(() => ok(api.PUT('/api/v1/sites/{name}/draft/files', { ...path(name), body: { delete: [f.path], base: { [f.path]: f.sha256 } } })))) changed(`${f.path} is deleted from the draft.`);
    else files.reload(); // a 412: someone changed it meanwhile, so show what the draft holds now
  };
  const publish = async () => { const out = await act.run(() => ok(api.POST('/api/v1/sites/{name}/draft/publish', path(name)))); if (out) changed(`The draft is published as version ${out.version}.`); };
  const discard = async () => { setConfirming(false); if (await act.run(() => ok(api.DELETE('/api/v1/sites/{name}/draft', path(name))))) changed('The draft is discarded.'); };
  const newToken = async () => { const out = await act.run(() => ok(api.POST('/api/v1/sites/{name}/draft/token', path(name)))); if (out) setToken(out.previewToken); };
  const preview = site.draft?.previewUrl ?? site.previewUrl;
  return (
    <>
      <p>{site.draft ? <>The draft has {site.draft.files} files, based on version {site.draft.basedOn}, changed <Time at={site.draft.changedAt} />. Nothing of it is served until it is published.</>
        : <>There is no draft: the list shows the published files, and the first change starts a draft from them.</>}</p>
      {preview && <p>Preview: <a href={preview} target="_blank" rel="noreferrer">{preview}</a> <span class="muted">(user <code>preview</code>, the preview token as password)</span></p>}
      {token && <ShownOnce label="Preview token" secret={token} extra={<p>The previous token no longer opens the preview.</p>} />}
      <div class="actions">
        {can('sites:publish') && site.draft && <button type="button" class="primary" onClick={publish} disabled={act.busy}>Publish draft</button>}
        {writable && <button type="button" onClick={() => setEditing({ path: '', sha256: null, original: '', text: '', isNew: true })}>New file</button>}
        {writable && site.draft && (confirming
          ? <span role="alert">Discard every change of the draft? <button type="button" class="danger" onClick={discard}>Yes, discard</button> <button type="button" onClick={() => setConfirming(false)}>Cancel</button></span>
          : <button type="button" class="danger" onClick={() => setConfirming(true)}>Discard draft…</button>)}
        {writable && <button type="button" onClick={newToken} disabled={act.busy}>New preview token</button>}
      </div>
      {said && <p role="status">{said}</p>}
      <ProblemBox problem={act.problem} />
      {editing && <DraftEditor key={`${editing.path}:${editing.sha256}`} name={name} editing={editing} onClose={() => setEditing(undefined)}
        onSaved={() => { setEditing(undefined); changed('Saved to the draft.'); }} onConflict={() => { reload(); files.reload(); }} />}
      {can('sites:publish') && <Upload name={name} draft onDone={changed} />}
      <Loading what={files} />
      {files.data && (files.data.length === 0 ? <Empty>No files.</Empty> : (
        <FileTable files={files.data} actions={(f) => writable && <>
          {textual(f) && <button type="button" onClick={() => edit(f)} aria-label={`Edit ${f.path}`}>Edit</button>}
          <button type="button" class="danger" onClick={() => remove(f)} aria-label={`Delete ${f.path}`}>Delete</button>
        </>} />
      ))}
    </>
  );
}

function Webhook({ site, reload }: { site: SiteView; reload(): void }) {
  const [made, setMade] = useState<{ token: string; url: string; statusUrl: string }>();
  const act = useAction();
  const rotate = async () => { const out = await act.run(() => ok(api.POST('/api/v1/sites/{name}/webhooks/check', path(site.name)))); if (out) { setMade(out); reload(); } };
  const disable = async () => { if (await act.run(() => ok(api.DELETE('/api/v1/sites/{name}/webhooks/check', path(site.name))))) { setMade(undefined); reload(); } };
  return (
    <>
      <p>The check webhook lets a CI system fetch this site's source now, and nothing else. It is <strong>{site.webhook.enabled ? 'enabled' : 'disabled'}</strong>.
        {!site.source && <span class="muted"> This site is upload-only, so a check has nothing to fetch.</span>}</p>
      {made && <ShownOnce label="Check webhook token" secret={made.token} extra={<p>POST <code>{made.url}</code> with <code>Authorization: Bearer &lt;token&gt;</code>; GET <code>{made.statusUrl}</code> for the last sync.</p>} />}
      {can('sites:write') && <div class="actions"><button type="button" onClick={rotate} disabled={act.busy}>{site.webhook.enabled ? 'Rotate token' : 'Enable webhook'}</button>{site.webhook.enabled && <button type="button" class="danger" onClick={disable} disabled={act.busy}>Disable</button>}</div>}
      <ProblemBox problem={act.problem} />
    </>
  );
}

const tabs = [{ id: '', label: 'Overview' }, { id: 'versions', label: 'Versions' }, { id: 'files', label: 'Published files' }, { id: 'draft', label: 'Draft' }, { id: 'webhook', label: 'Webhook' }];

function Site({ params }: { params: Record<string, string> }) {
  const name = params.name;
  const tab = params.tab ?? '';
  const site = useLoad(() => ok(api.GET('/api/v1/sites/{name}', path(name))), [name], 5000);
  return (
    <>
      <PageTitle title={`Site ${name}`}>{site.data?.lastError && <Status value="failed" />}</PageTitle>
      <Tabs tabs={tabs} current={tab} base={`/sites/${enc(name)}`} />
      <Loading what={site} />
      {site.data && tab === '' && <Overview site={site.data} reload={site.reload} />}
      {site.data && tab === 'versions' && <Versions name={name} onRestored={site.reload} />}
      {site.data && tab === 'files' && <Files name={name} />}
      {site.data && tab === 'draft' && <Draft site={site.data} reload={site.reload} />}
      {site.data && tab === 'webhook' && <Webhook site={site.data} reload={site.reload} />}
    </>
  );
}

export const pages: PortalPage[] = [
  { path: '/sites', title: 'Sites', nav: 30, scope: 'sites:read', component: SiteList },
  { path: '/sites-new', title: 'New site', scope: 'sites:write', component: NewSite },
  { path: '/sites/:name', title: 'Site', scope: 'sites:read', component: Site },
  { path: '/sites/:name/:tab', title: 'Site', scope: 'sites:read', component: Site },
];
