// A service's deploy.update_config (order, parallelism, delay, failure_action, monitor, max_failure_ratio) → how its containers are replaced.
import type { NormalizedUpdateConfig } from './model.ts';
import type { Issues } from './issues.ts';
import { int, isObj, scalar } from './shape.ts';
import { durationNs } from './units.ts';

const known = new Set(['order', 'parallelism', 'delay', 'failure_action', 'monitor', 'max_failure_ratio']);

export function updateConfig(v: unknown, path: string, issues: Issues): NormalizedUpdateConfig {
  const config: NormalizedUpdateConfig = { order: null, parallelism: 1, delayMs: 0, failureAction: 'pause', monitorMs: 0, maxFailureRatio: 0 };
  if (v === undefined || v === null) return config;
  if (!isObj(v)) { issues.error(path, 'must be a map'); return config; }
  for (const key of Object.keys(v)) if (!known.has(key)) issues.error(`${path}.${key}`, `"${key}" is not an update_config option (${[...known].join(', ')})`);
  if (v.order !== undefined) {
    if (v.order === 'start-first' || v.order === 'stop-first') config.order = v.order;
    else issues.error(`${path}.order`, `"${scalar(v.order) ?? typeof v.order}" is not start-first or stop-first`);
  }
  // 0 replaces every replica at once, as compose (and swarm) define it
  config.parallelism = int(v.parallelism, `${path}.parallelism`, issues) ?? 1;
  for (const [key, field] of [['delay', 'delayMs'], ['monitor', 'monitorMs']] as const) {
    if (v[key] === undefined) continue;
    const ns = durationNs(v[key]);
    if (ns === null) issues.error(`${path}.${key}`, `"${String(v[key])}" is not a duration like 10s or 1m30s`);
    else config[field] = Math.round(ns / 1e6);
  }
  if (v.failure_action !== undefined) {
    if (v.failure_action === 'pause' || v.failure_action === 'continue' || v.failure_action === 'rollback') config.failureAction = v.failure_action;
    else issues.error(`${path}.failure_action`, `"${scalar(v.failure_action) ?? typeof v.failure_action}" is not pause, continue or rollback`);
  }
  if (v.max_failure_ratio !== undefined) {
    const ratio = typeof v.max_failure_ratio === 'string' ? Number(v.max_failure_ratio) : v.max_failure_ratio;
    if (typeof ratio === 'number' && ratio >= 0 && ratio <= 1) config.maxFailureRatio = ratio;
    else issues.error(`${path}.max_failure_ratio`, 'must be a number from 0 to 1');
  }
  return config;
}
