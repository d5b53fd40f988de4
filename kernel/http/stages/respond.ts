// Stage respond: the handler's answer written (a reply's status and headers, a stream, a page's Link, the ETag), a write's activity recorded first.
import { pipeline } from 'node:stream/promises';
import type { Logger, Page } from '../../../sdk/index.ts';
import { isReply } from '../../../sdk/index.ts';
import { headOf, type AnswerWriter, type Head } from '../answer.ts';
import { gone } from '../call.ts';
import type { ApiRequest, Exchange } from '../exchange.ts';
import type { RecordActivity } from './activity.ts';
import type { Stage } from './stage.ts';

export interface RespondOptions { log: Logger; recordActivity: RecordActivity; answers: AnswerWriter }

/** what every answer of a route carries, success or problem: its request id and the rate limit it was counted against */
export function answerHead(x: Exchange): Head {
  const head: Head = ['X-Request-Id', x.requestId];
  x.rate?.addTo(head);
  return head;
}

/** the route's latency and status counted; the status of an answer is set as soon as its head is written */
export function observe(x: Exchange, status = x.res.statusCode): void {
  x.meter?.observe(status, (performance.now() - x.started) / 1000);
}

function pageLink(req: ApiRequest, next: string, limit: number): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(req.query)) if (k !== 'cursor' && k !== 'limit' && v !== undefined) params.set(k, String(v));
  params.set('limit', String(limit));
  params.set('cursor', next);
  return `<${req.path}?${params}>; rel="next"`;
}

export function respond({ log, recordActivity, answers: { send } }: RespondOptions): Stage {
  /** a reply's stream: its head now, its body piped (a stream counts when its head leaves) */
  function stream(x: Exchange, status: number, head: Head, body: NodeJS.ReadableStream & { destroy(): void }, contentType: string | undefined): void {
    // the client may have left while the handler ran: a follow stream would otherwise live on
    if (gone(x)) { body.destroy(); return; }
    head.push('Content-Type', contentType ?? 'application/octet-stream');
    x.res.writeHead(status, head);
    pipeline(body, x.res).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ERR_STREAM_PREMATURE_CLOSE') log.warn({ err, requestId: x.requestId }, 'stream failed');
    });
  }

  /** a GET's answer is written at once; a write's once its activity is recorded */
  function write(x: Exchange): void | Promise<void> {
    const { route } = x.entry;
    const { out } = x;
    let status = route.status ?? (out === undefined ? 204 : 200);
    let payload: unknown = out;
    const head = answerHead(x);
    if (isReply(out)) {
      status = out.status;
      payload = out.body;
      if (out.headers) headOf(out.headers, head);
      if (out.stream) return stream(x, status, head, out.stream, out.contentType);
    } else if (route.page && out && typeof out === 'object' && 'items' in out) {
      const page = out as Page<unknown>;
      payload = page.items;
      if (page.next) head.push('Link', pageLink(x.req, page.next, x.page.limit));
    }
    const rev = (payload as { revision?: unknown } | null)?.revision;
    if (typeof rev === 'number' && status < 300 && !(isReply(out) && out.headers?.ETag)) head.push('ETag', `"${rev}"`);
    if (route.method === 'GET') return send(x.res, status, payload, head);
    // recorded before the answer leaves: whoever reads the log after a write finds the write in it
    return recordActivity(x, x.params, status < 400 ? 'ok' : 'failed').then(() => send(x.res, status, payload, head));
  }

  return (x: Exchange) => {
    const writing = x.upgraded ? undefined : write(x);
    if (!writing) return observe(x);
    return writing.then(() => observe(x));
  };
}
