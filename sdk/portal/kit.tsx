// The portal SDK for page authors: the typed /api/v1 client (session cookie + CSRF header), the signed-in user, routing, live data and shared components.
import type { AnchorHTMLAttributes, ComponentChildren, VNode } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import createClient from 'openapi-fetch';
import type { components, paths } from './api.d.ts';
export { looksSecret } from '../secret-names.ts';

export type { paths };
export type Problem = components['schemas']['Problem'] & { status: number };

/** a page a plugin contributes: `plugins/<name>/portal/index.tsx` exports `pages: PortalPage[]` and the build picks it up */
export interface PortalPage {
  /** the browser path, with :params (`/stacks/:name`) */
  path: string;
  title: string;
  /** shown in the main navigation, ordered by this number */
  nav?: number;
  /** pages of one group share one entry of the main navigation (the first the user may see) and a row of links above the page */
  group?: string;
  /** the page is offered only when the user holds this scope (a switched-off plugin defines none) */
  scope?: string;
  component: (props: { params: Record<string, string> }) => VNode | null;
}

/**
 * a plugin's card on the overview: it reads the plugin's own part of `GET /overview`'s summary as sentences.
 * `plugins/<name>/portal/index.tsx` may export `overviewCards: OverviewCard[]` beside its pages.
 */
export interface OverviewCard {
  /** the contributor whose summary the card reads (`summary[owner]`) */
  owner: string;
  title: string;
  /** the page the card's title opens */
  href?: string;
  /** cards are laid out by this number */
  order: number;
  component: (props: { summary: any }) => VNode | null;
}

/**
 * the pages that show a resource named in an attention item, by its prefix: `{ stack: (name) => `/stacks/${name}` }`.
 * `plugins/<name>/portal/index.tsx` may export `resourcePaths` beside its pages.
 */
export type ResourcePaths = Record<string, (key: string) => string>;

// ------------------------------------------------------------------ session

export interface SessionInfo { user: { name: string; role: string }; csrf: string; expiresAt: string; scopes: string[] }
const sessionKey = 'dockwright.session';
const listeners = new Set<() => void>();
let current: SessionInfo | null = (() => {
  try { return JSON.parse(localStorage.getItem(sessionKey) ?? 'null'); } catch { return null; }
})();

export function setSession(next: SessionInfo | null): void {
  current = next;
  if (next) localStorage.setItem(sessionKey, JSON.stringify(next));
  else localStorage.removeItem(sessionKey);
  listeners.forEach((l) => l());
}

function useChanges(subscribe: Set<() => void>): void {
  const [, force] = useState(0);
  useEffect(() => {
    const l = () => force((n) => n + 1);
    subscribe.add(l);
    return () => { subscribe.delete(l); };
  }, [subscribe]);
}

export function useSession(): SessionInfo | null {
  useChanges(listeners);
  return current;
}

/** whether the signed-in user holds the scope: write controls are shown only then (the API refuses the rest anyway) */
export function can(scope: string): boolean {
  return Boolean(current?.scopes.includes(scope));
}

// ------------------------------------------------------------------ API client

export const api = createClient<paths>({ baseUrl: location.origin });
api.use({
  onRequest({ request }) {
    if (current) request.headers.set('X-Dockwright-CSRF', current.csrf);
    return request;
  },
  onResponse({ response, request }) {
    // an expired or signed-out session: back to the sign-in page (the sign-in request itself answers 401 for a wrong password)
    if (response.status === 401 && current && !request.url.endsWith('/api/v1/session')) setSession(null);
    return response;
  },
});

/** the data of an openapi-fetch answer, or its problem thrown */
export async function ok<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await pending;
  if (response.ok) return data as T;
  const p = (error && typeof error === 'object' ? error : { title: response.statusText, detail: String(error ?? response.statusText) }) as Problem;
  throw Object.assign({}, p, { status: response.status });
}

export function isProblem(err: unknown): err is Problem {
  return typeof err === 'object' && err !== null && 'status' in err && 'detail' in err;
}

// ------------------------------------------------------------------ routing

const routeListeners = new Set<() => void>();
addEventListener('popstate', () => routeListeners.forEach((l) => l()));

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  routeListeners.forEach((l) => l());
}

export function usePath(): string {
  useChanges(routeListeners);
  return location.pathname;
}

export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.replace(/\/+$/, '').split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(got[i]);
    else if (want[i] !== got[i]) return null;
  }
  return params;
}

export function Link(props: AnchorHTMLAttributes & { href: string }) {
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(props.href);
  };
  return <a {...props} onClick={onClick} />;
}

export const enc = encodeURIComponent;

// ------------------------------------------------------------------ words

/** a size as people read it: 512 B, 3.4 KiB, 12.0 MiB, 1.50 GiB */
export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  if (n < 1024) return `${n} B`;
  if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1 << 30) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  return `${(n / (1 << 30)).toFixed(2)} GiB`;
}

