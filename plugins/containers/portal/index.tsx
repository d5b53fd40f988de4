// The containers plugin's portal pages: the list with state and health, start/stop/restart, and a container's live logs.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, can, Empty, enc, Link, Loading, ok, PageTitle, ProblemBox, Status, useAction, useLoad, type PortalPage, type Problem } from '../../../sdk/portal/kit.tsx';

function Containers() {
  const list = useLoad(() => ok(api.GET('/api/v1/containers', { params: { query: { limit: 500 } } })), [], 3000);
  return (
    <>
      <PageTitle title="Containers" />
      <Loading what={list} />
      {list.data && (list.data.length === 0 ? <Empty>No containers.</Empty> : (
        <table data-testid="containers">
          <thead><tr><th scope="col">Container</th><th scope="col">Stack</th><th scope="col">State</th><th scope="col">Image</th><th scope="col">Ports</th></tr></thead>
          <tbody>{list.data.map((c) => (
            <tr><td><Link href={`/containers/${enc(c.id)}`}>{c.name}</Link></td><td>{c.project ? <Link href={`/stacks/${enc(c.project)}`}>{c.project}</Link> : <span class="muted">—</span>}</td>
              <td><Status value={c.state} /> {c.health && <Status value={c.health} />} <span class="muted">{c.status}</span></td><td><code>{c.image}</code></td>
              <td>{c.ports.filter((p) => p.hostPort).map((p) => `${p.hostPort}→${p.containerPort}/${p.protocol}`).join(', ')}</td></tr>
          ))}</tbody>
        </table>
      ))}
    </>
  );
}

/** the log as it is written: one streamed request (follow=1) read chunk by chunk until the page is left or paused */
function LiveLogs({ id }: { id: string }) {
  const [text, setText] = useState('');
  const [following, setFollowing] = useState(true);
  const [problem, setProblem] = useState<Problem>();
  const pre = useRef<HTMLPreElement>(null);
  useEffect(() => {
    if (!following) return;
    const abort = new AbortController();
    setText('');
    (async () => {
      const { response, error } = await api.GET('/api/v1/containers/{id}/logs', { params: { path: { id }, query: { follow: true, tail: '500' } as never }, parseAs: 'stream', signal: abort.signal });
      if (!response.ok || !response.body) { setProblem({ ...(error as Problem), status: response.status }); return; }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        setText((t) => (t + value).slice(-200_000));
      }
    })().catch((err) => { if (!abort.signal.aborted) setProblem({ status: 0, title: 'logs', detail: String(err), type: '' }); });
    return () => abort.abort();
  }, [id, following]);
  useEffect(() => { if (pre.current) pre.current.scrollTop = pre.current.scrollHeight; }, [text]);
  return (
    <section aria-labelledby="logs-title">
      <div class="page-head"><h2 id="logs-title">Logs</h2><button type="button" onClick={() => setFollowing(!following)} aria-pressed={following}>{following ? 'Pause' : 'Follow'}</button></div>
      <ProblemBox problem={problem} />
      <pre ref={pre} class="output" role="log" aria-live="off" data-testid="logs">{text}</pre>
    </section>
  );
}

function Container({ params }: { params: Record<string, string> }) {
  const id = params.id;
  const list = useLoad(async () => (await ok(api.GET('/api/v1/containers', { params: { query: { limit: 1000 } } }))).find((c) => c.id === id || c.id.startsWith(id)), [id], 3000);
  const act = useAction();
  const c = list.data;
  const run = (verb: 'start' | 'stop' | 'restart') => act.run(() => ok(api.POST(`/api/v1/containers/{id}/${verb}` as '/api/v1/containers/{id}/start', { params: { path: { id } } }))).then(list.reload);
  return (
    <>
      <PageTitle title={c ? `Container ${c.name}` : 'Container'}>{c && <Status value={c.state} />}</PageTitle>
      <Loading what={list} />
      {c && <p><code>{c.image}</code> · {c.status} {c.project && <>· stack <Link href={`/stacks/${enc(c.project)}`}>{c.project}</Link></>}</p>}
      {can('containers:write') && (
        <div class="actions">
          <button type="button" onClick={() => run('start')}>Start</button>
          <button type="button" onClick={() => run('restart')}>Restart</button>
          <button type="button" class="danger" onClick={() => run('stop')}>Stop</button>
        </div>
      )}
      <ProblemBox problem={act.problem} />
      {can('containers:logs') && <LiveLogs id={id} />}
    </>
  );
}

export const pages: PortalPage[] = [
  { path: '/containers', title: 'Containers', nav: 20, scope: 'containers:read', component: Containers },
  { path: '/containers/:id', title: 'Container', scope: 'containers:read', component: Container },
];
