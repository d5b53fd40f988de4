// Archive uploads (tar, tar.gz, zip): every entry is checked before anything is written, then the tree is written into an empty folder.
import PQueue from 'p-queue';
import { createWriteStream } from 'node:fs';
import { link, mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadEntry } from 'tar';
import type yauzl from 'yauzl';
import { locate, tooLong } from '../../sdk/index.ts';

export interface ArchiveLimits { maxEntries: number; maxBytes: number }
/** the documented archive limits of an install (plugins.git.options); a plugin unpacking archives may lower them, never raise them */
export const defaultArchiveLimits: Readonly<ArchiveLimits> = Object.freeze({ maxEntries: 20_000, maxBytes: 1024 * 1024 * 1024 });
export type ArchiveFormat = 'tar' | 'tar.gz' | 'zip';

/** why an archive is refused, with the HTTP status that says so */
export class ArchiveRefused extends Error {
  constructor(message: string, readonly status: 413 | 415 | 422 = 422) { super(message); }
}

interface Entry {
  /** normalised, relative, `/`-separated; null: stripped away or the root itself */
  path: string | null;
  raw: string;
  type: 'file' | 'dir' | 'symlink' | 'hardlink';
  size: number;
  mode: number;
  target?: string;
  zip?: yauzl.Entry;
}

export function formatOf(buf: Buffer): ArchiveFormat | null {
  if (buf.length >= 4 && buf[0] === 0x50 && buf[1] === 0x4b && ((buf[2] === 3 && buf[3] === 4) || (buf[2] === 5 && buf[3] === 6))) return 'zip';
  if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) return 'tar.gz';
  if (buf.length >= 512 && buf.toString('latin1', 257, 262) === 'ustar') return 'tar';
  return null;
}

const shown = (raw: string) => JSON.stringify(raw.length > 200 ? `${raw.slice(0, 200)}…` : raw);

function normalise(raw: string, strip: number): string | null {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new ArchiveRefused(`entry ${shown(raw)}: control characters in a name`);
  if (raw.includes('\\')) throw new ArchiveRefused(`entry ${shown(raw)}: backslashes in a name`);
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) throw new ArchiveRefused(`entry ${shown(raw)} has an absolute path`);
  const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw new ArchiveRefused(`entry ${shown(raw)} leads out of the tree (..)`);
  const kept = parts.slice(strip).join('/');
  // refused here, with every other rule, rather than failing halfway through the writes (ENAMETOOLONG)
  const long = tooLong(kept);
  if (long) throw new ArchiveRefused(`entry ${shown(raw)}: ${long}`);
  return kept || null;
}

/**
 * The rules, over the whole list before a byte is written: no entry below a link (a write could follow it out),
 * symbolic links lead to a place inside the tree without passing through another link, hard links name an earlier
 * file, no duplicates, and the entry count and total size stay within the limits. Links are judged against every
 * entry of the archive, not only the ones before them: extraction order must not matter.
 */
function check(entries: Entry[], limits: ArchiveLimits): void {
  if (entries.length > limits.maxEntries) throw new ArchiveRefused(`the archive has more than ${limits.maxEntries} entries`, 413);
  const kinds = new Map<string, Entry['type']>();
  let bytes = 0;
  for (const e of entries) {
    if (e.path === null) continue;
    bytes += e.size;
    if (bytes > limits.maxBytes) throw new ArchiveRefused(`the archive unpacks to more than ${limits.maxBytes} bytes`, 413);
    const before = kinds.get(e.path);
    if (before && !(before === 'dir' && e.type === 'dir')) throw new ArchiveRefused(`entry ${shown(e.raw)} appears twice`);
    kinds.set(e.path, e.type);
  }
  const earlierFiles = new Set<string>();
  for (const e of entries) {
    if (e.path === null) continue;
    const parts = e.path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const above = kinds.get(parts.slice(0, i).join('/'));
      if (above && above !== 'dir') throw new ArchiveRefused(`entry ${shown(e.raw)} lies below a ${above === 'symlink' ? 'symbolic link' : 'file'}`);
    }
    if (e.type === 'symlink') {
      const target = e.target ?? '';
      if (!target || target.startsWith('/') || /[\x00-\x1f\x7f\\]/.test(target)) throw new ArchiveRefused(`symbolic link ${shown(e.raw)} points to ${shown(target)}, outside the tree`);
      const long = tooLong(target);
      if (long) throw new ArchiveRefused(`symbolic link ${shown(e.raw)} points to ${shown(target)}: ${long}`);
      const at = parts.slice(0, -1);
      const steps = target.split('/').filter((p) => p !== '' && p !== '.');
      steps.forEach((step, i) => {
        if (step === '..') {
          if (!at.length) throw new ArchiveRefused(`symbolic link ${shown(e.raw)} points to ${shown(target)}, outside the tree`);
          at.pop();
          return;
        }
        at.push(step);
        // a link through a link could climb from wherever the other one lands
        if (i < steps.length - 1 && kinds.get(at.join('/')) === 'symlink') throw new ArchiveRefused(`symbolic link ${shown(e.raw)} points through another link`);
      });
    }
    if (e.type === 'hardlink') {
      const target = e.target === undefined ? null : normalise(e.target, 0);
      if (!target || !earlierFiles.has(target)) throw new ArchiveRefused(`hard link ${shown(e.raw)} must name a file earlier in the archive`);
      e.target = target;
    }
    if (e.type === 'file') earlierFiles.add(e.path);
  }
}

