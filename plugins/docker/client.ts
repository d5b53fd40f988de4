// The Engine API client: dockerode on the configured endpoint, a timeout on every call, and engine failures turned into clear 503 problems.
import Dockerode from 'dockerode';
import { problem, Problem } from '../../sdk/index.ts';

export interface ClientOptions {
  /** unix:///path, tcp://host:port, http(s)://host:port */
  endpoint: string;
  /** per call; a stream call is bounded until its answer starts */
  timeoutMs: number;
}

/** the endpoint from options, then DOCKER_HOST, then the default socket. */
export function endpointOf(opts: { socketPath?: string; host?: string }, env: Readonly<Record<string, string | undefined>>): string {
  if (opts.host) return opts.host;
  if (opts.socketPath) return `unix://${opts.socketPath}`;
  return env.DOCKER_HOST || 'unix:///var/run/docker.sock';
}

function connectionOf(endpoint: string): Dockerode.DockerOptions {
  // every field is named so that docker-modem's own DOCKER_* environment defaults never mix in
  const none = { socketPath: undefined, host: undefined, port: undefined, protocol: undefined, timeout: undefined, ca: undefined, cert: undefined, key: undefined };
  if (endpoint.startsWith('unix://')) return { ...none, socketPath: endpoint.slice('unix://'.length) || '/var/run/docker.sock' };
  if (endpoint.startsWith('/')) return { ...none, socketPath: endpoint };
  let url: URL;
  try {
    url = new URL(endpoint.includes('://') ? endpoint : `tcp://${endpoint}`);
  } catch {
    throw new Error(`the Docker endpoint "${endpoint}" is not a unix:// path or a tcp://host:port address`);
  }
  if (!['tcp:', 'http:', 'https:'].includes(url.protocol)) throw new Error(`the Docker endpoint "${endpoint}" uses ${url.protocol}, which is not supported (use unix:// or tcp://)`);
  const https = url.protocol === 'https:' || url.port === '2376';
  return { ...none, host: url.hostname, port: url.port || (https ? '2376' : '2375'), protocol: https ? 'https' : 'http' };
}

const connectionCodes = new Set(['ENOENT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EACCES', 'EPERM']);

/** a problem for an engine that cannot be reached, or null when err is an ordinary API error (404, 409…). */
export function engineProblem(err: unknown, endpoint: string, what?: string): Problem | null {
  if (err instanceof Problem) return err;
  const e = err as { code?: string; message?: string; statusCode?: number };
  if (typeof e?.statusCode === 'number') return null;
  const code = e?.code ?? '';
  const message = e?.message ?? String(err);
  if (!connectionCodes.has(code) && !/socket hang up|ECONNREFUSED|ENOENT/.test(message)) return null;
  const hint = code === 'EACCES' || code === 'EPERM'
    ? 'this service may not use the socket: run it as a user in the docker group, or point DOCKER_HOST at an engine it may use'
    : 'is dockerd running, and is DOCKER_HOST (or the docker plugin\'s socketPath/host option) right?';
  return problem(503, `the Docker engine at ${endpoint} does not answer${what ? ` (${what})` : ''}: ${hint} (${code || message})`, { code: 'docker-unavailable' });
}

type DialCallback = (err: unknown, data?: unknown) => void;
interface DialOptions { path: string; method: string; isStream?: boolean; abortSignal?: AbortSignal; options?: Record<string, unknown> }

/**
 * A dockerode client whose every call is bounded: ordinary calls by timeoutMs (plus a stop's own grace time),
 * stream calls until their answer starts; the stream itself is the caller's to bound.
 */
export function createClient(opts: ClientOptions): Dockerode {
  const docker = new Dockerode(connectionOf(opts.endpoint));
  const modem = docker.modem as { dial(o: DialOptions, cb: DialCallback): void };
  const dial = modem.dial.bind(modem);
  modem.dial = (o, callback) => {
    const grace = typeof o.options?.t === 'number' ? o.options.t * 1000 : 0;
    const limit = opts.timeoutMs + grace;
    const timer = new AbortController();
    const signal = o.abortSignal ? AbortSignal.any([o.abortSignal, timer.signal]) : timer.signal;
    const what = `${o.method} ${o.path.replace(/\?$/, '')}`;
    let timedOut = false;
    const t = setTimeout(() => { timedOut = true; timer.abort(); }, limit);
    dial({ ...o, abortSignal: signal }, (err, data) => {
      clearTimeout(t);
      if (err && timedOut) {
        return callback(problem(503, `the Docker engine at ${opts.endpoint} did not answer ${what} within ${Math.round(limit / 1000)} s: is it overloaded or hung?`, { code: 'docker-timeout' }));
      }
      if (err) return callback(engineProblem(err, opts.endpoint) ?? err);
      callback(null, data);
    });
  };
  return docker;
}

/** the engine's own words from a dockerode API error ("No such image: x"), without the HTTP decoration. */
export function reasonOf(err: unknown): string {
  if (err instanceof Problem) return err.detail;
  const e = err as { json?: { message?: string }; message?: string };
  if (e?.json && typeof e.json === 'object' && typeof e.json.message === 'string') return e.json.message;
  return (e?.message ?? String(err)).replace(/^\(HTTP code \d+\)\s*[^-]*-\s*/, '').trim();
}

export function statusOf(err: unknown): number | undefined {
  const code = (err as { statusCode?: unknown })?.statusCode;
  return typeof code === 'number' ? code : undefined;
}
