// The metrics plugin's portal page: alert rules (built-in and added: enable, disable, add, delete) and silences (add, end).
import { useState } from 'preact/hooks';
import { api, can, Empty, Loading, ok, PageTitle, ProblemBox, Time, useAction, useLoad, type paths, type PortalPage } from '../../../sdk/portal/kit.tsx';

type Rule = paths['/api/v1/alerts/rules']['get']['responses'][200]['content']['application/json'][number];
type RuleBody = paths['/api/v1/alerts/rules']['post']['requestBody']['content']['application/json'];

const specOf = (r: Rule): RuleBody => ({
  scope: r.scope, metric: r.metric, op: r.op, threshold: r.threshold, for: r.for, severity: r.severity,
  ...(r.recover !== undefined ? { recover: r.recover } : {}), ...(r.cooldown ? { cooldown: r.cooldown } : {}), ...(r.channels ? { channels: r.channels } : {}),
});

function RuleForm({ onDone }: { onDone(): void }) {
  const [body, setBody] = useState({ scope: 'host', metric: 'cpu-percent', op: '>' as '>' | '<', threshold: '90', for: '5m', recover: '', severity: 'warning' as RuleBody['severity'], cooldown: '' });
  const act = useAction();
  const set = (k: keyof typeof body) => (e: Event) => setBody({ ...body, [k]: (e.currentTarget as HTMLInputElement).value });
  const submit = async (e: Event) => {
    e.preventDefault();
    const rule: RuleBody = {
      scope: body.scope, metric: body.metric, op: body.op, threshold: Number(body.threshold), for: body.for, severity: body.severity,
      ...(body.recover ? { recover: Number(body.recover) } : {}), ...(body.cooldown ? { cooldown: body.cooldown } : {}),
    };
    if (await act.run(() => ok(api.POST('/api/v1/alerts/rules', { body: rule })))) onDone();
  };
  return (
    <form onSubmit={submit} aria-labelledby="new-rule">
      <h2 id="new-rule">Add a rule</h2>
      <div class="filters">
        <label class="inline">Scope<input value={body.scope} onInput={set('scope')} placeholder="host, stack:web, container:web/*" /></label>
        <label class="inline">Metric<input value={body.metric} onInput={set('metric')} /></label>
        <label class="inline">Condition<select value={body.op} onChange={set('op')}><option value=">">above</option><option value="<">below</option></select></label>
        <label class="inline">Threshold<input value={body.threshold} onInput={set('threshold')} inputMode="decimal" size={6} /></label>
        <label class="inline">For<input value={body.for} onInput={set('for')} size={5} /></label>
        <label class="inline">Resolves at<input value={body.recover} onInput={set('recover')} inputMode="decimal" size={6} placeholder="threshold" /></label>
        <label class="inline">Cooldown<input value={body.cooldown} onInput={set('cooldown')} size={5} placeholder="0s" /></label>
        <label class="inline">Severity<select value={body.severity} onChange={set('severity')}><option>info</option><option>warning</option><option>critical</option></select></label>
      </div>
      <button type="submit" disabled={act.busy}>Add rule</button>
      <ProblemBox problem={act.problem} />
    </form>
  );
}

function SilenceForm({ onDone }: { onDone(): void }) {
  const [scope, setScope] = useState('*');
  const [hours, setHours] = useState('2');
  const [reason, setReason] = useState('');
  const act = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const until = new Date(Date.now() + Number(hours) * 3_600_000).toISOString();
    if (await act.run(() => ok(api.POST('/api/v1/alerts/silences', { body: { scope, until, reason } })))) { setReason(''); onDone(); }
  };
  return (
    <form onSubmit={submit} aria-labelledby="new-silence">
      <h3 id="new-silence">Silence rules</h3>
      <div class="filters">
        <label class="inline">Scope<input value={scope} onInput={(e) => setScope(e.currentTarget.value)} placeholder="*, host, rule:cpu-high, stack:web" /></label>
        <label class="inline">For hours<input value={hours} onInput={(e) => setHours(e.currentTarget.value)} inputMode="decimal" size={4} /></label>
        <label class="inline">Reason<input value={reason} onInput={(e) => setReason(e.currentTarget.value)} /></label>
      </div>
      <button type="submit" disabled={act.busy}>Silence</button>
      <ProblemBox problem={act.problem} />
    </form>
  );
}

