// The stacks plugin's portal pages: the list with live status, a new stack, and a stack's compose, variables, settings, resource use, revisions, actions, webhook, access list and git source (tabs); the volumes page.
import type { VNode } from 'preact';
import { useState } from 'preact/hooks';
import { api, bytes, can, Empty, enc, JobOutput, Link, Loading, looksSecret, naturally, navigate, ok, PageTitle, ProblemBox, shortId, ShownOnce, Status, Tabs, Time, useAction, useLoad, type PortalPage, type Problem } from '../../../sdk/portal/kit.tsx';
import { OwnerHostnames } from '../../../sdk/portal/edge.tsx';
import { ResourcePlots, useHistory } from '../../../sdk/portal/plot.tsx';
import { HistoryPlots } from '../../../sdk/portal/history.tsx';
import { DeleteStack, InputFields, settingsOf, TemplatePicker } from './more.tsx';
import { volumePages } from './volumes.tsx';
import { SourceTab } from './source.tsx';
import { DeployKey, isSshUrl } from './deploy-key.tsx';
import { ComposeEditor, Diff, useValidation, type Issue } from './editor.tsx';

interface StackView {
  name: string; revision: number; status: string; engineError?: string; template: string | null; autoupdate: boolean;
  services: { name: string; declared: boolean; containers: ServiceContainer[] }[];
  webhooks: { deploy: { enabled: boolean }; push?: { enabled: boolean } };
  lastDeploy: { jobId: string; status: string; error: string | null; finishedAt: string | null } | null;
  lastJob: { jobId: string; type: string; status: string } | null;
  deployedRevision: number | null; deployedAt: string | null; updatedAt: string;
}
interface ServiceContainer {
  id: string; name: string; state: string; status: string; health?: string | null; image: string; imageId?: string;
  ports?: { hostIp: string | null; hostPort: number; containerPort: number; protocol: string }[];
}
interface RevisionEntry { id: number; revision: number; author: { name?: string; kind: string; channel?: string }; message: string | null; createdAt: string }
interface RevisionDetail extends RevisionEntry { compose: string }

const path = (name: string) => ({ params: { path: { name } } });
const ifMatch = (revision: number) => ({ 'If-Match': `"${revision}"` });
const issuesOf = (p?: Problem, text?: string) => (p?.status === 422 ? ((p.errors ?? []) as Issue[]) : []).map((i) => ({ ...i, line: text !== undefined ? lineFor(text, i.path) : undefined }));
import { lineOf as lineFor } from './editor.tsx';
export { overviewCards, resourcePaths } from './overview.tsx';

function StackList() {
  const stacks = useLoad(async () => ((await ok(api.GET('/api/v1/stacks', { params: { query: { limit: 200 } } }))) as unknown as StackView[]).sort((a, b) => naturally(a.name, b.name)), [], 3000);
  return (
    <>
      <PageTitle title="Stacks">{can('stacks:write') && <Link href="/stacks-new" class="button">New stack</Link>}</PageTitle>
      <Loading what={stacks} />
      {stacks.data && (stacks.data.length === 0 ? <Empty>No stacks yet.</Empty> : (
        <table data-testid="stacks">
          <thead><tr><th scope="col">Stack</th><th scope="col">Status</th><th scope="col">Services</th><th scope="col">Revision</th><th scope="col">Deployed</th></tr></thead>
          <tbody>{stacks.data.map((s) => (
            <tr><td><Link href={`/stacks/${enc(s.name)}`}>{s.name}</Link></td><td><Status value={s.status} /></td>
              <td>{s.services.map((v) => `${v.name} (${v.containers.filter((c) => c.state === 'running').length}/${v.containers.length})`).join(', ')}</td>
              <td>{s.revision}{s.deployedRevision !== null && s.deployedRevision !== s.revision && <span class="muted"> (deployed {s.deployedRevision})</span>}</td><td><Time at={s.deployedAt} /></td></tr>
          ))}</tbody>
        </table>
      ))}
    </>
  );
}

/** why a save was refused: a 422's rule errors are pinned to their lines in the editor, so its message is said once here; any other problem in full */
function Refusal({ problem }: { problem?: Problem }) {
  if (!problem) return null;
  if (problem.status === 422 && (problem.errors ?? []).length) return <p class="error-text" role="alert" data-testid="refusal">Not saved: {problem.detail}</p>;
  return <ProblemBox problem={problem} />;
}

