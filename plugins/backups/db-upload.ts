// Uploaded database dumps (PUT /backups/{name}/uploads): streamed to a file under the plugin's data folder within a size limit, kept for their uploader and one backup until they expire, and recognised by their first bytes before a restore takes them.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { problem, type Actor } from '../../sdk/index.ts';
import type { Strategy } from './db-strategies.ts';

export const uploadIdPattern = '^[A-Za-z0-9_-]{32}$';
const hashOf = (id: string) => createHash('sha256').update(id).digest('hex');
const actorKey = (actor: Actor) => `${actor.kind}:${actor.name ?? ''}`;

interface UploadMeta { backup: string; actor: string; bytes: number; expiresAt: string }
export interface Upload { file: string; bytes: number }

export function createUploads(dir: string, ttlMs: number) {
  const paths = (id: string) => ({ dump: join(dir, `${hashOf(id)}.dump`), meta: join(dir, `${hashOf(id)}.json`) });
  return {
    /** the body written to a file chunk by chunk; 413 (and nothing kept) past `limit` bytes, 400 when empty */
    async receive(backup: string, body: Readable, limit: number, actor: Actor): Promise<{ id: string; bytes: number; expiresAt: string }> {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const id = randomBytes(24).toString('base64url');
      const { dump, meta } = paths(id);
      const part = `${dump}.part`;
      let bytes = 0;
      const counted = new Transform({
        transform(chunk: Buffer, _e, done) {
          bytes += chunk.length;
          done(bytes > limit ? problem(413, `the dump is larger than the upload limit of ${limit} bytes`) : null, chunk);
        },
      });
      try {
        await pipeline(body, counted, createWriteStream(part, { mode: 0o600 }));
        if (!bytes) throw problem(400, 'the body must be the dump (it is empty)');
        const expiresAt = new Date(Date.now() + ttlMs).toISOString();
        await writeFile(meta, JSON.stringify({ backup, actor: actorKey(actor), bytes, expiresAt } satisfies UploadMeta), { mode: 0o600 });
        await rename(part, dump);
        return { id, bytes, expiresAt };
      } catch (err) {
        body.resume();
        await Promise.all([rm(part, { force: true }), rm(meta, { force: true })]);
        throw err;
      }
    },
    /** the upload behind an id: null when unknown, expired, another backup's or another actor's */
    async find(backup: string, id: string, actor: Actor): Promise<Upload | null> {
      if (!new RegExp(uploadIdPattern).test(id)) return null;
      const { dump, meta } = paths(id);
      const m = await readFile(meta, 'utf8').then((t) => JSON.parse(t) as UploadMeta, () => null);
      if (!m || m.backup !== backup || m.actor !== actorKey(actor) || Date.parse(m.expiresAt) <= Date.now()) return null;
      return { file: dump, bytes: m.bytes };
    },
    async remove(id: string): Promise<void> {
      const { dump, meta } = paths(id);
      await Promise.all([rm(dump, { force: true }), rm(meta, { force: true })]);
    },
    /** removes expired uploads and the parts of interrupted ones (older than the time to live); answers how many */
    async sweep(): Promise<number> {
      const names = await readdir(dir).catch(() => [] as string[]);
      let removed = 0;
      for (const name of names.filter((n) => n.endsWith('.json'))) {
        const m = await readFile(join(dir, name), 'utf8').then((t) => JSON.parse(t) as UploadMeta, () => null);
        if (m && Date.parse(m.expiresAt) > Date.now()) continue;
        const base = name.slice(0, -'.json'.length);
        await Promise.all([rm(join(dir, `${base}.dump`), { force: true }), rm(join(dir, name), { force: true })]);
        removed++;
      }
      for (const name of names.filter((n) => n.endsWith('.part'))) {
        const handle = await open(join(dir, name)).catch(() => null);
        const stat = await handle?.stat();
        await handle?.close();
        if (stat && Date.now() - stat.mtimeMs > ttlMs) { await rm(join(dir, name), { force: true }); removed++; }
      }
      return removed;
    },
    stream: (upload: Upload): Readable => createReadStream(upload.file),
  };
}
export type Uploads = ReturnType<typeof createUploads>;

/** 422 not-a-dump unless the file's first bytes are what the strategy's restore tool reads */
export async function assertDumpOf(upload: Upload, strategy: Strategy): Promise<void> {
  const handle = await open(upload.file);
  const head = Buffer.alloc(4096);
  const { bytesRead } = await handle.read(head, 0, head.length, 0).finally(() => handle.close());
  const start = head.subarray(0, bytesRead);
  const gzip = start[0] === 0x1f && start[1] === 0x8b ? ' (it is gzip-compressed: upload it uncompressed)' : '';
  if (strategy === 'postgres') {
    if (start.subarray(0, 5).toString('latin1') === 'PGDMP') return;
    throw problem(422, `the upload is not a PostgreSQL dump in the custom format (pg_dump -Fc)${gzip}`, { code: 'not-a-dump' });
  }
  if (strategy === 'mysql' || strategy === 'mariadb') {
    const text = start.toString('utf8').trimStart();
    if (!start.includes(0) && /^(--|\/\*|[A-Za-z])/.test(text)) return;
    throw problem(422, `the upload is not a ${strategy} dump (SQL text, as mysqldump/mariadb-dump write it)${gzip}`, { code: 'not-a-dump' });
  }
  throw problem(422, `an uploaded dump cannot be restored with the ${strategy} strategy`, { code: 'wrong-strategy' });
}
