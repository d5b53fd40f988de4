// Archive uploads (tar, tar.gz, zip), the one unpacker of the service: streamed into an empty folder within a byte and time budget, checked entry by entry and as a whole before any link is made; a refusal leaves nothing.
import PQueue from 'p-queue';
import { createWriteStream } from 'node:fs';
import { link, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { locate, tooLong } from '../../sdk/index.ts';
import { ArchiveRefused, ByteBudget, readTar, readZip, type ArchiveFormat, type EntryData, type IncomingEntry } from './archive-read.ts';

export { ArchiveRefused, type ArchiveFormat };

export interface ArchiveLimits {
  maxEntries: number;
  /** decompressed bytes, counted as they stream: file contents, headers, padding and extended headers alike */
  maxBytes: number;
  /** how long one archive may take to unpack */
  timeoutMs?: number;
}
/** the documented archive limits of an install (plugins.git.options); a plugin unpacking archives may lower them, never raise them */
export const defaultArchiveLimits: Readonly<Required<ArchiveLimits>> = Object.freeze({ maxEntries: 20_000, maxBytes: 1024 * 1024 * 1024, timeoutMs: 120_000 });

interface Entry {
  /** normalised, relative, `/`-separated; null: stripped away or the root itself */
  path: string | null;
  raw: string;
  type: 'file' | 'dir' | 'symlink' | 'hardlink';
  size: number;
  mode: number;
  target?: string;
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
function check(entries: Entry[]): void {
  const kinds = new Map<string, Entry['type']>();
  for (const e of entries) {
    if (e.path === null) continue;
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

/** what a file no larger than this costs is read whole and written beside others (20,000 small files are not 20,000 writes in a row) */
const smallFile = 256 * 1024;
const fileMode = (m: number) => (m & 0o755) | 0o600;
const parentOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

/**
 * The tree being written: entries arrive in archive order and are judged by what is known so far (names, kinds,
 * duplicates, counts, claimed sizes); file content is written at once, in folders this writer made (no link exists in
 * the tree until `finish` has judged the whole list).
 */
class TreeWriter {
  readonly entries: Entry[] = [];
  private readonly kinds = new Map<string, Entry['type']>();
  private readonly dirs = new Set<string>(['']);
  private claimed = 0;
  private readonly writes = new PQueue({ concurrency: 16 });
  private writeFailure: unknown = null;

  constructor(private readonly dest: string, private readonly limits: ArchiveLimits & { strip: number }, private readonly signal: AbortSignal) {}

  readonly add = async (incoming: IncomingEntry): Promise<void> => {
    const { raw, type } = incoming;
    if (typeof type !== 'string') throw new ArchiveRefused(`entry ${shown(raw)} is a ${type.unsupported}: only files, folders and links are accepted`);
    const path = normalise(raw, this.limits.strip);
    const e = { path, raw, type, size: incoming.size, mode: incoming.mode, target: incoming.target };
    this.entries.push(e);
    if (this.entries.length > this.limits.maxEntries) throw new ArchiveRefused(`the archive has more than ${this.limits.maxEntries} entries`, 413);
    if (path === null) {
      incoming.data?.resume();
      return;
    }
    this.claimed += type === 'file' ? e.size : 0;
    if (this.claimed > this.limits.maxBytes) throw new ArchiveRefused(`the archive unpacks to more than ${this.limits.maxBytes} bytes`, 413);
    this.place({ ...e, path });
    if (type === 'dir') return this.ensureDir(path);
    if (type !== 'file') return;
    await this.ensureDir(parentOf(path));
    await this.write(join(this.dest, path), e, incoming.data!);
  };

  /** a name taken twice, or a file where a folder is (or below one): refused now, before a write fails on it */
  private place(e: Entry & { path: string }): void {
    const before = this.kinds.get(e.path);
    if (before && !(before === 'dir' && e.type === 'dir')) throw new ArchiveRefused(`entry ${shown(e.raw)} appears twice`);
    // a folder made for entries listed before this one
    if (!before && e.type !== 'dir' && this.dirs.has(e.path)) {
      throw new ArchiveRefused(`entries lie below a ${e.type === 'symlink' ? 'symbolic link' : e.type === 'file' ? 'file' : 'hard link'}: ${shown(e.raw)}`);
    }
    const parts = e.path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const above = this.kinds.get(parts.slice(0, i).join('/'));
      if (above && above !== 'dir') throw new ArchiveRefused(`entry ${shown(e.raw)} lies below a ${above === 'symlink' ? 'symbolic link' : 'file'}`);
    }
    this.kinds.set(e.path, e.type);
  }

  private async ensureDir(rel: string): Promise<void> {
    if (this.dirs.has(rel)) return;
    await mkdir(join(this.dest, rel), { recursive: true, mode: 0o755 });
    for (let p = rel; p && !this.dirs.has(p); p = parentOf(p)) this.dirs.add(p);
  }

  private async write(to: string, e: Entry, data: EntryData): Promise<void> {
    if (this.writeFailure) throw this.writeFailure;
    const options = { flag: 'wx', mode: fileMode(e.mode) };
    if (e.size > smallFile) {
      await pipeline(data, createWriteStream(to, { flags: 'wx', mode: options.mode }), { signal: this.signal }).catch((err) => { throw locate(err, to); });
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of data as AsyncIterable<Buffer>) chunks.push(chunk);
    const content = Buffer.concat(chunks);
    void this.writes.add(() => writeFile(to, content, options)).catch((err: unknown) => { this.writeFailure ??= locate(err as Error, to); });
    // the parser waits while many small files are on their way to the disk: memory stays a few MiB
    await this.writes.onSizeLessThan(64);
  }

  /** the whole list judged (links against every entry), then the links made: nothing is ever written through one */
  async finish(): Promise<Omit<Extracted, 'format'>> {
    await this.writes.onIdle();
    if (this.writeFailure) throw this.writeFailure;
    check(this.entries);
    for (const e of this.entries) {
      if (e.path === null) continue;
      if (e.type === 'hardlink') await link(join(this.dest, e.target!), join(this.dest, e.path));
      if (e.type === 'symlink') await symlink(e.target!, join(this.dest, e.path));
    }
    const files = this.entries.filter((e) => e.path !== null && e.type !== 'dir');
    return { files: files.length, bytes: files.reduce((n, e) => n + (e.type === 'file' ? e.size : 0), 0) };
  }

  /** after a refusal: whatever a write still in flight does, the folder goes */
  async abandon(): Promise<void> {
    this.writes.clear();
    await this.writes.onIdle().catch(() => undefined);
    await rm(this.dest, { recursive: true, force: true });
  }
}

export interface Extracted { format: ArchiveFormat; files: number; bytes: number }

/**
 * Streams the archive into `dest`, which must not exist yet: at most `maxBytes` decompressed and `timeoutMs` spent,
 * entries judged as they come and all together before any link is made. On a refusal (or a failed write) `dest` is
 * removed again: nothing of the archive is left. Two archives are unpacked at a time; the time budget starts when its
 * turn comes.
 */
export async function extractArchive(buf: Buffer, dest: string, opts: ArchiveLimits & { strip: number }): Promise<Extracted> {
  const format = formatOf(buf);
  if (!format) throw new ArchiveRefused('the upload is not a tar, tar.gz or zip archive', 415);
  return unpacking.add(() => extractNow(buf, dest, format, opts), { throwOnTimeout: true });
}

/** archives unpacked at once, by the whole process: more wait their turn, so a flood of uploads costs two cores at most */
const unpacking = new PQueue({ concurrency: 2 });

async function extractNow(buf: Buffer, dest: string, format: ArchiveFormat, opts: ArchiveLimits & { strip: number }): Promise<Extracted> {
  const timeoutMs = opts.timeoutMs ?? defaultArchiveLimits.timeoutMs;
  const budget = new ByteBudget(opts.maxBytes);
  await mkdir(dest, { recursive: false, mode: 0o755 });
  const signal = AbortSignal.timeout(timeoutMs);
  const tree = new TreeWriter(dest, opts, signal);
  try {
    if (format === 'zip') await readZip(buf, budget, tree.add, signal, opts.maxEntries);
    else await readTar(buf, format === 'tar.gz', budget, tree.add, signal);
    return { ...(await tree.finish()), format };
  } catch (err) {
    await tree.abandon();
    if (signal.aborted) throw new ArchiveRefused(`unpacking the archive took longer than ${timeoutMs / 1000} s`);
    throw err;
  }
}