type NewFrom = 'compose' | 'git' | 'archive';
const newFromChoices: [NewFrom, string][] = [['compose', 'A compose file'], ['git', 'A git repository'], ['archive', 'An archive upload']];

/** a new stack from a compose file (with a template), a git repository or an uploaded archive: one call each, deployed at once when asked */
function NewStack() {
  const [name, setName] = useState('');
  const [from, setFrom] = useState<NewFrom>('compose');
  const [deploy, setDeploy] = useState(false);
  const save = useAction();
  const created = (out: unknown) => {
    if (out === undefined) return;
    const jobId = (out as { jobId?: string }).jobId;
    navigate(jobId ? `/jobs/${enc(jobId)}` : `/stacks/${enc(name)}`);
  };
  const create = { 'If-None-Match': '*' } as const;
  return (
    <>
      <PageTitle title="New stack" />
      <label>Name (lowercase letters, digits and -)<input name="stack-name" required pattern="[a-z0-9][a-z0-9\-]{0,62}" value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
      <fieldset class="choice" data-testid="new-from">
        <legend>Create it from</legend>
        {newFromChoices.map(([value, label]) => <label class="check"><input type="radio" name="new-from" value={value} checked={from === value} onChange={() => { setFrom(value); save.clear(); }} /> {label}</label>)}
      </fieldset>
      {can('stacks:deploy') && <label class="check"><input type="checkbox" name="deploy" checked={deploy} onChange={(e) => setDeploy(e.currentTarget.checked)} /> Deploy it once created</label>}
      {from === 'compose' && <NewFromCompose name={name} save={save} onCreated={created} deploy={deploy} />}
      {from === 'git' && <NewFromGit name={name} onSubmit={(body) => save.run(() => ok(api.PUT('/api/v1/stacks/{name}/source', { params: { path: { name }, query: { deploy }, header: create }, body }))).then(created)} busy={save.busy} />}
      {from === 'archive' && <NewFromArchive onSubmit={(file, composePath) => save.run(() => ok(api.PUT('/api/v1/stacks/{name}/source/upload', {
        params: { path: { name }, query: { deploy, ...(composePath ? { file: composePath } : {}) }, header: create },
        body: file as never, bodySerializer: (b: unknown) => b as Blob, headers: { 'Content-Type': file.type || 'application/octet-stream' },
      }))).then(created)} busy={save.busy} />}
      {from !== 'compose' && <ProblemBox problem={save.problem} />}
    </>
  );
}

function NewFromCompose({ name, save, onCreated, deploy }: { name: string; save: ReturnType<typeof useAction>; onCreated(out: unknown): void; deploy: boolean }) {
  const [text, setText] = useState('services:\n  web:\n    image: nginx:alpine\n');
  const live = useValidation(name, text);
  const [submitted, setSubmitted] = useState('');
  const [template, setTemplate] = useState<{ name: string; settings: Record<string, unknown> }>();
  const create = async (e: Event) => {
    e.preventDefault();
    setSubmitted(text);
    const body = { content: text, ...(template ? { template: template.name, settings: template.settings } : {}) };
    const made = await save.run(() => ok(api.PUT('/api/v1/stacks/{name}/compose', { ...path(name), params: { path: { name }, header: { 'If-None-Match': '*' } }, body })));
    if (made && deploy) onCreated(await save.run(() => ok(api.POST('/api/v1/stacks/{name}/deploy', path(name)))));
    else onCreated(made && {});
  };
  // the refusal's errors belong to the text that was sent: once it is edited, the live check speaks again
  const issues = save.problem?.status === 422 && text === submitted ? issuesOf(save.problem, text) : live.issues;
  return (
    <form onSubmit={create} data-testid="new-compose">
      <TemplatePicker onPick={(t) => { setTemplate(t ?? undefined); if (t && t.name !== template?.name) setText(t.compose); }} />
      <ComposeEditor value={text} onInput={setText} issues={issues} />
      <div class="actions"><button type="submit" class="primary" disabled={save.busy}>Create stack</button>{live.checking && <span class="muted" role="status">checking…</span>}</div>
      <Refusal problem={save.problem} />
    </form>
  );
}

