// Reading a compose file for the platform rules: its services as written and as normalized, and the path in the user's file of each value.
import type { LoadedCompose } from '../../docker/types.ts';
import type { RuleIssue } from './types.ts';

export type Raw = Record<string, unknown>;
export const servicesOf = (loaded: LoadedCompose): [string, Raw][] =>
  Object.entries(((loaded.raw.services ?? {}) as Record<string, Raw>)).filter(([, s]) => s && typeof s === 'object');

/** one issue per service whose key matches */
export function perService(loaded: LoadedCompose, key: string, bad: (value: unknown) => boolean, message: (service: string, value: unknown) => string): RuleIssue[] {
  return servicesOf(loaded).filter(([, s]) => key in s && bad(s[key])).map(([name, s]) => ({ path: `services.${name}.${key}`, message: message(name, s[key]) }));
}

/** what the engine will get, per service, with the raw service for paths */
export const normalized = (loaded: LoadedCompose) => {
  const raw = Object.fromEntries(servicesOf(loaded));
  return loaded.services.map((s) => ({ s, raw: raw[s.name] ?? {} }));
};

/** the written values of a "string or list" key with the path of each: `cap_add[2]`, or `cap_add` for a single string */
export function listed(raw: Raw, service: string, key: string): { value: string; path: string }[] {
  const v = raw[key];
  const text = (x: unknown) => (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean' ? String(x) : null);
  if (Array.isArray(v)) return v.flatMap((x, i) => (text(x) === null ? [] : [{ value: text(x)!, path: `services.${service}.${key}[${i}]` }]));
  return text(v) === null ? [] : [{ value: text(v)!, path: `services.${service}.${key}` }];
}

/** the path of each key of a "map or KEY=VALUE list" key: `sysctls.net.core.somaxconn`, or `sysctls[0]` */
export function keyPaths(raw: Raw, service: string, key: string): Map<string, string> {
  const v = raw[key];
  const paths = new Map<string, string>();
  if (Array.isArray(v)) v.forEach((x, i) => { const name = String(x).split('=')[0]; if (!paths.has(name)) paths.set(name, `services.${service}.${key}[${i}]`); });
  else if (v && typeof v === 'object') for (const name of Object.keys(v)) paths.set(name, `services.${service}.${key}.${name}`);
  return paths;
}

/** the path of each mount target's `volumes` entry (rules judge the normalized mount, report the user's line) */
export function volumePaths(raw: Raw, service: string): Map<string, string> {
  const paths = new Map<string, string>();
  (Array.isArray(raw.volumes) ? raw.volumes : []).forEach((v, i) => {
    const target = typeof v === 'string' ? v.split(':')[1] : v && typeof v === 'object' ? (v as Raw).target : undefined;
    if (typeof target === 'string' && !paths.has(target)) paths.set(target, `services.${service}.volumes[${i}]`);
  });
  return paths;
}

/** an allow list as a rule's description says it */
export const listOrNone = (values: Set<string>) => (values.size ? [...values].join(', ') : 'none');