// ---------------------------------------------------------------- tar

const tarTypes: Record<string, Entry['type'] | undefined> = {
  File: 'file', OldFile: 'file', ContiguousFile: 'file', Directory: 'dir', SymbolicLink: 'symlink', Link: 'hardlink',
};

/** reads the tar (gzip detected by the parser) entry by entry; `each` may consume the entry's data, else it is skipped */
async function readTar(buf: Buffer, each: (entry: ReadEntry) => void | Promise<void>): Promise<void> {
  // loaded on the first upload: a service that never gets one does not carry them
  const { Parser } = await import('tar');
  const parser = new Parser({ strict: true, maxDecompressionRatio: 10_000 });
  const pending: Promise<void>[] = [];
  let failure: unknown = null;
  let ownFailure: unknown = null;
  parser.on('entry', (entry: ReadEntry) => {
    pending.push((async () => each(entry))().catch((err: unknown) => {
      ownFailure ??= err;
      entry.resume();
      parser.abort(err instanceof Error ? err : new Error(String(err)));
    }));
  });
  const chunks = function* () { for (let at = 0; at < buf.length; at += 65536) yield buf.subarray(at, at + 65536); };
  try {
    await pipeline(Readable.from(chunks()), parser as unknown as NodeJS.WritableStream);
  } catch (err) {
    failure ??= err;
  }
  await Promise.all(pending);
  // what `each` threw (a refusal, or a failed write) says more than the abort it caused
  if (ownFailure !== null) throw ownFailure;
  if (failure === null) return;
  throw new ArchiveRefused(`not a readable tar archive: ${(failure as Error).message}`);
}

async function listTar(buf: Buffer, strip: number, limits: ArchiveLimits): Promise<Entry[]> {
  const entries: Entry[] = [];
  await readTar(buf, (e) => {
    e.resume();
    const type = tarTypes[e.type];
    if (!type) throw new ArchiveRefused(`entry ${shown(e.path)} is a ${e.type}: only files, folders and links are accepted`);
    entries.push({ path: normalise(e.path, strip), raw: e.path, type, size: type === 'file' ? e.size : 0, mode: e.mode ?? 0o644, target: e.linkpath });
    // stop reading a bomb early: the full check runs once the list is complete
    if (entries.length > limits.maxEntries) throw new ArchiveRefused(`the archive has more than ${limits.maxEntries} entries`, 413);
  });
  return entries;
}

// ---------------------------------------------------------------- zip

const S_IFMT = 0o170000;
const zipTypes: Record<number, Entry['type'] | undefined> = { 0o100000: 'file', 0o040000: 'dir', 0o120000: 'symlink' };

