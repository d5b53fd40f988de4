// The containers plugin's portal pages: the list with state and health, start/stop/restart, a container's live logs, console (xterm.js) and resource use (uPlot).
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, bytes, can, Empty, enc, Link, Loading, ok, PageTitle, ProblemBox, Status, useAction, useLoad, useSession, type PortalPage, type Problem } from '../../../sdk/portal/kit.tsx';
import { ResourcePlots, useHistory } from '../../../sdk/portal/plot.tsx';
import { HistoryPlots } from '../../../sdk/portal/history.tsx';
export { overviewCards, resourcePaths } from './overview.tsx';

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
      {text ? <pre ref={pre} class="output" role="log" aria-live="off" data-testid="logs">{text}</pre>
        : <p class="muted" role="log" data-testid="logs">{following ? 'No log lines yet: new ones appear here as they are written.' : 'Paused.'}</p>}
    </section>
  );
}

/**
 * the terminal's colours: GitHub's dark palette, every one of the 16 at least 6:1 against the background (WCAG AA asks
 * 4.5:1), "black" a grey that stays readable
 */
const consoleTheme = {
  background: '#0d1117', foreground: '#e6edf3', cursor: '#e6edf3', cursorAccent: '#0d1117', selectionBackground: '#264f78', selectionForeground: '#e6edf3',
  black: '#8b949e', red: '#ff7b72', green: '#3fb950', yellow: '#d29922', blue: '#58a6ff', magenta: '#bc8cff', cyan: '#39c5cf', white: '#b1bac4',
  brightBlack: '#a0a8b3', brightRed: '#ffa198', brightGreen: '#56d364', brightYellow: '#e3b341', brightBlue: '#79c0ff', brightMagenta: '#d2a8ff', brightCyan: '#56d4dd', brightWhite: '#ffffff',
};
const consoleFont = 'ui-monospace, "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace';

/**
 * what the page's scripts style, styled under its Content-Security-Policy (which refuses inline styles, as markup that
 * found its way into the page could carry them): style elements made by script carry the page's nonce, and a span's
 * style attribute set by script goes through CSSOM, which the policy allows to scripts. xterm.js draws its theme and its
 * font's measures in style elements, and a cell's own colour (24-bit, or one it adjusts) as a style attribute.
 */
function scriptStylesUnderCsp(): void {
  const nonce = document.querySelector<HTMLMetaElement>('meta[name="dockwright-style-nonce"]')?.content;
  const create = Document.prototype.createElement as typeof Document.prototype.createElement & { underCsp?: true };
  if (!nonce || create.underCsp) return;
  const asCssom = function (this: HTMLElement, name: string, value: string) {
    if (name.toLowerCase() === 'style') this.style.cssText = value;
    else Element.prototype.setAttribute.call(this, name, value);
  };
  const underCsp = function (this: Document, tag: string, options?: ElementCreationOptions) {
    const element = create.call(this, tag, options);
    if (element instanceof HTMLStyleElement) element.nonce = nonce;
    else if (element instanceof HTMLSpanElement) element.setAttribute = asCssom;
    return element;
  } as typeof create;
  underCsp.underCsp = true;
  Document.prototype.createElement = underCsp;
}

