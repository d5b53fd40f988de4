// The Settings page (admins): the live settings grouped and labelled, those of the config file and environment read-only with their source, one save on the revision read, and a connection test against the outbound policy.
import { useEffect, useState } from 'preact/hooks';
import { api, can, count, duration, Loading, ok, PageTitle, ProblemBox, useAction, useLoad, type PortalPage } from '../../../sdk/portal/kit.tsx';

type Source = 'default' | 'file' | 'env' | 'portal';
interface About { label: string; group: string; secret: boolean; live: boolean; description?: string; schema: Schema }
interface Schema { type?: string | string[]; anyOf?: Schema[]; items?: Schema; properties?: Record<string, Schema>; minimum?: number; maximum?: number; default?: unknown }
interface View { revision: number; settings: Record<string, unknown>; sources: Record<string, Source>; restartNeeded: string[]; about: Record<string, About> }

const groupOrder = ['Outbound connections', 'Certificates', 'Sites', 'Sign-in', 'Jobs', 'Images'];
const sourceText: Record<Source, string> = { default: 'default', portal: 'set here', file: 'set by the config file', env: 'set by the environment' };
const locked = (s: Source) => s === 'file' || s === 'env';
const load = async () => (await ok(api.GET('/api/v1/settings' as never))) as unknown as View;

/** a length of time in milliseconds as people read it: 12 h, 90 min, 30 s */
const span = (ms: number) => (ms >= 3_600_000 && ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : duration(ms));

/** which input a schema asks for */
function kindOf(schema: Schema): 'boolean' | 'number' | 'list' | 'names' | 'object' | 'text' {
  const types = schema.anyOf?.map((s) => s.type) ?? [schema.type];
  if (types.includes('boolean') && types.includes('array')) return 'names';
  if (types.includes('array')) return 'list';
  if (types.length === 1 && types[0] === 'boolean') return 'boolean';
  if (types.includes('integer') || types.includes('number')) return 'number';
  if (types.includes('object') || schema.properties) return 'object';
  return 'text';
}

/** the value as the form edits it (lists one per line), and back */
function toDraft(value: unknown, schema: Schema): unknown {
  const kind = kindOf(schema);
  if (kind === 'list') return Array.isArray(value) ? value.join('\n') : '';
  if (kind === 'names') return value === true ? true : Array.isArray(value) ? value.join('\n') : '';
  if (kind === 'object') return {};
  if (kind === 'number') return value === null || value === undefined ? '' : String(value);
  return value ?? (kind === 'boolean' ? false : '');
}
function fromDraft(draft: unknown, schema: Schema): unknown {
  const kind = kindOf(schema);
  const lines = (t: unknown) => String(t).split('\n').map((l) => l.trim()).filter(Boolean);
  if (kind === 'list') return lines(draft);
  if (kind === 'names') return draft === true ? true : lines(draft).length ? lines(draft) : false;
  if (kind === 'number') return draft === '' ? null : Number(draft);
  if (kind === 'text') return draft === '' ? null : draft;
  return draft;
}

