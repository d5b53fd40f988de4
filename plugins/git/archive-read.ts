// Reading an archive as a stream of entries: every byte counted as it is decompressed, a tar's end found where its entries stop, nothing buffered beyond one header or one chunk.
import { pipeline as chain, Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Header } from 'tar-stream';
import type yauzl from 'yauzl';

/** why an archive is refused, with the HTTP status that says so */
export class ArchiveRefused extends Error {
  constructor(message: string, readonly status: 413 | 415 | 422 = 422) { super(message); }
}

export type ArchiveFormat = 'tar' | 'tar.gz' | 'zip';

/** one entry as the archive gives it: `type` is ours when we accept the kind, else the archive's own word for it */
export interface IncomingEntry {
  raw: string;
  type: 'file' | 'dir' | 'symlink' | 'hardlink' | { unsupported: string };
  size: number;
  mode: number;
  target?: string;
  /** a file's content; whoever takes the entry reads it to its end */
  data?: EntryData;
}
/** an entry's content: tar-stream's streamx Readable, or yauzl's node Readable */
export type EntryData = AsyncIterable<Buffer> & { resume(): unknown };
type EntrySink = (entry: IncomingEntry) => Promise<void>;

/**
 * Zero padding a tar may carry after its last entry: the end marker (two blocks) and the rest of its record. Tools
 * write records of 10,240 bytes; 64 KiB allows a blocking factor of 128. A gzip of zeros is all padding.
 */
const tarPaddingMax = 64 * 1024;
/** what the streams between the decompressor and the tar parser may hold at once: counted before the parser has seen it */
const inFlightMax = 256 * 1024;
const chunkSize = 64 * 1024;

const mib = (n: number) => (n >= 1024 * 1024 ? `${Math.round(n / 1024 / 1024)} MiB` : `${Math.round(n / 1024)} KiB`);

/** the decompressed bytes one extraction may cost (headers, padding and extended headers count, not only file sizes) */
export class ByteBudget {
  spent = 0;
  constructor(readonly max: number) {}
  take(n: number): void {
    this.spent += n;
    if (this.spent > this.max) throw new ArchiveRefused(`the archive unpacks to more than ${this.max} bytes`, 413);
  }
  /** a stream that passes bytes on while the budget lasts; `each` sees the running total */
  counter(each?: (total: number) => void): Transform {
    return new Transform({
      highWaterMark: chunkSize,
      transform: (chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) => {
        try {
          this.take(chunk.length);
          each?.(this.spent);
          done(null, chunk);
        } catch (err) {
          done(err as Error);
        }
      },
    });
  }
}

const tarTypes: Record<string, 'file' | 'dir' | 'symlink' | 'hardlink' | undefined> = {
  file: 'file', 'contiguous-file': 'file', directory: 'dir', symlink: 'symlink', link: 'hardlink',
};
const padded = (n: number) => n + ((512 - (n % 512)) % 512);

/** the input in chunks of 64 KiB: a Readable over a slice never copies it */
function* slices(buf: Buffer): Generator<Buffer> {
  for (let at = 0; at < buf.length; at += chunkSize) yield buf.subarray(at, at + chunkSize);
}

/** where a tar's data stands: the offset the next header must start at, and whether an entry was seen */
class TarEnd {
  nextHeaderAt = 0;
  entries = 0;
  /** refuses once more than the padding (and what the streams hold) lies past the last entry: zeros, or data after the end */
  watch(total: number, final: boolean): void {
    const beyond = total - this.nextHeaderAt;
    if (beyond <= tarPaddingMax + (final ? 0 : inFlightMax)) return;
    if (!this.entries) throw new ArchiveRefused(`no tar entry in the first ${mib(total)} unpacked: not a tar archive (a stream of zeros?)`);
    throw new ArchiveRefused(`${final ? `${beyond} bytes` : `more than ${mib(beyond)}`} follow the archive's last entry: only zero padding up to ${mib(tarPaddingMax)} may follow a tar's end`);
  }
}

/**
 * Streams a tar or tar.gz into `sink`, entry by entry, in order. The decompressed stream is counted against `budget`;
 * data after the gzip stream, or beyond the tar's padding, is refused.
 */
