// What every catalogue reader shares: its result, the limits it reads within, and a small pool for many files at once.
import type { SourceError } from '../catalogue.ts';
import type { SourceFiles } from '../files.ts';
import type { Template } from '../format.ts';

export interface ReadResult { templates: Template[]; invalid: SourceError[] }

/**
 * Reads a catalogue through `files`, starting from its index file `entry`; `pin` is given the index's bytes before
 * anything is parsed (it throws when a sha256 pin does not match). Errors of the source as a whole are thrown; an
 * entry that cannot be read is one of `invalid`.
 */
export type CatalogueReader = (files: SourceFiles, entry: string, source: string, pin: (index: Buffer) => void) => Promise<ReadResult>;

/** the index file, checked against the pin */
export async function readIndex(files: SourceFiles, entry: string, pin: (index: Buffer) => void): Promise<Buffer> {
  const index = await files.read(entry, limits.indexBytes);
  pin(index);
  return index;
}

export const limits = { indexBytes: 8 * 1024 * 1024, fileBytes: 256 * 1024, templates: 2000, parallel: 16 };

/** runs fn over items, `parallel` at a time, in order of the results */
export async function pool<T, R>(items: readonly T[], fn: (item: T) => Promise<R>, parallel = limits.parallel): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => { while (next < items.length) { const i = next++; out[i] = await fn(items[i]); } };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker));
  return out;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON text, or a FetchError-like Error naming what it is */
export function parseJson(index: Buffer, what: string): unknown {
  try {
    return JSON.parse(index.toString('utf8'));
  } catch (err) {
    throw new Error(`${what} is not JSON: ${(err as Error).message}`);
  }
}