function Rules() {
  const rules = useLoad(() => ok(api.GET('/api/v1/alerts/rules')), [], 30_000);
  const silences = useLoad(() => ok(api.GET('/api/v1/alerts/silences')), [], 30_000);
  const act = useAction();
  const writable = can('alerts:write');
  const toggle = async (r: Rule) => { if (await act.run(() => ok(api.PUT('/api/v1/alerts/rules/{id}', { params: { path: { id: r.id } }, body: { ...specOf(r), enabled: !r.enabled } })))) rules.reload(); };
  const remove = async (r: Rule) => { if (await act.run(() => ok(api.DELETE('/api/v1/alerts/rules/{id}', { params: { path: { id: r.id } } })))) rules.reload(); };
  const end = async (id: string) => { if (await act.run(() => ok(api.DELETE('/api/v1/alerts/silences/{id}', { params: { path: { id } } })))) silences.reload(); };
  return (
    <>
      <PageTitle title="Alert rules" />
      <p class="muted">A rule opens an alert once its condition held for its duration, and resolves it when the value is back past its recovery threshold.</p>
      <ProblemBox problem={act.problem} />
      <Loading what={rules} />
      {rules.data && (
        <table data-testid="rules">
          <thead><tr><th scope="col">Rule</th><th scope="col">Scope</th><th scope="col">Condition</th><th scope="col">Severity</th><th scope="col">State</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>{rules.data.map((r) => (
            <tr>
              <td><code>{r.id}</code>{r.builtIn && <> <span class="muted">built in</span></>}{r.description && <div class="muted">{r.description}</div>}</td>
              <td><code>{r.scope}</code></td>
              <td><code>{r.metric} {r.op} {r.threshold}</code> for {r.for}{r.recover !== undefined && <>, resolves at {r.recover}</>}{r.cooldown && r.cooldown !== '0s' && <>, cooldown {r.cooldown}</>}</td>
              <td>{r.severity}</td>
              <td>{r.enabled ? 'enabled' : <span class="muted">disabled</span>}</td>
              <td>{writable && <div class="actions">
                <button type="button" onClick={() => toggle(r)} disabled={act.busy} aria-label={`${r.enabled ? 'Disable' : 'Enable'} rule ${r.id}`}>{r.enabled ? 'Disable' : 'Enable'}</button>
                {!r.builtIn && <button type="button" class="danger" onClick={() => remove(r)} disabled={act.busy} aria-label={`Delete rule ${r.id}`}>Delete</button>}
              </div>}</td>
            </tr>
          ))}</tbody>
        </table>
      )}
      {writable && <RuleForm onDone={() => rules.reload()} />}
      <h2>Silences</h2>
      <Loading what={silences} />
      {silences.data && (silences.data.length === 0 ? <Empty>No silence is running.</Empty> : (
        <table data-testid="silences">
          <thead><tr><th scope="col">Scope</th><th scope="col">Until</th><th scope="col">Reason</th><th scope="col">By</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>{silences.data.map((s) => (
            <tr>
              <td><code>{s.scope}</code></td><td><Time at={s.until} /></td><td>{s.reason}</td><td>{s.createdBy.name ?? s.createdBy.kind}</td>
              <td>{writable && <button type="button" onClick={() => end(s.id)} disabled={act.busy} aria-label={`End silence of ${s.scope}`}>End now</button>}</td>
            </tr>
          ))}</tbody>
        </table>
      ))}
      {writable && <SilenceForm onDone={() => silences.reload()} />}
    </>
  );
}

export const pages: PortalPage[] = [
  { path: '/alert-rules', title: 'Alert rules', nav: 72, group: 'alerts', scope: 'alerts:read', component: Rules },
];
