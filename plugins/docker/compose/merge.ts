// Compose's merge rules for a service that extends another: maps merge key by key, lists append (unique resources keep the later entry), shell commands are replaced; !reset removes, !override replaces.
import { isObj, type Obj } from './shape.ts';
import { Override, reset } from './tags.ts';

type Merger = (base: unknown, local: unknown) => unknown;

/** a map key set as data: "__proto__" from YAML is a key like any other, never an object's prototype */
function put(map: Obj, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
  else map[key] = value;
}

/** `{ A: 1, B: null }` → `["A=1", "B"]`, sorted as compose sorts it; a list stays a list, a string becomes one entry */
function toSequence(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return [value];
  if (!isObj(value)) return [];
  return Object.entries(value).flatMap(([k, v]) => {
    if (v === reset) return [];
    if (v === null || v === undefined) return [k];
    if (Array.isArray(v)) return v.map((item) => `${k}=${String(item)}`);
    return [`${k}=${String(v)}`];
  }).sort();
}

/** `["a", "b"]` → `{ a: defaults, b: defaults }` (depends_on, networks); a map stays a map */
function toMapping(value: unknown, defaults: Obj | null): Obj {
  if (isObj(value)) return { ...value };
  const out: Obj = {};
  if (Array.isArray(value)) for (const item of value) if (typeof item === 'string') put(out, item, defaults && { ...defaults });
  return out;
}

/** what makes two entries of a list the same resource: the later one replaces the earlier, in its place */
type Indexer = (entry: unknown) => string | null;

const keyValue: Indexer = (e) => (typeof e === 'string' ? e.split('=')[0] : typeof e === 'number' ? String(e) : null);
/** a mount's target: "src:/target[:mode]", "/target", or `{ target }` */
const mountTarget: Indexer = (e) => {
  if (isObj(e)) return typeof e.target === 'string' ? e.target : null;
  if (typeof e !== 'string') return null;
  const parts = e.split(':');
  return parts.length === 1 ? parts[0] : parts[1];
};
const port: Indexer = (e) => {
  if (isObj(e)) return `${e.host_ip ?? '0.0.0.0'}:${e.published ?? ''}:${e.target}/${e.protocol ?? 'tcp'}`;
  return e === null || e === undefined ? null : String(e);
};
const secretTarget = (dir: string): Indexer => (e) => {
  if (typeof e === 'string') return `${dir}/${e}`;
  if (isObj(e)) return typeof e.target === 'string' ? e.target : `${dir}/${String(e.source)}`;
  return null;
};
const envFile: Indexer = (e) => (typeof e === 'string' ? e : isObj(e) && typeof e.path === 'string' ? e.path : null);

const unique: Record<string, Indexer> = {
  annotations: keyValue, cap_add: keyValue, cap_drop: keyValue, dns: keyValue, dns_opt: keyValue, dns_search: keyValue,
  environment: keyValue, labels: keyValue, links: keyValue, profiles: keyValue, sysctls: keyValue, tmpfs: keyValue,
  expose: keyValue, env_file: envFile, label_file: envFile, ports: port, volumes: mountTarget, devices: mountTarget,
  secrets: secretTarget('/run/secrets'), configs: secretTarget(''), extra_hosts: keyValue,
};

function dedupe(list: unknown[], index: Indexer): unknown[] {
  const out: unknown[] = [];
  const at = new Map<string, number>();
  for (const entry of list) {
    const key = index(entry);
    const seen = key === null ? undefined : at.get(key);
    if (seen !== undefined) out[seen] = entry;
    else {
      if (key !== null) at.set(key, out.length);
      out.push(entry);
    }
  }
  return out;
}

/** `{ KEY: !reset }` takes KEY out of the base's entries too */
const sequence: Merger = (b, l) => {
  const dropped = new Set(isObj(l) ? Object.keys(l).filter((k) => l[k] === reset) : []);
  return [...toSequence(b).filter((e) => !dropped.has(keyValue(e) ?? '')), ...toSequence(l)];
};
const replace: Merger = (_b, l) => l;

/** the keys of a service (and of its build) whose merge is not the plain one */
const special: Record<string, Merger> = {
  command: replace, entrypoint: replace,
  annotations: sequence, dns: sequence, dns_opt: sequence, dns_search: sequence, env_file: sequence, label_file: sequence,
  environment: sequence, labels: sequence, sysctls: sequence, tmpfs: sequence, extra_hosts: sequence,
  depends_on: (b, l) => mergeMaps(toMapping(b, { condition: 'service_started', required: true }), toMapping(l, { condition: 'service_started', required: true })),
  networks: (b, l) => mergeMaps(toMapping(b, null), toMapping(l, null)),
  build: (b, l) => mergeMaps(typeof b === 'string' ? { context: b } : toMapping(b, null), typeof l === 'string' ? { context: l } : toMapping(l, null), buildSpecial),
  healthcheck: (b, l) => (isObj(b) && isObj(l) ? mergeMaps(b, l, { test: replace }) : l),
  // logging options merge only when both name the same driver (or one names none)
  logging: (b, l) => (isObj(b) && isObj(l) && (b.driver === l.driver || b.driver === undefined || l.driver === undefined) ? mergeMaps(b, l) : l),
  deploy: (b, l) => (isObj(b) && isObj(l) ? mergeMaps(b, l, { labels: sequence }) : l),
};
const buildSpecial: Record<string, Merger> = { args: sequence, labels: sequence, additional_contexts: sequence };

function mergeValue(base: unknown, local: unknown, rules: Record<string, Merger> | undefined, key: string): unknown {
  // !reset and !override win over the base as they are (settleTags removes and unwraps them once merges are done)
  if (local === reset || local instanceof Override) return local;
  if (base instanceof Override) return mergeValue(base.value, local, rules, key);
  if (base === reset) return local;
  if (local === undefined || local === null) return base;
  const rule = rules?.[key];
  if (rule) return rule(base, local);
  if (isObj(base) && isObj(local)) return mergeMaps(base, local);
  if (Array.isArray(base) && Array.isArray(local)) return [...base, ...local];
  return local;
}

function mergeMaps(base: Obj, local: Obj, rules?: Record<string, Merger>): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(base)) put(out, k, v);
  for (const [k, v] of Object.entries(local)) put(out, k, Object.hasOwn(out, k) ? mergeValue(out[k], v, rules, k) : v);
  return out;
}

/** the service `local` extending `base` (both raw, interpolated): what compose's `extends` makes of them */
export function extendService(base: Obj, local: Obj): Obj {
  const merged = mergeMaps(base, local, special);
  for (const [key, index] of Object.entries(unique)) {
    if (Array.isArray(merged[key])) put(merged, key, dedupe(merged[key] as unknown[], index));
  }
  delete merged.extends;
  return merged;
}
