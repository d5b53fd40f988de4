// The containers plugin's portal pages: the list with state and health, start/stop/restart, a container's live logs, console and resource use.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, can, Empty, enc, Link, Loading, ok, PageTitle, ProblemBox, Status, useAction, useLoad, useSession, type PortalPage, type Problem } from '../../../sdk/portal/kit.tsx';

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

/** what a terminal prints that a plain text view cannot show: colour and cursor escapes, bells, carriage returns before a newline */
const escapes = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]|\x07|\r(?=\n)/g;

/** the keys a terminal sends for what is typed (the text view is focused); undefined: the browser keeps the key */
function keyBytes(e: KeyboardEvent): string | undefined {
  if (e.ctrlKey && !e.altKey && e.key.length === 1 && /[a-z@\[\\\]^_]/i.test(e.key)) return String.fromCharCode(e.key.toUpperCase().charCodeAt(0) & 0x1f);
  if (e.metaKey || (e.ctrlKey && !e.altKey)) return undefined;
  const named: Record<string, string> = {
    Enter: '\r', Backspace: '\x7f', Tab: '\t', Escape: '\x1b', ArrowUp: '\x1b[A', ArrowDown: '\x1b[B', ArrowRight: '\x1b[C', ArrowLeft: '\x1b[D',
    Home: '\x1b[H', End: '\x1b[F', Delete: '\x1b[3~',
  };
  if (named[e.key]) return named[e.key];
  return e.key.length === 1 ? e.key : undefined;
}

/** a console into the container: a WebSocket to its shell, shown as plain text (no xterm.js in this build); keys typed in the view go to the shell */
function Console({ id }: { id: string }) {
  const session = useSession();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [status, setStatus] = useState('');
  const view = useRef<HTMLPreElement>(null);
  const socket = useRef<WebSocket | null>(null);
  useEffect(() => {
    if (!open || !session) return;
    const url = `${location.origin.replace(/^http/, 'ws')}/api/v1/containers/${enc(id)}/exec?csrf=${enc(session.csrf)}`;
    const ws = socket.current = new WebSocket(url);
    setText('');
    setStatus('connecting…');
    ws.onopen = () => {
      setStatus('connected');
      const el = view.current;
      // the size of the view in characters of its monospace font
      const cols = el ? Math.max(20, Math.floor(el.clientWidth / 8.4)) : 80;
      ws.send(JSON.stringify({ resize: { cols, rows: 24 } }));
      el?.focus();
    };
    ws.onmessage = (e) => setText((t) => (t + String(e.data)).replace(escapes, '').slice(-100_000));
    ws.onclose = (e) => { setStatus(e.reason ? `closed (${e.reason})` : e.code === 1006 ? 'refused or cut off' : 'closed'); };
    return () => ws.close();
  }, [open, id]);
  useEffect(() => { if (view.current) view.current.scrollTop = view.current.scrollHeight; }, [text]);
  const onKeyDown = (e: KeyboardEvent) => {
    const bytes = keyBytes(e);
    if (bytes === undefined || socket.current?.readyState !== WebSocket.OPEN) return;
    e.preventDefault();
    socket.current.send(bytes);
  };
  return (
    <section aria-labelledby="console-title">
      <div class="page-head"><h2 id="console-title">Console</h2>
        <button type="button" onClick={() => setOpen(!open)} aria-pressed={open}>{open ? 'Close console' : 'Open console'}</button>
        {status && <span class="muted" data-testid="console-status">{status}</span>}
      </div>
      {open && (
        <pre ref={view} class="output" tabIndex={0} role="textbox" aria-multiline="true" aria-label="Console: type here, keys go to the shell"
          data-testid="console" onKeyDown={onKeyDown}>{text}</pre>
      )}
    </section>
  );
}

interface Snapshot { at: string; cpuPercent: number; cpus: number; memory: { used: number; limit: number; percent: number }; network: { rxBytes: number; txBytes: number } }

const bytes = (n: number) => (n >= 1 << 30 ? `${(n / (1 << 30)).toFixed(2)} GiB` : n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : `${(n / 1024).toFixed(0)} KiB`);

/** the last values as a line: a small SVG, scaled to its largest value */
function Spark({ values, label }: { values: number[]; label: string }) {
  const max = Math.max(1, ...values);
  const points = values.map((v, i) => `${(i / Math.max(1, values.length - 1)) * 200},${40 - (v / max) * 38}`).join(' ');
  return <svg viewBox="0 0 200 40" width="200" height="40" role="img" aria-label={label}><polyline fill="none" stroke="currentColor" stroke-width="1.5" points={points} /></svg>;
}

/** live resource use: the stats stream (follow=1), the last 15 minutes kept in memory on this page */
function LiveStats({ id }: { id: string }) {
  const [history, setHistory] = useState<Snapshot[]>([]);
  const [problem, setProblem] = useState<Problem>();
  useEffect(() => {
    const abort = new AbortController();
    setHistory([]);
    (async () => {
      const { response, error } = await api.GET('/api/v1/containers/{id}/stats', { params: { path: { id }, query: { follow: '1' } as never }, parseAs: 'stream', signal: abort.signal });
      if (!response.ok || !response.body) { setProblem({ ...(error as Problem), status: response.status }); return; }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let pending = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        pending += value;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        const parsed = lines.filter(Boolean).map((l) => JSON.parse(l) as Snapshot);
        if (parsed.length) setHistory((h) => [...h, ...parsed].slice(-900));
      }
    })().catch((err) => { if (!abort.signal.aborted) setProblem({ status: 0, title: 'stats', detail: String(err), type: '' }); });
    return () => abort.abort();
  }, [id]);
  const last = history.at(-1);
  return (
    <section aria-labelledby="stats-title">
      <h2 id="stats-title">Resource use</h2>
      <ProblemBox problem={problem} />
      {!last ? <p class="muted">Reading…</p> : (
        <dl class="stats" data-testid="stats">
          <dt>CPU</dt><dd><span data-testid="stats-cpu">{last.cpuPercent.toFixed(1)} %</span> <span class="muted">of {last.cpus * 100} %</span> <Spark values={history.map((h) => h.cpuPercent)} label="CPU over the last minutes" /></dd>
          <dt>Memory</dt><dd><span data-testid="stats-memory">{bytes(last.memory.used)}</span> <span class="muted">of {bytes(last.memory.limit)}</span> <Spark values={history.map((h) => h.memory.used)} label="memory over the last minutes" /></dd>
          <dt>Network</dt><dd>received {bytes(last.network.rxBytes)}, sent {bytes(last.network.txBytes)}</dd>
        </dl>
      )}
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
      {c?.state === 'running' && can('containers:stats') && <LiveStats id={id} />}
      {c?.state === 'running' && can('containers:exec') && <Console id={id} />}
      {can('containers:logs') && <LiveLogs id={id} />}
    </>
  );
}

export const pages: PortalPage[] = [
  { path: '/containers', title: 'Containers', nav: 20, scope: 'containers:read', component: Containers },
  { path: '/containers/:id', title: 'Container', scope: 'containers:read', component: Container },
];
