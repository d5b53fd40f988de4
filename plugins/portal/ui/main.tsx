// The portal's shell: sign-in, the navigation, and routing to the kernel's pages and to the pages every plugin contributes.
import { render } from 'preact';
import { useState } from 'preact/hooks';
import { pages as contributed } from 'dockwright:pages';
import { api, can, Link, match, navigate, ok, PageTitle, ProblemBox, setSession, useAction, usePath, useSession, type PortalPage, type SessionInfo } from '../../../sdk/portal/kit.tsx';
import { kernelPages } from './pages.tsx';

const pages: PortalPage[] = [...kernelPages, ...contributed];

function SignIn() {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const signed = await action.run(() => ok(api.POST('/api/v1/session', { body: { username, password } })));
    if (signed) setSession(signed as SessionInfo);
  };
  return (
    <main id="main" class="signin">
      <PageTitle title="Sign in to Dockwright" />
      <form onSubmit={submit} aria-describedby="signin-help">
        <label>User name<input name="username" autoComplete="username" required value={username} onInput={(e) => setUsername(e.currentTarget.value)} /></label>
        <label>Password<input name="password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
        <button type="submit" disabled={action.busy}>{action.busy ? 'Signing in…' : 'Sign in'}</button>
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
  const found = visible.map((p) => ({ page: p, params: match(p.path, path === '/' ? '/overview' : path) })).find((m) => m.params);
  const signOut = async () => {
    await api.DELETE('/api/v1/session');
    setSession(null);
    navigate('/');
  };
  const nav = visible.filter((p) => p.nav !== undefined).sort((a, b) => a.nav! - b.nav!);
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <Link href="/" class="brand">Dockwright</Link>
        <button type="button" class="menu" aria-expanded={menu} aria-controls="nav" onClick={() => setMenu(!menu)}>Menu</button>
        <nav id="nav" aria-label="Main" class={menu ? 'open' : ''} onClick={() => setMenu(false)}>
          {nav.map((p) => <Link href={p.path} aria-current={path.startsWith(p.path) || (path === '/' && p.path === '/overview') ? 'page' : undefined}>{p.title}</Link>)}
        </nav>
        <div class="who">
          <Link href="/account" data-testid="who">{session.user.name} <span class="muted">({session.user.role})</span></Link>
          <button type="button" onClick={signOut}>Sign out</button>
        </div>
      </header>
      <main id="main">
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