export async function readTar(buf: Buffer, gzipped: boolean, budget: ByteBudget, sink: EntrySink, signal: AbortSignal): Promise<void> {
  // loaded on the first upload: a service that never gets one does not carry it
  const { extract: tarExtract } = (await import('tar-stream')).default;
  const parser = tarExtract();
  const end = new TarEnd();
  let failure: unknown = null;
  parser.on('entry', (header, data, next) => {
    end.entries++;
    const sized = header.type === 'file' || header.type === 'contiguous-file';
    // the offset of the entry's data (tar-stream's count of the bytes it has parsed): the next header follows its padding
    end.nextHeaderAt = (header as Header & { byteOffset: number }).byteOffset + (sized ? padded(header.size ?? 0) : 0);
    const type = tarTypes[header.type] ?? { unsupported: header.type.replace(/-/g, ' ') };
    const entry: IncomingEntry = { raw: header.name, type, size: sized ? header.size ?? 0 : 0, mode: header.mode ?? 0o644, target: header.linkname ?? undefined, data: data as unknown as EntryData };
    sink(entry).then(() => next(), (err: unknown) => {
      failure ??= err;
      data.resume();
      next(err as Error);
    });
  });
  const gunzip = gzipped ? createGunzip({ chunkSize }) : null;
  const counter = budget.counter((total) => end.watch(total, false));
  try {
    const source = Readable.from(slices(buf), { objectMode: false });
    await (gunzip ? pipeline(source, gunzip, counter, parser, { signal }) : pipeline(source, counter, parser, { signal }));
  } catch (err) {
    // a refusal says most; a file's write cut short by it (a premature close) says nothing
    throw refusalOf([err, failure].find((e) => e instanceof ArchiveRefused) ?? failure ?? err, 'tar');
  }
  if (gunzip && gunzip.bytesWritten < buf.length) throw new ArchiveRefused(`${buf.length - gunzip.bytesWritten} bytes follow the end of the gzip stream`);
  end.watch(budget.spent, true);
}

/** what a failure while reading says: our refusals and write failures as they are, the parsers' words as a refusal */
function refusalOf(err: unknown, format: string): unknown {
  if (err instanceof ArchiveRefused) return err;
  if ((err as NodeJS.ErrnoException).syscall) return err;
  const e = err as Error & { code?: string };
  if (e.name === 'AbortError') return err;
  if (e.code?.startsWith('Z_')) return new ArchiveRefused(`not a readable gzip stream: ${e.message}`);
  return new ArchiveRefused(`not a readable ${format} archive: ${e.message}`);
}

// ---------------------------------------------------------------- zip

const S_IFMT = 0o170000;
const zipTypes: Record<number, 'file' | 'dir' | 'symlink' | undefined> = { 0o100000: 'file', 0o040000: 'dir', 0o120000: 'symlink' };

async function readLinkTarget(stream: Readable, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new ArchiveRefused('a symbolic link target is too long');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function nextZipEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | null> {
  return new Promise<yauzl.Entry | null>((resolveEntry, reject) => {
    zip.once('entry', resolveEntry);
    zip.once('end', () => resolveEntry(null));
    zip.once('error', reject);
    zip.readEntry();
  }).finally(() => { zip.removeAllListeners('entry'); zip.removeAllListeners('end'); zip.removeAllListeners('error'); });
}

/** Streams a zip into `sink`, entry by entry; each entry's inflated bytes are counted against `budget` (yauzl checks them against the sizes it claims) */
export async function readZip(buf: Buffer, budget: ByteBudget, sink: EntrySink, signal: AbortSignal, maxEntries: number): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await (await import('yauzl')).default.fromBufferPromise(buf, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true, strictFileNames: true });
  } catch (err) {
    throw new ArchiveRefused(`not a readable zip archive: ${(err as Error).message}`);
  }
  try {
    if (zip.entryCount > maxEntries) throw new ArchiveRefused(`the archive has more than ${maxEntries} entries`, 413);
    for (;;) {
      signal.throwIfAborted();
      const e = await nextZipEntry(zip).catch((err: Error) => { throw new ArchiveRefused(`the archive is refused: ${err.message}`); });
      if (!e) return;
      const unix = e.versionMadeBy >> 8 === 3;
      const mode = unix ? (e.externalFileAttributes >>> 16) & 0xffff : 0;
      const dir = e.fileName.endsWith('/');
      let type: IncomingEntry['type'] = dir ? 'dir' : 'file';
      if (unix && (mode & S_IFMT) !== 0) {
        const kind = zipTypes[mode & S_IFMT];
        type = kind && (kind === 'dir') === dir ? kind : { unsupported: 'special file (neither a file, a folder nor a symbolic link)' };
      }
      const entry: IncomingEntry = { raw: e.fileName, type, size: type === 'file' ? e.uncompressedSize : 0, mode: (mode & 0o777) || (dir ? 0o755 : 0o644) };
      // chain: a failure of yauzl's stream (a size it lied about) reaches the reader
      const open = async () => chain(await zip.openReadStreamPromise(e), budget.counter(), () => undefined);
      if (type === 'symlink') entry.target = await readLinkTarget(await open(), 4096);
      if (type === 'file') entry.data = await open();
      await sink(entry);
    }
  } catch (err) {
    throw refusalOf(err, 'zip');
  } finally {
    zip.close();
  }
}