function NewFromGit({ name, onSubmit, busy }: { name: string; onSubmit(body: { url: string; branch: string; path?: string; credentials?: { token: string } | { sshKey: string } | { kind: 'deploy-key' } }): void; busy: boolean }) {
  const [url, setUrl] = useState('');
  const [branch, setBranch] = useState('main');
  const [file, setFile] = useState('');
  const [secret, setSecret] = useState('');
  const [hasKey, setHasKey] = useState(false);
  const [useKey, setUseKey] = useState(false);
  const ssh = isSshUrl(url);
  const keyed = ssh && hasKey && useKey;
  const submit = (e: Event) => {
    e.preventDefault();
    const credentials = keyed ? { kind: 'deploy-key' as const } : secret ? (ssh ? { sshKey: secret } : { token: secret }) : undefined;
    onSubmit({ url, branch, ...(file ? { path: file } : {}), ...(credentials ? { credentials } : {}) });
  };
  return (
    <form onSubmit={submit} data-testid="new-git">
      <p class="muted">The branch is fetched now: the stack is created from the compose file of its head, and deploys follow the branch.</p>
      <label>Repository URL<input name="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://git.example.com/team/app.git" /></label>
      <label>Branch<input name="branch" value={branch} onInput={(e) => setBranch(e.currentTarget.value)} /></label>
      <label>Compose file in the repository (optional; default compose.yaml, compose.yml, docker-compose.yaml or docker-compose.yml)<input name="path" value={file} onInput={(e) => setFile(e.currentTarget.value)} /></label>
      {!ssh && <label>Access token (optional, for a private repository)<input name="token" type="password" autocomplete="off" value={secret} onInput={(e) => setSecret(e.currentTarget.value)} /></label>}
      <DeployKey name={name} onKey={(present) => { setHasKey(present); setUseKey(present); }} />
      {ssh && hasKey && <label class="check"><input type="checkbox" name="use-deploy-key" checked={useKey} onChange={(e) => setUseKey(e.currentTarget.checked)} /> Fetch with the deploy key made for this stack</label>}
      {ssh && !keyed && <label>Or a private key of your own whose public half the repository trusts (optional)<textarea name="ssh-key" rows={4} value={secret} onInput={(e) => setSecret(e.currentTarget.value)} /></label>}
      <div class="actions"><button type="submit" class="primary" disabled={busy}>Create stack</button></div>
    </form>
  );
}

function NewFromArchive({ onSubmit, busy }: { onSubmit(file: File, composePath: string): void; busy: boolean }) {
  const [file, setFile] = useState<File>();
  const [composePath, setComposePath] = useState('');
  const submit = (e: Event) => { e.preventDefault(); if (file) onSubmit(file, composePath); };
  return (
    <form onSubmit={submit} data-testid="new-archive">
      <p class="muted">A tar, tar.gz or zip of the project: its compose file at the root, with what it builds (a Dockerfile and its context) and the files it reads.</p>
      <label>Archive<input name="archive" type="file" required accept=".tar,.gz,.tgz,.zip" onChange={(e) => setFile(e.currentTarget.files?.[0])} /></label>
      <label>Compose file in the archive (optional; default compose.yaml, compose.yml, docker-compose.yaml or docker-compose.yml)<input name="file" value={composePath} onInput={(e) => setComposePath(e.currentTarget.value)} /></label>
      <div class="actions"><button type="submit" class="primary" disabled={busy || !file}>Create stack</button></div>
    </form>
  );
}

/** the image a container runs, as people tell builds apart: its tag, and the short id of the image behind it */
function ImageName({ c }: { c: ServiceContainer }) {
  const short = c.imageId ? shortId(c.imageId) : undefined;
  return <><code>{c.image.startsWith('sha256:') ? short : c.image}</code>{short && !c.image.startsWith('sha256:') && <span class="muted"> ({short})</span>}</>;
}

/** each service: its containers with state, health and uptime (the engine's words), the image they run and the ports they publish */
function ServicesTable({ services }: { services: StackView['services'] }) {
  return (
    <table data-testid="services">
      <thead><tr><th scope="col">Service</th><th scope="col">Container</th><th scope="col">State</th><th scope="col">Image</th><th scope="col">Ports</th></tr></thead>
      <tbody>{services.flatMap((s) => (s.containers.length ? s.containers : [null]).map((c, i) => (
        <tr>
          <td>{i === 0 && <>{s.name}{!s.declared && <span class="muted"> (no longer declared)</span>}</>}</td>
          {c ? (
            <>
              <td><Link href={`/containers/${enc(c.id)}`}>{c.name}</Link></td>
              <td><Status value={c.state} /> {c.health && <Status value={c.health} />} <span class="muted">{c.status.replace(/\s*\((healthy|unhealthy|health: starting)\)/, '')}</span></td>
              <td><ImageName c={c} /></td>
              <td>{c.ports?.length ? c.ports.map((p) => `${p.hostIp && p.hostIp !== '0.0.0.0' && p.hostIp !== '::' ? `${p.hostIp}:` : ''}${p.hostPort}→${p.containerPort}/${p.protocol}`).join(', ') : <span class="muted">none</span>}</td>
            </>
          ) : <td colSpan={4} class="muted">no container (not deployed, or removed)</td>}
        </tr>
      )))}</tbody>
    </table>
  );
}

