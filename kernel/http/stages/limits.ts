// Stage limits: an address that failed to authenticate too often, the API's per-token or per-address rate, the webhooks' per-address and per-resource rate.
import { problem } from '../../../sdk/index.ts';
import { sessionBudgetKey } from '../../auth/sessions.ts';
import type { RateLimiter } from '../../rate-limit.ts';
import type { Exchange } from '../exchange.ts';
import type { Stage } from './stage.ts';

export interface LimitsOptions {
  limiter: RateLimiter;
  /** failed authentications per client address: past the budget, the address's bearers are refused before any lookup */
  failures: RateLimiter;
  /** webhook calls per client address and per resource */
  webhooks: RateLimiter;
}

/** `/api/stacks/web/deploy` of `/api/stacks/:name/deploy` → `/api/stacks/web`: the resource a webhook acts on */
function webhookResource(fullPath: string, params: Record<string, string>): string {
  const cut = fullPath.indexOf('/:');
  if (cut < 0) return fullPath;
  const param = /^\/:([^/]+)/.exec(fullPath.slice(cut))![1];
  return `${fullPath.slice(0, cut)}/${params[param] ?? ''}`;
}

export function limits({ limiter, failures, webhooks }: LimitsOptions): Stage {
  /** 429 before any lookup: this address failed to authenticate too often */
  function refuseBlockedAddress(ip: string): void {
    const key = `f:${ip}`;
    if (!failures.spent(key)) return;
    const blocked = failures.peek(key);
    throw problem(429, `too many failed authentications from ${ip}; retry after ${blocked.reset} s`, { headers: { ...blocked.headers, 'Retry-After': String(blocked.reset) } });
  }

  return (x: Exchange) => {
    const { entry, ip, bearer, tokenKey, req } = x;
    if (bearer !== undefined || entry.mount === 'webhook') refuseBlockedAddress(ip);
    if (entry.mount === 'api' && !entry.route.upload) {
      const decision = x.rate = limiter.hit(tokenKey || (bearer === undefined && sessionBudgetKey(req)) || `a:${ip}`, `a:${ip}`);
      if (!decision.allowed) throw problem(429, `more than ${limiter.limit} requests per minute with this token; retry after ${decision.reset} s`, { headers: { 'Retry-After': String(decision.reset) } });
    } else if (entry.mount === 'webhook') {
      const byAddress = webhooks.hit(`a:${ip}`);
      const byResource = byAddress.allowed ? webhooks.hit(`r:${webhookResource(entry.fullPath, req.params)}`) : byAddress;
      const decision = x.rate = byResource.remaining < byAddress.remaining || !byResource.allowed ? byResource : byAddress;
      if (!decision.allowed) {
        const who = byAddress.allowed ? 'for this resource' : 'from this address';
        throw problem(429, `more than ${webhooks.limit} webhook calls per minute ${who}; retry after ${decision.reset} s`, { headers: { 'Retry-After': String(decision.reset) } });
      }
    }
  };
}
