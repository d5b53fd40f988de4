// polka's onNoMatch: the portal's files outside the API, else 405 with Allow for a path that answers other methods, else 404.
import type { ServerResponse } from 'node:http';
import { problem } from '../../../sdk/index.ts';
import type { Metrics } from '../../services/metrics.ts';
import type { RateLimiter } from '../../rate-limit.ts';
import type { AnswerWriter, Head } from '../answer.ts';
import type { ClientResolver } from '../client.ts';
import type { ApiRequest } from '../exchange.ts';
import { requestIdOf } from './request.ts';

export interface NotFoundOptions {
  clients: ClientResolver;
  limiter: RateLimiter;
  /** answers requests outside the API (the portal's files); false: not found */
  web?(req: ApiRequest, res: ServerResponse): boolean;
  metrics?: Metrics;
  answers: AnswerWriter;
  /** the methods a path answers */
  allowed(path: string): string[];
}

export function onNoMatch({ clients, limiter, web, metrics, allowed, answers: { sendProblem } }: NotFoundOptions): (req: ApiRequest, res: ServerResponse) => void {
  function answer(req: ApiRequest, res: ServerResponse): void {
    const path = req.path;
    if (!path.startsWith('/api/') && web?.(req, res)) return;
    // the REST API answers with its rate-limit headers everywhere, unknown routes included; an unverified bearer buys no budget of its own
    const ip = clients.address(req);
    const head: Head = ['X-Request-Id', requestIdOf(req)];
    // an unknown route is never refused for the rate: the headers tell the budget, without a Retry-After
    if (path.startsWith('/api/v1/')) limiter.hit(`a:${ip}`).addTo(head, false);
    const methods = allowed(path);
    if (methods.length) {
      sendProblem(res, problem(405, `${req.method} is not allowed on ${path}; it answers ${methods.join(', ')}`), path, head.concat('Allow', methods.join(', ')));
      return;
    }
    sendProblem(res, problem(404, `no route for ${req.method} ${path}`), path, head);
  }

  return (req, res) => {
    const started = performance.now();
    answer(req, res);
    metrics?.unmatched.observe(res.statusCode, (performance.now() - started) / 1000);
  };
}
