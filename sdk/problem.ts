// RFC 9457 problem details: the one error type every route, job and plugin throws.
import { STATUS_CODES } from 'node:http';
import { dirname } from 'node:path';

export interface ProblemOptions {
  /** stable problem code; becomes the `type` URI. Defaults from the status. */
  code?: string;
  title?: string;
  /** validation or rule errors */
  errors?: unknown[];
  headers?: Record<string, string>;
  /** further members of the problem body (jobId, currentRevision, …) */
  extra?: Record<string, unknown>;
}

/**
 * A problem code a plugin (or the kernel) answers with, as its definition's `problems` declares it: the reference
 * (docs/reference/problem-codes.md) lists each with its statuses. Declaring one changes no answer.
 */
export interface ProblemDef {
  /** the status or statuses it is answered with */
  status: number | readonly number[];
  /** what it means, in a few words: "the stack's revision has moved on" */
  title: string;
}

/** the code of a problem raised without one, by status */
export const defaultProblemCodes: Readonly<Record<number, string>> = {
  400: 'bad-request', 401: 'unauthorized', 403: 'forbidden', 404: 'not-found', 405: 'method-not-allowed',
  409: 'conflict', 412: 'precondition-failed', 413: 'payload-too-large', 415: 'unsupported-media-type',
  422: 'unprocessable', 428: 'precondition-required', 429: 'too-many-requests', 500: 'internal',
  502: 'bad-gateway', 503: 'unavailable', 504: 'timeout', 507: 'disk-full',
};

export const problemTypeBase = 'https://dockwright.dev/problems/';

/** the brand every Problem carries: a plugin with its own copy of the SDK throws problems the kernel still recognises */
const problemMark = Symbol.for('dockwright.problem');

export class Problem extends Error {
  /** recognised by its brand, not by class identity: `err instanceof Problem` holds for a Problem of any copy of the SDK */
  static [Symbol.hasInstance](value: unknown): boolean {
    // subclasses (OutboundRefused) keep the prototype check: only Problem itself answers by brand
    return this === Problem ? isProblem(value) : Function.prototype[Symbol.hasInstance].call(this, value);
  }

  readonly [problemMark] = true;
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly errors?: unknown[];
  readonly headers?: Record<string, string>;
  readonly extra?: Record<string, unknown>;

  constructor(status: number, detail: string, options: ProblemOptions = {}) {
    super(detail);
    this.name = 'Problem';
    this.status = status;
    this.code = options.code ?? defaultProblemCodes[status] ?? `http-${status}`;
    this.title = options.title ?? STATUS_CODES[status] ?? 'Error';
    this.detail = detail;
    this.errors = options.errors;
    this.headers = options.headers;
    this.extra = options.extra;
  }

  toJSON(instance?: string): Record<string, unknown> {
    return {
      type: problemTypeBase + this.code,
      title: this.title,
      status: this.status,
      detail: this.detail,
      ...(instance ? { instance } : {}),
      ...(this.errors ? { errors: this.errors } : {}),
      ...this.extra,
    };
  }
}

export function isProblem(value: unknown): value is Problem {
  return typeof value === 'object' && value !== null && (value as { [problemMark]?: unknown })[problemMark] === true;
}

export function problem(status: number, detail: string, options?: ProblemOptions): Problem {
  return new Problem(status, detail, options);
}

/**
 * The 507 a full disk is: an error of Node (ENOSPC, EDQUOT), in `err` or its causes, or PostgreSQL's disk_full (53100).
 * It names the folder of the file being written when the error knows it; null for any other error.
 */
export function diskFull(err: unknown): Problem | null {
  let at = err;
  for (let depth = 0; depth < 5 && at && typeof at === 'object'; depth++, at = (at as { cause?: unknown }).cause) {
    const { code, path } = at as { code?: unknown; path?: unknown };
    const where = typeof path === 'string' && path.startsWith('/') ? ` holding ${dirname(path)}` : '';
    const full = (detail: string) => problem(507, `the disk is full: ${detail}`, { code: 'disk-full', title: 'The disk is full' });
    if (code === 'ENOSPC') return full(`no space is left on the device${where} (ENOSPC)`);
    if (code === 'EDQUOT') return full(`the disk quota of the device${where} is used up (EDQUOT)`);
    if (code === '53100') return full('the database server has no space left to write (53100 disk_full)');
  }
  return null;
}

/** `err` with the file it was writing when it names none (Node's write errors do not): diskFull() then names its folder */
export function locate(err: unknown, path: string): unknown {
  if (err && typeof err === 'object' && typeof (err as { path?: unknown }).path !== 'string') (err as { path?: string }).path = path;
  return err;
}
