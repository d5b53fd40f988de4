// A folder as a gzipped ustar archive (what `dw sites upload` sends): regular files and folders only, links skipped, paths kept inside.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { gzipSync } from 'node:zlib';

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

/** a ustar header: a name over 100 bytes goes into the prefix field (up to 155 more, split at a slash) */
function header(path: string, size: number, mode: number, mtime: number, type: '0' | '5'): Buffer {
  const block = Buffer.alloc(512);
  let name = path;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const at = [...path.matchAll(/\//g)].map((m) => m.index!).find((i) => Buffer.byteLength(path.slice(i + 1)) <= 100 && Buffer.byteLength(path.slice(0, i)) <= 155);
    if (at === undefined) throw new Error(`path too long for an archive: ${path}`);
    prefix = path.slice(0, at);
    name = path.slice(at + 1);
  }
  block.write(name, 0, 100, 'utf8');
  block.write(octal(mode & 0o7777, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii');
  block.write(octal(0, 8), 116, 'ascii');
  block.write(octal(size, 12), 124, 'ascii');
  block.write(octal(Math.floor(mtime / 1000), 12), 136, 'ascii');
  block.write('        ', 148, 'ascii');
  block.write(type, 156, 'ascii');
  block.write('ustar\0' + '00', 257, 'ascii');
  block.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(octal(sum, 7) + ' ', 148, 'ascii');
  return block;
}

/** every regular file and folder under dir, as a .tar.gz; counts files */
export function archiveFolder(dir: string): { archive: Buffer; files: number } {
  const parts: Buffer[] = [];
  let files = 0;
  const walk = (abs: string, rel: string) => {
    for (const entry of readdirSync(abs, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = rel ? posix.join(rel, entry.name) : entry.name;
      const full = join(abs, entry.name);
      if (entry.isDirectory()) {
        const st = statSync(full);
        parts.push(header(`${path}/`, 0, st.mode, st.mtimeMs, '5'));
        walk(full, path);
      } else if (entry.isFile()) {
        const st = statSync(full);
        const data = readFileSync(full);
        parts.push(header(path, data.length, st.mode, st.mtimeMs, '0'), data, Buffer.alloc((512 - (data.length % 512)) % 512));
        files++;
      }
    }
  };
  walk(dir, '');
  parts.push(Buffer.alloc(1024));
  return { archive: gzipSync(Buffer.concat(parts)), files };
}
