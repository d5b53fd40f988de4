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

function header(name: string, type: string, size: number, mode: number, target: string): Buffer {
  const block = Buffer.alloc(512);
  field(block, 0, 100, name);
  field(block, 100, 8, octal(mode, 8));
  field(block, 108, 8, octal(0, 8));
  field(block, 116, 8, octal(0, 8));
  field(block, 124, 12, octal(size, 12));
  field(block, 136, 12, octal(Math.floor(Date.now() / 1000), 12));
  field(block, 148, 8, '        ');
  field(block, 156, 1, type);
  field(block, 157, 100, target);
  field(block, 257, 6, 'ustar\0');
  field(block, 263, 2, '00');
  let sum = 0;
  for (const byte of block) sum += byte;
  field(block, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return block;
}

/** a pax record `<length> <key>=<value>\n`, its length counting its own digits */
function paxRecord(key: string, value: string): string {
  const rest = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(rest) + 1;
  while (String(length).length + Buffer.byteLength(rest) !== length) length++;
  return `${length}${rest}`;
}

const padded = (data: Buffer) => [data, Buffer.alloc((512 - (data.length % 512)) % 512)];

/** names and link targets over 100 bytes go in a pax extended header before the entry, as tar tools write them */
export function tar(entries: TestEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const type = e.type ?? 'file';
    const data = Buffer.from(type === 'file' ? e.content ?? '' : '');
    const pax = (Buffer.byteLength(e.name) > 100 ? paxRecord('path', e.name) : '') + (Buffer.byteLength(e.target ?? '') > 100 ? paxRecord('linkpath', e.target!) : '');
    if (pax) {
      const records = Buffer.from(pax);
      blocks.push(header('PaxHeader', 'x', records.length, 0o644, ''), ...padded(records));
    }
    blocks.push(header(e.name, flags[type], data.length, e.mode ?? (type === 'dir' ? 0o755 : 0o644), e.target ?? ''), ...padded(data));
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
