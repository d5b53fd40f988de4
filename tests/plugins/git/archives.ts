// Test archives built byte by byte, so they can hold what no well-behaved tool writes (.., absolute paths, links out, devices).
import { gzipSync } from 'node:zlib';
import { strToU8, zipSync, type Zippable } from 'fflate';

export interface TestEntry {
  name: string;
  type?: 'file' | 'dir' | 'symlink' | 'hardlink' | 'chardev';
  content?: string;
  target?: string;
  mode?: number;
}

const flags = { file: '0', hardlink: '1', symlink: '2', chardev: '3', dir: '5' } as const;

function field(block: Buffer, at: number, length: number, value: string): void {
  block.write(value.slice(0, length), at, length, 'utf8');
}
const octal = (n: number, width: number) => `${n.toString(8).padStart(width - 1, '0')}\0`;

export function tar(entries: TestEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const type = e.type ?? 'file';
    const data = Buffer.from(type === 'file' ? e.content ?? '' : '');
    const header = Buffer.alloc(512);
    field(header, 0, 100, e.name);
    field(header, 100, 8, octal(e.mode ?? (type === 'dir' ? 0o755 : 0o644), 8));
    field(header, 108, 8, octal(0, 8));
    field(header, 116, 8, octal(0, 8));
    field(header, 124, 12, octal(data.length, 12));
    field(header, 136, 12, octal(Math.floor(Date.now() / 1000), 12));
    field(header, 148, 8, '        ');
    field(header, 156, 1, flags[type]);
    field(header, 157, 100, e.target ?? '');
    field(header, 257, 6, 'ustar\0');
    field(header, 263, 2, '00');
    let sum = 0;
    for (const byte of header) sum += byte;
    field(header, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export const tgz = (entries: TestEntry[]) => gzipSync(tar(entries));

export function zip(entries: TestEntry[]): Buffer {
  const files: Zippable = {};
  for (const e of entries) {
    const type = e.type ?? 'file';
    const kind = type === 'symlink' ? 0o120000 : type === 'dir' ? 0o040000 : 0o100000;
    const body = type === 'symlink' ? e.target ?? '' : e.content ?? '';
    files[type === 'dir' && !e.name.endsWith('/') ? `${e.name}/` : e.name] = [strToU8(body), { os: 3, attrs: ((kind | (e.mode ?? 0o644)) << 16) >>> 0 }];
  }
  return Buffer.from(zipSync(files));
}
