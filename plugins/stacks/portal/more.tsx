// More of a stack's controls: deleting it (its volumes kept or removed), the git push webhook with its deliveries, and starting a new stack from a template.
import { useState } from 'preact/hooks';
import { api, can, Empty, JobOutput, Loading, looksSecret, navigate, ok, ProblemBox, ShownOnce, Status, Time, useAction, useLoad, type paths } from '../../../sdk/portal/kit.tsx';

const path = (name: string) => ({ params: { path: { name } } });

/** delete asks first; the stack's named volumes stay unless the box is ticked (GET /volumes lists what was kept) */
export function DeleteStack({ name, revision }: { name: string; revision: number }) {
  const [confirming, setConfirming] = useState(false);
  const [volumes, setVolumes] = useState(false);
  const [job, setJob] = useState<string>();
  const act = useAction();
  const remove = async () => {
    const out = await act.run(() => ok(api.DELETE('/api/v1/stacks/{name}', { params: { path: { name }, header: { 'If-Match': `"${revision}"` }, query: volumes ? { volumes: '1' } : {} } } as never)));
    if (!out) return;
    const answer = out as { jobId: string; removed?: string };
    if (answer.removed) navigate('/stacks');
    else setJob(answer.jobId); // still removing after 30 s: follow the job
  };
  if (!can('stacks:write')) return null;
  if (!confirming) return <div class="actions"><button type="button" class="danger" onClick={() => setConfirming(true)}>Delete stack…</button></div>;
  return (
    <div role="alert" class="card">
      <p>Delete stack <strong>{name}</strong>: its containers are stopped and removed, with its revisions and variables.</p>
      <label class="check"><input type="checkbox" checked={volumes} onChange={(e) => setVolumes(e.currentTarget.checked)} /> also remove its named volumes and their data (otherwise they are kept)</label>
      <div class="actions">
        <button type="button" class="danger" onClick={remove} disabled={act.busy}>Yes, delete {name}</button>
        <button type="button" onClick={() => setConfirming(false)}>Cancel</button>
      </div>
      <ProblemBox problem={act.problem} />
      {job && <JobOutput id={job} onDone={() => navigate('/stacks')} />}
    </div>
  );
}

type Delivery = paths['/api/v1/stacks/{name}/webhooks/push/deliveries']['get']['responses'][200]['content']['application/json'][number];