/** a console into the container: a WebSocket to its shell in an xterm.js terminal, sized to its box (and resized with it) */
function Console({ id }: { id: string }) {
  const session = useSession();
  const [open, setOpen] = useState(false);
  const [status, setStatus] = useState('');
  const [size, setSize] = useState<{ cols: number; rows: number }>();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open || !session) return;
    let gone = false;
    let cleanup = () => {};
    setStatus('connecting…');
    Promise.all([import('@xterm/xterm'), import('@xterm/addon-fit')]).then(([{ Terminal }, { FitAddon }]) => {
      if (gone || !box.current) return;
      scriptStylesUnderCsp();
      const term = new Terminal({ cursorBlink: true, fontSize: 14, lineHeight: 1.15, scrollback: 5000, fontFamily: consoleFont, theme: consoleTheme });
      const fit = new FitAddon();
      term.loadAddon(fit);
      term.open(box.current);
      fit.fit();
      const ws = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/api/v1/containers/${enc(id)}/exec?csrf=${enc(session.csrf)}`);
      const resize = () => { setSize({ cols: term.cols, rows: term.rows }); if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ resize: { cols: term.cols, rows: term.rows } })); };
      ws.onopen = () => { setStatus('connected'); resize(); term.focus(); };
      ws.onmessage = (e) => term.write(String(e.data));
      ws.onclose = (e) => { setStatus(e.reason ? `closed (${e.reason})` : e.code === 1006 ? 'refused or cut off' : 'closed'); };
      term.onData((d) => { if (ws.readyState === WebSocket.OPEN) ws.send(d); });
      term.onResize(resize);
      const observer = new ResizeObserver(() => fit.fit());
      observer.observe(box.current);
      cleanup = () => { observer.disconnect(); ws.close(); term.dispose(); };
    }).catch((err) => setStatus(`could not start the terminal: ${String(err)}`));
    return () => { gone = true; cleanup(); };
  }, [open, id]);
  return (
    <section aria-labelledby="console-title">
      <div class="page-head"><h2 id="console-title">Console</h2>
        <button type="button" onClick={() => setOpen(!open)} aria-pressed={open}>{open ? 'Close console' : 'Open console'}</button>
        {status && <span class="muted" data-testid="console-status">{status}</span>}
      </div>
      {open && <div ref={box} class="terminal" data-testid="console" data-cols={size?.cols} data-rows={size?.rows} aria-label="Console: keys typed here go to the shell" />}
    </section>
  );
}

interface Snapshot { at: string; cpuPercent: number; cpus: number; memory: { used: number; limit: number; percent: number }; network: { rxBytes: number; txBytes: number } }

/** live resource use: the stats stream (follow=1), the last 15 minutes kept in memory on this page */
function LiveStats({ id }: { id: string }) {
  const [last, setLast] = useState<Snapshot>();
  const [samples, add, reset] = useHistory();
  const [problem, setProblem] = useState<Problem>();
  useEffect(() => {
    const abort = new AbortController();
    reset();
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
        for (const s of lines.filter(Boolean).map((l) => JSON.parse(l) as Snapshot)) {
          setLast(s);
          add({ at: Date.parse(s.at), values: [s.cpuPercent, s.memory.used, s.network.rxBytes, s.network.txBytes] });
        }
      }
    })().catch((err) => { if (!abort.signal.aborted) setProblem({ status: 0, title: 'stats', detail: String(err), type: '' }); });
    return () => abort.abort();
  }, [id]);
  return (
    <section aria-labelledby="stats-title">
      <h2 id="stats-title">Resource use</h2>
      <ProblemBox problem={problem} />
      {!last ? <p class="muted">Reading…</p> : (
        <>
          <dl class="stats" data-testid="stats">
            <dt>CPU</dt><dd><span data-testid="stats-cpu">{last.cpuPercent.toFixed(1)} %</span> <span class="muted">of {last.cpus * 100} %</span></dd>
            <dt>Memory</dt><dd><span data-testid="stats-memory">{bytes(last.memory.used)}</span> <span class="muted">of {bytes(last.memory.limit)}</span></dd>
            <dt>Network</dt><dd>received {bytes(last.network.rxBytes)}, sent {bytes(last.network.txBytes)}</dd>
          </dl>
          <ResourcePlots samples={samples} />
        </>
      )}
    </section>
  );
}

/** a container by its id, a prefix of it, or its name (the overview's attention items and people name containers) */
function Container({ params }: { params: Record<string, string> }) {
  const wanted = params.id;
  const list = useLoad(async () => (await ok(api.GET('/api/v1/containers', { params: { query: { limit: 1000 } } })))
    .find((c) => c.id === wanted || c.name === wanted || (wanted.length >= 4 && c.id.startsWith(wanted))) ?? null, [wanted], 3000);
  const act = useAction();
  const c = list.data;
  const running = c?.state === 'running' || c?.state === 'restarting';
  const run = (verb: 'start' | 'stop' | 'restart') => act.run(() => ok(api.POST(`/api/v1/containers/{id}/${verb}` as '/api/v1/containers/{id}/start', { params: { path: { id: c!.id } } }))).then(list.reload);
  if (list.data === null) {
    return <><PageTitle title="Container" /><Empty>No container <code>{wanted}</code> here: it may have been removed or replaced by a deploy. <Link href="/containers">All containers</Link>.</Empty></>;
  }
  return (
    <>
      <PageTitle title={c ? `Container ${c.name}` : 'Container'}>{c && <Status value={c.state} />}</PageTitle>
      <Loading what={list} />
      {c && <p><code>{c.image}</code> · {c.status} {c.project && <>· stack <Link href={`/stacks/${enc(c.project)}`}>{c.project}</Link></>}</p>}
      {c && can('containers:write') && (
        <div class="actions">
          {running ? (
            <>
              <button type="button" onClick={() => run('restart')}>Restart</button>
              <button type="button" class="danger" onClick={() => run('stop')}>Stop</button>
            </>
          ) : <button type="button" onClick={() => run('start')}>Start</button>}
        </div>
      )}
      <ProblemBox problem={act.problem} />
      {c?.state === 'running' && can('containers:stats') && <LiveStats id={c.id} />}
      {c && c.project && can('metrics:read') && <HistoryPlots scope={`container:${c.id}`} />}
      {c?.state === 'running' && can('containers:exec') && <Console id={c.id} />}
      {c && can('containers:logs') && <LiveLogs id={c.id} />}
    </>
  );
}

export const pages: PortalPage[] = [
  { path: '/containers', title: 'Containers', nav: 20, group: 'containers', scope: 'containers:read', component: Containers },
  { path: '/containers/:id', title: 'Container', scope: 'containers:read', component: Container },
];