function Overview({ stack, reload }: { stack: StackView; reload(): void }) {
  const [job, setJob] = useState<string>();
  const act = useAction();
  const run = async (verb: 'deploy' | 'stop' | 'pull') => {
    const started = await act.run(() => ok(api.POST(`/api/v1/stacks/{name}/${verb}` as '/api/v1/stacks/{name}/deploy', path(stack.name))));
    if (started) setJob((started as { jobId: string }).jobId);
  };
  const autoupdate = (enabled: boolean) => act.run(() => ok(api.PUT('/api/v1/stacks/{name}/autoupdate', { ...path(stack.name), body: { enabled } }))).then(reload);
  return (
    <>
      <p><Status value={stack.status} /> revision {stack.revision}{stack.deployedRevision !== null && <> · deployed revision {stack.deployedRevision} <Time at={stack.deployedAt} /></>}</p>
      {stack.engineError && <p class="error-text">{stack.engineError}</p>}
      <div class="hosts">Hostnames: <OwnerHostnames owner={`stack:${stack.name}`} state={`${stack.status} ${stack.lastJob?.jobId ?? ''} ${stack.lastJob?.status ?? ''}`} /></div>
      {can('stacks:deploy') && (
        <div class="actions">
          <button type="button" class="primary" onClick={() => run('deploy')} disabled={act.busy}>Deploy</button>
          <button type="button" onClick={() => run('pull')} disabled={act.busy}>Pull images</button>
          <button type="button" class="danger" onClick={() => run('stop')} disabled={act.busy}>Stop</button>
        </div>
      )}
      <ProblemBox problem={act.problem} />
      {job && <JobOutput id={job} onDone={reload} />}
      <h2>Services</h2>
      <ServicesTable services={stack.services} />
      <label class="check"><input type="checkbox" checked={stack.autoupdate} disabled={!can('stacks:write')} onChange={(e) => autoupdate(e.currentTarget.checked)} /> Nightly auto-update</label>
      {stack.lastDeploy && <p>Last deploy: <Link href={`/jobs/${stack.lastDeploy.jobId}`}><Status value={stack.lastDeploy.status} /></Link> {stack.lastDeploy.error} <Time at={stack.lastDeploy.finishedAt} /></p>}
      <DeleteStack name={stack.name} revision={stack.revision} />
    </>
  );
}

interface ComposeOrigin { kind: 'editor' | 'upload' | 'git'; path?: string; at?: string; sha256?: string; url?: string; branch?: string; commit?: string; subject?: string | null }