/** the push webhook of a stack with a git source: a push to its branch deploys; the secret is shown once */
export function PushWebhook({ name, enabled, reload }: { name: string; enabled: boolean; reload(): void }) {
  const deliveries = useLoad(async () => (await ok(api.GET('/api/v1/stacks/{name}/webhooks/push/deliveries', { params: { path: { name }, query: { limit: 20 } } }))) as Delivery[], [name]);
  const [made, setMade] = useState<{ secret: string; url: string; contentType: string; events: string[] }>();
  const act = useAction();
  const rotate = async () => { const out = await act.run(() => ok(api.POST('/api/v1/stacks/{name}/webhooks/push', path(name)))); if (out) { setMade(out); reload(); } };
  const disable = async () => { if (await act.run(() => ok(api.DELETE('/api/v1/stacks/{name}/webhooks/push', path(name))))) { setMade(undefined); reload(); } };
  return (
    <section class="card" aria-labelledby="push-title">
      <h2 id="push-title">Push webhook</h2>
      <p>A push to the source's branch, sent by the git host, deploys this stack. It is <strong>{enabled ? 'enabled' : 'disabled'}</strong>.</p>
      {made && <ShownOnce label="Push webhook secret" secret={made.secret} extra={<p>In the git host's webhook settings: URL <code>{made.url}</code>, content type <code>{made.contentType}</code>, events {made.events.join(', ')}, this secret.</p>} />}
      {can('stacks:write') && <div class="actions"><button type="button" onClick={rotate} disabled={act.busy}>{enabled ? 'New secret' : 'Enable push webhook'}</button>{enabled && <button type="button" class="danger" onClick={disable} disabled={act.busy}>Disable</button>}</div>}
      <ProblemBox problem={act.problem} />
      <h3>Recent deliveries</h3>
      <Loading what={deliveries} />
      {deliveries.data && (deliveries.data.length === 0 ? <Empty>None received.</Empty> : (
        <table>
          <thead><tr><th scope="col">Received</th><th scope="col">From</th><th scope="col">Event</th><th scope="col">Outcome</th></tr></thead>
          <tbody>{deliveries.data.map((d) => (
            <tr><td><Time at={d.receivedAt} /></td><td>{d.provider} <span class="muted">{d.address}</span></td><td>{d.event}{d.ref && <> <code>{d.ref}</code></>}</td>
              <td><Status value={d.outcome} />{d.reason && <span class="muted"> {d.reason}</span>}</td></tr>
          ))}</tbody>
        </table>
      ))}
    </section>
  );
}

type Template = paths['/api/v1/stack-templates']['get']['responses'][200]['content']['application/json'][number];
interface Input { type?: string; title?: string; description?: string; default?: unknown; enum?: unknown[] }
const propertiesOf = (schema: unknown) => ((schema as { properties?: Record<string, Input> } | undefined)?.properties) ?? {};

/** what the fields hold, typed as the template's inputs ask (numbers, booleans); empty fields are left out */
export function settingsOf(schema: unknown, values: Record<string, string>): Record<string, unknown> {
  const props = propertiesOf(schema);
  return Object.fromEntries(Object.entries(values).filter(([, x]) => x !== '').map(([k, x]) => [k, props[k]?.type === 'integer' || props[k]?.type === 'number' ? Number(x) : props[k]?.type === 'boolean' ? x === 'true' : x]));
}

/** a template's inputs (a JSON Schema of an object) as form fields; secret-looking ones as passwords */
export function InputFields({ schema, values, set, readOnly = false }: { schema: unknown; values: Record<string, string>; set(k: string, v: string): void; readOnly?: boolean }) {
  return (
    <>
      {Object.entries(propertiesOf(schema)).map(([k, input]) => {
        const label = <>{input.title ?? k}{input.description && <span class="muted"> ({input.description})</span>}</>;
        if (input.enum || input.type === 'boolean') {
          const options = input.enum ?? [true, false];
          return <label>{label}<select value={values[k] ?? String(input.default ?? '')} disabled={readOnly} onChange={(e) => set(k, e.currentTarget.value)}>{options.map((o) => <option>{String(o)}</option>)}</select></label>;
        }
        return <label>{label}<input value={values[k] ?? ''} readOnly={readOnly} placeholder={input.default !== undefined ? String(input.default) : ''} inputMode={input.type === 'integer' || input.type === 'number' ? 'numeric' : undefined}
          type={(looksSecret(k) ? 'password' : 'text') as 'text'} onInput={(e) => set(k, e.currentTarget.value)} /></label>;
      })}
    </>
  );
}

/** a template picker with its inputs as fields: choosing one fills the compose text and answers the settings to send */
export function TemplatePicker({ onPick }: { onPick(t: { name: string; compose: string; settings: Record<string, unknown> } | null): void }) {
  const templates = useLoad(() => ok(api.GET('/api/v1/stack-templates')), []);
  const [picked, setPicked] = useState<Template>();
  const [values, setValues] = useState<Record<string, string>>({});
  if (!templates.data?.length) return null;
  const choose = (name: string) => {
    const t = templates.data!.find((x) => x.name === name);
    setPicked(t);
    setValues({});
    onPick(t ? { name: t.name, compose: t.compose, settings: {} } : null);
  };
  const set = (k: string, x: string) => { const next = { ...values, [k]: x }; setValues(next); onPick({ name: picked!.name, compose: picked!.compose, settings: settingsOf(picked!.inputs, next) }); };
  return (
    <fieldset>
      <legend>Start from</legend>
      <label>Template<select value={picked?.name ?? ''} onChange={(e) => choose(e.currentTarget.value)}>
        <option value="">a compose file of my own</option>
        {templates.data.map((t) => <option value={t.name}>{t.name}: {t.description}</option>)}
      </select></label>
      {picked && <InputFields schema={picked.inputs} values={values} set={set} />}
    </fieldset>
  );
}
