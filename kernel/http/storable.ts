// Strings PostgreSQL cannot store (NUL, lone UTF-16 surrogates): found anywhere in a request's input, they are refused as bad input.
import { problem } from '../../sdk/index.ts';

// NUL is refused by text and jsonb alike; a lone surrogate has no UTF-8 form and would be silently replaced
const unstorable = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * true when `value` holds no such string. It builds no paths, so the common case (every request's headers, params and
 * query) allocates next to nothing; the path is worked out only for a request that is refused.
 */
export function storable(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return !unstorable.test(value);
  if (typeof value !== 'object' || value === null) return true;
  if (depth > 32) return unstorablePath(value) === undefined; // deep bodies: the iterative walk below, no recursion
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!storable(value[i], depth + 1)) return false;
    return true;
  }
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    if (unstorable.test(k) || !storable((value as Record<string, unknown>)[k], depth + 1)) return false;
  }
  return true;
}

/** the JSON-pointer path of the first string (value or key) in `value` PostgreSQL cannot store, or undefined */
export function unstorablePath(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return unstorable.test(value) ? path || '/' : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  // iterative: a deeply nested body must not exhaust the stack here
  const stack: [unknown, string][] = [[value, path]];
  while (stack.length) {
    const [node, at] = stack.pop()!;
    if (typeof node === 'string') {
      if (unstorable.test(node)) return at || '/';
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], `${at}/${i}`]);
    } else if (typeof node === 'object' && node !== null) {
      for (const [k, v] of Object.entries(node)) {
        const key = k.replace(/~/g, '~0').replace(/\//g, '~1');
        if (unstorable.test(k)) return `${at}/${key}`;
        stack.push([v, `${at}/${key}`]);
      }
    }
  }
  return undefined;
}

/** 400 naming where the request carries such a string: the parts are checked in the order given */
export function assertStorable(parts: readonly [name: string, value: unknown][]): void {
  for (const [name, value] of parts) {
    if (storable(value)) continue;
    const at = unstorablePath(value);
    if (at !== undefined) {
      const where = `/${name}${at === '/' ? '' : at}`;
      throw problem(400, `${where} holds a NUL character or a lone UTF-16 surrogate, which cannot be stored`, {
        code: 'invalid-request', errors: [{ path: where, message: 'must not contain NUL or lone surrogates' }],
      });
    }
  }
}
