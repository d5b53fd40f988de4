// polka's onError for the API: any stage's throw becomes a problem answer, counted against a failing address, logged when unexpected, recorded when a write.
import type { ServerResponse } from 'node:http';
import type { Logger, Problem } from '../../../sdk/index.ts';
import { diskFull, isProblem, problem } from '../../../sdk/index.ts';
import { isDatabaseUnavailable } from '../../db/errors.ts';
import type { RateLimiter } from '../../rate-limit.ts';
import type { AnswerWriter } from '../answer.ts';
import type { ApiRequest, Exchange } from '../exchange.ts';
import type { RecordActivity } from './activity.ts';
import { answerHead, observe } from './respond.ts';

export interface ErrorOptions { log: Logger; failures: RateLimiter; recordActivity: RecordActivity; answers: AnswerWriter }

/** how long a client is asked to wait when the database is out of reach (a restart takes a second or two) */
const databaseRetryAfter = '2';

function toProblem(err: unknown, requestId: string): Problem {
  if (isDatabaseUnavailable(err)) {
    return problem(503, `the database is unreachable (${(err as Error).message}); retry in a moment`, {
      code: 'database-unavailable', title: 'Database unavailable', headers: { 'Retry-After': databaseRetryAfter },
    });
  }
  // a full disk (or quota, or the database's disk) on any write path says so, instead of an internal error
  const full = diskFull(err);
  if (full) return full;
  const status = (err as { status?: unknown })?.status;
  if (typeof status === 'number' && status >= 400 && status < 600 && (err as { expose?: boolean }).expose) return problem(status, (err as Error).message);
  return problem(500, `internal error; the log has the details under request id ${requestId}`);
}

export function onError({ log, failures, recordActivity, answers: { sendProblem } }: ErrorOptions): (err: unknown, req: ApiRequest, res: ServerResponse) => void {
  async function answerProblem(err: unknown, x: Exchange): Promise<void> {
    const { entry: { route, mount, fullPath }, req, requestId, ip } = x;
    const p = isProblem(err) ? err : toProblem(err, requestId);
    // a token (or webhook signature) that failed verification counts against the caller's address
    if (p.status === 401 && (x.bearer !== undefined || mount === 'webhook')) failures.hit(`f:${ip}`);
    if (p.code === 'database-unavailable') log.warn({ requestId, err: (err as Error).message }, 'request failed: the database is unreachable');
    else if (!isProblem(err)) log.error({ err, requestId, route: `${route.method} ${fullPath}` }, 'request failed');
    // refused webhook calls are activity too; the REST API's 401 and 429 are noise an attacker could flood it with
    if (route.method !== 'GET' && (route.actionToken || (p.status !== 401 && p.status !== 429))) await recordActivity(x, req.params, p.status === 403 ? 'refused' : 'failed', p.status);
    sendProblem(x.res, p, req.path, answerHead(x));
  }

  /** what even the problem answer could not handle: a 500, or a torn connection when the head already left */
  function unhandled(err: unknown, res: ServerResponse, x: Exchange | undefined): void {
    if (x) observe(x, 500);
    log.error({ err }, 'unhandled request failure');
    if (!res.headersSent) sendProblem(res, problem(500, 'internal error'));
    else res.destroy();
  }

  return (err, req, res) => {
    const x = req.exchange as Exchange | undefined;
    if (!x) { unhandled(err, res, x); return; }
    answerProblem(err, x).then(() => observe(x), (failure) => unhandled(failure, res, x));
  };
}
