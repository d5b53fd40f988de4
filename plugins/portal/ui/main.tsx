// The portal's shell: sign-in, the navigation, and routing to the kernel's pages and to the pages every plugin contributes.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { pages as contributed } from 'dockwright:pages';
import { api, can, isProblem, Link, match, navigate, ok, PageTitle, ProblemBox, setSession, useAction, useLoad, usePath, useSession, type PortalPage, type SessionInfo } from '../../../sdk/portal/kit.tsx';
import { kernelPages } from './pages.tsx';
import { Enrolment, RecoveryCodes } from './users.tsx';

const pages: PortalPage[] = [...kernelPages, ...contributed];

type Signed = SessionInfo & { recoveryCodes?: string[] };

/** what a refused sign-in through an identity provider came back with (?signInError=<code>), as people say it */
const providerErrors: Record<string, string> = {
  'no-mapping': 'Your groups at the identity provider give you no role here. Ask an admin.',
  'no-account': 'No account is linked to this identity, and this provider makes none. Ask an admin.',
  'domain-not-allowed': 'Your e-mail address is not verified, or not in a domain allowed to sign in.',
  'account-disabled': 'This account is disabled.',
  'mfa-required': 'This account needs a second factor: sign in at the provider with one.',
};

/** the "Sign in with …" buttons; after a provider's redirect, the session its cookie holds */
function ProviderButtons() {
  const providers = useLoad(() => ok(api.GET('/api/v1/auth/oidc/providers')), []);
  const error = new URLSearchParams(location.search).get('signInError');
  useEffect(() => {
    if (error) return;
    api.GET('/api/v1/session').then((res) => { if (res.data) setSession(res.data); }, () => undefined);
  }, []);
  const list = providers.data?.providers ?? [];
  return (
    <>
      {error && <p role="alert" class="problem">Sign-in through the identity provider was refused: {providerErrors[error] ?? `the provider's answer did not pass the checks (${error}).`}</p>}
      {list.length > 0 && (
        <div class="providers" data-testid="providers">
          {list.map((p) => <a class="button" href={p.url}>Sign in with {p.label}</a>)}
          {providers.data?.enforceSso && <p class="muted">Password sign-in is kept for the break-glass admins.</p>}
        </div>
      )}
    </>
  );
}

/** the sign-in form: the password, then whatever the account asks for (a new password, a code, enrolling an authenticator), sent again with the same call */
function SignIn() {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [newPassword, setNewPassword] = useState<string>();
  const [code, setCode] = useState<string>();
  const [enrolment, setEnrolment] = useState<{ secret: string; qrCode: string }>();
  const [signed, setSigned] = useState<Signed>();
  const action = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const body = { username, password, ...(newPassword !== undefined ? { newPassword } : {}), ...(code ? { code: code.trim() } : {}) };
    const out = await action.run(async () => {
      try {
        return await ok(api.POST('/api/v1/session', { body }));
      } catch (err) {
        const kind = isProblem(err) ? err.type.split('/').pop() : undefined;
        if (kind === 'password-change-required') { setNewPassword(''); return undefined; }
        if (kind === 'totp-required') { setCode(''); return undefined; }
        if (kind === 'totp-enrolment-required') { setEnrolment((err as { totp?: { secret: string; qrCode: string } }).totp); setCode(''); return undefined; }
        if (kind === 'totp-failed') setCode('');
        throw err;
      }
    });
    if (!out) return;
    // the recovery codes of an enrolment made while signing in are shown before the portal opens
    if (out.recoveryCodes) setSigned(out as Signed);
    else setSession(out as SessionInfo);
  };
  if (signed) {
    return (
      <main id="main" class="signin">
        <PageTitle title="Two-factor sign-in is set up" />
        <RecoveryCodes codes={signed.recoveryCodes!} />
        <button type="button" class="primary" onClick={() => setSession(signed)}>I have saved them: continue</button>
      </main>
    );
  }
  const asking = newPassword !== undefined || code !== undefined;
  return (
    <main id="main" class="signin">
      <PageTitle title="Sign in to Dockwright" />
      <ProviderButtons />
      <form onSubmit={submit} aria-describedby="signin-help">
        <label>User name<input name="username" autoComplete="username" required readOnly={asking} value={username} onInput={(e) => setUsername(e.currentTarget.value)} /></label>
        <label>Password<input name="password" type="password" autoComplete="current-password" required readOnly={asking} value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
        {newPassword !== undefined && (
          <label>New password (your password was set for one sign-in; at least 10 characters)<input name="new-password" type="password" autoComplete="new-password" required minLength={10} value={newPassword} onInput={(e) => setNewPassword(e.currentTarget.value)} /></label>
        )}
        {enrolment && <><p>Two-factor sign-in is required: add this secret to an authenticator app, then enter its code.</p><Enrolment totp={enrolment} /></>}
        {code !== undefined && (
          <label>Authenticator code (or a recovery code)<input name="code" inputMode={enrolment ? 'numeric' : undefined} autoComplete="one-time-code" required value={code} onInput={(e) => setCode(e.currentTarget.value)} /></label>
        )}
        <button type="submit" disabled={action.busy}>{action.busy ? 'Signing in…' : asking ? 'Continue' : 'Sign in'}</button>
        <p id="signin-help" class="muted">The first admin's password is in DATA_DIR/initial-admin-password; set one with <code>npm run cli -- user passwd &lt;name&gt;</code>.</p>
      </form>
      <ProblemBox problem={action.problem} />
    </main>
  );
}

