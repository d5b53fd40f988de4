// Compose variable interpolation: $VAR, ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?err}, ${VAR?err}, ${VAR:+alt}, ${VAR+alt}, $$.
import type { ComposeIssue } from '../types.ts';

const nameStart = /[A-Za-z_]/;
const nameChar = /[A-Za-z0-9_]/;

export interface InterpolationContext {
  variables: Record<string, string>;
  errors: ComposeIssue[];
  warnings: ComposeIssue[];
}

/** the index of the `}` closing the `${` whose body starts at `from`, counting nested `${…}`; -1 if none. */
function closing(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    if (text[i] === '$' && text[i + 1] === '$') { i++; continue; }
    if (text[i] === '$' && text[i + 1] === '{') { depth++; i++; continue; }
    if (text[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

/** interpolates one string; problems are added to ctx under `path`. */
export function interpolate(text: string, path: string, ctx: InterpolationContext): string {
  if (!text.includes('$')) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '$') { out += c; continue; }
    const next = text[i + 1];
    if (next === '$') { out += '$'; i++; continue; }
    if (next !== undefined && nameStart.test(next)) {
      let j = i + 1;
      while (j < text.length && nameChar.test(text[j])) j++;
      out += lookup(text.slice(i + 1, j), path, ctx);
      i = j - 1;
      continue;
    }
    if (next === '{') {
      const end = closing(text, i + 2);
      if (end < 0) {
        ctx.errors.push({ path, message: `invalid interpolation: "${text}" has a "\${" without its closing "}"` });
        return text;
      }
      const value = braced(text.slice(i + 2, end), text, path, ctx);
      if (value === null) return text;
      out += value;
      i = end;
      continue;
    }
    ctx.errors.push({ path, message: `invalid interpolation: "${text}" has a lone "$" (write "$$" for a literal dollar sign)` });
    return text;
  }
  return out;
}

function lookup(name: string, path: string, ctx: InterpolationContext): string {
  const value = ctx.variables[name];
  if (value !== undefined) return value;
  ctx.warnings.push({ path, message: `the variable ${name} is not set; using an empty string` });
  return '';
}

/** the value of one `${…}` body, or null after recording an error. */
function braced(body: string, whole: string, path: string, ctx: InterpolationContext): string | null {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([\s\S]*))?$/.exec(body);
  if (!m) {
    ctx.errors.push({ path, message: `invalid interpolation: "\${${body}}" in "${whole}" is not \${NAME}, \${NAME:-default}, \${NAME:?error} or \${NAME:+alternative}` });
    return null;
  }
  const [, name, op, rest = ''] = m;
  const value = ctx.variables[name];
  if (!op) return lookup(name, path, ctx);
  const colon = op.startsWith(':');
  // with a colon an empty value counts as unset, as in the shell
  const set = colon ? value !== undefined && value !== '' : value !== undefined;
  switch (op.at(-1)) {
    case '-':
      return set ? value! : interpolate(rest, path, ctx);
    case '+':
      return set ? interpolate(rest, path, ctx) : '';
    default: {
      if (set) return value!;
      const why = interpolate(rest, path, ctx);
      ctx.errors.push({ path, message: `the variable ${name} is required${colon ? ' and must not be empty' : ''}${why ? `: ${why}` : ''}` });
      return null;
    }
  }
}

/** interpolates every string value of a parsed YAML document (keys are left alone, as compose does); `x-` extension fields too. */
export function interpolateTree(value: unknown, path: string, ctx: InterpolationContext, ancestors: object[] = []): unknown {
  if (typeof value === 'string') return interpolate(value, path, ctx);
  if (!value || typeof value !== 'object') return value;
  // a YAML alias may point at its own ancestor
  if (ancestors.includes(value)) {
    ctx.errors.push({ path, message: 'a YAML alias refers to a node that contains it' });
    return null;
  }
  const inner = [...ancestors, value];
  if (Array.isArray(value)) return value.map((v, i) => interpolateTree(v, `${path}[${i}]`, ctx, inner));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = interpolateTree(v, path ? `${path}.${k}` : k, ctx, inner);
  return out;
}
