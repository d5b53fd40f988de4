// The portal's pages for users and teams (admins), and the account's two-factor sign-in: enrol with a QR code, recovery codes shown once, remove.
import { useState } from 'preact/hooks';
import { api, can, Empty, enc, Link, Loading, navigate, ok, PageTitle, ProblemBox, Status, Time, useAction, useLoad, type PortalPage } from '../../../sdk/portal/kit.tsx';

const roles = ['viewer', 'operator', 'admin'] as const;
type Role = typeof roles[number];

/** the recovery codes of a new enrolment: shown this once */
export function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <div class="once" role="status">
      <p><strong>Recovery codes</strong> — shown this once: keep them somewhere safe. Each one signs you in once instead of a code, if you lose your authenticator.</p>
      <ul class="codes" data-testid="recovery-codes">{codes.map((c) => <li><code>{c}</code></li>)}</ul>
    </div>
  );
}

/** a new authenticator secret: the QR code to scan, and the secret as text for apps that cannot scan */
export function Enrolment({ totp }: { totp: { secret: string; qrCode: string } }) {
  return (
    <div class="enrol">
      <img src={totp.qrCode} width={200} height={200} alt="QR code of the new secret, for your authenticator app" />
      <p>Scan it with an authenticator app, or type the secret: <code class="secret" data-testid="totp-secret">{totp.secret}</code></p>
    </div>
  );
}

/** the account page's section: enrol an authenticator, see what is left, remove it */
export function TwoFactor() {
  const status = useLoad(() => ok(api.GET('/api/v1/me/totp')), []);
  const [enrolment, setEnrolment] = useState<{ secret: string; qrCode: string }>();
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[]>();
  const [password, setPassword] = useState('');
  const action = useAction();
  const begin = async () => {
    setCodes(undefined);
    const made = await action.run(() => ok(api.POST('/api/v1/me/totp')));
    if (made) setEnrolment(made);
  };
  const confirm = async (e: Event) => {
    e.preventDefault();
    const out = await action.run(() => ok(api.POST('/api/v1/me/totp/confirm', { body: { code: code.trim() } })));
    if (out) { setCodes(out.recoveryCodes); setEnrolment(undefined); setCode(''); status.reload(); }
  };
  const remove = async (e: Event) => {
    e.preventDefault();
    if (await action.run(() => ok(api.DELETE('/api/v1/me/totp', { body: { password } })).then(() => true))) { setPassword(''); setCodes(undefined); status.reload(); }
  };
  const s = status.data;
  return (
    <section class="card" aria-labelledby="two-factor">
      <h2 id="two-factor">Two-factor sign-in</h2>
      <Loading what={status} />
      {codes && <RecoveryCodes codes={codes} />}
      {s && (s.enrolled ? (
        <>
          <p>Sign-ins ask for a code of your authenticator app (enrolled <Time at={s.enrolledAt} />; {s.recoveryCodesLeft} recovery codes left).</p>
          <form onSubmit={remove}>
            <label>Current password, to remove the authenticator<input type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
            <button type="submit" class="danger" disabled={action.busy}>Remove authenticator</button>
            {s.required && <p class="muted">Two-factor sign-in is required here: your next sign-in enrols a new one.</p>}
          </form>
        </>
      ) : enrolment ? (
        <form onSubmit={confirm}>
          <Enrolment totp={enrolment} />
          <label>Code from the app<input inputMode="numeric" autoComplete="one-time-code" required pattern="[0-9 ]{6,7}" value={code} onInput={(e) => setCode(e.currentTarget.value)} /></label>
          <button type="submit" class="primary" disabled={action.busy}>Confirm authenticator</button>
        </form>
      ) : (
        <>
          <p>{s.required ? 'Required here: ' : ''}Sign-ins then need a code of an authenticator app besides your password (API tokens are not affected).</p>
          <button type="button" onClick={begin} disabled={action.busy}>Set up two-factor sign-in</button>
        </>
      ))}
      <ProblemBox problem={action.problem} />
    </section>
  );
}