function Field({ path, about, source, value, draft, setDraft, error }: { path: string; about: About; source: Source; value: unknown; draft: unknown; setDraft: (v: unknown) => void; error?: string }) {
  const id = `setting-${path.replace(/[^a-z0-9]/gi, '-')}`;
  const disabled = locked(source) || !can('settings:write');
  const kind = kindOf(about.schema);
  const help = about.description && <span class="muted help">{about.description}</span>;
  let input;
  if (kind === 'boolean') {
    input = <label class="check"><input id={id} type="checkbox" checked={draft === true} disabled={disabled} onChange={(e) => setDraft(e.currentTarget.checked)} /> {about.label}</label>;
  } else if (kind === 'names') {
    input = (
      <>
        <label for={id}>{about.label}</label>
        <select id={id} disabled={disabled} value={draft === true ? 'all' : 'listed'} onChange={(e) => setDraft(e.currentTarget.value === 'all' ? true : '')}>
          <option value="all">Look up every host name</option>
          <option value="listed">Look up only the names listed</option>
        </select>
        {draft !== true && <textarea aria-label={`${about.label}: names, one per line`} rows={3} disabled={disabled} value={String(draft)} placeholder="git.example.com&#10;*.corp.example" onInput={(e) => setDraft(e.currentTarget.value)} />}
      </>
    );
  } else if (kind === 'object' && about.secret) {
    const fields = Object.keys(about.schema.properties ?? {});
    const d = draft as Record<string, string>;
    input = (
      <fieldset id={id} disabled={disabled}>
        <legend>{about.label} <span class="muted">({(value as { set?: boolean })?.set ? 'set' : 'not set'}; never shown)</span></legend>
        {fields.map((f) => <label>{f}<input type="password" autoComplete="off" value={d[f] ?? ''} placeholder={(value as { set?: boolean })?.set ? 'unchanged' : ''} onInput={(e) => setDraft({ ...d, [f]: e.currentTarget.value })} /></label>)}
      </fieldset>
    );
  } else if (kind === 'list' && about.secret) {
    // a secret list of objects (the identity providers, with their client secrets): pasted whole as JSON, never shown
    input = <label>{about.label} <span class="muted">({(value as { set?: boolean })?.set ? 'set' : 'not set'}; never shown: paste the whole list as JSON to replace it)</span>
      <textarea id={id} rows={4} disabled={disabled} value={String(draft)} placeholder={'[{ "name": "corp", "issuer": "https://…", "clientId": "…", "clientSecret": "…" }]'} onInput={(e) => setDraft(e.currentTarget.value)} /></label>;
  } else if (kind === 'list') {
    input = <label>{about.label}<textarea id={id} rows={3} disabled={disabled} value={String(draft)} placeholder="one per line" onInput={(e) => setDraft(e.currentTarget.value)} /></label>;
  } else {
    const set = (e: { currentTarget: HTMLInputElement }) => setDraft(e.currentTarget.value);
    input = kind === 'number'
      ? <label>{about.label}<input id={id} type="number" disabled={disabled} value={String(draft)} min={about.schema.minimum} max={about.schema.maximum} onInput={set} /></label>
      : <label>{about.label}<input id={id} type="text" disabled={disabled} value={String(draft)} onInput={set} /></label>;
  }
  return (
    <div class={`setting${error ? ' invalid' : ''}`} data-testid={id}>
      {input}
      <div class="setting-meta">
        <span class={`source source-${source}`}>{sourceText[source]}</span>
        {!about.live && <span class="muted">applies after a restart</span>}
        {kind === 'number' && path.endsWith('Ms') && draft !== '' && Number(draft) > 0 && <span class="muted">= {span(Number(draft))}</span>}
        <code class="muted">{path}</code>
      </div>
      {help}
      {error && <p class="error-text">{error}</p>}
    </div>
  );
}

/** host:port against the outbound policy as edited (before saving), then a TCP connection if it is allowed */
function ConnectionTest({ policy }: { policy: { allow: unknown; allowHostnames: unknown } }) {
  const [host, setHost] = useState('');
  const [port, setPort] = useState('443');
  const [result, setResult] = useState<{ allowed: boolean; connected: boolean; reason?: string; address?: string; ms?: number }>();
  const action = useAction();
  const test = async () => {
    setResult(undefined);
    const out = await action.run(() => ok(api.POST('/api/v1/settings/outbound/test' as never, { body: { host: host.trim(), port: Number(port), ...policy } } as never)));
    if (out) setResult(out as never);
  };
  return (
    <div class="connection-test" role="group" aria-labelledby="connection-test">
      <h3 id="connection-test">Test a connection</h3>
      <p class="muted">Checks the host against the policy above as you have edited it, and only if it is allowed tries to connect (3 s).</p>
      <div class="actions">
        <label class="inline">Host<input value={host} placeholder="ntfy.internal" onInput={(e) => setHost(e.currentTarget.value)} /></label>
        <label class="inline">Port<input type="number" min={1} max={65535} value={port} onInput={(e) => setPort(e.currentTarget.value)} /></label>
        <button type="button" onClick={test} disabled={action.busy || !host.trim()}>Test connection</button>
      </div>
      {result && (
        <p role="status" class={result.allowed && result.connected ? 'once' : 'problem'} data-testid="connection-result">
          {!result.allowed ? <>Refused by the policy: {result.reason}</>
            : result.connected ? <>Allowed, and connected to {result.address} in {result.ms} ms.</>
              : <>Allowed by the policy, but {result.reason}.</>}
        </p>
      )}
      <ProblemBox problem={action.problem} />
    </div>
  );
}

