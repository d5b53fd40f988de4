// The "Make a deploy key" panel of the git source forms (New stack, the Source tab): the stack's SSH key made on the server, its public half shown with a copy button and where to add it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ok, ProblemBox, Time, useAction, type paths } from '../../../sdk/portal/kit.tsx';

type DeployKeyView = paths['/api/v1/stacks/{name}/source/deploy-key']['get']['responses'][200]['content']['application/json'];

/** an ssh remote as git reads it: ssh://… or user@host:path */
export const isSshUrl = (url: string) => /^ssh:\/\//i.test(url) || (!/^[a-z]+:\/\//i.test(url) && /^[^/@:]+@[^/:]+:/.test(url));

/** the key made for `name` (read again when the name changes); `onKey` hears whether one is there to use */
export function DeployKey({ name, onKey }: { name: string; onKey(present: boolean): void }) {
  const [key, setKey] = useState<DeployKeyView>();
  const [copied, setCopied] = useState(false);
  const text = useRef<HTMLTextAreaElement>(null);
  const act = useAction();
  const valid = /^[a-z0-9][a-z0-9-]{0,62}$/.test(name);
  useEffect(() => {
    setKey(undefined);
    onKey(false);
    if (!valid) return;
    // a key made earlier for this name (404: none yet), asked once the name stops changing
    let current = true;
    const timer = setTimeout(() => {
      ok(api.GET('/api/v1/stacks/{name}/source/deploy-key', { params: { path: { name } } })).then((k) => { if (current) { setKey(k); onKey(true); } }, () => undefined);
    }, 300);
    return () => { current = false; clearTimeout(timer); };
  }, [name]);
  const make = async () => {
    const made = await act.run(() => ok(api.POST('/api/v1/stacks/{name}/source/deploy-key', { params: { path: { name } } })));
    if (made) { setKey(made); setCopied(false); onKey(true); }
  };
  const copy = () => {
    if (!key) return;
    const done = () => setCopied(true);
    if (navigator.clipboard) navigator.clipboard.writeText(key.publicKey).then(done, () => undefined);
    else { text.current?.select(); if (document.execCommand('copy')) done(); }
  };
  return (
    <div class="card" data-testid="deploy-key">
      <p>A <strong>deploy key</strong> lets this stack read a private repository over SSH. Dockwright makes the key pair and keeps the private half; you add the public half to the repository.</p>
      {key && (
        <>
          <label>Public key<textarea ref={text} name="deploy-public-key" readOnly rows={3} value={key.publicKey} onFocus={(e) => e.currentTarget.select()} /></label>
          <p class="muted">Fingerprint <code>{key.fingerprint}</code> · made <Time at={key.createdAt} />{key.expiresAt ? <> · goes <Time at={key.expiresAt} /> unless a source uses it</> : ''}</p>
          <p>Add it to the repository as a <strong>read-only deploy key</strong> (GitHub, Gitea, Forgejo: <em>Settings → Deploy keys</em>; GitLab: <em>Settings → Repository → Deploy keys</em>), and give an SSH URL such as <code>git@github.com:team/app.git</code>.</p>
        </>
      )}
      <div class="actions">
        {key && <button type="button" onClick={copy}>{copied ? 'Copied' : 'Copy public key'}</button>}
        <button type="button" onClick={make} disabled={act.busy || !valid} title={valid ? undefined : 'give the stack a name first'}>{key ? 'Make a new deploy key' : 'Make a deploy key'}</button>
        {key && <span class="muted">A new key replaces this one, also for a source that uses it.</span>}
      </div>
      <ProblemBox problem={act.problem} />
    </div>
  );
}
