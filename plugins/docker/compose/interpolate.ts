// Compose variable interpolation: $VAR, ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?err}, ${VAR?err}, ${VAR:+alt}, ${VAR+alt}, $$; and the walk over the whole document, within the limits.
import { composeLimits } from './limits.ts';
import { Override } from './tags.ts';
import type { Issues } from './issues.ts';

const nameStart = /[A-Za-z_]/;
const nameChar = /[A-Za-z0-9_]/;

export interface InterpolationContext {
  variables: Record<string, string>;
  issues: Issues;
  /** unset variables already warned about: one warning per name, however often it is used */
  warned: Set<string>;
}

/** the deepest nesting of `${` in text, in one pass, so a value nested past the limit is refused before any recursion */
function nesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = text.indexOf('$'); i >= 0 && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 36 /* $ */) {
      const next = text.charCodeAt(i + 1);
      if (next === 36) i++;
      else if (next === 123 /* { */) { i++; if (++depth > deepest) deepest = depth; }
    } else if (c === 125 /* } */ && depth > 0) depth--;
  }
  return deepest;
}

/** a value as error messages show it: long ones cut, since the answer should name the problem, not repeat the file */
const shown = (text: string) => JSON.stringify(text.length > 120 ? `${text.slice(0, 100)}…` : text);

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

/**
 * interpolates one string; problems are added to ctx under `path`. Recursion only follows `${…}` nesting, which is
 * checked against its limit first, and each level scans its own text once: linear in the text for any input.
 */
export function interpolate(text: string, path: string, ctx: InterpolationContext): string {
  if (!text.includes('$')) return text;
  const deepest = nesting(text);
  if (deepest > composeLimits.maxInterpolationDepth) {
    ctx.issues.stop('maxInterpolationDepth', path, `"\${" is nested ${deepest} levels deep: at most ${composeLimits.maxInterpolationDepth} are allowed`);
  }
  return expand(text, path, ctx);
}

function expand(text: string, path: string, ctx: InterpolationContext): string {
  let out = '';
  let from = 0;
  for (let i = text.indexOf('$'); i >= 0; i = text.indexOf('$', from)) {
    out += text.slice(from, i);
    const next = text[i + 1];
    if (next === '$') { out += '$'; from = i + 2; continue; }
    if (next !== undefined && nameStart.test(next)) {
      let j = i + 1;
      while (j < text.length && nameChar.test(text[j])) j++;
      out += lookup(text.slice(i + 1, j), path, ctx);
      from = j;
      continue;
    }
    if (next === '{') {
      const end = closing(text, i + 2);
      if (end < 0) {
        ctx.issues.error(path, `invalid interpolation: ${shown(text)} has a "\${" without its closing "}"`);
        return text;
      }
      const value = braced(text.slice(i + 2, end), text, path, ctx);
      if (value === null) return text;
      out += value;
      from = end + 1;
      continue;
    }
    ctx.issues.error(path, `invalid interpolation: ${shown(text)} has a lone "$" (write "$$" for a literal dollar sign)`);
    return text;
  }
  return out + text.slice(from);
}

/** a variable's value; it counts against the text limit, since `$A` of two characters may stand for 64 KiB */
function lookup(name: string, path: string, ctx: InterpolationContext): string {
  const value = ctx.variables[name];
  if (value !== undefined) {
    ctx.issues.take('maxText', value.length, path, 'characters once variables are interpolated');
    return value;
  }
  if (!ctx.warned.has(name)) {
    ctx.warned.add(name);
    ctx.issues.warn(path, `the variable ${name} is not set; using an empty string`);
  }
  return '';
}

/** the value of one `${…}` body, or null after recording an error. */
function braced(body: string, whole: string, path: string, ctx: InterpolationContext): string | null {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([\s\S]*))?$/.exec(body);
  if (!m) {
    ctx.issues.error(path, `invalid interpolation: ${shown(`\${${body}}`)} in ${shown(whole)} is not \${NAME}, \${NAME:-default}, \${NAME:?error} or \${NAME:+alternative}`);
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
      return set ? lookup(name, path, ctx) : expand(rest, path, ctx);
    case '+':
      return set ? expand(rest, path, ctx) : '';
    default: {
      if (set) return lookup(name, path, ctx);
      const why = expand(rest, path, ctx);
      ctx.issues.error(path, `the variable ${name} is required${colon ? ' and must not be empty' : ''}${why ? `: ${why}` : ''}`);
      return null;
    }
  }
}

/**
 * interpolates every string value of a parsed YAML document (keys are left alone, as compose does); `x-` extension fields too.
 * It copies the document, so aliases (one node, many places) are expanded here: every value, character and level of
 * nesting counts against the limits, and a limit passed stops the walk at once.
 */
export function interpolateTree(value: unknown, path: string, ctx: InterpolationContext, depth = 0, ancestors = new Set<object>()): unknown {
  const { issues } = ctx;
  issues.take('maxNodes', 1, path, 'YAML values once aliases and merges are expanded');
  if (typeof value === 'string') {
    issues.take('maxText', value.length, path, 'characters once aliases are expanded');
    return interpolate(value, path, ctx);
  }
  if (!value || typeof value !== 'object') return value;
  if (value instanceof Override) return new Override(interpolateTree(value.value, path, ctx, depth, ancestors));
  if (depth >= composeLimits.maxDepth) ctx.issues.stop('maxDepth', path, `values are nested more than ${composeLimits.maxDepth} levels deep once aliases are expanded`);
  // a YAML alias may point at its own ancestor
  if (ancestors.has(value)) {
    ctx.issues.error(path, 'a YAML alias refers to a node that contains it');
    return null;
  }
  ancestors.add(value);
  let out: unknown;
  if (Array.isArray(value)) {
    out = value.map((v, i) => interpolateTree(v, `${path}[${i}]`, ctx, depth + 1, ancestors));
  } else {
    const map: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      issues.take('maxText', k.length, path, 'characters once aliases are expanded');
      const copy = interpolateTree(v, path ? `${path}.${k}` : k, ctx, depth + 1, ancestors);
      // a key "__proto__" is data, as the YAML parser keeps it, never the copy's prototype
      if (k === '__proto__') Object.defineProperty(map, k, { value: copy, enumerable: true, writable: true, configurable: true });
      else map[k] = copy;
    }
    out = map;
  }
  ancestors.delete(value);
  return out;
}
