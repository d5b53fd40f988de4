// The activity log's line for a write (and for a refused webhook call): who did what to which resource, with what result.
import type { ActivityApi, Logger } from '../../../sdk/index.ts';
import type { Exchange } from '../exchange.ts';

export interface ActivityOptions { activity: ActivityApi; log: Logger }

export type RecordActivity = (x: Exchange, params: Record<string, string>, result: string, status?: number) => Promise<void>;

export function activityRecorder({ activity, log }: ActivityOptions): RecordActivity {
  return (x, params, result, status) => {
    const { entry } = x;
    if (entry.route.activity === false) return Promise.resolve();
    const action = entry.route.activity ?? `${entry.owner}.${entry.route.method.toLowerCase()} ${entry.route.path}`;
    const resource = entry.route.resource
      ? entry.route.resource.replace(/\{([^}]+)\}/g, (_, k) => params[k] ?? k)
      : Object.keys(params).length ? entry.route.path.replace(/:([^/]+)/g, (_, k) => params[k] ?? k) : null;
    return activity.record({ actor: x.principal.actor, action, resource, result, detail: status ? { status } : undefined })
      .catch((err) => log.error({ err }, 'recording activity failed'));
  };
}