/** where the file that deploys comes from, in a sentence */
function OriginNote({ origin }: { origin: ComposeOrigin }) {
  if (origin.kind === 'editor') return <p class="muted" data-testid="compose-origin">This file deploys: it is the stack's own, edited here.</p>;
  const file = <code>{origin.path}</code>;
  return (
    <p class="notice" data-testid="compose-origin">
      {origin.kind === 'upload'
        ? <>This is {file} of the archive uploaded <Time at={origin.at ?? null} /> (sha256 <code>{origin.sha256?.slice(0, 12)}</code>): deploys use it. Upload a new archive on the Git source tab to change it.</>
        : <>This is {file} at commit <code>{origin.commit?.slice(0, 12)}</code>{origin.subject ? <> “{origin.subject}”</> : null} of <code>{origin.url}</code> ({origin.branch}): deploys use the repository's file. Push to the branch to change it.</>}
    </p>
  );
}

function Compose({ name }: { name: string }) {
  const loaded = useLoad(() => ok(api.GET('/api/v1/stacks/{name}/compose', path(name))), [name]);
  const data = loaded.data;
  if (!data) return <Loading what={loaded} />;
  if (data.origin.kind !== 'editor') {
    return (<><OriginNote origin={data.origin} /><ComposeEditor value={data.content} onInput={() => undefined} issues={[]} readOnly /></>);
  }
  return (<><OriginNote origin={data.origin} /><ComposeForm key={data.revision} name={name} base={data} /></>);
}

/** the editor with its base revision; a 412 shows what changed meanwhile and lets the user reload theirs or keep this text */
function ComposeForm({ name, base }: { name: string; base: { revision: number; content: string } }) {
  const [text, setText] = useState(base.content);
  const [revision, setRevision] = useState(base.revision);
  const [original, setOriginal] = useState(base.content);
  const [message, setMessage] = useState('');
  const [conflict, setConflict] = useState<{ revision: number; content: string }>();
  const [saved, setSaved] = useState('');
  const live = useValidation(name, text);
  const save = useAction();
  const writable = can('stacks:write');
  const [submitted, setSubmitted] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    setSaved('');
    setSubmitted(text);
    const out = await save.run(() => ok(api.PUT('/api/v1/stacks/{name}/compose', { params: { path: { name }, header: ifMatch(revision) }, body: { content: text, ...(message ? { message } : {}) } })));
    if (out) {
      const rev = (out as unknown as StackView).revision;
      setRevision(rev); setOriginal(text); setMessage(''); setSaved(`Saved as revision ${rev}.`);
    } else {
      // the problem is read from state on the next render; ask for theirs right away on a conflict
      const current = await ok(api.GET('/api/v1/stacks/{name}/compose', path(name))).catch(() => undefined);
      if (current && current.revision !== revision) setConflict({ revision: current.revision, content: current.content });
    }
  };
  const reloadTheirs = () => { setText(conflict!.content); setOriginal(conflict!.content); setRevision(conflict!.revision); setConflict(undefined); save.clear(); };
  const keepMine = () => { setRevision(conflict!.revision); setOriginal(conflict!.content); setConflict(undefined); save.clear(); };
  const issues = save.problem?.status === 422 && text === submitted ? issuesOf(save.problem, text) : live.issues;
  return (
    <form onSubmit={submit}>
      {conflict && (
        <section class="conflict" role="alert" aria-labelledby="conflict-title" data-testid="conflict">
          <h2 id="conflict-title">Someone saved revision {conflict.revision} while you were editing</h2>
          <p>What changed between the revision you started from and theirs:</p>
          <Diff from={original} to={conflict.content} label="their changes" />
          <div class="actions">
            <button type="button" onClick={reloadTheirs}>Reload theirs (discard my text)</button>
            <button type="button" onClick={keepMine}>Keep my text (save over theirs)</button>
          </div>
        </section>
      )}
      <ComposeEditor value={text} onInput={setText} issues={issues} readOnly={!writable} />
      {writable && (
        <>
          <label>Note for this revision (optional)<input value={message} maxLength={500} onInput={(e) => setMessage(e.currentTarget.value)} /></label>
          <div class="actions">
            <button type="submit" class="primary" disabled={save.busy || text === original}>Save compose file</button>
            <span class="muted">based on revision {revision}</span>{live.checking && <span class="muted" role="status">checking…</span>}
            {saved && <span role="status">{saved}</span>}
          </div>
        </>
      )}
      {!conflict && <Refusal problem={save.problem} />}
    </form>
  );
}

function Variables({ name }: { name: string }) {
  const env = useLoad(() => ok(api.GET('/api/v1/stacks/{name}/env', path(name))), [name]);
  const [rows, setRows] = useState<[string, string][]>();
  const [shown, setShown] = useState<Set<string>>(new Set());
  const save = useAction();
  const data = env.data;
  const current = rows ?? (data ? Object.entries(data.values) : []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const out = await save.run(() => ok(api.PUT('/api/v1/stacks/{name}/env', { params: { path: { name }, header: ifMatch(data!.revision) }, body: { values: Object.fromEntries(current.filter(([k]) => k)) } })));
    if (out) { setRows(undefined); env.reload(); }
  };
  if (!data) return <Loading what={env} />;
  const writable = can('stacks:write');
  return (
    <form onSubmit={submit}>
      {data.redacted.length > 0 && <p class="muted">Hidden from you: {data.redacted.join(', ')}.</p>}
      <table>
        <thead><tr><th scope="col">Variable</th><th scope="col">Value</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
        <tbody>{current.map(([k, v], i) => {
          const hidden = data.redacted.includes(k);
          const set = (at: 0 | 1, value: string) => setRows(current.map((r, j) => (j === i ? (at === 0 ? [value, r[1]] : [r[0], value]) : r)));
          return (
            <tr>
              <td><input aria-label={`Name of variable ${i + 1}`} value={k} readOnly={!writable} onInput={(e) => set(0, e.currentTarget.value)} /></td>
              <td>{hidden ? <span class="muted">hidden</span> : <input aria-label={`Value of ${k || `variable ${i + 1}`}`} type={(looksSecret(k) && !shown.has(k) ? 'password' : 'text') as 'text'} value={v} readOnly={!writable} onInput={(e) => set(1, e.currentTarget.value)} />}</td>
              <td>{looksSecret(k) && !hidden && <button type="button" onClick={() => setShown(new Set(shown.has(k) ? [...shown].filter((x) => x !== k) : [...shown, k]))}>{shown.has(k) ? 'Hide' : 'Show'}</button>}
                {writable && <button type="button" aria-label={`Remove ${k}`} onClick={() => setRows(current.filter((_, j) => j !== i))}>Remove</button>}</td>
            </tr>
          );
        })}</tbody>
      </table>
      {writable && <div class="actions"><button type="button" onClick={() => setRows([...current, ['', '']])}>Add variable</button><button type="submit" class="primary" disabled={save.busy}>Save variables</button></div>}
      <ProblemBox problem={save.problem} />
    </form>
  );
}

