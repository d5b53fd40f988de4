// The alerts plugin's portal pages: the alerts (filter, acknowledge) and the channels they go to (list, create, delete, send a test).
import { useState } from 'preact/hooks';
import { api, can, Empty, Loading, ok, PageTitle, ProblemBox, ShownOnce, Status, Time, useAction, useLoad, type paths, type PortalPage } from '../../../sdk/portal/kit.tsx';
export { overviewCards, resourcePaths } from './overview.tsx';

type Channel = paths['/api/v1/alerts/channels']['get']['responses'][200]['content']['application/json'][number];
type Severity = Channel['minSeverity'];
type TestResult = paths['/api/v1/alerts/test']['post']['responses'][200]['content']['application/json']['results'][number];

const severities: Severity[] = ['info', 'warning', 'critical'];

/** the settings of each channel kind the form offers; `secret` fields are typed as passwords and never shown again */
interface Field { key: string; label: string; secret?: boolean; optional?: boolean; list?: boolean; number?: boolean; check?: boolean }
const kinds: { kind: string; label: string; fields: Field[] }[] = [
  { kind: 'webhook', label: 'Webhook (signed JSON POST)', fields: [{ key: 'url', label: 'URL' }] },
  { kind: 'email', label: 'Email (SMTP)', fields: [
    { key: 'host', label: 'SMTP server' }, { key: 'port', label: 'Port (default 587)', optional: true, number: true },
    { key: 'secure', label: 'TLS from the start (port 465)', check: true, optional: true },
    { key: 'username', label: 'SMTP user name', optional: true }, { key: 'password', label: 'SMTP password', secret: true, optional: true },
    { key: 'from', label: 'From address' }, { key: 'to', label: 'To addresses (one per line)', list: true },
  ] },
  { kind: 'slack', label: 'Slack', fields: [{ key: 'url', label: 'Incoming webhook URL', secret: true }] },
  { kind: 'discord', label: 'Discord', fields: [{ key: 'url', label: 'Webhook URL', secret: true }] },
  { kind: 'telegram', label: 'Telegram', fields: [{ key: 'botToken', label: 'Bot token', secret: true }, { key: 'chatId', label: 'Chat id or @channel' }, { key: 'baseUrl', label: 'Bot API server (optional)', optional: true }] },
  { kind: 'ntfy', label: 'ntfy', fields: [{ key: 'topic', label: 'Topic' }, { key: 'baseUrl', label: 'Server (optional, default https://ntfy.sh)', optional: true }, { key: 'token', label: 'Access token (optional)', secret: true, optional: true }] },
  { kind: 'gotify', label: 'Gotify', fields: [{ key: 'baseUrl', label: 'Gotify server' }, { key: 'appToken', label: 'Application token', secret: true }] },
];