function Settings() {
  const view = useLoad(load, []);
  const [drafts, setDrafts] = useState<Record<string, unknown>>({});
  const [saved, setSaved] = useState<string>();
  const action = useAction();
  const v = view.data;
  useEffect(() => {
    if (v) setDrafts(Object.fromEntries(Object.entries(v.about).map(([p, a]) => [p, toDraft(v.settings[p], a.schema)])));
  }, [v]);
  if (!v) return <><PageTitle title="Settings" /><Loading what={view} /></>;
  const changes: Record<string, unknown> = {};
  for (const [path, about] of Object.entries(v.about)) {
    if (locked(v.sources[path]) || !(path in drafts)) continue;
    if (about.secret && kindOf(about.schema) === 'list') {
      const text = String(drafts[path] ?? '').trim();
      if (text) { try { changes[path] = JSON.parse(text); } catch { changes[path] = text; } }
      continue;
    }
    if (about.secret) {
      const d = drafts[path] as Record<string, string>;
      if (Object.values(d).some(Boolean)) changes[path] = d;
      continue;
    }
    // a change is what the form holds that it did not hold as read (an unset checkbox read as unchecked is no change)
    if (JSON.stringify(drafts[path]) !== JSON.stringify(toDraft(v.settings[path], about.schema))) changes[path] = fromDraft(drafts[path], about.schema);
  }
  const changed = Object.keys(changes).length;
  const errors = Object.fromEntries(((action.problem?.status === 422 ? action.problem.errors : []) as { path: string; message: string }[] ?? [])
    .map((e) => [Object.keys(v.about).find((p) => e.path === p || e.path.startsWith(`${p}/`) || e.path.startsWith(`${p}.`)) ?? e.path, e.message]));
  const save = async (e: Event) => {
    e.preventDefault();
    setSaved(undefined);
    const out = await action.run(() => ok(api.PATCH('/api/v1/settings' as never, { body: changes, params: { header: { 'If-Match': `"${v.revision}"` } } } as never)));
    if (out) { setSaved(`Saved ${changed} setting(s); applied now.`); view.reload(); }
    // a stale revision: someone saved meanwhile, so the page shows what is now (its problem stays above)
    else if ((await load().catch(() => v)).revision !== v.revision) view.reload();
  };
  const reset = async (path: string) => {
    const out = await action.run(() => ok(api.PATCH('/api/v1/settings' as never, { body: { [path]: null }, params: { header: { 'If-Match': `"${v.revision}"` } } } as never)));
    if (out) { setSaved(`${v.about[path].label}: back to the config file's value.`); view.reload(); }
  };
  const groups = [...new Set(Object.values(v.about).map((a) => a.group))].sort((a, b) => (groupOrder.indexOf(a) + 1 || 99) - (groupOrder.indexOf(b) + 1 || 99) || a.localeCompare(b));
  const write = can('settings:write');
  return (
    <>
      <PageTitle title="Settings" />
      <p class="muted">Changes apply at once, on every instance. The config file and the environment are the base and win: what they set is shown here read-only.</p>
      {v.restartNeeded.length > 0 && <p class="problem" role="status">Saved, applied at the next restart: {v.restartNeeded.map((p) => v.about[p]?.label ?? p).join(', ')}.</p>}
      <form onSubmit={save}>
        {groups.map((group) => (
          <section class="card" aria-labelledby={`group-${group}`}>
            <h2 id={`group-${group}`}>{group}</h2>
            {Object.entries(v.about).filter(([, a]) => a.group === group).map(([path, about]) => (
              <>
                <Field path={path} about={about} source={v.sources[path]} value={v.settings[path]} draft={drafts[path] ?? toDraft(v.settings[path], about.schema)}
                  setDraft={(d) => setDrafts({ ...drafts, [path]: d })} error={errors[path]} />
                {write && v.sources[path] === 'portal' && <button type="button" class="link" onClick={() => reset(path)}>Back to the default for “{about.label}”</button>}
              </>
            ))}
            {group === 'Outbound connections' && (
              <ConnectionTest policy={{ allow: fromDraft(drafts['outbound.allow'] ?? '', v.about['outbound.allow'].schema), allowHostnames: fromDraft(drafts['outbound.allowHostnames'] ?? true, v.about['outbound.allowHostnames'].schema) }} />
            )}
          </section>
        ))}
        {write && (
          <div class="actions save-bar">
            <button type="submit" class="primary" disabled={action.busy || changed === 0}>{changed === 0 ? 'Save changes' : `Save ${count(changed, 'change')}`}</button>
            <span class="muted">revision {v.revision}</span>
          </div>
        )}
      </form>
      {saved && <p role="status" class="once">{saved}</p>}
      <ProblemBox problem={action.problem} />
    </>
  );
}

export const settingsPages: PortalPage[] = [{ path: '/settings', title: 'Settings', nav: 99, group: 'settings', scope: 'settings:read', component: Settings }];
