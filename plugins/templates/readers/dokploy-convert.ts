// Dokploy's blueprint (docker-compose.yml + template.toml) turned into our format: its helpers become explicit generators, its derived values are written into the compose file, its domains become edge labels, its mounts configs.
import { CORE_SCHEMA, dump, load } from 'js-yaml';
import { parse as parseToml } from 'smol-toml';
import { isObject } from './types.ts';

/** Dokploy's meta.json entry of one blueprint */
export interface DokployMeta { id: string; name: string; version: string; description?: string; logo?: string; links?: Record<string, string>; tags?: string[] }

type OurVariable = { type: string; generate?: string; claims?: Record<string, unknown>; default?: string; description?: string };

/** our variable for a value that is exactly one Dokploy helper, or null when it is no helper we map */
function helperVariable(helper: string, name: string, payloadOf: (v: string) => Record<string, unknown> | null): OurVariable | null {
  const [fn, arg, arg2] = helper.split(':');
  const n = arg !== undefined && /^\d+$/.test(arg) ? Number(arg) : undefined;
  const clamp = (x: number) => Math.min(1024, Math.max(8, x));
  switch (fn) {
    case 'domain': return { type: 'hostname', description: `the host name (${name})` };
    case 'password': return { type: 'secret', generate: `password:${clamp(n ?? 16)}` };
    // Dokploy's base64:N and hash:N are N random bytes, written as base64 or hex
    case 'base64': return { type: 'secret', generate: `base64:${clamp(Math.ceil(((n ?? 32) * 4) / 3))}` };
    case 'hash': return { type: 'secret', generate: `hex:${clamp((n ?? 8) * 2)}` };
    case 'uuid': return { type: 'secret', generate: 'uuid' };
    case 'email': return { type: 'email', description: `an email address (${name})` };
    case 'username': return { type: 'string', default: 'admin', description: `a user name (${name})` };
    case 'randomPort': return { type: 'port', description: `a port (${name})` };
    case 'timezone': return { type: 'string', default: 'UTC', description: 'the time zone' };
    case 'timestamp': case 'timestampms': return { type: 'string', default: String(Date.now()) };
    case 'jwt':
      if (n !== undefined || arg === undefined) return { type: 'secret', generate: `hex:${clamp((n ?? 32) * 2)}` };
      return { type: 'secret', generate: `jwt:${arg}`, claims: (arg2 ? payloadOf(arg2) : null) ?? {} };
    default: return null;
  }
}

