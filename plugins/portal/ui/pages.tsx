// The kernel's own portal pages: the overview and jobs (their own files), the activity log, own tokens, the account, users and teams, identity providers and CI federation.
import { useState } from 'preact/hooks';
import { TwoFactor, userPages } from './users.tsx';
import { pluginPages } from './plugins.tsx';
import { OverviewPage } from './overview.tsx';
import { settingsPages } from './settings.tsx';
import { federationPages } from './federation.tsx';
import { actorText, jobPages } from './jobs.tsx';
import { api, Loading, ok, PageTitle, ProblemBox, setSession, ShownOnce, Status, Time, useAction, useLoad, useSession, type PortalPage } from '../../../sdk/portal/kit.tsx';


function Activity() {
  const [resource, setResource] = useState('');
  const log = useLoad(() => ok(api.GET('/api/v1/activity', { params: { query: { limit: 100, ...(resource ? { resource } : {}) } } })), [resource], 5000);
  return (
    <>
      <PageTitle title="Activity" />
      <label class="inline">Resource <input value={resource} placeholder="stack:web" onChange={(e) => setResource(e.currentTarget.value)} /></label>
      <Loading what={log} />
      {log.data && (
        <table data-testid="activity">
          <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Resource</th><th scope="col">Result</th></tr></thead>
          <tbody>{log.data.map((a) => (
            <tr><td><Time at={a.at} /></td><td>{actorText(a.actor)}</td><td><code>{a.action}</code></td><td>{a.resource}</td><td><Status value={a.result} /></td></tr>
          ))}</tbody>
        </table>
      )}
    </>
  );
}

function Tokens() {
  const session = useSession();
  const tokens = useLoad(() => ok(api.GET('/api/v1/tokens')), []);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [days, setDays] = useState('');
  const [made, setMade] = useState<{ token: string; name: string }>();
  const action = useAction();
  const create = async (e: Event) => {
    e.preventDefault();
    const out = await action.run(() => ok(api.POST('/api/v1/tokens', { body: { name, scopes, ...(days ? { expiresInDays: Number(days) } : {}) } })));
    if (out) { setMade(out); setName(''); setScopes([]); tokens.reload(); }
  };
  const revoke = async (id: string) => {
    if (await action.run(() => ok(api.DELETE('/api/v1/tokens/{id}', { params: { path: { id } } })).then(() => true))) tokens.reload();
  };
  return (
    <>
      <PageTitle title="Your tokens" />
      <p class="muted">Personal tokens for scripts and CI: they act as you, limited to the scopes you pick.</p>
      {made && <ShownOnce label={`Token "${made.name}"`} secret={made.token} />}
      <form onSubmit={create} class="card">
        <h2>New token</h2>
        <label>Name<input name="token-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
        <fieldset>
          <legend>Scopes</legend>
          <div class="scopes">{session?.scopes.map((s) => (
            <label class="check"><input type="checkbox" checked={scopes.includes(s)} onChange={(e) => setScopes(e.currentTarget.checked ? [...scopes, s] : scopes.filter((x) => x !== s))} /> {s}</label>
          ))}</div>
        </fieldset>
        <label>Expires after (days, empty: never)<input type="number" min={1} max={3650} value={days} onInput={(e) => setDays(e.currentTarget.value)} /></label>
        <button type="submit" disabled={action.busy || !scopes.length}>Create token</button>
      </form>
      <ProblemBox problem={action.problem} />
      <Loading what={tokens} />
      {tokens.data && (
        <table>
          <thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Scopes</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>{tokens.data.map((t) => (
            <tr><td>{t.name}</td><td><code>{t.prefix}…</code></td><td>{t.scopes.join(', ')}</td><td><Time at={t.expiresAt} /></td><td><Time at={t.lastUsedAt} /></td>
              <td>{t.revokedAt ? <span class="muted">revoked</span> : <button type="button" onClick={() => revoke(t.id)} aria-label={`Revoke token ${t.name}`}>Revoke</button>}</td></tr>
          ))}</tbody>
        </table>
      )}
    </>
  );
}

function Account() {
  const session = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState('');
  const action = useAction();
  const change = async (e: Event) => {
    e.preventDefault();
    if (await action.run(() => ok(api.PUT('/api/v1/me/password', { body: { current, password: next } })).then(() => true))) { setDone('Password changed; your other sessions are signed out.'); setCurrent(''); setNext(''); }
  };
  const everywhere = async () => {
    if (await action.run(() => ok(api.DELETE('/api/v1/sessions')))) setSession(null);
  };
  return (
    <>
      <PageTitle title="Account" />
      <p>Signed in as <strong>{session?.user.name}</strong> ({session?.user.role}); this session ends <time>{session && new Date(session.expiresAt).toLocaleString()}</time>.</p>
      <form onSubmit={change} class="card">
        <h2>Change password</h2>
        <label>Current password<input type="password" autoComplete="current-password" required value={current} onInput={(e) => setCurrent(e.currentTarget.value)} /></label>
        <label>New password (at least 10 characters)<input type="password" autoComplete="new-password" required minLength={10} value={next} onInput={(e) => setNext(e.currentTarget.value)} /></label>
        <button type="submit" disabled={action.busy}>Change password</button>
        {done && <p role="status">{done}</p>}
      </form>
      <TwoFactor />
      <div class="card">
        <h2>Sessions</h2>
        <p>Signing out everywhere ends every portal session of yours, on every device (your API tokens stay valid).</p>
        <button type="button" onClick={everywhere}>Sign out everywhere</button>
      </div>
      <ProblemBox problem={action.problem} />
    </>
  );
}

export const kernelPages: PortalPage[] = [
  { path: '/overview', title: 'Overview', nav: 0, component: OverviewPage },
  ...jobPages,
  { path: '/activity', title: 'Activity', nav: 90, group: 'activity', scope: 'activity:read', component: Activity },
  { path: '/tokens', title: 'Tokens', nav: 98, group: 'people', scope: 'tokens:read', component: Tokens },
  { path: '/account', title: 'Account', component: Account },
  ...userPages,
  ...federationPages,
  ...pluginPages,
  ...settingsPages,
];