function Alerts() {
  const [status, setStatus] = useState<'unresolved' | 'open' | 'acknowledged' | 'resolved' | 'all'>('unresolved');
  const [acknowledged, setAcknowledged] = useState<'' | 'true' | 'false'>('');
  const [severity, setSeverity] = useState<'' | Severity>('');
  const query = { limit: 500, status, ...(severity ? { severity } : {}), ...(acknowledged ? { acknowledged: acknowledged === 'true' } : {}) };
  const alerts = useLoad(() => ok(api.GET('/api/v1/alerts', { params: { query } })), [status, acknowledged, severity], 10_000);
  const act = useAction();
  const acknowledge = async (id: number) => { if (await act.run(() => ok(api.POST('/api/v1/alerts/{id}/acknowledge', { params: { path: { id: String(id) } } })))) alerts.reload(); };
  return (
    <>
      <PageTitle title="Alerts" />
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label class="inline">Status<select value={status} onChange={(e) => setStatus(e.currentTarget.value as typeof status)}>
          <option value="unresolved">Not resolved</option><option value="open">Open</option><option value="acknowledged">Acknowledged</option><option value="resolved">Resolved recently</option><option value="all">All</option>
        </select></label>
        <label class="inline">Acknowledged<select value={acknowledged} onChange={(e) => setAcknowledged(e.currentTarget.value as typeof acknowledged)}>
          <option value="">Either</option><option value="false">Not acknowledged</option><option value="true">Acknowledged</option>
        </select></label>
        <label class="inline">Severity<select value={severity} onChange={(e) => setSeverity(e.currentTarget.value as typeof severity)}>
          <option value="">Any</option>{severities.map((s) => <option value={s}>{s}</option>)}
        </select></label>
      </form>
      <ProblemBox problem={act.problem} />
      <Loading what={alerts} />
      {alerts.data && (alerts.data.length === 0 ? <Empty>No alerts.</Empty> : (
        <table data-testid="alerts">
          <thead><tr><th scope="col">Severity</th><th scope="col">Kind</th><th scope="col">Resource</th><th scope="col">Message</th><th scope="col">First seen</th><th scope="col">Last seen</th><th scope="col">Count</th><th scope="col">State</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>{alerts.data.map((a) => (
            <tr>
              <td><Status value={a.severity} /></td>
              <td><code>{a.kind}</code></td>
              <td>{a.resource ? <code>{a.resource}</code> : <span class="muted">none</span>}{a.subject && <> <span class="muted">{a.subject}</span></>}</td>
              <td>{a.message}</td>
              <td><Time at={a.firstSeen} /></td>
              <td><Time at={a.lastSeen} /></td>
              <td>{a.count}</td>
              <td>{a.resolvedAt ? <>resolved <Time at={a.resolvedAt} /></> : a.acknowledgedAt ? <>acknowledged by {a.acknowledgedBy?.name ?? a.acknowledgedBy?.kind} <Time at={a.acknowledgedAt} /></> : 'open'}</td>
              <td>{can('alerts:write') && !a.resolvedAt && !a.acknowledgedAt && <button type="button" onClick={() => acknowledge(a.id)} disabled={act.busy} aria-label={`Acknowledge alert ${a.id}: ${a.message}`}>Acknowledge</button>}</td>
            </tr>
          ))}</tbody>
        </table>
      ))}
    </>
  );
}

/** a new channel: the chosen kind's settings, a name, the least severity and the alert kinds it wants */
function ChannelForm({ onCreated }: { onCreated(secret: string | undefined): void }) {
  const [kind, setKind] = useState('webhook');
  const [name, setName] = useState('');
  const [minSeverity, setMinSeverity] = useState<Severity>('info');
  const [events, setEvents] = useState('');
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const act = useAction();
  const fields = kinds.find((k) => k.kind === kind)!.fields;
  const set = (key: string, value: string | boolean) => setValues({ ...values, [key]: value });
  const submit = async (e: Event) => {
    e.preventDefault();
    const config: Record<string, unknown> = {};
    for (const f of fields) {
      const v = values[f.key];
      if (v === undefined || v === '' || v === false) continue;
      config[f.key] = f.list ? String(v).split('\n').map((l) => l.trim()).filter(Boolean) : f.number ? Number(v) : v;
    }
    const body = { name, kind, config, minSeverity, ...(events.trim() ? { events: events.split(/[\s,]+/).filter(Boolean) } : {}) };
    const made = await act.run(() => ok(api.POST('/api/v1/alerts/channels', { body })));
    if (made) { setName(''); setValues({}); setEvents(''); onCreated(made.secret); }
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="new-channel">
      <h2 id="new-channel">New channel</h2>
      <label>Channel kind<select value={kind} onChange={(e) => { setKind(e.currentTarget.value); setValues({}); }}>
        {kinds.map((k) => <option value={k.kind}>{k.label}</option>)}
      </select></label>
      <label>Name<input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
      {fields.map((f) => f.check
        ? <label class="check"><input type="checkbox" checked={values[f.key] === true} onChange={(e) => set(f.key, e.currentTarget.checked)} /> {f.label}</label>
        : f.list
          ? <label>{f.label}<textarea rows={2} required={!f.optional} value={String(values[f.key] ?? '')} onInput={(e) => set(f.key, e.currentTarget.value)} /></label>
          : f.secret
            ? <label>{f.label}<input required={!f.optional} type="password" autoComplete="new-password" value={String(values[f.key] ?? '')} onInput={(e) => set(f.key, e.currentTarget.value)} /></label>
            : <label>{f.label}<input required={!f.optional} inputMode={f.number ? 'numeric' : undefined} autoComplete="off" value={String(values[f.key] ?? '')} onInput={(e) => set(f.key, e.currentTarget.value)} /></label>)}
      <label>Least severity sent<select value={minSeverity} onChange={(e) => setMinSeverity(e.currentTarget.value as Severity)}>
        {severities.map((s) => <option value={s}>{s}</option>)}
      </select></label>
      <label>Alert kinds (separated by spaces or commas; empty: all)<input value={events} onInput={(e) => setEvents(e.currentTarget.value)} placeholder="job-failed backup-failed" /></label>
      <div class="actions"><button type="submit" class="primary" disabled={act.busy}>Create channel</button></div>
      <ProblemBox problem={act.problem} />
    </form>
  );
}