function Settings({ name }: { name: string }) {
  const settings = useLoad(async () => (await ok(api.GET('/api/v1/stacks/{name}/settings', path(name)))) as unknown as { revision: number; template: string | null; settings: Record<string, unknown>; inputs: unknown }, [name]);
  const [values, setValues] = useState<Record<string, string>>();
  const [said, setSaid] = useState('');
  const save = useAction();
  const data = settings.data;
  if (!data) return <Loading what={settings} />;
  if (!data.template) return <Empty>This stack was not created from a template, so it has no settings.</Empty>;
  const current = values ?? Object.fromEntries(Object.entries(data.settings).map(([k, v]) => [k, String(v)]));
  const writable = can('stacks:write');
  const submit = async (e: Event) => {
    e.preventDefault();
    setSaid('');
    if (await save.run(() => ok(api.PUT('/api/v1/stacks/{name}/settings', { params: { path: { name }, header: ifMatch(data.revision) }, body: { settings: settingsOf(data.inputs, current) } })))) {
      setValues(undefined); setSaid('Saved: deploy to apply them.'); settings.reload();
    }
  };
  return (
    <form onSubmit={submit}>
      <p>The inputs of template <code>{data.template}</code>; they become the stack's variables.</p>
      <InputFields schema={data.inputs} values={current} set={(k, v) => setValues({ ...current, [k]: v })} readOnly={!writable} />
      {writable && <button type="submit" class="primary" disabled={save.busy}>Save settings</button>}
      {said && <p role="status">{said}</p>}
      <ProblemBox problem={save.problem} />
    </form>
  );
}

function Revisions({ name, onRestored }: { name: string; onRestored(): void }) {
  const list = useLoad(async () => (await ok(api.GET('/api/v1/stacks/{name}/revisions', { params: { path: { name }, query: { limit: 50 } } }))) as unknown as RevisionEntry[], [name]);
  const [picked, setPicked] = useState<number>();
  const detail = useLoad(async () => {
    if (!picked) return undefined;
    const [rev, current] = await Promise.all([
      ok(api.GET('/api/v1/stacks/{name}/revisions/{id}', { params: { path: { name, id: picked } } })) as Promise<unknown> as Promise<RevisionDetail>,
      ok(api.GET('/api/v1/stacks/{name}/compose', path(name))).then((c) => ({ ...c, content: c.saved })),
    ]);
    return { rev, current };
  }, [name, picked]);
  const restore = useAction();
  const [restored, setRestored] = useState('');
  const doRestore = async () => {
    const out = await restore.run(() => ok(api.POST('/api/v1/stacks/{name}/revisions/{id}/restore', { params: { path: { name, id: picked! } } })));
    if (out) { setRestored(`Revision ${picked} restored as revision ${(out as unknown as StackView).revision}; deploy to apply it.`); list.reload(); onRestored(); }
  };
  return (
    <>
      <Loading what={list} />
      {list.data && (
        <table>
          <thead><tr><th scope="col">Revision</th><th scope="col">By</th><th scope="col">When</th><th scope="col">Note</th></tr></thead>
          <tbody>{list.data.map((r) => (
            <tr aria-selected={r.revision === picked}><td><button type="button" class="link" onClick={() => setPicked(r.revision)} aria-label={`Show revision ${r.revision}`}>#{r.revision}</button></td>
              <td>{r.author.name ?? r.author.kind}{r.author.channel && <span class="muted"> via {r.author.channel}</span>}</td><td><Time at={r.createdAt} /></td><td>{r.message}</td></tr>
          ))}</tbody>
        </table>
      )}
      {restored && <p role="status">{restored}</p>}
      {picked && detail.data && (
        <section aria-labelledby="rev-title">
          <h2 id="rev-title">Revision {picked} compared with the current compose file (revision {detail.data.current.revision})</h2>
          <Diff from={detail.data.current.content} to={detail.data.rev.compose} label={`changes from the current file to revision ${picked}`} />
          {can('stacks:deploy') && <button type="button" class="primary" onClick={doRestore} disabled={restore.busy}>Restore revision {picked}</button>}
          <ProblemBox problem={restore.problem} />
        </section>
      )}
    </>
  );
}

