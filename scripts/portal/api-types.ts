// TypeScript types of the API from its OpenAPI document, in the `paths` shape openapi-fetch expects: the portal's typed client breaks its typecheck when the API changes.
// (openapi-typescript does the same but needs the TypeScript 5 compiler API; this project compiles with TypeScript 7.)

type Schema = Record<string, any>;

const ident = /^[A-Za-z_$][\w$]*$/;
const key = (k: string) => (ident.test(k) ? k : JSON.stringify(k));

export function typeOf(s: Schema | undefined, indent = ''): string {
  if (!s || typeof s !== 'object' || Object.keys(s).length === 0) return 'unknown';
  if (s.$ref) return `components["schemas"][${JSON.stringify(String(s.$ref).split('/').pop())}]`;
  if ('const' in s) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v: unknown) => JSON.stringify(v)).join(' | ');
  if (s.anyOf || s.oneOf) return (s.anyOf ?? s.oneOf).map((x: Schema) => wrap(typeOf(x, indent))).join(' | ');
  if (s.allOf) return s.allOf.map((x: Schema) => wrap(typeOf(x, indent))).join(' & ');
  if (Array.isArray(s.type)) return s.type.map((t: string) => typeOf({ ...s, type: t }, indent)).join(' | ');
  switch (s.type) {
    case 'string': return 'string';
    case 'integer': case 'number': return 'number';
    case 'boolean': return 'boolean';
    case 'null': return 'null';
    case 'array': return `${wrap(typeOf(s.items, indent))}[]`;
    case 'object': return objectType(s, indent);
    default: return s.properties || s.patternProperties ? objectType(s, indent) : 'unknown';
  }
}

function wrap(t: string): string {
  return /[|&]/.test(t) && !/^[{(]/.test(t) ? `(${t})` : t;
}

function objectType(s: Schema, indent: string): string {
  const inner = indent + '  ';
  const required = new Set<string>(s.required ?? []);
  const lines = Object.entries((s.properties ?? {}) as Record<string, Schema>).map(([k, v]) => `${inner}${key(k)}${required.has(k) ? '' : '?'}: ${typeOf(v, inner)};`);
  const extra = [...Object.values((s.patternProperties ?? {}) as Record<string, Schema>), ...(typeof s.additionalProperties === 'object' ? [s.additionalProperties] : [])];
  if (extra.length) lines.push(`${inner}[key: string]: ${extra.map((x) => typeOf(x, inner)).join(' | ')};`);
  else if (s.additionalProperties !== false && !s.properties) lines.push(`${inner}[key: string]: unknown;`);
  return lines.length ? `{\n${lines.join('\n')}\n${indent}}` : 'Record<string, never>';
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function params(list: Schema[], where: string, indent: string): string {
  const mine = list.filter((p) => p.in === where);
  if (!mine.length) return `${where}?: never;`;
  const body = mine.map((p) => `${indent}  ${key(p.name)}${p.required ? '' : '?'}: ${typeOf(p.schema, indent + '  ')};`).join('\n');
  return `${where}${mine.some((p) => p.required) ? '' : '?'}: {\n${body}\n${indent}};`;
}

function content(c: Record<string, Schema> | undefined, indent: string): string {
  if (!c) return 'content?: never;';
  const types = Object.entries(c).map(([media, m]) => `${indent}  ${JSON.stringify(media)}: ${typeOf(m.schema, indent + '  ')};`);
  return `content: {\n${types.join('\n')}\n${indent}};`;
}

function operationType(op: Schema, indent: string): string {
  const i = indent + '  ';
  const list = (op.parameters ?? []) as Schema[];
  const parts = [
    `${i}parameters: {`,
    ...['query', 'header', 'path', 'cookie'].map((w) => `${i}  ${params(list, w, i + '  ')}`),
    `${i}};`,
    op.requestBody ? `${i}requestBody${op.requestBody.required ? '' : '?'}: {\n${i}  ${content(op.requestBody.content, i + '  ')}\n${i}};` : `${i}requestBody?: never;`,
    `${i}responses: {`,
    ...Object.entries((op.responses ?? {}) as Record<string, Schema>).map(([status, r]) =>
      `${i}  ${/^\d+$/.test(status) ? status : JSON.stringify(status)}: {\n${i}    headers: { [name: string]: unknown };\n${i}    ${content(r.content, i + '    ')}\n${i}  };`),
    `${i}};`,
  ];
  return `{\n${parts.join('\n')}\n${indent}}`;
}

export function apiTypes(doc: Schema): string {
  const out = [
    '// The API as TypeScript types, generated from its OpenAPI document by scripts/portal/api-types.ts (the build rewrites it; do not edit).',
    '/* eslint-disable */',
    'export interface paths {',
  ];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Schema>)) {
    out.push(`  ${JSON.stringify(path)}: {`);
    out.push('    parameters: { query?: never; header?: never; path?: never; cookie?: never };');
    for (const m of methods) out.push(item[m] ? `    ${m}: ${operationType(item[m], '    ')};` : `    ${m}?: never;`);
    out.push('  };');
  }
  out.push('}', '', 'export interface components {', '  schemas: {');
  for (const [name, s] of Object.entries((doc.components?.schemas ?? {}) as Record<string, Schema>)) out.push(`    ${key(name)}: ${typeOf(s, '    ')};`);
  out.push('  };', '}', '');
  return out.join('\n');
}
