// What the kinds other than stacks share: deep equality, secrets resolved from a declaration, and the If-Match of sites and backups.
import type { Resolver } from './model.ts';

export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as any)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as any)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => same((a as any)[k], (b as any)[k]));
}

/** every string of a secret mapping resolved (${env:…}, ${file:…}); names without a value listed apart */
export function resolveSecrets(values: Record<string, unknown> | undefined, resolve: Resolver, where: string): { given: Record<string, string>; kept: string[] } {
  const given: Record<string, string> = {};
  const kept: string[] = [];
  for (const [k, v] of Object.entries(values ?? {})) {
    const value = resolve(v, `${where}.${k}`);
    if (value === null) kept.push(k); else given[k] = value;
  }
  return { given, kept };
}

/** sites and backups: the ETag is their updatedAt as the API answers it, quoted; If-Match on it, or If-None-Match: * to create */
export const expected = (updatedAt: unknown): Record<string, string> => (updatedAt ? { 'if-match': `"${String(updatedAt)}"` } : { 'if-none-match': '*' });