function Webhook({ stack, reload }: { stack: StackView; reload(): void }) {
  const [made, setMade] = useState<{ token: string; url: string }>();
  const act = useAction();
  const rotate = async () => {
    const out = await act.run(() => ok(api.POST('/api/v1/stacks/{name}/webhooks/deploy', path(stack.name))));
    if (out) { setMade(out); reload(); }
  };
  const disable = async () => { if (await act.run(() => ok(api.DELETE('/api/v1/stacks/{name}/webhooks/deploy', path(stack.name))))) { setMade(undefined); reload(); } };
  return (
    <>
      <p>The deploy webhook lets a CI system deploy this stack, and nothing else. It is <strong>{stack.webhooks.deploy.enabled ? 'enabled' : 'disabled'}</strong>.</p>
      {made && <ShownOnce label="Deploy webhook token" secret={made.token} extra={<p>POST <code>{made.url}</code> with <code>Authorization: Bearer &lt;token&gt;</code>.</p>} />}
      {can('stacks:write') && <div class="actions"><button type="button" onClick={rotate}>{stack.webhooks.deploy.enabled ? 'Rotate token' : 'Enable webhook'}</button>{stack.webhooks.deploy.enabled && <button type="button" class="danger" onClick={disable}>Disable</button>}</div>}
      <ProblemBox problem={act.problem} />
    </>
  );
}

function Access({ name }: { name: string }) {
  const access = useLoad(() => ok(api.GET('/api/v1/stacks/{name}/access', path(name))), [name]);
  const [rows, setRows] = useState<{ principal: string; role: 'viewer' | 'operator' | 'manager' }[]>();
  const save = useAction();
  const current = rows ?? access.data ?? [];
  const writable = can('stacks:write');
  const submit = async (e: Event) => {
    e.preventDefault();
    if (await save.run(() => ok(api.POST('/api/v1/stacks/{name}/access', { ...path(name), body: { entries: current } })))) { setRows(undefined); access.reload(); }
  };
  return (
    <form onSubmit={submit}>
      <p class="muted">An empty list lets every user act by their role. Entries are <code>user:name</code> or <code>team:name</code>.</p>
      <Loading what={access} />
      <table>
        <thead><tr><th scope="col">Who</th><th scope="col">Role</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
        <tbody>{current.map((r, i) => (
          <tr><td><input aria-label={`Who (entry ${i + 1})`} value={r.principal} readOnly={!writable} onInput={(e) => setRows(current.map((x, j) => (j === i ? { ...x, principal: e.currentTarget.value } : x)))} /></td>
            <td><select aria-label={`Role (entry ${i + 1})`} value={r.role} disabled={!writable} onChange={(e) => setRows(current.map((x, j) => (j === i ? { ...x, role: e.currentTarget.value as 'viewer' } : x)))}>{['viewer', 'operator', 'manager'].map((o) => <option>{o}</option>)}</select></td>
            <td>{writable && <button type="button" onClick={() => setRows(current.filter((_, j) => j !== i))}>Remove</button>}</td></tr>
        ))}</tbody>
      </table>
      {writable && <div class="actions"><button type="button" onClick={() => setRows([...current, { principal: 'user:', role: 'viewer' }])}>Add entry</button><button type="submit" class="primary" disabled={save.busy}>Save access list</button></div>}
      <ProblemBox problem={save.problem} />
    </form>
  );
}