function Channels() {
  const channels = useLoad(() => ok(api.GET('/api/v1/alerts/channels')), []);
  const [secret, setSecret] = useState<string>();
  const [confirming, setConfirming] = useState<string>();
  const [results, setResults] = useState<TestResult[]>();
  const act = useAction();
  const writable = can('alerts:write');
  const nameOf = (id: string) => channels.data?.find((c) => c.id === id)?.name ?? id;
  const remove = async (id: string) => { setConfirming(undefined); if (await act.run(() => ok(api.DELETE('/api/v1/alerts/channels/{id}', { params: { path: { id } } })))) channels.reload(); };
  const test = async (channelId?: string) => {
    setResults(undefined);
    const out = await act.run(() => ok(api.POST('/api/v1/alerts/test', { body: channelId ? { channelId } : {} })));
    if (out) { setResults(out.results); channels.reload(); }
  };
  return (
    <>
      <PageTitle title="Alert channels">{writable && channels.data?.length ? <button type="button" onClick={() => test()} disabled={act.busy}>Send test to all</button> : null}</PageTitle>
      {secret && <ShownOnce label="Webhook signing secret" secret={secret} extra={<p>Each delivery carries an HMAC-SHA256 signature of its body made with this secret.</p>} />}
      {results && (
        <section class="card" role="status" aria-label="Test results" data-testid="test-results">
          <h2>Test results</h2>
          {results.length === 0 ? <p>No channel to send to.</p> : <ul>{results.map((r) => (
            <li><strong>{nameOf(r.channelId)}</strong>: {r.delivered ? <Status value="delivered" /> : <><Status value="failed" /> <span class="error-text">{r.error}</span></>}</li>
          ))}</ul>}
        </section>
      )}
      <ProblemBox problem={act.problem} />
      <Loading what={channels} />
      {channels.data && (channels.data.length === 0 ? <Empty>No channels: alerts are shown here only.</Empty> : (
        <table data-testid="channels">
          <thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Alert kinds</th><th scope="col">Least severity</th><th scope="col">Last delivery</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>{channels.data.map((c) => (
            <tr>
              <td>{c.name}</td>
              <td><code>{c.kind}</code>{typeof c.config.url === 'string' && <> <span class="muted">{c.config.url}</span></>}</td>
              <td>{c.events.length ? c.events.join(', ') : <span class="muted">all</span>}</td>
              <td>{c.minSeverity}</td>
              <td>{c.failing
                ? <><Status value="failing" /> since <Time at={c.failingSince} /> ({c.consecutiveFailures}×) <span class="error-text">{c.lastError}</span></>
                : c.lastDelivery ? <><Status value={c.lastDelivery.delivered ? 'delivered' : 'failed'} /> <Time at={c.lastDelivery.at} /></> : <span class="muted">none yet</span>}</td>
              <td>{writable && <div class="actions">
                <button type="button" onClick={() => test(c.id)} disabled={act.busy} aria-label={`Send test to ${c.name}`}>Send test</button>
                {confirming === c.id
                  ? <span role="alert">Delete {c.name}? <button type="button" class="danger" onClick={() => remove(c.id)}>Yes, delete {c.name}</button> <button type="button" onClick={() => setConfirming(undefined)}>Cancel</button></span>
                  : <button type="button" class="danger" onClick={() => setConfirming(c.id)} aria-label={`Delete ${c.name}…`}>Delete…</button>}
              </div>}</td>
            </tr>
          ))}</tbody>
        </table>
      ))}
      {writable && <ChannelForm onCreated={(s) => { setSecret(s); setResults(undefined); channels.reload(); }} />}
    </>
  );
}

export const pages: PortalPage[] = [
  { path: '/alerts', title: 'Alerts', nav: 70, group: 'alerts', scope: 'alerts:read', component: Alerts },
  { path: '/alert-channels', title: 'Alert channels', nav: 71, group: 'alerts', scope: 'alerts:read', component: Channels },
];
