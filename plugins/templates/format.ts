// Our template format: a compose file with an `x-dockwright` block (id, name, version, typed variables with explicit generators), parsed and checked field by field.
import { CORE_SCHEMA, load } from 'js-yaml';
import { parseGenerator, type Generator } from './generators.ts';

export const variableTypes = ['string', 'secret', 'hostname', 'port', 'email', 'enum'] as const;
export type VariableType = typeof variableTypes[number];

export interface TemplateVariable {
  name: string;
  type: VariableType;
  description: string;
  /** as written (`password:32`), and parsed */
  generate?: string;
  generator?: Generator;
  default?: string;
  pattern?: string;
  range?: [number, number];
  /** enum: the allowed values */
  values?: string[];
  /** the edge labels whose value it feeds (`services.web.labels.dockwright.http.host`): a hostname is bound to its route */
  binds: string[];
}

export interface Template {
  source: string;
  id: string;
  name: string;
  version: string;
  description: string;
  categories: string[];
  logo: string | null;
  links: Record<string, string>;
  instructions: string | null;
  variables: TemplateVariable[];
  /** the compose file as written, x-dockwright block included (the loader ignores x- keys) */
  compose: string;
}

/** what is wrong with a template, field by field (`path` is a JSON pointer into the file) */
export interface FieldError { path: string; message: string }

