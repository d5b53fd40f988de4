// The certificates plugin's portal pages: the list, upload and request forms, and a certificate's detail with its PEM chain (never a key).
import { useState } from 'preact/hooks';
import { api, can, Empty, enc, JobOutput, Link, Loading, navigate, ok, PageTitle, ProblemBox, Status, Time, useAction, useLoad, type PortalPage } from '../../../sdk/portal/kit.tsx';
export { overviewCards, resourcePaths } from './overview.tsx';

const path = (name: string) => ({ params: { path: { name } } });
const none = (what = 'none') => <span class="muted">{what}</span>;

function Upload({ onDone }: { onDone(name: string): void }) {
  const [name, setName] = useState('');
  const [certificate, setCertificate] = useState('');
  const [key, setKey] = useState('');
  const act = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const made = await act.run(() => ok(api.POST('/api/v1/certificates/upload', { body: { name, certificate, key } })));
    if (made) { setName(''); setCertificate(''); setKey(''); onDone(made.name); }
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="upload-title">
      <h2 id="upload-title">Upload a certificate</h2>
      <label>Name (letters, digits, dot, underscore and hyphen)<input required pattern="[A-Za-z0-9][A-Za-z0-9._\-]{0,127}" value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
      <label>Certificate (PEM, leaf first, then its chain)<textarea required rows={6} spellcheck={false} value={certificate} onInput={(e) => setCertificate(e.currentTarget.value)} placeholder="-----BEGIN CERTIFICATE-----" /></label>
      <label>Private key (PEM, unencrypted; stored sealed, never shown again)<textarea required rows={6} spellcheck={false} autoComplete="off" value={key} onInput={(e) => setKey(e.currentTarget.value)} placeholder="-----BEGIN PRIVATE KEY-----" /></label>
      <div class="actions"><button type="submit" class="primary" disabled={act.busy}>Upload certificate</button></div>
      <ProblemBox problem={act.problem} />
    </form>
  );
}

function Request({ onDone }: { onDone(): void }) {
  const [domains, setDomains] = useState('');
  const [challenge, setChallenge] = useState<'http-01' | 'dns-01'>('http-01');
  const [job, setJob] = useState<string>();
  const act = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    setJob(undefined);
    const started = await act.run(() => ok(api.POST('/api/v1/certificates/request', { body: { domains: domains.split(/[\s,]+/).filter(Boolean), challenge } })));
    if (started) { setJob(started.jobId); onDone(); }
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="request-title">
      <h2 id="request-title">Request a certificate (ACME)</h2>
      <label>Domains (one per line; the first names the certificate)<textarea required rows={3} value={domains} onInput={(e) => setDomains(e.currentTarget.value)} placeholder="www.example.com" /></label>
      <label>Challenge<select value={challenge} onChange={(e) => setChallenge(e.currentTarget.value as typeof challenge)}>
        <option value="http-01">http-01 (answered by the edge)</option>
        <option value="dns-01">dns-01 (through a DNS provider; needed for wildcards)</option>
      </select></label>
      <div class="actions"><button type="submit" class="primary" disabled={act.busy}>Request certificate</button></div>
      <ProblemBox problem={act.problem} />
      {job && <JobOutput id={job} onDone={onDone} />}
    </form>
  );
}

