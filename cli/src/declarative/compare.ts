// What the kinds without revisions share: deep equality, secrets resolved from a declaration, and the re-read before a write that turns a change made since the plan into a conflict.
import type { Client } from '../client.ts';
import { RequestRefused } from '../client.ts';
import { conflict } from './conflicts.ts';
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

/**
 * These resources have no revision the API compares: dw reads the resource again just before the write and stops with a
 * conflict when it differs from what the plan read (`marker`: its updatedAt, or null when it did not exist).
 */
export async function unchangedSince(client: Client, kind: string, name: string, path: string, marker: unknown, markerOf: (body: any) => unknown): Promise<void> {
  let now: unknown = null;
  try { now = markerOf((await client.any('get', path)).body); } catch (err) { if (!(err instanceof RequestRefused) || err.status !== 404) throw err; }
  if (!same(now, marker)) throw conflict(kind, name, now === null ? 'it was removed' : marker === null ? 'it was created' : `updated at ${String(now)}`);
}
