// A stack's Source tab: its git repository or uploaded archive as a readable form, with only the actions that apply to that kind (check, pin and unpin for git; a new upload for an archive).
import { useState } from 'preact/hooks';
import { api, bytes, can, count, Empty, Loading, ok, ProblemBox, Time, useAction, useLoad, type paths } from '../../../sdk/portal/kit.tsx';
import { DeployKey, isSshUrl } from './deploy-key.tsx';
import { PushWebhook } from './more.tsx';

type SourceView = paths['/api/v1/stacks/{name}/source']['get']['responses'][200]['content']['application/json'];

const path = (name: string) => ({ params: { path: { name } } });
const short = (commit: string | null) => (commit ? commit.slice(0, 10) : null);

function Commit({ id, subject }: { id: string | null; subject?: string | null }) {
  if (!id) return <span class="muted">none yet</span>;
  return <><code>{short(id)}</code>{subject && <> {subject}</>}</>;
}

function GitFacts({ s }: { s: SourceView }) {
  return (
    <dl class="facts" data-testid="source">
      <dt>Repository</dt><dd><code>{s.url}</code></dd>
      <dt>Branch</dt><dd>{s.branch ?? <span class="muted">the repository's default</span>}</dd>
      <dt>Compose file</dt><dd>{s.path ? <code>{s.path}</code> : <span class="muted">compose.yaml (or docker-compose.yml) at the root</span>}</dd>
      <dt>Credentials</dt><dd>{s.credentials?.kind === 'deploy-key' ? 'the deploy key made for this stack (SSH)' : s.credentials?.kind === 'ssh-key' ? 'a deploy key (SSH)' : s.credentials?.kind === 'token' ? 'an access token' : <span class="muted">none: a public repository</span>}</dd>
      <dt>Deploys</dt><dd>{s.pinnedCommit ? <>pinned to <code>{short(s.pinnedCommit)}</code></> : <>the newest commit of the branch</>}{s.autodeploy ? ', on every push' : ''}</dd>
      <dt>Newest commit</dt><dd><Commit id={s.remoteHead} subject={s.remoteSubject} />{s.lastCheckedAt && <span class="muted"> · checked <Time at={s.lastCheckedAt} /></span>}</dd>
      <dt>Deployed commit</dt><dd><Commit id={s.deployedCommit} />{s.deployedAt && <span class="muted"> · <Time at={s.deployedAt} /></span>}</dd>
      {s.lastPush && <><dt>Last push</dt><dd>{s.lastPush.provider} {s.lastPush.event}{s.lastPush.ref && <> to <code>{s.lastPush.ref}</code></>}: {s.lastPush.outcome}{s.lastPush.reason && <> ({s.lastPush.reason})</>} <span class="muted"><Time at={s.lastPush.at} /></span></dd></>}
      {s.lastError && <><dt>Last error</dt><dd class="bad">{s.lastError}</dd></>}
    </dl>
  );
}

function UploadFacts({ s }: { s: SourceView }) {
  const u = s.upload;
  return (
    <dl class="facts" data-testid="source">
      <dt>Source</dt><dd>an uploaded archive{u && <> ({u.format})</>}</dd>
      {u && <><dt>Contents</dt><dd>{count(u.files, 'file')}, {bytes(u.bytes)}</dd><dt>Uploaded</dt><dd><Time at={u.at} /></dd><dt>SHA-256</dt><dd><code>{u.sha256.slice(0, 16)}…</code></dd></>}
      <dt>Compose file</dt><dd>{s.path ? <code>{s.path}</code> : <span class="muted">compose.yaml (or docker-compose.yml) at the archive's root</span>}</dd>
    </dl>
  );
}

function GitForm({ name, current, onSaved }: { name: string; current?: SourceView; onSaved(p: Promise<unknown>): void }) {
  const [url, setUrl] = useState(current?.url ?? '');
  const [branch, setBranch] = useState(current?.branch ?? 'main');
  const [file, setFile] = useState(current?.path ?? '');
  const [hasKey, setHasKey] = useState(false);
  const [useKey, setUseKey] = useState(current?.credentials?.kind === 'deploy-key');
  const ssh = isSshUrl(url);
  // unticked after the source used the key: no credentials from now on (null); otherwise what the same repository had is kept
  const credentials = ssh && hasKey && useKey ? { kind: 'deploy-key' as const } : current?.credentials?.kind === 'deploy-key' && !useKey ? null : undefined;
  return (
    <form class="card" onSubmit={(e) => { e.preventDefault(); onSaved(ok(api.PUT('/api/v1/stacks/{name}/source', { ...path(name), body: { url, branch, ...(file ? { path: file } : {}), ...(credentials !== undefined ? { credentials } : {}) } }))); }}>
      <label>Repository URL<input required value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://git.example.com/team/app.git or git@git.example.com:team/app.git" /></label>
      <label>Branch<input value={branch} onInput={(e) => setBranch(e.currentTarget.value)} /></label>
      <label>Compose file in the repository (optional)<input value={file} onInput={(e) => setFile(e.currentTarget.value)} /></label>
      <DeployKey name={name} onKey={(present) => { setHasKey(present); if (present && current?.credentials?.kind !== 'ssh-key' && current?.credentials?.kind !== 'token') setUseKey(true); }} />
      {ssh && hasKey && <label class="check"><input type="checkbox" name="use-deploy-key" checked={useKey} onChange={(e) => setUseKey(e.currentTarget.checked)} /> Fetch with the deploy key made for this stack</label>}
      <button type="submit" class="primary">Save repository</button>
    </form>
  );
}

function UploadInput({ name, label, onSaved }: { name: string; label: string; onSaved(p: Promise<unknown>): void }) {
  return (
    <label>{label}<input type="file" accept=".tar,.gz,.tgz,.zip" onChange={(e) => {
      const f = e.currentTarget.files?.[0];
      if (f) onSaved(ok(api.PUT('/api/v1/stacks/{name}/source/upload', { ...path(name), body: f as never, bodySerializer: (b: unknown) => b as Blob, headers: { 'Content-Type': f.type || 'application/octet-stream' } })));
    }} /></label>
  );
}

function GitActions({ name, s, then }: { name: string; s: SourceView; then(p: Promise<unknown>): void }) {
  const [commit, setCommit] = useState('');
  return (
    <div class="card">
      <div class="actions">
        <button type="button" onClick={() => then(ok(api.POST('/api/v1/stacks/{name}/source/check', path(name))))}>Check for new commits</button>
        {s.pinnedCommit && <button type="button" onClick={() => then(ok(api.POST('/api/v1/stacks/{name}/source/unpin', path(name))))}>Unpin: follow the branch</button>}
        <button type="button" class="danger" onClick={() => then(ok(api.DELETE('/api/v1/stacks/{name}/source', path(name))))}>Remove source</button>
      </div>
      {!s.pinnedCommit && (
        <form class="actions" onSubmit={(e) => { e.preventDefault(); then(ok(api.POST('/api/v1/stacks/{name}/source/pin', { ...path(name), body: { commit } } as never))); }}>
          <label class="inline">Pin to commit <input required value={commit} onInput={(e) => setCommit(e.currentTarget.value)} /></label><button type="submit">Pin</button>
        </form>
      )}
    </div>
  );
}

export function SourceTab({ name, push, reload }: { name: string; push: boolean; reload(): void }) {
  const source = useLoad(() => ok(api.GET('/api/v1/stacks/{name}/source', path(name))), [name]);
  const act = useAction();
  const writable = can('stacks:write');
  const then = (p: Promise<unknown>) => act.run(() => p).then((out) => { if (out !== undefined) source.reload(); });
  const none = source.error?.status === 404;
  const s = source.data;
  return (
    <>
      {none ? <Empty>This stack has no source: deploys use the compose file of its Compose tab. Point it at a git repository, or upload an archive with its compose file (and Dockerfiles) at the root.</Empty> : <Loading what={source} />}
      {s?.kind === 'git' && <GitFacts s={s} />}
      {s?.kind === 'upload' && <UploadFacts s={s} />}
      {writable && (
        <>
          {s?.kind === 'git' && <GitActions name={name} s={s} then={then} />}
          {s?.kind === 'upload' && (
            <div class="card actions">
              <UploadInput name={name} label="Upload a new archive (tar, tar.gz or zip)" onSaved={then} />
              <button type="button" class="danger" onClick={() => then(ok(api.DELETE('/api/v1/stacks/{name}/source', path(name))))}>Remove source</button>
            </div>
          )}
          {(none || s) && <details open={none}><summary>{s?.kind === 'git' ? 'Change the repository' : s?.kind === 'upload' ? 'Use a git repository instead' : 'Deploy from a git repository'}</summary><GitForm key={s?.updatedAt} name={name} current={s} onSaved={then} /></details>}
          {none && <div class="card"><UploadInput name={name} label="Or upload an archive (tar, tar.gz or zip)" onSaved={then} /></div>}
        </>
      )}
      {s?.kind === 'git' && <PushWebhook name={name} enabled={push} reload={reload} />}
      <ProblemBox problem={act.problem} />
    </>
  );
}
