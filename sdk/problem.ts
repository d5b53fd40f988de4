// RFC 9457 problem details: the one error type every route, job and plugin throws.
import { STATUS_CODES } from 'node:http';

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

const defaultCodes: Record<number, string> = {
  400: 'bad-request', 401: 'unauthorized', 403: 'forbidden', 404: 'not-found', 405: 'method-not-allowed',
  409: 'conflict', 412: 'precondition-failed', 413: 'payload-too-large', 415: 'unsupported-media-type',
  422: 'unprocessable', 428: 'precondition-required', 429: 'too-many-requests', 500: 'internal',
  502: 'bad-gateway', 503: 'unavailable', 504: 'timeout',
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
    this.code = options.code ?? defaultCodes[status] ?? `http-${status}`;
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