async function readAll(stream: NodeJS.ReadableStream, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new ArchiveRefused('a symbolic link target is too long');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function listZip(zip: yauzl.ZipFile, strip: number, limits: ArchiveLimits): Promise<Entry[]> {
  if (zip.entryCount > limits.maxEntries) throw new ArchiveRefused(`the archive has more than ${limits.maxEntries} entries`, 413);
  const entries: Entry[] = [];
  for (;;) {
    const e = await new Promise<yauzl.Entry | null>((resolveEntry, reject) => {
      zip.once('entry', resolveEntry);
      zip.once('end', () => resolveEntry(null));
      zip.once('error', reject);
      zip.readEntry();
    }).finally(() => { zip.removeAllListeners('entry'); zip.removeAllListeners('end'); zip.removeAllListeners('error'); });
    if (!e) return entries;
    const unix = e.versionMadeBy >> 8 === 3;
    const mode = unix ? (e.externalFileAttributes >>> 16) & 0xffff : 0;
    const dir = e.fileName.endsWith('/');
    let type: Entry['type'] | undefined = dir ? 'dir' : 'file';
    if (unix && (mode & S_IFMT) !== 0) {
      type = zipTypes[mode & S_IFMT];
      if (!type || (type === 'dir') !== dir) throw new ArchiveRefused(`entry ${shown(e.fileName)} is neither a file, a folder nor a symbolic link`);
    }
    const entry: Entry = { path: normalise(e.fileName, strip), raw: e.fileName, type, size: type === 'file' ? e.uncompressedSize : 0, mode: (mode & 0o777) || (dir ? 0o755 : 0o644), zip: e };
    if (type === 'symlink') entry.target = await readAll(await zip.openReadStreamPromise(e), 4096);
    entries.push(entry);
  }
}

// ---------------------------------------------------------------- both

/** runs at most `n` of the given tasks at a time (a p-queue of that width) */
function slots(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  const queue = new PQueue({ concurrency: n });
  return (task) => queue.add(task, { throwOnTimeout: true });
}

export interface Extracted { format: ArchiveFormat; files: number; bytes: number }

/**
 * Checks every entry of the archive, then writes the tree into `dest`, which must not exist yet.
 * On refusal nothing is written at all; on a failure while writing, the caller removes `dest`.
 */
export async function extractArchive(buf: Buffer, dest: string, opts: ArchiveLimits & { strip: number }): Promise<Extracted> {
  const format = formatOf(buf);
  if (!format) throw new ArchiveRefused('the upload is not a tar, tar.gz or zip archive', 415);
  let zip: yauzl.ZipFile | null = null;
  try {
    if (format === 'zip') {
      try {
        zip = await (await import('yauzl')).default.fromBufferPromise(buf, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true, strictFileNames: true });
      } catch (err) {
        throw new ArchiveRefused(`not a readable zip archive: ${(err as Error).message}`);
      }
    }
    let entries: Entry[];
    try {
      entries = zip ? await listZip(zip, opts.strip, opts) : await listTar(buf, opts.strip, opts);
    } catch (err) {
      // yauzl refuses names with .. or absolute paths itself; its words are clear enough
      throw err instanceof ArchiveRefused ? err : new ArchiveRefused(`the archive is refused: ${(err as Error).message}`);
    }
    check(entries, opts);

    await mkdir(dest, { recursive: false, mode: 0o755 });
    const dirs = new Set<string>(['']);
    const ensureDir = async (rel: string) => {
      if (dirs.has(rel)) return;
      await mkdir(join(dest, rel), { recursive: true, mode: 0o755 });
      for (let p = rel; p && !dirs.has(p); p = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '') dirs.add(p);
    };
    for (const e of entries) {
      if (e.path === null) continue;
      await ensureDir(e.type === 'dir' ? e.path : e.path.includes('/') ? e.path.slice(0, e.path.lastIndexOf('/')) : '');
    }
    // only regular file content is written from the stream; links come last so nothing is ever written through one
    const fileMode = (m: number) => (m & 0o755) | 0o600;
    if (zip) {
      for (const e of entries) {
        if (e.path === null || e.type !== 'file') continue;
        const to = join(dest, e.path);
        await pipeline(await zip.openReadStreamPromise(e.zip!), createWriteStream(to, { flags: 'wx', mode: fileMode(e.mode) })).catch((err) => { throw locate(err, to); });
      }
    } else {
      let i = 0;
      // the parser hands out the next entry once this one is read: an entry waits here for a free slot, so 20,000 small
      // files are not 20,000 open files at once (EMFILE)
      const slot = slots(64);
      await readTar(buf, async (entry) => {
        const e = entries[i++];
        if (!e || e.path === null || e.type !== 'file') { entry.resume(); return; }
        const to = join(dest, e.path);
        await slot(() => pipeline(entry as unknown as AsyncIterable<Buffer>, createWriteStream(to, { flags: 'wx', mode: fileMode(e.mode) })).catch((err) => { throw locate(err, to); }));
      });
    }
    for (const e of entries) {
      if (e.path === null) continue;
      if (e.type === 'hardlink') await link(join(dest, e.target!), join(dest, e.path));
      if (e.type === 'symlink') await symlink(e.target!, join(dest, e.path));
    }
    const files = entries.filter((e) => e.path !== null && e.type !== 'dir');
    return { format, files: files.length, bytes: files.reduce((n, e) => n + e.size, 0) };
  } finally {
    zip?.close();
  }
}
