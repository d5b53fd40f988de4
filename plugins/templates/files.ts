// Where a source's files are read from: an HTTPS base URL (through the outbound policy, no redirects) or a checked-out git tree; sizes and times bounded.
import { readFile, realpath, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { Dispatcher } from 'undici';

/** the files of one source, by path relative to its base */
export interface SourceFiles {
  read(path: string, maxBytes: number): Promise<Buffer>;
  /** whether the file is there (a git tree; over HTTPS every file is asked for) */
  has?(path: string): Promise<boolean>;
  /** the folders directly under a folder (a git tree only) */
  folders?(path: string): Promise<string[]>;
  /** the address a browser would load the file from (an HTTPS source only: a logo) */
  urlOf?(path: string): string;
}

/** a file the source could not give: the message names it */
export class FetchError extends Error {}

const timeoutMs = 15_000;

/** files under an https:// base URL; `dispatcher` connects only where the outbound policy allows */
export function httpFiles(base: URL, dispatcher: Dispatcher): SourceFiles {
  return {
    urlOf: (path) => new URL(path, base).href,
    async read(path, maxBytes) {
      const url = new URL(path, base);
      if (url.origin !== base.origin) throw new FetchError(`${path} leads out of the source (${url.origin})`);
      const { request } = await import('undici');
      let res;
      try {
        res = await request(url, { method: 'GET', dispatcher, headers: { accept: 'application/json, text/plain, */*' }, signal: AbortSignal.timeout(timeoutMs), maxRedirections: 0 } as Parameters<typeof request>[1]);
      } catch (err) {
        throw new FetchError(`fetching ${url.href}: ${(err as Error).message}`);
      }
      if (res.statusCode !== 200) {
        res.body.resume();
        throw new FetchError(`fetching ${url.href}: HTTP ${res.statusCode}`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) {
          res.body.destroy();
          throw new FetchError(`${url.href} is larger than ${maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      return Buffer.concat(chunks);
    },
  };
}

/** files of a checked-out tree; a path (or a link in it) leading out of the tree is refused */
export function treeFiles(root: string): SourceFiles {
  const inside = async (path: string) => {
    const full = resolve(root, path);
    const real = await realpath(full).catch(() => null);
    const top = await realpath(root);
    if (!real) throw new FetchError(`${path} is not in the repository`);
    if (real !== top && !real.startsWith(top + sep)) throw new FetchError(`${path} leads out of the repository`);
    return real;
  };
  return {
    async read(path, maxBytes) {
      const full = await inside(path);
      const info = await stat(full);
      if (!info.isFile()) throw new FetchError(`${path} is not a file`);
      if (info.size > maxBytes) throw new FetchError(`${path} is larger than ${maxBytes} bytes`);
      return readFile(full);
    },
    has: async (path) => inside(path).then((p) => stat(p)).then((s) => s.isFile(), () => false),
    async folders(path) {
      const { readdir } = await import('node:fs/promises');
      const full = await inside(path);
      return (await readdir(full, { withFileTypes: true })).filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name).sort();
    },
  };
}
