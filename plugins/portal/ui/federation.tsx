// The admin pages of outside identities: CI federation's trust policies (add, list, remove) and the identity providers (listed, tested).
import { useState } from 'preact/hooks';
import { api, can, Empty, Loading, ok, PageTitle, ProblemBox, Time, useAction, useLoad, type PortalPage } from '../../../sdk/portal/kit.tsx';

const lines = (text: string) => text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);

/** `key=glob` lines as the claims object */
function claimsOf(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}

function TrustPolicies() {
  const policies = useLoad(() => ok(api.GET('/api/v1/auth/federation')), []);
  const [form, setForm] = useState({ issuer: 'https://token.actions.githubusercontent.com', audience: '', subject: '', claims: '', scopes: 'stacks:read stacks:deploy jobs:read', stacks: '', ttl: '15m' });
  const action = useAction();
  const write = can('federation:write');
  const field = (key: keyof typeof form) => ({ value: form[key], onInput: (e: { currentTarget: { value: string } }) => setForm({ ...form, [key]: e.currentTarget.value }) });
  const add = async (e: Event) => {
    e.preventDefault();
    const claims = claimsOf(form.claims);
    const body = {
      issuer: form.issuer.trim(), audience: form.audience.trim(), subject: form.subject.trim(), scopes: lines(form.scopes), ttl: form.ttl.trim() || undefined,
      ...(Object.keys(claims).length ? { claims } : {}), ...(lines(form.stacks).length ? { stacks: lines(form.stacks) } : {}),
    };
    if (await action.run(() => ok(api.POST('/api/v1/auth/federation', { body })))) { setForm({ ...form, subject: '', claims: '', stacks: '' }); policies.reload(); }
  };
  const remove = async (id: string) => {
    if (await action.run(() => ok(api.DELETE('/api/v1/auth/federation/{id}', { params: { path: { id } } })).then(() => true))) policies.reload();
  };
  return (
    <>
      <PageTitle title="CI federation" />
      <p class="muted">A CI job's own OIDC token, from an issuer and for an audience below, whose subject and claims match, is exchanged at <code>POST /api/v1/auth/token</code> for a short token of the policy's scopes and stacks. Patterns: <code>*</code> any run of characters, <code>?</code> one.</p>
      {write && (
        <form onSubmit={add} class="card">
          <h2>New trust policy</h2>
          <label>Issuer<input required {...field('issuer')} /></label>
          <label>Audience<input required placeholder="https://dw.example.com" {...field('audience')} /></label>
          <label>Subject pattern<input required placeholder="repo:acme/shop:ref:refs/heads/main" {...field('subject')} /></label>
          <label>Claim patterns (one <code>claim=pattern</code> a line)<textarea rows={2} placeholder="workflow=deploy" {...field('claims')} /></label>
          <label>Scopes (at most an operator's)<input required {...field('scopes')} /></label>
          <label>Stacks (empty: every stack without an access list)<input placeholder="shop" {...field('stacks')} /></label>
          <label>Token lifetime (60s to 1h)<input pattern="\d{1,5}(s|m|h)" {...field('ttl')} /></label>
          <button type="submit" class="primary" disabled={action.busy}>Add trust policy</button>
        </form>
      )}
      <ProblemBox problem={action.problem} />
      <Loading what={policies} />
      {policies.data && (policies.data.length === 0 ? <Empty>No trust policies: CI jobs cannot exchange their tokens.</Empty> : policies.data.map((p) => (
        <section class="card" aria-labelledby={`policy-${p.id}`} data-testid="trust-policy">
          <h2 id={`policy-${p.id}`}><code>{p.subject}</code></h2>
          <dl class="summary">
            <div><dt>Issuer</dt><dd>{p.issuer}</dd></div>
            <div><dt>Audience</dt><dd>{p.audience}</dd></div>
            {Object.keys(p.claims).length > 0 && <div><dt>Claims</dt><dd>{Object.entries(p.claims).map(([k, v]) => <div><code>{k}</code> = <code>{v}</code></div>)}</dd></div>}
            <div><dt>Scopes</dt><dd>{p.scopes.join(', ')}</dd></div>
            <div><dt>Stacks</dt><dd>{p.stacks ? p.stacks.join(', ') : <span class="muted">every stack without an access list</span>}</dd></div>
            <div><dt>Lifetime</dt><dd>{p.ttl}</dd></div>
            <div><dt>Added</dt><dd><Time at={p.createdAt} /> by {p.createdBy}</dd></div>
          </dl>
          {write && <button type="button" class="danger" onClick={() => remove(p.id)} aria-label={`Remove the trust policy for ${p.subject}`}>Remove</button>}
        </section>
      )))}
    </>
  );
}

type Tested = Awaited<ReturnType<typeof testProvider>>;
const testProvider = (name: string, groups: string) =>
  ok(api.POST('/api/v1/auth/oidc/providers/{name}/test', { params: { path: { name } }, body: { claims: { groups: lines(groups) } } }));

function IdentityProviders() {
  const providers = useLoad(() => ok(api.GET('/api/v1/auth/oidc/providers')), []);
  const [groups, setGroups] = useState<Record<string, string>>({});
  const [results, setResults] = useState<Record<string, Tested>>({});
  const action = useAction();
  const test = async (name: string) => {
    const out = await action.run(() => testProvider(name, groups[name] ?? ''));
    if (out) setResults({ ...results, [name]: out });
  };
  return (
    <>
      <PageTitle title="Identity providers" />
      <p class="muted">Providers, their group mappings and single sign-on are set on the Settings page (<em>Sign-in</em>); each adds a "Sign in with …" button to the sign-in page. {providers.data?.enforceSso && <strong>Password sign-in is refused but for the break-glass admins.</strong>}</p>
      <ProblemBox problem={action.problem} />
      <Loading what={providers} />
      {providers.data && (providers.data.providers.length === 0 ? <Empty>No identity providers.</Empty> : providers.data.providers.map((p) => {
        const r = results[p.name];
        return (
          <section class="card" aria-labelledby={`provider-${p.name}`} data-testid={`provider-${p.name}`}>
            <h2 id={`provider-${p.name}`}>{p.label} <span class="muted">({p.name})</span></h2>
            <div class="actions">
              <label class="inline">Groups to try<input placeholder="ops, deployers" value={groups[p.name] ?? ''} onInput={(e) => setGroups({ ...groups, [p.name]: e.currentTarget.value })} /></label>
              <button type="button" onClick={() => test(p.name)} disabled={action.busy} aria-label={`Test ${p.label}`}>Test this provider</button>
            </div>
            {r && (
              <dl class="summary" data-testid={`tested-${p.name}`}>
                <div><dt>Issuer</dt><dd>{r.issuer}</dd></div>
                <div><dt>Authorization</dt><dd>{r.authorizationEndpoint ?? '—'}</dd></div>
                <div><dt>PKCE S256</dt><dd>{r.pkceS256 ? 'offered' : 'not offered'}</dd></div>
                {r.grants && <div><dt>Would get</dt><dd>{r.grants.role ? <>role <strong>{r.grants.role}</strong>{r.grants.teams.length > 0 && <>, teams {r.grants.teams.join(', ')}</>}</> : <strong>refused: no mapping, no default role</strong>}</dd></div>}
              </dl>
            )}
          </section>
        );
      }))}
    </>
  );
}

export const federationPages: PortalPage[] = [
  { path: '/identity-providers', title: 'Identity providers', nav: 97.3, group: 'people', scope: 'settings:read', component: IdentityProviders },
  { path: '/federation', title: 'CI federation', nav: 97.6, group: 'people', scope: 'federation:read', component: TrustPolicies },
];