function Users() {
  const users = useLoad(() => ok(api.GET('/api/v1/users', { params: { query: { limit: 1000 } } })), []);
  const teams = useLoad(() => ok(api.GET('/api/v1/teams', { params: { query: { limit: 1000 } } })), []);
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('operator');
  const [chosen, setChosen] = useState<string[]>([]);
  const [password, setPassword] = useState('');
  const action = useAction();
  const create = async (e: Event) => {
    e.preventDefault();
    const made = await action.run(() => ok(api.POST('/api/v1/users', { body: { name, role, teams: chosen, ...(password ? { password } : {}) } })));
    if (made) { setName(''); setPassword(''); setChosen([]); users.reload(); }
  };
  return (
    <>
      <PageTitle title="Users" />
      {can('users:write') && (
        <form onSubmit={create} class="card">
          <h2>New user</h2>
          <label>User name<input name="new-user" required pattern="[A-Za-z0-9][A-Za-z0-9._\-]{0,63}" value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
          <label>Role<select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>{roles.map((r) => <option value={r}>{r}</option>)}</select></label>
          {teams.data && teams.data.length > 0 && (
            <fieldset>
              <legend>Teams</legend>
              {teams.data.map((t) => <label class="check"><input type="checkbox" checked={chosen.includes(t.name)} onChange={(e) => setChosen(e.currentTarget.checked ? [...chosen, t.name] : chosen.filter((x) => x !== t.name))} /> {t.name}</label>)}
            </fieldset>
          )}
          <label>One-time password (at least 10 characters; the first sign-in replaces it)<input type="password" autoComplete="new-password" minLength={10} value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
          <button type="submit" class="primary" disabled={action.busy}>Create user</button>
        </form>
      )}
      <ProblemBox problem={action.problem} />
      <Loading what={users} />
      {users.data && (
        <table data-testid="users">
          <thead><tr><th scope="col">User</th><th scope="col">Role</th><th scope="col">Teams</th><th scope="col">State</th><th scope="col">Two-factor</th><th scope="col">Created</th></tr></thead>
          <tbody>{users.data.map((u) => (
            <tr>
              <td><Link href={`/users/${enc(u.name)}`}>{u.name}</Link></td><td>{u.role}</td><td>{u.teams.join(', ')}</td>
              <td><Status value={u.disabled ? 'disabled' : u.mustChangePassword ? 'one-time password' : u.passwordSet ? 'active' : 'no password'} /></td>
              <td>{u.totpEnrolled ? 'enrolled' : <span class="muted">none</span>}</td><td><Time at={u.createdAt} /></td>
            </tr>
          ))}</tbody>
        </table>
      )}
    </>
  );
}

function User({ params }: { params: Record<string, string> }) {
  const name = params.name;
  const path = { params: { path: { name } } };
  const user = useLoad(() => ok(api.GET('/api/v1/users/{name}', path)), [name]);
  const teams = useLoad(() => ok(api.GET('/api/v1/teams', { params: { query: { limit: 1000 } } })), []);
  const [role, setRole] = useState<Role>();
  const [chosen, setChosen] = useState<string[]>();
  const [password, setPassword] = useState('');
  const [removing, setRemoving] = useState(false);
  const [done, setDone] = useState('');
  const action = useAction();
  const u = user.data;
  const write = can('users:write');
  const patch = async (body: { role?: Role; teams?: string[]; disabled?: boolean; password?: string }, said: string) => {
    setDone('');
    if (await action.run(() => ok(api.PATCH('/api/v1/users/{name}', { ...path, body })))) { setDone(said); user.reload(); }
  };
  const save = (e: Event) => {
    e.preventDefault();
    void patch({ role: role ?? u!.role, teams: chosen ?? u!.teams }, 'Saved.');
  };
  const setOneTime = async (e: Event) => {
    e.preventDefault();
    await patch({ password }, 'One-time password set; the user\'s portal sessions ended.');
    setPassword('');
  };
  const resetTotp = async () => {
    if (await action.run(() => ok(api.DELETE('/api/v1/users/{name}/totp', path)).then(() => true))) { setDone('Two-factor sign-in reset.'); user.reload(); }
  };
  const remove = async () => {
    if (await action.run(() => ok(api.DELETE('/api/v1/users/{name}', path)).then(() => true))) navigate('/users');
  };
  return (
    <>
      <PageTitle title={`User ${name}`} />
      <p><Link href="/users">All users</Link></p>
      <Loading what={user} />
      {u && (
        <>
          <p>{u.role}{u.disabled && <> · <Status value="disabled" /></>} · {u.totpEnrolled ? 'two-factor sign-in enrolled' : 'no two-factor sign-in'} · {u.mustChangePassword ? 'one-time password' : u.passwordSet ? 'password set' : 'no password'} · created <Time at={u.createdAt} /></p>
          {write && (
            <>
              <form onSubmit={save} class="card">
                <h2>Role and teams</h2>
                <label>Role<select value={role ?? u.role} onChange={(e) => setRole(e.currentTarget.value as Role)}>{roles.map((r) => <option value={r}>{r}</option>)}</select></label>
                <fieldset>
                  <legend>Teams</legend>
                  {teams.data?.length ? teams.data.map((t) => {
                    const now = chosen ?? u.teams;
                    return <label class="check"><input type="checkbox" checked={now.includes(t.name)} onChange={(e) => setChosen(e.currentTarget.checked ? [...now, t.name] : now.filter((x) => x !== t.name))} /> {t.name}</label>;
                  }) : <span class="muted">No teams yet: <Link href="/teams">make one</Link>.</span>}
                </fieldset>
                <button type="submit" class="primary" disabled={action.busy}>Save</button>
              </form>
              <form onSubmit={setOneTime} class="card">
                <h2>One-time password</h2>
                <p class="muted">The user's portal sessions end, and the next sign-in must choose a new password.</p>
                <label>New one-time password (at least 10 characters)<input type="password" autoComplete="new-password" required minLength={10} value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
                <button type="submit" disabled={action.busy}>Set one-time password</button>
              </form>
              <div class="card">
                <h2>Access</h2>
                <p class="muted">Disabling revokes every token of the user and ends its sessions at once; enabling again gives none back.</p>
                <div class="actions">
                  <button type="button" class={u.disabled ? '' : 'danger'} onClick={() => patch({ disabled: !u.disabled }, u.disabled ? 'Enabled.' : 'Disabled; its tokens are revoked.')}>{u.disabled ? 'Enable user' : 'Disable user'}</button>
                  {u.totpEnrolled && <button type="button" onClick={resetTotp}>Reset two-factor sign-in</button>}
                  {removing
                    ? <><button type="button" class="danger" onClick={remove}>Yes, remove {name}</button><button type="button" onClick={() => setRemoving(false)}>Keep</button></>
                    : <button type="button" class="danger" onClick={() => setRemoving(true)}>Remove user</button>}
                </div>
              </div>
            </>
          )}
          {done && <p role="status">{done}</p>}
        </>
      )}
      <ProblemBox problem={action.problem} />
    </>
  );
}