/** a duration as people read it: 850 ms, 12 s, 3 min 5 s */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** a value as words, never as JSON: nested objects as `key: value` pairs, lists joined, nothing as "none" */
export function words(v: unknown): string {
  if (v === null || v === undefined) return 'none';
  if (Array.isArray(v)) return v.length ? v.map(words).join(', ') : 'none';
  if (typeof v === 'object') return Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}: ${words(x)}`).join(', ');
  return String(v);
}

/** a count with its noun: 1 stack, 3 stacks */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** an image or digest id as people compare them: its first 12 hex digits, without `sha256:` */
export function shortId(id: string): string {
  return id.replace(/^sha256:/, '').slice(0, 12);
}

/** names in the order people expect: ac2 before ac10 */
export const naturally = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' }).compare;

// ------------------------------------------------------------------ data

export interface Loaded<T> { data?: T; error?: Problem; loading: boolean; reload(): void }

/** loads on mount and when deps change; with everyMs, again at that interval while the page is visible (live status) */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], everyMs?: number): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Problem; loading: boolean }>({ loading: true });
  const generation = useRef(0);
  const run = useCallback(() => {
    const mine = ++generation.current;
    load().then(
      (data) => { if (mine === generation.current) setState({ data, loading: false }); },
      (err) => { if (mine === generation.current) setState((s) => ({ data: s.data, error: isProblem(err) ? err : { status: 0, title: 'error', detail: String(err), type: '' }, loading: false })); },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(() => {
    run();
    if (!everyMs) return () => { generation.current++; };
    const timer = setInterval(() => { if (!document.hidden) run(); }, everyMs);
    return () => { clearInterval(timer); generation.current++; };
  }, [run, everyMs]);
  return { ...state, reload: run };
}

/** runs a write and keeps its problem for display; answers the data or undefined */
export function useAction(): { busy: boolean; problem?: Problem; run<T>(fn: () => Promise<T>): Promise<T | undefined>; clear(): void } {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem>();
  const run = async <T,>(fn: () => Promise<T>) => {
    setBusy(true);
    setProblem(undefined);
    try {
      return await fn();
    } catch (err) {
      setProblem(isProblem(err) ? err : { status: 0, title: 'error', detail: String(err), type: '' });
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, problem, run, clear: () => setProblem(undefined) };
}

// ------------------------------------------------------------------ components

/** the page heading: sets the title and takes the focus after navigation, so screen readers announce the new page */
export function PageTitle({ title, children }: { title: string; children?: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Dockwright`;
    ref.current?.focus();
  }, [title]);
  return <div class="page-head"><h1 tabIndex={-1} ref={ref}>{title}</h1>{children}</div>;
}

export function ProblemBox({ problem }: { problem?: Problem }) {
  if (!problem) return null;
  const errors = (problem.errors ?? []) as { path?: string; message?: string; rule?: string }[];
  return (
    <div class="problem" role="alert">
      <strong>{problem.status ? `${problem.status} ${problem.title}` : problem.title}</strong>
      <p>{problem.detail}</p>
      {errors.length > 0 && <ul>{errors.map((e) => <li>{e.rule ? <code>{e.rule}</code> : null} {e.path ? <code>{e.path}</code> : null} {e.message}</li>)}</ul>}
    </div>
  );
}

export function Loading({ what }: { what: Loaded<unknown> }) {
  if (what.error) return <ProblemBox problem={what.error} />;
  if (what.loading && what.data === undefined) return <p class="muted" role="status">Loading…</p>;
  return null;
}

export function Status({ value }: { value: string | null | undefined }) {
  const v = value ?? 'unknown';
  return <span class={`status status-${v.replace(/[^a-z]/g, '')}`}>{v}</span>;
}

export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="muted">never</span>;
  const d = new Date(at);
  return <time dateTime={d.toISOString()} title={d.toISOString()}>{d.toLocaleString()}</time>;
}

/** a secret shown this once (tokens, webhook tokens), with a copy button */
export function ShownOnce({ label, secret, extra }: { label: string; secret: string; extra?: ComponentChildren }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="once" role="status">
      <p><strong>{label}</strong> — shown this once: copy it now, no page or answer shows it again.</p>
      <code class="secret" data-testid="secret">{secret}</code>
      <button type="button" onClick={() => navigator.clipboard?.writeText(secret).then(() => setCopied(true))}>{copied ? 'Copied' : 'Copy'}</button>
      {extra}
    </div>
  );
}

type Job = paths['/api/v1/jobs/{id}']['get']['responses'][200]['content']['application/json'];

/** a job's output as it grows, polled until the job is done; onUpdate hears every state read */
export function JobOutput({ id, onDone, onUpdate, everyMs = 1000 }: { id: string; onDone?: (job: Job) => void; onUpdate?: (job: Job) => void; everyMs?: number }) {
  const [job, setJob] = useState<Job>();
  const [problem, setProblem] = useState<Problem>();
  const pre = useRef<HTMLPreElement>(null);
  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout>;
    const tick = async () => {
      try {
        const next = await ok(api.GET('/api/v1/jobs/{id}', { params: { path: { id } } }));
        if (stop) return;
        setJob(next);
        onUpdate?.(next);
        if (next.done) { onDone?.(next); return; }
      } catch (err) {
        if (isProblem(err)) setProblem(err);
      }
      if (!stop) timer = setTimeout(tick, everyMs);
    };
    tick();
    return () => { stop = true; clearTimeout(timer); };
  }, [id]);
  useEffect(() => { if (pre.current) pre.current.scrollTop = pre.current.scrollHeight; }, [job?.output]);
  return (
    <section class="job" aria-label={`job ${id}`}>
      <p>Job <Link href={`/jobs/${id}`}><code>{id.slice(0, 8)}</code></Link> {job ? <Status value={job.status} /> : <span class="muted">starting…</span>} {job?.error && <span class="error-text">{job.error}</span>}</p>
      {job?.output ? <pre ref={pre} class="output" role="log" aria-live="polite" data-testid="job-output">{job.output}</pre>
        : <p class="muted" role="log" data-testid="job-output">{job?.done ? 'The job wrote no output.' : 'No output yet.'}</p>}
      <ProblemBox problem={problem} />
    </section>
  );
}

export function Tabs({ tabs, current, base }: { tabs: { id: string; label: string }[]; current: string; base: string }) {
  return (
    <nav class="tabs" aria-label="Sections">
      {tabs.map((t) => <Link href={t.id ? `${base}/${t.id}` : base} aria-current={t.id === current ? 'page' : undefined}>{t.label}</Link>)}
    </nav>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty muted">{children}</p>;
}
