// The HTTP client of dw: typed by the OpenAPI document's generated types, every refusal turned into a CliError with what to do next.
import type { paths } from '../../sdk/portal/api.d.ts';
import { CliError, exitCodes } from './errors.ts';
import { request, type Answer as Reply } from './transport.ts';

export const version = '0.1.0';

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type OpOf<P extends keyof paths, M extends Method> = paths[P] extends { [K in M]: infer O } ? O : never;
type BodyOf<R, S extends number> = R extends { [K in S]: { content: { 'application/json': infer B } } } ? B : never;
type SuccessOf<O> = O extends { responses: infer R } ? BodyOf<R, 200> | BodyOf<R, 201> | BodyOf<R, 202> : unknown;
/** the success answer of an operation, as the OpenAPI document describes it */
export type Answer<P extends keyof paths, M extends Method> = SuccessOf<OpOf<P, M>>;
export type MethodsOf<P extends keyof paths> = { [M in Method]: OpOf<P, M> extends never ? never : M }[Method];
export type Job = Answer<'/api/v1/jobs/{id}', 'get'>;

export interface RequestOptions {
  params?: Record<string, string | number>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  raw?: Uint8Array;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface Problem { status: number; title?: string; detail?: string; code?: string; errors?: { rule?: string; path?: string; message?: string }[]; currentRevision?: number; jobId?: string }

/** what to do after a refusal, by status */
function hintFor(status: number, problem: Problem, retryAfter: string | null): string | undefined {
  switch (status) {
    case 401: return 'check DOCKWRIGHT_TOKEN, or sign in again with `dw login`';
    case 403: return 'the token lacks the scope named above: use a token that has it (`dw login` with another token)';
    case 404: return 'check the name (`dw stacks` lists the stacks this token may see)';
    case 409: return 'the resource is not in a state that allows this: look at it (`dw stack get <name>`) and retry';
    case 412: return `it changed since it was read${problem.currentRevision !== undefined ? ` (now revision ${problem.currentRevision})` : ''}: read it again, check the change and retry`;
    case 413: return 'the upload is over the server\'s size limit: make it smaller';
    case 422: return 'fix what is listed above and retry';
    case 429: return `too many requests: retry${retryAfter ? ` after ${retryAfter} s` : ' later'}`;
    default: return status >= 500 ? 'the server failed: look at its logs, then retry' : undefined;
  }
}

export class RequestRefused extends CliError {
  constructor(readonly status: number, readonly problem: Problem, retryAfter: string | null) {
    const lines = [problem.detail ?? problem.title ?? `HTTP ${status}`];
    for (const e of problem.errors ?? []) lines.push(`  ${[e.rule, e.path].filter(Boolean).join(' at ')}${e.rule || e.path ? ': ' : ''}${e.message ?? ''}`);
    super(`${lines.join('\n')}`, exitCodes.refused, hintFor(status, problem, retryAfter), problem);
  }
}

export class Client {
  readonly base: string;
  constructor(url: string, private readonly token: string | undefined, private readonly extraHeaders: Record<string, string> = {}) {
    this.base = url.replace(/\/+$/, '');
  }

  /** a call of an operation of the document: its success answer, typed; a refusal throws RequestRefused */
  async json<P extends keyof paths, M extends MethodsOf<P>>(method: M, path: P, opts: RequestOptions = {}): Promise<{ body: Answer<P, M>; headers: Reply['headers']; status: number }> {
    const res = await this.send(method, path as string, opts);
    const text = await res.text();
    return { body: (text ? JSON.parse(text) : null) as Answer<P, M>, headers: res.headers, status: res.status };
  }

  /** any path (one another plugin may add later): the parsed JSON answer */
  async any<T = any>(method: Method, path: string, opts: RequestOptions = {}): Promise<{ body: T; headers: Reply['headers']; status: number }> {
    const res = await this.send(method, path, opts);
    const text = await res.text();
    return { body: (text ? JSON.parse(text) : null) as T, headers: res.headers, status: res.status };
  }

  /** the answer itself, once it is known to be a success (for streamed text) */
  async send(method: Method, path: string, opts: RequestOptions = {}): Promise<Reply> {
    const url = this.url(path, opts);
    const headers: Record<string, string> = { 'user-agent': `dockwright-cli/${version}`, accept: 'application/json, text/plain, application/problem+json', ...this.extraHeaders, ...opts.headers };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let body: string | Uint8Array | undefined = opts.raw;
    if (opts.body !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(opts.body); }
    let res: Reply;
    for (let attempt = 1; ; attempt++) {
      try {
        res = await request(url, { method: method.toUpperCase(), headers, body, signal: opts.signal });
      } catch (err) {
        if ((err as Error).name === 'AbortError' || (err as Error).name === 'TimeoutError') throw err;
        const code = (err as { code?: string }).code;
        throw new CliError(`cannot reach ${this.base}: ${code ?? (err as Error).message}`, exitCodes.refused, 'check DOCKWRIGHT_URL (or `dw login <url>`) and that the server runs');
      }
      // over the token's request budget: a pipeline waits as told (up to a minute, three times) rather than failing
      const retryAfter = Number(res.headers.get('retry-after'));
      if (res.status !== 429 || attempt > 3 || !(retryAfter >= 0 && retryAfter <= 60)) break;
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, retryAfter * 1000));
    }
    if (res.ok) return res;
    const text = await res.text();
    let problem: Problem = { status: res.status };
    try { problem = { ...problem, ...JSON.parse(text) }; } catch { problem.detail = text.slice(0, 500) || res.statusText; }
    throw new RequestRefused(res.status, problem, res.headers.get('retry-after'));
  }

  private url(path: string, { params = {}, query = {} }: RequestOptions): string {
    const filled = path.replace(/\{(\w+)\}/g, (_, key: string) => {
      if (params[key] === undefined) throw new Error(`missing path parameter ${key}`);
      return encodeURIComponent(String(params[key]));
    });
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) search.set(k, String(v));
    const qs = search.toString();
    return `${this.base}${filled}${qs ? `?${qs}` : ''}`;
  }
}