function Teams() {
  const teams = useLoad(() => ok(api.GET('/api/v1/teams', { params: { query: { limit: 1000 } } })), []);
  const users = useLoad(() => ok(api.GET('/api/v1/users', { params: { query: { limit: 1000 } } })), []);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [adding, setAdding] = useState<Record<string, string>>({});
  const action = useAction();
  const write = can('users:write');
  const done = () => { teams.reload(); users.reload(); };
  const create = async (e: Event) => {
    e.preventDefault();
    if (await action.run(() => ok(api.POST('/api/v1/teams', { body: { name, description } })))) { setName(''); setDescription(''); done(); }
  };
  const add = async (team: string) => {
    const user = adding[team];
    if (user && await action.run(() => ok(api.POST('/api/v1/teams/{name}/members', { params: { path: { name: team } }, body: { user } })))) { setAdding({ ...adding, [team]: '' }); done(); }
  };
  const leave = async (team: string, user: string) => {
    if (await action.run(() => ok(api.DELETE('/api/v1/teams/{name}/members/{user}', { params: { path: { name: team, user } } })).then(() => true))) done();
  };
  const remove = async (team: string) => {
    if (await action.run(() => ok(api.DELETE('/api/v1/teams/{name}', { params: { path: { name: team } } })).then(() => true))) done();
  };
  return (
    <>
      <PageTitle title="Teams" />
      <p class="muted">A stack's access list names a team as <code>team:&lt;name&gt;</code>.</p>
      {write && (
        <form onSubmit={create} class="card">
          <h2>New team</h2>
          <label>Team name<input name="new-team" required pattern="[A-Za-z0-9][A-Za-z0-9._\-]{0,63}" value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
          <label>Description<input maxLength={500} value={description} onInput={(e) => setDescription(e.currentTarget.value)} /></label>
          <button type="submit" class="primary" disabled={action.busy}>Create team</button>
        </form>
      )}
      <ProblemBox problem={action.problem} />
      <Loading what={teams} />
      {teams.data && (teams.data.length === 0 ? <Empty>No teams.</Empty> : teams.data.map((t) => (
        <section class="card" aria-labelledby={`team-${t.name}`} data-testid={`team-${t.name}`}>
          <h2 id={`team-${t.name}`}>{t.name}</h2>
          {t.description && <p>{t.description}</p>}
          {t.members.length === 0 ? <Empty>No members.</Empty> : (
            <ul>{t.members.map((m) => <li><Link href={`/users/${enc(m)}`}>{m}</Link> {write && <button type="button" onClick={() => leave(t.name, m)} aria-label={`Remove ${m} from ${t.name}`}>Remove</button>}</li>)}</ul>
          )}
          {write && (
            <div class="actions">
              <label class="inline">Add member<select value={adding[t.name] ?? ''} onChange={(e) => setAdding({ ...adding, [t.name]: e.currentTarget.value })}>
                <option value="">choose a user</option>
                {users.data?.filter((u) => !t.members.includes(u.name)).map((u) => <option value={u.name}>{u.name}</option>)}
              </select></label>
              <button type="button" onClick={() => add(t.name)} disabled={!adding[t.name]} aria-label={`Add to ${t.name}`}>Add</button>
              <button type="button" class="danger" onClick={() => remove(t.name)} aria-label={`Remove team ${t.name}`}>Remove team</button>
            </div>
          )}
        </section>
      )))}
    </>
  );
}

export const userPages: PortalPage[] = [
  { path: '/users', title: 'Users', nav: 96, group: 'people', scope: 'users:read', component: Users },
  { path: '/users/:name', title: 'User', scope: 'users:read', component: User },
  { path: '/teams', title: 'Teams', nav: 97, group: 'people', scope: 'users:read', component: Teams },
];