export const TemplateId = '^[a-z0-9][a-z0-9._-]{0,99}$';
const variableName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const hostLabel = 'dockwright.http.host';
const textOf = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** the ${NAME} references of a compose text: those with a default (`${X:-a}`) apart; `$${X}` is no reference */
export function references(compose: string): { required: Set<string>; optional: Set<string> } {
  const required = new Set<string>();
  const optional = new Set<string>();
  for (const m of compose.matchAll(/(\$*)\$\{([A-Za-z_][A-Za-z0-9_]*)(:?[-?+])?/g)) {
    if (m[1].length % 2 === 1) continue;
    (m[3] && m[3].endsWith('-') ? optional : required).add(m[2]);
  }
  return { required, optional };
}

/** the labels of the host label (dockwright.http.host) in each service that hold ${NAME} */
function hostBindings(doc: Record<string, unknown>): Map<string, string[]> {
  const binds = new Map<string, string[]>();
  const services = isObject(doc.services) ? doc.services : {};
  for (const [service, def] of Object.entries(services)) {
    if (!isObject(def)) continue;
    const labels = Array.isArray(def.labels)
      ? Object.fromEntries(def.labels.map(String).map((l) => [l.split('=')[0], l.slice(l.indexOf('=') + 1)]))
      : isObject(def.labels) ? def.labels : {};
    for (const [key, value] of Object.entries(labels)) {
      if (key !== hostLabel && !key.startsWith(`${hostLabel}.`)) continue;
      for (const name of references(String(value)).required) binds.set(name, [...(binds.get(name) ?? []), `services.${service}.labels.${key}`]);
    }
  }
  return binds;
}

function parseVariable(name: string, raw: unknown, path: string, errors: FieldError[], binds: string[]): TemplateVariable | null {
  if (!variableName.test(name)) { errors.push({ path, message: `"${name}" is not a variable name (letters, digits and _)` }); return null; }
  if (!isObject(raw)) { errors.push({ path, message: 'must be an object with a type' }); return null; }
  const type = raw.type ?? 'string';
  if (!variableTypes.includes(type as VariableType)) { errors.push({ path: `${path}/type`, message: `must be one of ${variableTypes.join(', ')}` }); return null; }
  const v: TemplateVariable = { name, type: type as VariableType, description: textOf(raw.description) ?? '', binds };
  if (raw.generate !== undefined) {
    const gen = parseGenerator(raw.generate, raw.claims);
    if (typeof gen === 'string') errors.push({ path: `${path}/generate`, message: gen });
    else { v.generate = raw.generate as string; v.generator = gen; }
  }
  if (raw.default !== undefined) {
    const d = textOf(raw.default);
    if (d === undefined) errors.push({ path: `${path}/default`, message: 'must be a string or number' }); else v.default = d;
  }
  if (raw.pattern !== undefined) {
    try { new RegExp(String(raw.pattern), 'u'); v.pattern = String(raw.pattern); } catch { errors.push({ path: `${path}/pattern`, message: 'is not a regular expression' }); }
  }
  if (raw.range !== undefined) {
    const r = raw.range;
    if (!Array.isArray(r) || r.length !== 2 || !r.every(Number.isInteger) || r[0] > r[1]) errors.push({ path: `${path}/range`, message: 'must be [min, max], two integers' });
    else v.range = [r[0], r[1]];
  }
  if (v.type === 'enum') {
    const values = raw.values;
    if (!Array.isArray(values) || !values.length || !values.every((x) => textOf(x) !== undefined)) errors.push({ path: `${path}/values`, message: 'an enum needs values: a list of strings' });
    else v.values = values.map((x) => textOf(x)!);
  }
  return v;
}

/**
 * A template of our format from its text: the template, or its errors (each with the field's path). `source` and
 * `expectedId` name where it was found: an index entry whose id differs from the file's is an error.
 */
export function parseTemplate(text: string, source: string, expectedId?: string): { template: Template } | { errors: FieldError[] } {
  let doc: unknown;
  try {
    doc = load(text, { schema: CORE_SCHEMA, json: true });
  } catch (err) {
    return { errors: [{ path: '', message: `not YAML: ${(err as Error).message.split('\n')[0]}` }] };
  }
  if (!isObject(doc)) return { errors: [{ path: '', message: 'must be a compose file (a mapping)' }] };
  const meta = doc['x-dockwright'];
  if (!isObject(meta)) return { errors: [{ path: '/x-dockwright', message: 'is required: id, name, version and variables' }] };
  if (!isObject(doc.services) || !Object.keys(doc.services).length) return { errors: [{ path: '/services', message: 'a template needs at least one service' }] };
  const errors: FieldError[] = [];
  const str = (key: string, required: boolean, pattern?: RegExp) => {
    const v = textOf(meta[key]);
    if (v === undefined) { if (required) errors.push({ path: `/x-dockwright/${key}`, message: 'is required' }); return undefined; }
    if (pattern && !pattern.test(v)) errors.push({ path: `/x-dockwright/${key}`, message: `must match ${pattern.source}` });
    return v;
  };
  const id = str('id', true, new RegExp(TemplateId)) ?? expectedId ?? '';
  if (expectedId !== undefined && id !== expectedId) errors.push({ path: '/x-dockwright/id', message: `is "${id}" but the catalogue lists it as "${expectedId}"` });
  const categories = meta.categories ?? [];
  if (!Array.isArray(categories) || !categories.every((c) => typeof c === 'string')) errors.push({ path: '/x-dockwright/categories', message: 'must be a list of strings' });
  const links = meta.links ?? {};
  if (!isObject(links) || !Object.values(links).every((l) => typeof l === 'string' && /^https?:\/\//.test(l))) errors.push({ path: '/x-dockwright/links', message: 'must map names to http(s) URLs' });
  const rawVars = meta.variables ?? {};
  if (!isObject(rawVars)) errors.push({ path: '/x-dockwright/variables', message: 'must be an object of variables by name' });
  const binds = hostBindings(doc);
  const variables = Object.entries(isObject(rawVars) ? rawVars : {})
    .map(([name, raw]) => parseVariable(name, raw, `/x-dockwright/variables/${name}`, errors, binds.get(name) ?? []))
    .filter((v): v is TemplateVariable => v !== null);
  // a variable with errors of its own is still declared: its uses are not errors too
  const declared = new Set(isObject(rawVars) ? Object.keys(rawVars) : []);
  for (const v of variables) {
    if (v.generator?.kind === 'jwt' && !declared.has(v.generator.secret)) errors.push({ path: `/x-dockwright/variables/${v.name}/generate`, message: `signs with ${v.generator.secret}, which is no variable of the template` });
    if (v.generator?.kind === 'jwt' && variables.find((o) => o.name === (v.generator as { secret: string }).secret)?.generator?.kind === 'jwt') errors.push({ path: `/x-dockwright/variables/${v.name}/generate`, message: 'cannot sign with another jwt' });
  }
  const { required } = references(text);
  for (const name of required) if (!declared.has(name)) errors.push({ path: '/services', message: `\${${name}} is used but not declared in x-dockwright.variables` });
  if (errors.length) return { errors };
  return {
    template: {
      source, id, name: str('name', true)!, version: str('version', true)!, description: str('description', false) ?? '',
      categories: categories as string[], logo: str('logo', false) ?? null, links: links as Record<string, string>,
      instructions: str('instructions', false) ?? null, variables, compose: text,
    },
  };
}
