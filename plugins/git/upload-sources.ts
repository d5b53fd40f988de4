// A stack's source as an uploaded archive: unpacked and checked beside the current tree, then switched to (or a new stack made from it).
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { problem } from '../../sdk/index.ts';
import { ArchiveRefused, extractArchive } from './archive.ts';
import type { UploadInfo } from './store.ts';
import { readCompose } from './workspace.ts';
import type { CreateStack, SourceContext } from './source-context.ts';

export function uploadSources({ store, workspace, lock, settings, creating }: SourceContext) {
  /** the archive unpacked into `staging` and its compose file found; a refusal says nothing was changed */
  async function stageArchive(staging: string, archive: Buffer, opts: { composePath: string | null; strip: number }) {
    let extracted;
    try {
      extracted = await extractArchive(archive, staging, { ...settings.archive, strip: opts.strip });
    } catch (err) {
      if (err instanceof ArchiveRefused) throw problem(err.status, `${err.message}; nothing was changed`, { code: 'archive-refused' });
      throw err;
    }
    let compose: { path: string; text: string };
    try {
      compose = await readCompose(staging, opts.composePath);
    } catch (err) {
      const hint = opts.strip === 0 ? ' (if the archive holds one top folder, ?strip=1 takes the tree from inside it)' : '';
      throw problem(422, `${(err as Error).message}${hint}; nothing was changed`, { code: 'compose-missing' });
    }
    const upload: UploadInfo = {
      id: `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`, format: extracted.format,
      sha256: createHash('sha256').update(archive).digest('hex'), bytes: extracted.bytes, files: extracted.files, at: new Date().toISOString(),
    };
    return { upload, compose };
  }

  /** the staged tree moved to its place among the stack's uploads */
  async function moveIn(stack: string, staging: string, upload: UploadInfo): Promise<string> {
    const target = join(workspace.uploadsDir(stack), upload.id);
    await mkdir(dirname(target), { recursive: true });
    await rename(staging, target);
    return target;
  }

  return {
    /** checks the archive, writes it beside the current tree, then switches the stack to it; on refusal nothing changes */
    async upload(stack: string, archive: Buffer, opts: { composePath: string | null; strip: number }) {
      const staging = await workspace.staging();
      try {
        const { upload, compose } = await stageArchive(staging, archive, opts);
        return await lock(stack, async () => {
          const before = await store.get(stack);
          await workspace.pruneUploads(stack, before?.upload ? [before.upload.id] : []);
          await moveIn(stack, staging, upload);
          const row = await store.put(stack, {
            kind: 'upload', upload, composePath: opts.composePath === null ? null : compose.path,
            deployedCommit: before?.deployedCommit ?? null, deployedAt: before?.deployedAt ?? null,
            ...(before ? { autodeploy: before.autodeploy } : {}),
          });
          // the previous tree stays until the next upload: a deploy may be reading it right now
          if (before?.kind === 'git') await workspace.removeRepo(stack);
          return row;
        });
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    },

    /** a new stack from the archive: its tree in place, then the stack and its source in one transaction; on any refusal nothing is left */
    async createUploaded(stack: string, archive: Buffer, opts: { composePath: string | null; strip: number }, create: CreateStack) {
      const staging = await workspace.staging();
      try {
        const { upload, compose } = await stageArchive(staging, archive, opts);
        return await lock(stack, () => creating(stack, async () => {
          return create(compose.text, await moveIn(stack, staging, upload), async (tx) => {
            await store.put(stack, { kind: 'upload', upload, composePath: opts.composePath === null ? null : compose.path }, tx);
          });
        }));
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    },
  };
}