/** a stack's live resource use: its totals polled every few seconds, the last 15 minutes kept in memory on this page */
function Resources({ name }: { name: string }) {
  const [samples, add] = useHistory();
  const stats = useLoad(async () => {
    const s = await ok(api.GET('/api/v1/stacks/{name}/stats', path(name)));
    add({ at: Date.parse(s.at), values: [s.cpuPercent, s.memory.used, s.network.rxBytes, s.network.txBytes] });
    return s;
  }, [name], 3000);
  const s = stats.data;
  return (
    <>
      <Loading what={stats} />
      {s && (s.containers.length === 0 ? <Empty>No container of this stack runs.</Empty> : (
        <>
          <ResourcePlots samples={samples} />
          <table data-testid="stack-stats">
            <thead><tr><th scope="col">Container</th><th scope="col">CPU</th><th scope="col">Memory</th><th scope="col">Network received / sent</th></tr></thead>
            <tbody>{s.containers.map((c) => (
              <tr><td><Link href={`/containers/${enc(c.id)}`}>{c.name}</Link></td><td>{c.cpuPercent.toFixed(1)} %</td><td>{bytes(c.memory.used)} <span class="muted">of {bytes(c.memory.limit)}</span></td><td>{bytes(c.network.rxBytes)} / {bytes(c.network.txBytes)}</td></tr>
            ))}</tbody>
          </table>
        </>
      ))}
      {can('metrics:read') && <HistoryPlots scope={`stack:${name}`} />}
    </>
  );
}

const notEnabled = (plugin: string, what: string) => <Empty>{what} come with the {plugin} plugin, which is not enabled.</Empty>;

/** the sections of a stack's page, each a tab; a section is offered when the user holds its scope (new ones join this list) */
interface Section { id: string; label: string; scope?: string; render(stack: StackView, reload: () => void): VNode }
const sections: Section[] = [
  { id: '', label: 'Overview', render: (s, reload) => <Overview stack={s} reload={reload} /> },
  { id: 'compose', label: 'Compose', render: (s) => <Compose name={s.name} /> },
  { id: 'variables', label: 'Variables', render: (s) => <Variables name={s.name} /> },
  { id: 'settings', label: 'Settings', render: (s) => <Settings name={s.name} /> },
  { id: 'resources', label: 'Resource use', scope: 'containers:stats', render: (s) => <Resources name={s.name} /> },
  { id: 'revisions', label: 'Revisions', render: (s, reload) => <Revisions name={s.name} onRestored={reload} /> },
  // tabs another plugin's page answers (/stacks/:name/releases, /previews, /tasks); without that plugin, they say so
  { id: 'releases', label: 'Releases', render: () => notEnabled('releases', 'Releases, rollback and updates') },
  { id: 'webhook', label: 'Webhook', render: (s, reload) => <Webhook stack={s} reload={reload} /> },
  { id: 'access', label: 'Access', render: (s) => <Access name={s.name} /> },
  { id: 'source', label: 'Source', render: (s, reload) => <SourceTab name={s.name} push={s.webhooks.push?.enabled ?? false} reload={reload} /> },
  { id: 'previews', label: 'Previews', render: () => notEnabled('previews', 'Previews of pull requests') },
  { id: 'tasks', label: 'Tasks', scope: 'tasks:read', render: () => notEnabled('tasks', 'Scheduled tasks') },
];

function Stack({ params }: { params: Record<string, string> }) {
  const name = params.name;
  const tab = params.tab ?? '';
  const stack = useLoad(async () => (await ok(api.GET('/api/v1/stacks/{name}', path(name)))) as unknown as StackView, [name], 3000);
  const offered = sections.filter((s) => !s.scope || can(s.scope));
  const section = offered.find((s) => s.id === tab);
  return (
    <>
      <PageTitle title={`Stack ${name}`}>{stack.data && <Status value={stack.data.status} />}</PageTitle>
      <Tabs tabs={offered} current={tab} base={`/stacks/${enc(name)}`} />
      {stack.error && <ProblemBox problem={stack.error} />}
      {stack.data && (section ? section.render(stack.data, stack.reload) : <Empty>No such section.</Empty>)}
    </>
  );
}

export const pages: PortalPage[] = [
  { path: '/stacks', title: 'Stacks', nav: 10, scope: 'stacks:read', component: StackList },
  { path: '/stacks-new', title: 'New stack', scope: 'stacks:write', component: NewStack },
  { path: '/stacks/:name', title: 'Stack', scope: 'stacks:read', component: Stack },
  { path: '/stacks/:name/:tab', title: 'Stack', scope: 'stacks:read', component: Stack },
  ...volumePages,
];
