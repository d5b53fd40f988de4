// One template's page: what it is, a form built from its typed variables (generated secrets need no input), and after deploying the job and the template's instructions.
import { useState } from 'preact/hooks';
import { api, can, enc, JobOutput, Link, Loading, ok, PageTitle, ProblemBox, useAction, useLoad, type paths } from '../../../sdk/portal/kit.tsx';

type Template = paths['/api/v1/templates/{source}/{id}']['get']['responses'][200]['content']['application/json'];
type Variable = Template['variables'][number];
type Deployed = { jobId: string; stack: string; instructions: string | null };

function Field({ v, value, set }: { v: Variable; value: string; set(x: string): void }) {
  const help = [v.description, v.generate ? `generated (${v.generate}) when left empty; never shown again` : '', v.default !== undefined ? `default ${v.default}` : ''].filter(Boolean).join(' · ');
  const common = { name: v.name, value, required: v.required, 'aria-describedby': `help-${v.name}`, onInput: (e: Event) => set((e.currentTarget as HTMLInputElement).value) };
  const input = v.type === 'enum'
    ? <select {...common} onChange={(e) => set(e.currentTarget.value)}>{!v.required && <option value="">default ({v.default})</option>}{(v.values ?? []).map((x) => <option value={x}>{x}</option>)}</select>
    : v.type === 'port' ? <input {...common} type="number" min={v.range?.[0] ?? 1} max={v.range?.[1] ?? 65535} placeholder={v.default} />
    : v.type === 'secret' ? <input {...common} type="password" autoComplete="new-password" pattern={v.pattern} placeholder={v.generate ? 'generated' : v.default} />
    : v.type === 'email' ? <input {...common} type="email" autoComplete="off" placeholder={v.default} />
    : <input {...common} type="text" autoComplete="off" pattern={v.pattern} placeholder={v.type === 'hostname' ? 'app.example.com' : v.default} />;
  return (
    <label>{v.name} <span class="muted">{v.type}{v.required ? ', required' : ''}</span>{input}<small id={`help-${v.name}`} class="muted">{help}</small></label>
  );
}

export function TemplatePage({ params }: { params: Record<string, string> }) {
  const t = useLoad(() => ok(api.GET('/api/v1/templates/{source}/{id}', { params: { path: { source: params.source, id: params.id } } })), [params.source, params.id]);
  const [stack, setStack] = useState(params.id.replace(/[^a-z0-9-]/g, '-'));
  const [values, setValues] = useState<Record<string, string>>({});
  const [done, setDone] = useState<Deployed | null>(null);
  const act = useAction();
  const deploy = async (e: Event) => {
    e.preventDefault();
    const variables = Object.fromEntries(Object.entries(values).filter(([, x]) => x !== ''));
    const answer = await act.run(() => ok(api.POST('/api/v1/templates/{source}/{id}/deploy', { params: { path: { source: params.source, id: params.id } }, body: { stack, variables } })));
    if (answer) setDone({ jobId: answer.jobId, stack: answer.stack, instructions: answer.instructions });
  };
  const d = t.data;
  return (
    <>
      <PageTitle title={d ? `${d.name} ${d.version}` : 'Template'}><Link href="/templates">All templates</Link></PageTitle>
      <Loading what={t} />
      {d && (
        <>
          <p>{d.description}</p>
          <p class="muted">from {d.source}{d.categories.length ? ` · ${d.categories.join(', ')}` : ''}{Object.entries(d.links).map(([k, u]) => <> · <a href={u} rel="noopener noreferrer" target="_blank">{k}</a></>)}</p>
          {done ? (
            <section class="card" data-testid="deployed">
              <h2>Deploying <Link href={`/stacks/${enc(done.stack)}`}>{done.stack}</Link></h2>
              {done.instructions && <p class="notice" data-testid="instructions">{done.instructions}</p>}
              <JobOutput id={done.jobId} />
            </section>
          ) : can('stacks:write') && can('stacks:deploy') ? (
            <form class="card" onSubmit={deploy} data-testid="deploy-form">
              <h2>Deploy</h2>
              <label>Stack name<input required value={stack} pattern="[a-z0-9][a-z0-9\-]{0,62}" onInput={(e) => setStack(e.currentTarget.value)} /></label>
              {d.variables.map((v) => <Field v={v} value={values[v.name] ?? ''} set={(x) => setValues({ ...values, [v.name]: x })} />)}
              <button type="submit" class="primary" disabled={act.busy}>Deploy {d.name}</button>
            </form>
          ) : <p class="muted">Deploying takes stacks:write and stacks:deploy.</p>}
          <ProblemBox problem={act.problem} />
          <details><summary>Compose file</summary><pre class="output">{d.compose}</pre></details>
        </>
      )}
    </>
  );
}