const ref = /(\$*)\$\{([^}]+)\}/g;
/** a plain ${NAME} of the compose file (also inside another's default: ${A:-http://${HOST}}) */
const simpleRef = /(\$*)\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** converts one blueprint; errors are thrown with the field they concern */
export function convertBlueprint(meta: DokployMeta, composeText: string, tomlText: string, logoUrl: string | null): string {
  const toml = parseToml(tomlText) as Record<string, unknown>;
  const rawVars = isObject(toml.variables) ? toml.variables : {};
  const config = isObject(toml.config) ? toml.config : {};
  const variables: Record<string, OurVariable> = {};
  const derived = new Map<string, string>();
  const timestamps = (text: string) => text.replace(/\$\{timestamps?(ms)?:([^}]+)\}/g, (whole, ms: string | undefined, date: string) => {
    const t = Date.parse(date);
    return Number.isNaN(t) ? whole : String(ms ? t : Math.floor(t / 1000));
  });
  const payloadOf = (v: string) => {
    const text = rawVars[v];
    if (typeof text !== 'string') return null;
    try { const p = JSON.parse(timestamps(text)); return isObject(p) ? p : null; } catch { return null; }
  };
  let generatedCount = 0;
  for (const [name, value] of Object.entries(rawVars)) {
    const text = timestamps(String(value));
    const whole = /^\$\{([^}]+)\}$/.exec(text);
    const helper = whole ? helperVariable(whole[1], name, payloadOf) : null;
    if (helper) variables[name] = helper;
    else if (!text.includes('${')) variables[name] = { type: 'string', default: text };
    else derived.set(name, text);
  }
  // the .env Dokploy writes: what the compose file's ${KEY} means
  const envEntries: [string, string][] = Array.isArray(config.env)
    ? config.env.map(String).filter((l) => l.trim() && !l.trim().startsWith('#') && l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')).trim(), l.slice(l.indexOf('=') + 1)])
    : isObject(config.env) ? Object.entries(config.env).map(([k, v]) => [k, String(v)]) : [];
  const envRaw = new Map(envEntries);
  // a derived value: its text with each reference written out (a helper inside text becomes a variable of its own)
  const expand = (text: string, seen: string[] = [], escapeUnknown = false): string => timestamps(text).replace(ref, (whole, dollars: string, inner: string) => {
    if (dollars.length % 2 === 1) return whole;
    if (variables[inner]) return `${dollars}\${${inner}}`;
    const d = derived.get(inner);
    if (d !== undefined) {
      if (seen.includes(inner)) throw new Error(`variables: ${[...seen, inner].join(' → ')} refer to each other`);
      return dollars + expand(d, [...seen, inner], escapeUnknown);
    }
    // another line of the .env (compose reads the .env's own ${KEY} too)
    const e = envRaw.get(inner);
    if (e !== undefined && !seen.includes(`env:${inner}`)) return dollars + expand(e, [...seen, `env:${inner}`], escapeUnknown);
    const helper = helperVariable(inner, 'written in the template', payloadOf);
    if (helper) {
      // named by what it is: DOMAIN, PASSWORD_2…
      const stem = inner.split(':')[0].replace(/[^A-Za-z0-9]/g, '_').toUpperCase();
      let name = stem;
      while (variables[name] || rawVars[name] !== undefined) name = `${stem}_${++generatedCount + 1}`;
      variables[name] = helper;
      return `${dollars}\${${name}}`;
    }
    // a file's own ${…} (a shell script's) stays as written: compose must not read it as a variable
    if (escapeUnknown) return `$${whole}`;
    // a name nothing sets is empty, as compose makes it
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(inner) ? `${dollars}\${${inner}:-}` : whole;
  });
  const env = new Map<string, string>();
  for (const [key, value] of envEntries) {
    const text = expand(value);
    if (!text.includes('${') && !variables[key]) { variables[key] = { type: 'string', default: text }; env.set(key, `\${${key}}`); }
    else env.set(key, text);
  }
  const doc = load(composeText, { schema: CORE_SCHEMA }) as Record<string, unknown>;
  if (!isObject(doc) || !isObject(doc.services)) throw new Error('docker-compose.yml has no services');
  delete doc.version;
  const substitute = (v: unknown): unknown => {
    // a ${KEY} the .env does not set is empty, as compose makes it
    if (typeof v === 'string') return v.replace(simpleRef, (whole, dollars: string, inner: string) => (dollars.length % 2 === 1 ? whole : env.has(inner) ? dollars + env.get(inner)! : `${dollars}\${${inner}:-}`));
    if (Array.isArray(v)) return v.map(substitute);
    if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x)]));
    return v;
  };
  const compose = substitute(doc) as Record<string, any>;
  routeDomains(compose, config.domains, expand);
  mountFiles(compose, config.mounts, expand);
  const xDockwright = {
    id: meta.id, name: meta.name, version: String(meta.version), description: meta.description ?? '', categories: meta.tags ?? [],
    ...(logoUrl ? { logo: logoUrl } : {}), links: Object.fromEntries(Object.entries(meta.links ?? {}).filter(([, u]) => typeof u === 'string' && /^https?:\/\//.test(u))),
    variables,
  };
  return dump({ 'x-dockwright': xDockwright, ...compose }, { lineWidth: -1, noRefs: true });
}

/** each [[config.domains]] entry: the edge labels of its service (one route per service: the first) */
function routeDomains(compose: Record<string, any>, domains: unknown, expand: (t: string) => string): void {
  const routed = new Set<string>();
  for (const d of Array.isArray(domains) ? domains : []) {
    if (!isObject(d) || typeof d.serviceName !== 'string' || routed.has(d.serviceName)) continue;
    const service = compose.services[d.serviceName];
    if (!isObject(service)) throw new Error(`config.domains names service ${d.serviceName}, which the compose file does not have`);
    routed.add(d.serviceName);
    const labels = Array.isArray(service.labels) ? Object.fromEntries(service.labels.map(String).map((l: string) => [l.split('=')[0], l.slice(l.indexOf('=') + 1)])) : { ...(service.labels ?? {}) };
    labels['dockwright.http.host'] = expand(String(d.host ?? ''));
    labels['dockwright.http.port'] = String(d.port ?? 80);
    if (typeof d.path === 'string' && d.path !== '/') labels['dockwright.http.path'] = d.path;
    service.labels = labels;
  }
  // a published port without a host port only opens a random one: Dokploy routes by domain, and so does the edge
  for (const service of Object.values(compose.services) as Record<string, any>[]) {
    if (!Array.isArray(service?.ports)) continue;
    service.ports = service.ports.filter((p: unknown) => !/^\d+(\/\w+)?$/.test(String(p)));
    if (!service.ports.length) delete service.ports;
  }
}

/** each [[config.mounts]] file that a service binds from ../files/: a config with its content instead */
function mountFiles(compose: Record<string, any>, mounts: unknown, expand: (t: string, seen: string[], escapeUnknown: boolean) => string): void {
  const files = new Map<string, string>();
  for (const m of Array.isArray(mounts) ? mounts : []) if (isObject(m) && typeof m.filePath === 'string') files.set(m.filePath.replace(/^\/+/, ''), String(m.content ?? ''));
  let n = 0;
  for (const service of Object.values(compose.services) as Record<string, any>[]) {
    if (!Array.isArray(service?.volumes)) continue;
    service.volumes = service.volumes.filter((v: unknown) => {
      const m = typeof v === 'string' ? /^\.\.\/files\/([^:]+):([^:]+)(:ro|:rw)?$/.exec(v) : null;
      const content = m ? files.get(m[1].replace(/^\/+/, '')) : undefined;
      if (!m || content === undefined) return true;
      const name = `file_${++n}`;
      // a lone $ of the file (not ${…}) is written $$, so that compose leaves it as it is
      compose.configs = { ...(compose.configs ?? {}), [name]: { content: expand(content.replace(/\$(?![{$])/g, '$$$$'), [], true) } };
      service.configs = [...(service.configs ?? []), { source: name, target: m[2] }];
      return false;
    });
    if (!service.volumes.length) delete service.volumes;
  }
}