function Shell({ session }: { session: SessionInfo }) {
  const path = usePath();
  const [menu, setMenu] = useState(false);
  const visible = pages.filter((p) => !p.scope || can(p.scope));
  // of the pages whose path matches, the one naming more of it (/stacks/:name/tasks before /stacks/:name/:tab); else the first
  const literal = (p: PortalPage) => p.path.split('/').filter((part) => part && !part.startsWith(':')).length;
  const found = visible.map((p) => ({ page: p, params: match(p.path, path === '/' ? '/overview' : path) })).filter((m) => m.params)
    .sort((a, b) => literal(b.page) - literal(a.page))[0];
  const signOut = async () => {
    await api.DELETE('/api/v1/session');
    setSession(null);
    navigate('/');
  };
  const listed = visible.filter((p) => p.nav !== undefined).sort((a, b) => a.nav! - b.nav!);
  // a group is one entry of the main navigation, its first page; its pages link to each other above the page
  const groupOf = (p: PortalPage) => p.group ?? p.path;
  const nav = listed.filter((p, i) => listed.findIndex((q) => groupOf(q) === groupOf(p)) === i);
  const here = found && listed.find((p) => path.startsWith(p.path) && (path === p.path || /[/-]/.test(path[p.path.length])));
  const siblings = here?.group ? listed.filter((p) => p.group === here.group) : [];
  const current = (p: PortalPage) => (path === '/' && p.path === '/overview') || Boolean(here && groupOf(here) === groupOf(p));
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <Link href="/" class="brand">Dockwright</Link>
        <button type="button" class="menu" aria-expanded={menu} aria-controls="nav" onClick={() => setMenu(!menu)}>Menu</button>
        <nav id="nav" aria-label="Main" class={menu ? 'open' : ''} onClick={() => setMenu(false)}>
          {nav.map((p) => <Link href={p.path} aria-current={current(p) ? 'page' : undefined}>{p.title}</Link>)}
        </nav>
        <div class="who">
          <Link href="/account" data-testid="who">{session.user.name} <span class="muted">({session.user.role})</span></Link>
          <button type="button" onClick={signOut}>Sign out</button>
        </div>
      </header>
      <main id="main">
        {siblings.length > 1 && (
          <nav class="tabs group" aria-label="Section">
            {siblings.map((p) => <Link href={p.path} aria-current={p === here ? 'page' : undefined}>{p.title}</Link>)}
          </nav>
        )}
        {found ? <found.page.component params={found.params!} key={path} /> : <><PageTitle title="Not found" /><p>No page here. <Link href="/">Go to the overview</Link>.</p></>}
      </main>
    </>
  );
}

function App() {
  const session = useSession();
  return session ? <Shell session={session} /> : <SignIn />;
}

const root = document.getElementById('app')!;
root.textContent = '';
render(<App />, root);