function Certificates() {
  const list = useLoad(() => ok(api.GET('/api/v1/certificates', { params: { query: { limit: 500 } } })), [], 10_000);
  return (
    <>
      <PageTitle title="Certificates" />
      <Loading what={list} />
      {list.data && (list.data.length === 0 ? <Empty>No certificates: the edge serves every hostname over plain HTTP until a certificate requested or uploaded here covers it (Caddy gets none by itself).</Empty> : (
        <table data-testid="certificates">
          <thead><tr><th scope="col">Name</th><th scope="col">Domains</th><th scope="col">Source</th><th scope="col">Issuer</th><th scope="col">Not after</th><th scope="col">Status</th><th scope="col">Last error</th><th scope="col">Used by</th></tr></thead>
          <tbody>{list.data.map((c) => (
            <tr>
              <td><Link href={`/certificates/${enc(c.name)}`}>{c.name}</Link></td>
              <td>{c.domains.map((d) => <div><code>{d}</code></div>)}</td>
              <td>{c.source}{c.challenge && <span class="muted"> {c.challenge}</span>}</td>
              <td>{c.issuer ?? none()}</td>
              <td><Time at={c.notAfter} /></td>
              <td><Status value={c.status} /></td>
              <td>{c.lastError ? <span class="error-text">{c.lastError}</span> : none()}</td>
              <td>{c.usedBy.length ? c.usedBy.map((h) => <div><code>{h}</code></div>) : none()}</td>
            </tr>
          ))}</tbody>
        </table>
      ))}
      {can('certificates:write') && (
        <>
          <Upload onDone={(name) => navigate(`/certificates/${enc(name)}`)} />
          <Request onDone={list.reload} />
        </>
      )}
    </>
  );
}

function Certificate({ params }: { params: Record<string, string> }) {
  const name = params.name;
  const cert = useLoad(() => ok(api.GET('/api/v1/certificates/{name}', path(name))), [name], 10_000);
  const [confirming, setConfirming] = useState(false);
  const act = useAction();
  const remove = async () => {
    const done = await act.run(async () => { await ok(api.DELETE('/api/v1/certificates/{name}', path(name))); return true; });
    if (done) navigate('/certificates');
  };
  const c = cert.data;
  return (
    <>
      <PageTitle title={`Certificate ${name}`}>{c && <Status value={c.status} />}</PageTitle>
      <p><Link href="/certificates">All certificates</Link></p>
      <Loading what={cert} />
      {c && (
        <>
          <dl class="summary">
            <div><dt>Domains</dt><dd>{c.domains.map((d) => <div><code>{d}</code></div>)}</dd></div>
            <div><dt>Source</dt><dd>{c.source}{c.challenge && <> ({c.challenge})</>}</dd></div>
            <div><dt>Issuer</dt><dd>{c.issuer ?? none()}</dd></div>
            <div><dt>Serial</dt><dd>{c.serial ? <code>{c.serial}</code> : none()}</dd></div>
            <div><dt>Valid</dt><dd><Time at={c.notBefore} /> to <Time at={c.notAfter} /></dd></div>
            {c.source === 'acme' && <div><dt>Renewal</dt><dd>from <Time at={c.renewAfter} />{c.nextAttemptAt && <>, next attempt <Time at={c.nextAttemptAt} /></>}</dd></div>}
            <div><dt>Last error</dt><dd>{c.lastError ? <span class="error-text">{c.lastError}</span> : none()}</dd></div>
            <div><dt>Used by</dt><dd>{c.usedBy.length ? c.usedBy.map((h) => <div><code>{h}</code></div>) : none('no edge hostname')}</dd></div>
          </dl>
          <h2 id="chain-title">Certificate chain (PEM)</h2>
          {c.chain ? <pre class="output" tabIndex={0} aria-labelledby="chain-title" data-testid="chain">{c.chain}</pre> : <Empty>Nothing held yet.</Empty>}
          {can('certificates:write') && (
            <div class="actions">
              {confirming ? (
                <div role="alert" class="card">
                  <p>Delete certificate <strong>{name}</strong>? The edge stops serving it; its hostnames fall back to another matching certificate or plain HTTP.</p>
                  <button type="button" class="danger" onClick={remove} disabled={act.busy}>Yes, delete {name}</button>
                  <button type="button" onClick={() => setConfirming(false)}>Cancel</button>
                </div>
              ) : <button type="button" class="danger" onClick={() => setConfirming(true)}>Delete certificate…</button>}
            </div>
          )}
        </>
      )}
      <ProblemBox problem={act.problem} />
    </>
  );
}

export const pages: PortalPage[] = [
  { path: '/certificates', title: 'Certificates', nav: 40, group: 'edge', scope: 'certificates:read', component: Certificates },
  { path: '/certificates/:name', title: 'Certificate', scope: 'certificates:read', component: Certificate },
];
